// result.json's `layers` (pure): in an SFU call whose peers publish simulcast or SVC, each publisher's layers at their
// resolutions, what each encoding sent per second, each subscriber's received layer per feed per second, the layer
// switches the harness asked for (time and cause), each subscriber's downlink rate changes, and the checks
// (layer-checks.js). Null without layered publishers.
import { configuredTimeline } from '../network/schedule.js';
import { SFU_NODE } from '../network/topology.js';
import { layerSizes } from '../media/publish.js';
import { SENT_MIN_KBPS, checkFollowsCap, checkFollowsTrace, checkLayerOrder, checkLayersSent, checkStaysOnTop } from './layer-checks.js';

/** @typedef {import('./layer-checks.js').SentRow} SentRow @typedef {import('./layer-checks.js').ReceivedRow} ReceivedRow */
/** @typedef {import('../media/publish.js').Publish} Publish */
/** @typedef {{ t: number, peer: string, remote: string, [metric: string]: unknown }} Entry */

/** @param {unknown} value @returns {number|null} */
const num = (value) => (typeof value === 'number' && Number.isFinite(value) ? value : null);

/**
 * The layer a received picture is: the layer nearest its height (Chromium may scale a layer down under load).
 * @param {Array<{ layer: number, heightPx: number }>} sizes @param {number|null} heightPx
 */
export function layerOfHeight(sizes, heightPx) {
  if (heightPx === null || !sizes.length) return null;
  return sizes.reduce((best, size) => (Math.abs(size.heightPx - heightPx) < Math.abs(best.heightPx - heightPx) ? size : best)).layer;
}

/**
 * Each publisher's largest picture sent per second (a layer sending above SENT_MIN_KBPS), by `${peer}@${t}`: built
 * once, read for every subscriber's every second.
 * @param {SentRow[]} sent @returns {Map<string, number>}
 */
function sentTopHeights(sent) {
  /** @type {Map<string, number>} */
  const tops = new Map();
  for (const row of sent) {
    if ((row.kbps ?? 0) <= SENT_MIN_KBPS || row.heightPx === null) continue;
    const key = `${row.peer}@${row.t}`;
    tops.set(key, Math.max(tops.get(key) ?? 0, row.heightPx));
  }
  return tops;
}

/**
 * A subscriber's downlink rate at the start and at each change during the call: a change the schedule makes after the
 * call ended (a shortened call) had no seconds to be followed in.
 * @param {string} peer @param {import('../network/schedule.js').CompiledNetwork} compiled @param {number} durationS
 * @returns {Array<{ atS: number, rateKbps: number|null }>}
 */
export function downlinkChanges(peer, compiled, durationS) {
  const link = `${peer}.down`;
  const changes = [{ atS: 0, rateKbps: compiled.links[link]?.rateKbps ?? null }];
  for (const event of compiled.events.filter((e) => e.link === link && e.atS < durationS)) {
    const rateKbps = event.params.rateKbps ?? null;
    if (rateKbps !== changes[changes.length - 1].rateKbps) changes.push({ atS: event.atS, rateKbps });
  }
  return changes;
}

/**
 * A subscriber's downlink capacity per second [t, t + 1) when a trace drives it at any time of the call (the trace's
 * mean, as network.configured shows it), else null: its rate changes are steps.
 * @param {string} peer @param {import('../network/schedule.js').CompiledNetwork} compiled @param {number} durationS
 * @returns {Array<{ t: number, rateKbps: number|null }>|null}
 */
export function downlinkTraceCapacity(peer, compiled, durationS) {
  const link = `${peer}.down`;
  const traced = Boolean(compiled.links[link]?.trace) || compiled.events.some((event) => event.link === link && event.params.trace);
  if (!traced) return null;
  return configuredTimeline(compiled, durationS).filter((row) => row.link === link)
    .map(({ t, rateKbps }) => ({ t, rateKbps: rateKbps ?? null }));
}

/**
 * @param {object} input
 * @param {Record<string, Publish>} input.publish
 * @param {Record<string, { width: number, height: number }>} input.media  each peer's video
 * @param {Entry[]} input.timeline
 * @param {Array<{ type: string, atS: number|null, [field: string]: unknown }>} input.events  the run's, on the media clock
 * @param {import('../network/schedule.js').CompiledNetwork} input.compiled
 * @param {string[]} input.peers  the main call's
 * @param {number} input.warmupS @param {number} input.durationS
 */
