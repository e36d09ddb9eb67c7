// Time to steady rate after schedule changes (pure): the definition the run summary (timeToSteadyS), the report's
// per-change table and a scenario's reference all share. Inputs are parts of result.json.
import { describe, finiteOrNull } from './statistics.js';

/** Settings of the time-to-steady definition (documented in the report footer). */
export const STEADY = { smoothS: 5, tolerance: 0.15, minToleranceKbps: 20, tailFraction: 1 / 3, minSegmentS: 20 };

/** @typedef {Array<[number, number|null]>} Points */
/** @typedef {{ atS: number, link?: string, params?: object, cause?: string }} ChangeEvent */
/**
 * @typedef {{ atS: number, untilS: number, events: ChangeEvent[],
 *   perFlow: Array<{ steadyKbps: number|null, timeToSteadyS: number|null, n: number }>, meanS: number|null }} SteadyChange
 */

/** @param {Array<unknown>} values @returns {number|null} the mean of the finite values */
export function meanOf(values) {
  return describe(/** @type {Array<number|null>} */ (values)).mean;
}

/**
 * The flows in a timeline: one per (receiver, sender) pair, sorted.
 * @param {Array<{peer: string, remote?: string}>} timeline @returns {Array<{receiver: string, sender: string}>}
 */
export function flows(timeline) {
  const keys = new Set(timeline.filter((e) => e?.peer && e?.remote).map((e) => `${e.remote}->${e.peer}`));
  return [...keys].sort().map((k) => {
    const [sender, receiver] = k.split('->');
    return { receiver, sender };
  });
}

/**
 * The finite video receive rate of a timeline entry, or null.
 * @param {{ video?: Record<string, unknown> }|null|undefined} entry  a timeline entry: getStats fields as the page reported them
 */
function videoRecvKbps(entry) {
  return finiteOrNull(entry?.video?.recvKbps);
}

/**
 * Moments after which a steady rate is expected: the call start (t = 0) and every schedule change
 * followed by at least minSegmentS without another change. Events within 0.25 s are one change;
 * a ramp (a change every 0.5 s) thus counts once, at its last step.
 * @param {ChangeEvent[]} scheduleEvents
 * @param {number} endS
 * @param {number} [minSegmentS]
 * @returns {Array<{atS: number, untilS: number, events: ChangeEvent[]}>}
 */
export function changePoints(scheduleEvents, endS, minSegmentS = STEADY.minSegmentS) {
  const sorted = (scheduleEvents ?? []).filter((e) => Number.isFinite(e?.atS)).sort((a, b) => a.atS - b.atS);
  /** @type {Array<{atS: number, events: ChangeEvent[]}>} */
  const groups = [{ atS: 0, events: [] }];
  for (const e of sorted) {
    if (e.atS <= 0.25) groups[0].events.push(e);
    else if (e.atS - groups[groups.length - 1].atS < 0.25) groups[groups.length - 1].events.push(e);
    else groups.push({ atS: e.atS, events: [e] });
  }
  return groups
    .map((g, i) => ({ ...g, untilS: groups[i + 1]?.atS ?? endS }))
    .filter((g) => g.untilS - g.atS >= minSegmentS);
}

/**
 * Time to steady rate after a change at fromS, within the segment [fromS, toS).
 * Definition: the steady rate S is the median rate over the last third of the segment. The rate is
 * smoothed with a 5 s forward mean (r̄(t) = mean of samples in [t, t + 5 s)). The time to steady is
 * t* − fromS, where t* is the earliest sample time from which r̄ stays within ±15 % of S (at least
 * ±20 kbps) up to the end of the segment. Not reached (null) when the last smoothed value is outside,
 * and null when S is below 20 kbps (no media).
 * @param {Points} points [t, kbps], sorted
 * @param {number} fromS @param {number} toS
 * @param {Partial<typeof STEADY>} [options]
 * @returns {{steadyKbps: number|null, timeToSteadyS: number|null, n: number}}
 */
