// Per-run values the published tables compare that the metric catalogue (lib/result/metric-catalogue.js) does not hold: per-peer
// totals of a multi-party call, per-flow rates and Jain's index by number of competing flows (summary.fairness), the
// bottleneck's queuing delay (the emulator's truth), the time to a steady rate after the call's start or one schedule
// change ('timeToSteadyS@0', 'timeToSteadyS@60': the catalogue's timeToSteadyS is the mean over every change) and the
// peak video rate. Pure: each reads one result.json.
import { capacityOf } from '../../cross/fairness.js';
import { fieldOf, isRecord, pathOf } from '../../input/validate.js';
import { finiteOrNull } from '../../stats/statistics.js';
import { isChangeAt, timeToSteadyTable, videoRateSeries } from '../../stats/steady-rate.js';

/**
 * @typedef {object} DerivedMetric
 * @property {string} path
 * @property {string} label
 * @property {string} unit
 * @property {number|null} decimals
 * @property {number} [scale]
 * @property {(result: unknown) => number|null} from  result: a result.json read back from disk, of any schema version;
 *   every read below checks the kind of what it takes, and a figure counts only when it is a finite number
 */

/** @param {number|null} value @returns {value is number} */
const known = (value) => value !== null;
/** @param {number[]} values */
const mean = (values) => (values.length ? values.reduce((a, b) => a + b, 0) / values.length : null);
/** A map's values; nothing for a missing one. @param {unknown} value @returns {unknown[]} */
const valuesOf = (value) => Object.values(value ?? {});
/** @param {unknown} value */
const countOf = (value) => (Array.isArray(value) ? value.length : undefined);

/** The mean over peers of one summary.peerTotals field. @param {string} field */
const peerTotal = (field) => (/** @type {unknown} */ result) => mean(valuesOf(pathOf(result, 'summary', 'peerTotals'))
  .map((totals) => finiteOrNull(fieldOf(totals, field))).filter(known));

/** @param {unknown} result @returns {unknown[]} every phase of every link in summary.fairness */
const fairnessPhases = (result) => valuesOf(pathOf(result, 'summary', 'fairness', 'links')).flatMap((link) => fieldOf(link, 'phases') ?? []);

/**
 * The seconds-weighted mean of a phase value over the phases that pass a test.
 * @param {unknown[]} phases @param {(phase: unknown) => number|null} valueOf
 */
function weighted(phases, valueOf) {
  let seconds = 0;
  let sum = 0;
  for (const phase of phases) {
    const value = valueOf(phase);
    const phaseS = fieldOf(phase, 'seconds');
    if (value === null || !(typeof phaseS === 'number' && phaseS > 0)) continue;
    seconds += phaseS;
    sum += value * phaseS;
  }
  return seconds ? sum / seconds : null;
}

/** Jain's index over the phases with exactly n flows (J16 §8-4 gives it per number of calls). @param {number} n */
const jainWithFlows = (n) => (/** @type {unknown} */ result) => weighted(fairnessPhases(result).filter((p) => countOf(fieldOf(p, 'flows')) === n),
  (p) => finiteOrNull(fieldOf(p, 'jainIndex')));

/**
 * A flow series' mean rate over the phases where every flow of its link runs (J16's 1408 vs 451 kbps are over the TCP
 * phase, I22's 0.106 vs 1.889 Mbps over the interval both flows run).
 * @param {string} series
 */
const flowKbps = (series) => (/** @type {unknown} */ result) => {
  const phases = valuesOf(pathOf(result, 'summary', 'fairness', 'links')).flatMap((link) => {
    const flows = fieldOf(link, 'flows');
    const linkPhases = fieldOf(link, 'phases');
    if (!Array.isArray(flows) || !flows.includes(series) || !Array.isArray(linkPhases)) return [];
    return linkPhases.filter((p) => countOf(fieldOf(p, 'flows')) === flows.length);
  });
  return weighted(phases, (p) => finiteOrNull(pathOf(p, 'meanKbps', series)));
};

/**
 * Whether a second lies in the measurement window (summary.windowS, (fromS, toS]; all of the run without one).
 * @param {unknown} result @returns {(t: unknown) => boolean}
 */
function inWindow(result) {
  const windowS = pathOf(result, 'summary', 'windowS') ?? [0, Infinity];
  const [fromS, toS] = Array.isArray(windowS) ? windowS : [];
  return (t) => typeof t === 'number' && typeof fromS === 'number' && typeof toS === 'number' && t > fromS && t <= toS;
}