export function layersSection({ publish, media, timeline, events, compiled, peers, warmupS, durationS }) {
  const publishers = Object.fromEntries(Object.entries(publish).filter(([peer]) => media[peer]).map(([peer, p]) => [peer, {
    kind: p.kind, codec: p.codec.name, scalabilityMode: p.codec.scalabilityMode, temporalLayers: p.temporalLayers,
    inactiveRids: p.sendEncodings.filter((encoding) => encoding.active === false).map((encoding) => encoding.rid),
    layers: layerSizes(p, { widthPx: media[peer].width, heightPx: media[peer].height }),
  }]));
  if (!Object.keys(publishers).length) return null;
  /** @type {SentRow[]} */
  const sent = timeline.filter((entry) => publishers[entry.peer] && entry.remote === SFU_NODE && Array.isArray(entry.encodings))
    .flatMap((entry) => /** @type {Array<Record<string, unknown>>} */ (entry.encodings).map((encoding) => {
      const { layers, kind } = publishers[entry.peer];
      const rid = typeof encoding.rid === 'string' ? encoding.rid : null;
      const layer = kind === 'svc' ? layers.length - 1 : layers.find((size) => size.rid === rid)?.layer ?? null;
      return {
        t: entry.t, peer: entry.peer, rid, layer, widthPx: num(encoding.widthPx), heightPx: num(encoding.heightPx), fps: num(encoding.fps),
        kbps: num(encoding.kbps), active: typeof encoding.active === 'boolean' ? encoding.active : null,
      };
    }));
  /** @type {ReceivedRow[]} */
  const received = timeline.filter((entry) => publishers[entry.remote] && peers.includes(entry.peer)).map((entry) => {
    const video = /** @type {Record<string, unknown>} */ (entry.video ?? {});
    const heightPx = num(video.recvHeight);
    const fps = num(video.recvFps);
    // A second without a decoded frame shows no layer: its height is the last frame's, from before (a frozen feed).
    const layer = fps === 0 ? null : layerOfHeight(publishers[entry.remote].layers, heightPx);
    return {
      t: entry.t, peer: entry.peer, feed: entry.remote, layer,
      widthPx: num(video.recvWidth), heightPx, fps, kbps: num(video.recvKbps),
    };
  });
  const switches = events.filter((event) => event.type === 'layer-switch').map(({ atS, decidedAtS, peer, feed, from, to, cause, budgetKbps }) => ({
    atS, decidedAtS, peer, feed, from, to, cause, budgetKbps,
  }));
  const downlinks = Object.fromEntries(peers.map((peer) => [peer, downlinkChanges(peer, compiled, durationS)]));
  const inWindow = (/** @type {{ t: number }} */ row) => row.t > warmupS && row.t <= durationS;
  const sentTops = sentTopHeights(sent);
  const windowS = Math.max(1, Math.floor(durationS - warmupS));
  const checks = [
    ...Object.entries(publishers).flatMap(([peer, { layers, kind }]) => {
      const rows = sent.filter((row) => row.peer === peer && inWindow(row));
      const sizes = kind === 'svc' ? layers.slice(-1) : layers;
      return kind === 'svc' ? [checkLayersSent(peer, sizes, rows, windowS)] : [checkLayersSent(peer, sizes, rows, windowS), checkLayerOrder(peer, sizes, rows)];
    }),
    ...peers.flatMap((peer) => {
      const feeds = Object.keys(publishers).filter((feed) => feed !== peer);
      if (!feeds.length) return [];
      const mine = received.filter((row) => row.peer === peer);
      const trace = downlinkTraceCapacity(peer, compiled, durationS);
      if (trace) return [checkFollowsTrace(peer, mine.filter(inWindow), trace)];
      const changes = downlinks[peer];
      if (changes.length > 1) return [checkFollowsCap(peer, mine, changes, durationS)];
      if (changes[0].rateKbps !== null) return [];
      const offered = Object.fromEntries(feeds.map((feed) => [feed, {
        top: publishers[feed].layers.length - 1,
        sentTopAt: (/** @type {number} */ t) => layerOfHeight(publishers[feed].layers, sentTops.get(`${feed}@${t}`) ?? null),
      }]));
      return [checkStaysOnTop(peer, mine.filter(inWindow), offered, windowS)];
    }),
  ];
  return { publishers, sent, received, switches, downlinks, checks, passed: checks.every((check) => check.passed) };
}