export function timeToSteady(points, fromS, toS, options = {}) {
  const { smoothS, tolerance, minToleranceKbps, tailFraction } = { ...STEADY, ...options };
  const samples = points.filter(/** @returns {point is [number, number]} */ (point) => point[0] >= fromS && point[0] < toS
    && Number.isFinite(point[1]));
  if (samples.length < 2 * smoothS) return { steadyKbps: null, timeToSteadyS: null, n: samples.length };
  const tailFrom = toS - (toS - fromS) * tailFraction;
  const steady = describe(samples.filter(([t]) => t >= tailFrom).map(([, v]) => v)).median;
  // No media to settle (the call died or never carried video): nothing to time.
  if (steady === null || steady < minToleranceKbps) return { steadyKbps: steady, timeToSteadyS: null, n: samples.length };
  const band = Math.max(steady * tolerance, minToleranceKbps);
  const lastStart = samples[samples.length - 1][0] - smoothS + 1e-9;
  /** @type {number|null} */
  let firstInBand = null;
  let end = 0;
  let sum = 0;
  for (let i = 0; i < samples.length && samples[i][0] <= lastStart; i += 1) {
    const t = samples[i][0];
    while (end < samples.length && samples[end][0] < t + smoothS) sum += samples[end++][1];
    const smoothed = sum / (end - i);
    sum -= samples[i][1];
    if (Math.abs(smoothed - steady) > band) firstInBand = null;
    else if (firstInBand === null) firstInBand = t;
  }
  return { steadyKbps: steady, timeToSteadyS: firstInBand === null ? null : firstInBand - fromS, n: samples.length };
}

/**
 * Each flow's video receive rate per second, in time order: [t, kbps or null].
 * @param {Array<{ t: number, peer: string, remote?: string, video?: Record<string, unknown> }>} timeline  as the pages reported it
 * @param {Array<{receiver: string, sender: string}>} [of]  the flows (default: every flow of the timeline)
 * @returns {Points[]}
 */
export function videoRateSeries(timeline, of = flows(timeline)) {
  return of.map((f) => timeline
    .filter((e) => e && e.peer === f.receiver && e.remote === f.sender && Number.isFinite(e.t))
    .sort((a, b) => a.t - b.t)
    .map((e) => /** @type {[number, number|null]} */ ([e.t, videoRecvKbps(e)])));
}

/**
 * Time to steady video rate for every flow after every change point.
 * @param {Array<{ t: number, peer: string, remote?: string, video?: Record<string, unknown> }>} timeline  as the pages reported it
 * @param {ChangeEvent[]} scheduleEvents @param {number} endS
 * @returns {{flows: Array<{receiver: string, sender: string}>, changes: SteadyChange[]}}
 */
export function timeToSteadyTable(timeline, scheduleEvents, endS) {
  const fl = flows(timeline);
  const series = videoRateSeries(timeline, fl);
  const changes = changePoints(scheduleEvents, endS).map((c) => {
    const perFlow = series.map((pts) => timeToSteady(pts, c.atS, c.untilS));
    return { ...c, perFlow, meanS: meanOf(perFlow.map((r) => r.timeToSteadyS)) };
  });
  return { flows: fl, changes };
}

/**
 * Whether a run's change is the scenario's change at nominalS as written (a reference's byChangeAtS key): within 1 s
 * once the run's time scale is undone. The call start is no change.
 * @param {{ atS: number }} change from timeToSteadyTable, in run seconds
 * @param {number} nominalS @param {number} timeScale the run's (nominal seconds × timeScale = run seconds)
 */
export const isChangeAt = (change, nominalS, timeScale) => change.atS > 0
  && Math.abs(change.atS / (timeScale > 0 ? timeScale : 1) - nominalS) <= 1;

/**
 * The run's time to steady rate (timeToSteadyS): the mean over the schedule changes after the call start of each
 * change's mean over flows; null when no change was followed by a long enough segment.
 * @param {SteadyChange[]} changes from timeToSteadyTable
 */
export function meanTimeToSteadyS(changes) {
  return meanOf(changes.filter((c) => c.atS > 0).map((c) => c.meanS));
}