/** network.truth's rows; none without one. @param {unknown} result @returns {unknown[]} */
function truthRows(result) {
  const truth = pathOf(result, 'network', 'truth');
  return Array.isArray(truth) ? truth : [];
}

/** The mean over the measurement window of the bottleneck's per-second median queuing delay (network.truth). @param {unknown} result */
function queueDelayMs(result) {
  const within = inWindow(result);
  return mean(truthRows(result).filter((row) => fieldOf(row, 'link') === 'bottleneck.fwd' && within(fieldOf(row, 't')))
    .map((row) => finiteOrNull(fieldOf(row, 'queueDelayMsP50'))).filter(known));
}

/**
 * A capped link's bytes out over its configured capacity in the measurement window, from the emulator's truth and
 * the configured rates (network.configured: each change of a link's parameters, from t = 0).
 * @param {unknown} result @param {string} link
 */
function truthUtilization(result, link) {
  const within = inWindow(result);
  const configured = pathOf(result, 'network', 'configured');
  const changes = (Array.isArray(configured) ? configured : []).flatMap((row) => {
    const t = finiteOrNull(fieldOf(row, 't'));
    return t !== null && fieldOf(row, 'link') === link ? [{ t, link, rateKbps: finiteOrNull(fieldOf(row, 'rateKbps')) }] : [];
  });
  const capacityAt = capacityOf(changes, link);
  let sentKbps = 0;
  let capacityKbps = 0;
  for (const row of truthRows(result)) {
    const t = fieldOf(row, 't');
    if (fieldOf(row, 'link') !== link || typeof t !== 'number' || !within(t)) continue;
    const capacity = finiteOrNull(capacityAt(t - 1));
    const bytes = finiteOrNull(fieldOf(row, 'bytesOut'));
    if (capacity === null || bytes === null) continue;
    sentKbps += (bytes * 8) / 1000;
    capacityKbps += capacity;
  }
  return capacityKbps > 0 ? sentKbps / capacityKbps : null;
}

/**
 * The bottleneck's utilisation from summary.fairness (every flow's bytes), else from the relay's truth (a single flow),
 * else the call's (summary.utilization: the peers' mean, which counts a one-way call's idle direction).
 */
const bottleneckUtilization = (/** @type {unknown} */ result) => finiteOrNull(pathOf(result, 'summary', 'fairness', 'links', 'bottleneck.fwd', 'utilization'))
  ?? truthUtilization(result, 'bottleneck.fwd') ?? finiteOrNull(pathOf(result, 'summary', 'utilization', 'overall'));

/** How many flows joined or left a bottleneck in the measurement window (summary.fairness's convergence events). */
const flowChanges = (/** @type {unknown} */ result) => {
  const links = valuesOf(pathOf(result, 'summary', 'fairness', 'links'));
  return links.length ? links.reduce((/** @type {number} */ sum, link) => sum + (countOf(fieldOf(link, 'convergence')) ?? 0), 0) : null;
};
/**
 * The time to a steady video rate after the scenario's change at nominalS (as written, e.g. J16 §8-2-1's 1:00): the
 * mean over flows that the run report's per-change table shows (lib/stats/steady-rate.js), the change matched as a
 * reference's byChangeAtS is; null without such a change or when no flow settled.
 * @param {number} nominalS
 */
const steadyAfterChange = (nominalS) => (/** @type {unknown} */ result) => {
  const timeline = fieldOf(result, 'timeline');
  const events = pathOf(result, 'network', 'scheduleEvents');
  const windowS = pathOf(result, 'summary', 'windowS');
  const endS = finiteOrNull(Array.isArray(windowS) ? windowS[1] : pathOf(result, 'scenario', 'durationS'));
  if (!Array.isArray(timeline) || !Array.isArray(events) || endS === null) return null;
  // timeToSteadyTable reads each entry's fields by kind (finite t, video.recvKbps) and skips the others.
  const entries = /** @type {Parameters<typeof timeToSteadyTable>[0]} */ (timeline.filter(isRecord));
  const changeEvents = /** @type {Parameters<typeof timeToSteadyTable>[1]} */ (events.filter(isRecord));
  const { changes } = timeToSteadyTable(entries, changeEvents, endS);
  const timeScale = finiteOrNull(pathOf(result, 'scenario', 'timeScale')) ?? 1;
  // @0 is the call's start (J16 §8-3's "15 s vs 30 s to a stable rate"), which isChangeAt leaves out.
  return changes.find((change) => (nominalS === 0 ? change.atS === 0 : isChangeAt(change, nominalS, timeScale)))?.meanS ?? null;
};

