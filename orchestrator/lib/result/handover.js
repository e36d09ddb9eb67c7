// What each handover cost the call (pure): a peer moved to a new network mid-call (lib/network/handover.js). Per
// handover, each stream to or from the moved peer: its outage as the viewer saw it (the freeze across the move: the last
// frame shown before → the first after, lib/viewer/viewer.js), each of its connections' candidate pair before and after
// (lib/result/ice-paths.js), the pages' ICE restarts (client-app/ice-restart.js) and the time back to a steady rate
// (lib/stats/steady-rate.js). result.json `handovers`, and its summary `summary.handover` (the metric catalogue's).
import { meanOf, timeToSteady } from '../stats/steady-rate.js';
import { pathsSection } from './ice-paths.js';

/** A freeze is the move's outage when it starts this close before the move (a frame already on its way)… */
const OUTAGE_BEFORE_S = 1;
/** …or at most this long after it (the old path dies at once; frames queued behind it still arrive). */
const OUTAGE_AFTER_S = 5;

/**
 * @typedef {{ peer: string, remote: string, lastFrameAtS: number|null, firstFrameAtS: number|null, outageMs: number|null,
 *   recovered: boolean }} StreamOutage  peer: the viewer; remote: the sender. outageMs 0: frames never stopped; null: they
 *   did not come back
 * @typedef {import('./ice-paths.js').PathRun} PathRun
 * @typedef {{ peer: string, remote: string, before: PathRun|null, after: PathRun|null, changed: boolean }} PairChange
 *   changed: a new pair after the move, on another address
 * @typedef {{ peer: string, scheduledAtS: number, atS: number|null, fromAddress: string|null, toAddress: string|null,
 *   outageMs: number|null, recovered: boolean, streams: StreamOutage[], pairs: PairChange[], iceRestarts: number,
 *   timeToSteadyS: number|null }} HandoverResult  atS: when the emulator had moved the peer (null: it did not);
 *   outageMs: the longest of its streams' (null: one did not come back)
 * @typedef {{ handovers: number, outageMs: number|null, recovered: boolean, newPairShare: number|null, iceRestarts: number,
 *   timeToSteadyS: number|null }} HandoverSummary
 * @typedef {{ compiled: { handovers?: import('../network/handover.js').Handover[] },
 *   events: Array<{ epochMs: number, type: string, peer?: string|null, [field: string]: unknown }>,
 *   atS: (epochMs: number) => number|null, freezes: import('../viewer/viewer.js').ViewerFreeze[]|null,
 *   timeline: import('./result.js').TimelineEntry[], durationS: number }} HandoverInput
 */

/**
 * Each handover of the schedule, measured; null for a run without one.
 * @param {HandoverInput} input
 * @returns {HandoverResult[]|null}
 */
export function handoverSection({ compiled, events, atS, freezes, timeline, durationS }) {
  const planned = compiled.handovers ?? [];
  if (!planned.length) return null;
  const { connections } = pathsSection(timeline, null);
  /** @type {Array<Record<string, unknown> & { type: string, atS: number|null, peer?: unknown, remote?: unknown }>} */
  const timed = events.map((event) => ({ ...event, atS: atS(event.epochMs) }));
  return planned.map((handover, index) => {
    const done = timed.find((e) => e.type === 'handover' && e.peer === handover.peer && e.scheduledAtS === handover.atS);
    const fromS = done?.atS ?? handover.atS;
    const untilS = planned[index + 1]?.atS ?? durationS;
    const touches = (/** @type {{ peer?: unknown, remote?: unknown }} */ e) => e.peer === handover.peer || e.remote === handover.peer;
    const streams = streamsOf(timeline).filter(touches).map((stream) => streamOutage(stream, fromS, untilS, freezes ?? [], timeline));
    const recovered = streams.length > 0 && streams.every((stream) => stream.recovered);
    return {
      peer: handover.peer,
      scheduledAtS: handover.atS,
      atS: done?.atS ?? null,
      fromAddress: typeof done?.fromAddress === 'string' ? done.fromAddress : null,
      toAddress: typeof done?.toAddress === 'string' ? done.toAddress : null,
      outageMs: recovered ? Math.max(...streams.map((stream) => stream.outageMs ?? 0)) : null,
      recovered,
      streams,
      pairs: connections.filter(touches).map(({ peer, remote, paths }) => pairChange(peer, remote, paths, fromS)),
      iceRestarts: timed.filter((e) => e.type === 'ice-restart' && touches(e) && e.atS !== null && e.atS >= fromS && e.atS < untilS).length,
      timeToSteadyS: steadyAfter(timeline, streams, fromS, untilS),
    };
  });
}

/**
 * The run's one value per handover metric (the metric catalogue's handover*): the longest outage, null unless every
 * stream of every handover came back; the share of the moved peers' connections on a new pair.
 * @param {HandoverResult[]|null} handovers
 * @returns {HandoverSummary|null}
 */
