// The harness's layer choice during an SFU call whose SFU leaves it to the clients (sfu/contract.js layerChoice
// `harness`: Janus VideoRoom): once a second, each subscriber's last complete second of samples goes through
// lib/media/layer-choice.js, and each switch it decides is asked of the SFU (SfuRoom.selectLayer) and recorded as a
// `layer-switch` event with its time and cause.
import { chooseLayers, initialState, ladder, upstreamLossFeeds } from '../lib/media/layer-choice.js';
import { SFU_NODE, scenarioPeers } from '../lib/network/topology.js';
import { errorMessage } from '../lib/system/errors.js';
import { sfuNamed } from '../sfu/index.js';

/** @typedef {import('../lib/media/publish.js').Publish} Publish */
/** @typedef {import('../lib/result/result.js').TimelineEntry} TimelineEntry */

/** Samples of a second come within about a second of its end; a second is decided once a later one has begun. */
const DECIDE_AFTER_S = 1;

/**
 * What a publisher sent per spatial layer in one second, lowest first, from its sample to the SFU: simulcast per rid;
 * SVC, one stream, split by the layers' pixels (a spatial layer costs about its share of them, the lower ones included).
 * @param {Publish} publish @param {TimelineEntry|undefined} sample
 * @returns {Array<number|null>}
 */
export function layerKbpsOf(publish, sample) {
  const encodings = /** @type {Array<{ rid: string|null, kbps: number|null }>|undefined} */ (sample?.encodings);
  if (!encodings) return Array(publish.spatialLayers).fill(null);
  if (publish.kind === 'simulcast') {
    const rids = publish.sendEncodings.map((encoding) => encoding.rid).reverse();
    return rids.map((rid) => encodings.find((encoding) => encoding.rid === rid)?.kbps ?? null);
  }
  const total = encodings[0]?.kbps ?? null;
  const pixels = Array.from({ length: publish.spatialLayers }, (_, s) => 4 ** s);
  const all = pixels.reduce((a, b) => a + b, 0);
  return pixels.map((_, s) => (total === null ? null : (total * pixels.slice(0, s + 1).reduce((a, b) => a + b, 0)) / all));
}

/**
 * What a publisher's layers carried that a subscriber could have received in a second: per layer the lower of that
 * second's rate and the one before, as what was sent late in a second arrives in the next (a ramping publisher doubles
 * its rate from one second to the next, and the subscriber's second then reads half of it).
 * @param {Array<number|null>} now @param {Array<number|null>} before
 * @returns {Array<number|null>}
 */
export function deliverableKbps(now, before) {
  return now.map((kbps, layer) => {
    const earlier = before[layer] ?? null;
    return kbps === null || earlier === null ? kbps : Math.min(kbps, earlier);
  });
}

/**
 * @param {object} options
 * @param {Record<string, Publish>} options.publish  the layered publishers
 * @param {string[]} options.peers     the main call's peers: every one subscribes to every other
 * @param {TimelineEntry[]} options.samples  the recorder's, growing as the pages send them
 * @param {(subscriber: string, feed: string, layer: import('../lib/media/layer-choice.js').Layer) => Promise<void>} options.selectLayer
 * @param {(event: { type: string, [field: string]: unknown }) => void} options.record
 * @param {(message: string) => void} options.warn
 */
export function createLayerController({ publish, peers, samples, selectLayer, record, warn }) {
  const subscribers = peers.map((peer) => {
    const ladders = Object.fromEntries(peers.filter((feed) => feed !== peer && publish[feed])
      .map((feed) => [feed, ladder(publish[feed].spatialLayers, publish[feed].temporalLayers)]));
    return { peer, ladders, state: initialState(ladders) };
  }).filter((subscriber) => Object.keys(subscriber.ladders).length > 0);
  /** @type {Map<number, Map<string, TimelineEntry>>} t → "peer\nremote" → its sample */
  const bySecond = new Map();
  let read = 0;
  let nextT = 1;

  /** @type {Map<string, TimelineEntry>} */
  let previous = new Map();

  /** @param {number} t */
  function decide(t) {
    const second = bySecond.get(t) ?? new Map();
    bySecond.delete(t);
    /** @param {string} feed */
    const layerKbps = (feed) => deliverableKbps(layerKbpsOf(publish[feed], second.get(`${feed}\n${SFU_NODE}`)),
      layerKbpsOf(publish[feed], previous.get(`${feed}\n${SFU_NODE}`)));
    const readingsOf = subscribers.map((subscriber) => Object.keys(subscriber.ladders).flatMap((feed) => {
      const own = second.get(`${subscriber.peer}\n${feed}`);
      const video = /** @type {{ recvKbps?: number|null, lossPct?: number|null }|undefined} */ (own?.video);
      return own ? [{ feed, recvKbps: video?.recvKbps ?? null, lossPct: video?.lossPct ?? null, layerKbps: layerKbps(feed) }] : [];
    }));
    const upstream = upstreamLossFeeds(readingsOf);
    for (const [index, subscriber] of subscribers.entries()) {
      const readings = readingsOf[index].map((reading) => (upstream.has(reading.feed) ? { ...reading, lossPct: null } : reading));
      const { state, switches } = chooseLayers(subscriber.state, subscriber.ladders, readings, { atS: t });
      subscriber.state = state;
      for (const change of switches) {
        record({ type: 'layer-switch', peer: subscriber.peer, decidedAtS: t, ...change });
        selectLayer(subscriber.peer, change.feed, change.to).catch((error) => warn(`layer of ${change.feed} for ${subscriber.peer}: ${errorMessage(error)}`));
      }
    }
    previous = second;
  }

  return {
    /** Takes the samples that arrived and decides every second now complete. */
    tick() {
      let latest = 0;
      for (; read < samples.length; read += 1) {
        const sample = samples[read];
        if (sample.t < nextT) continue;
        if (!bySecond.has(sample.t)) bySecond.set(sample.t, new Map());
        bySecond.get(sample.t)?.set(`${sample.peer}\n${sample.remote}`, sample);
      }
      for (const t of bySecond.keys()) latest = Math.max(latest, t);
      while (nextT + DECIDE_AFTER_S <= latest) decide(nextT++);
    },
    get active() { return subscribers.length > 0; },
  };
}

/**
 * Starts the harness's layer choice when the call has layered publishers and its SFU leaves the choice to the clients
 * (by what the SFU declares); null otherwise.
 * @param {import('./call-state.js').LiveCall} call
 * @returns {{ stop: () => void }|null}
 */
export function startLayerChoice(call) {
  const { sfuRoom, scenario, recorder } = call;
  const selectLayer = sfuRoom?.selectLayer;
  if (!selectLayer || !Object.keys(scenario.publish ?? {}).length || sfuNamed(call.sfuName).capabilities.layerChoice !== 'harness') return null;
  const controller = createLayerController({
    publish: scenario.publish, peers: scenarioPeers(scenario), samples: recorder.samples, selectLayer,
    record: (event) => recorder.event(event),
    warn: (message) => recorder.event({ type: 'warning', source: 'layer-choice', message }),
  });
  if (!controller.active) return null;
  const timer = setInterval(() => controller.tick(), 250);
  return { stop: () => clearInterval(timer) };
}