/** The seconds a peak rate is held over: one second's rate is a frame burst, not a rate the call reached. */
const PEAK_HOLD_S = 5;

/**
 * The highest rate each direction's video reached and held for PEAK_HOLD_S seconds in the measurement window,
 * averaged over the directions (J16 §8-7: the phones' maximum data rate, 1750 against Chrome's 2500 kbps).
 * @param {unknown} result
 */
const peakVideoKbps = (result) => {
  const timeline = fieldOf(result, 'timeline');
  if (!Array.isArray(timeline)) return null;
  const within = inWindow(result);
  // videoRateSeries reads each entry's fields by kind (finite t, video.recvKbps) and skips the others.
  const series = videoRateSeries(/** @type {Parameters<typeof videoRateSeries>[0]} */ (timeline.filter(isRecord)))
    .map((points) => points.flatMap(([t, kbps]) => (within(t) && kbps !== null ? [kbps] : [])));
  const heldMeans = (/** @type {number[]} */ rates) => rates.slice(PEAK_HOLD_S - 1)
    .map((_, i) => rates.slice(i, i + PEAK_HOLD_S).reduce((a, b) => a + b, 0) / PEAK_HOLD_S);
  return mean(series.filter((rates) => rates.length >= PEAK_HOLD_S).map((rates) => Math.max(...heldMeans(rates))));
};

/** A per-change column's path: the catalogue metric, '@', the change's nominal second ('timeToSteadyS@60'). */
const PER_CHANGE = /^(timeToSteadyS)@(\d+(?:\.\d+)?)$/;

/**
 * A per-change column's metric and the change's nominal second, or null for any other path.
 * @param {string} path @returns {{ path: string, atS: number }|null}
 */
export function perChangePath(path) {
  const match = PER_CHANGE.exec(path);
  return match ? { path: match[1], atS: Number(match[2]) } : null;
}

/** @type {readonly DerivedMetric[]} */
export const DERIVED_METRICS = Object.freeze([
  { path: 'peerTotals.uplinkKbps', label: 'Uplink per peer (all its connections)', unit: 'kbps', decimals: null, from: peerTotal('uplinkKbps') },
  { path: 'peerTotals.downlinkKbps', label: 'Downlink per peer (all its connections)', unit: 'kbps', decimals: null, from: peerTotal('downlinkKbps') },
  { path: 'peerTotals.downlinkToUplink', label: 'Downlink ÷ uplink per peer', unit: '×', decimals: 2, from: peerTotal('downlinkToUplink') },
  { path: 'fairness.jain2Flows', label: "Jain's index with 2 flows", unit: '', decimals: 3, from: jainWithFlows(2) },
  { path: 'fairness.jain3Flows', label: "Jain's index with 3 flows", unit: '', decimals: 3, from: jainWithFlows(3) },
  { path: 'flowKbps.call:fwd', label: 'Call rate while all flows run', unit: 'kbps', decimals: null, from: flowKbps('call:fwd') },
  { path: 'flowKbps.tcp', label: 'TCP rate while all flows run', unit: 'kbps', decimals: null, from: flowKbps('tcp') },
  { path: 'flowKbps.data', label: 'Data channel (SCTP) rate while all flows run', unit: 'kbps', decimals: null, from: flowKbps('data') },
  { path: 'bottleneck.utilization', label: 'Bottleneck utilisation (all flows)', unit: '%', scale: 100, decimals: 1, from: bottleneckUtilization },
  { path: 'fairness.changes', label: 'Flows joining or leaving in the window', unit: '', decimals: 0, from: flowChanges },
  { path: 'bottleneck.queueDelayMs', label: 'Queuing delay at the bottleneck (per-second median, mean)', unit: 'ms', decimals: 1, from: queueDelayMs },
  { path: 'video.peakRecvKbps', label: `Peak video rate (highest ${PEAK_HOLD_S} s mean per direction)`, unit: 'kbps', decimals: null, from: peakVideoKbps },
].map((metric) => Object.freeze(metric)));

const BY_PATH = new Map(DERIVED_METRICS.map((metric) => [metric.path, metric]));

/** @param {string} path @returns {DerivedMetric|undefined} */
export function derivedMetric(path) {
  const change = perChangePath(path);
  if (!change) return BY_PATH.get(path);
  const label = change.atS === 0 ? 'Time to steady rate after the call starts' : `Time to steady rate after the change at ${change.atS} s`;
  return Object.freeze({ path, label, unit: 's', decimals: 1, from: steadyAfterChange(change.atS) });
}