export function handoverSummary(handovers) {
  if (!handovers) return null;
  const recovered = handovers.every((handover) => handover.recovered);
  const pairs = handovers.flatMap((handover) => handover.pairs);
  return {
    handovers: handovers.length,
    outageMs: recovered ? Math.max(...handovers.map((handover) => handover.outageMs ?? 0)) : null,
    recovered,
    newPairShare: pairs.length ? pairs.filter((pair) => pair.changed).length / pairs.length : null,
    iceRestarts: handovers.reduce((sum, handover) => sum + handover.iceRestarts, 0),
    timeToSteadyS: meanOf(handovers.map((handover) => handover.timeToSteadyS)),
  };
}

/** Every received stream of the timeline, as viewer and sender. @param {import('./result.js').TimelineEntry[]} timeline */
function streamsOf(timeline) {
  const keys = new Set(timeline.filter((entry) => entry.peer && entry.remote).map((entry) => `${entry.peer}\n${entry.remote}`));
  return [...keys].sort().map((key) => {
    const [peer, remote] = key.split('\n');
    return { peer, remote };
  });
}

/**
 * One stream's outage across the move: the longest freeze that starts around it. Without one, frames that kept coming
 * (some shown after the move) are no outage; none shown after it is a stream that never came back.
 * @param {{ peer: string, remote: string }} stream @param {number} fromS @param {number} untilS
 * @param {import('../viewer/viewer.js').ViewerFreeze[]} freezes @param {import('./result.js').TimelineEntry[]} timeline
 * @returns {StreamOutage}
 */
function streamOutage({ peer, remote }, fromS, untilS, freezes, timeline) {
  const across = freezes.filter((f) => f.peer === peer && f.remote === remote && f.atS !== null && f.durationMs !== null
    && f.atS >= fromS - OUTAGE_BEFORE_S && f.atS <= Math.min(fromS + OUTAGE_AFTER_S, untilS) && f.atS + f.durationMs / 1000 > fromS);
  const longest = [...across].sort((a, b) => (b.durationMs ?? 0) - (a.durationMs ?? 0))[0];
  if (longest && longest.atS !== null && longest.durationMs !== null) {
    const firstFrameAtS = Math.round((longest.atS + longest.durationMs / 1000) * 1000) / 1000;
    return { peer, remote, lastFrameAtS: longest.atS, firstFrameAtS, outageMs: longest.durationMs, recovered: true };
  }
  const shownAfter = timeline.some((entry) => entry.peer === peer && entry.remote === remote && entry.t > fromS && entry.t <= untilS
    && Number(entry.video?.framesShown) > 0);
  return { peer, remote, lastFrameAtS: null, firstFrameAtS: null, outageMs: shownAfter ? 0 : null, recovered: shownAfter };
}

/**
 * A connection's pair before the move (the last selected by then) and after it (the first selected after it; the one
 * before when ICE kept it). Changed: a new pair on another address at either end.
 * @param {string} peer @param {string} remote @param {PathRun[]} paths @param {number} fromS
 * @returns {PairChange}
 */
function pairChange(peer, remote, paths, fromS) {
  const none = /** @type {PathRun|null} */ (null);
  const before = paths.filter((p) => p.firstT <= fromS).reduce((a, b) => (b.lastT > (a?.lastT ?? -Infinity) ? b : a), none);
  const next = paths.filter((p) => p.firstT > fromS).reduce((a, b) => (b.firstT < (a?.firstT ?? Infinity) ? b : a), none);
  const after = next ?? (before && before.lastT > fromS ? before : null);
  const changed = Boolean(before && after && after !== before
    && (after.localAddress !== before.localAddress || after.remoteAddress !== before.remoteAddress));
  return { peer, remote, before, after, changed };
}

/**
 * The mean time to a steady video rate after the move over the streams it touched (lib/stats/steady-rate.js timeToSteady:
 * null when the time to the next handover or the end is too short to tell).
 * @param {import('./result.js').TimelineEntry[]} timeline @param {Array<{ peer: string, remote: string }>} streams
 * @param {number} fromS @param {number} untilS
 */
function steadyAfter(timeline, streams, fromS, untilS) {
  const times = streams.map(({ peer, remote }) => {
    /** @type {Array<[number, number|null]>} */
    const points = timeline.filter((entry) => entry.peer === peer && entry.remote === remote)
      .map((entry) => [entry.t, Number.isFinite(entry.video?.recvKbps) ? Number(entry.video?.recvKbps) : null]);
    return timeToSteady(points, fromS, untilS).timeToSteadyS;
  });
  const mean = meanOf(times);
  return mean === null ? null : Math.round(mean * 1000) / 1000;
}
