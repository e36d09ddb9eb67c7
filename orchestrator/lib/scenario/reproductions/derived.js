// Per-run values the published tables compare that the metric catalogue (lib/result/metric-catalogue.js) does not hold: per-peer
// totals of a multi-party call, per-flow rates and Jain's index by number of competing flows (summary.fairness), and
// the bottleneck's queuing delay (the emulator's truth). Pure: each reads one result.json.
import { capacityOf } from '../../cross/fairness.js';
import { finiteOrNull } from '../../stats/statistics.js';

/**
 * @typedef {any} ResultJson  any: a result.json read back from disk, of any schema version; every read below is
 *   optional-chained and kept only when it is a finite number (finiteOrNull)
 * @typedef {object} DerivedMetric
 * @property {string} path
 * @property {string} label
 * @property {string} unit
 * @property {number|null} decimals
 * @property {number} [scale]
 * @property {(result: ResultJson) => number|null} from
 */

/** @param {number|null} value @returns {value is number} */
const known = (value) => value !== null;
/** @param {number[]} values */
const mean = (values) => (values.length ? values.reduce((a, b) => a + b, 0) / values.length : null);

/** The mean over peers of one summary.peerTotals field. @param {string} field */
const peerTotal = (field) => (/** @type {ResultJson} */ result) => mean(Object.values(result?.summary?.peerTotals ?? {})
  .map((totals) => finiteOrNull(totals?.[field])).filter(known));

/** @param {ResultJson} result @returns {ResultJson[]} every phase of every link in summary.fairness */
const fairnessPhases = (result) => Object.values(result?.summary?.fairness?.links ?? {}).flatMap((link) => link?.phases ?? []);

/**
 * The seconds-weighted mean of a phase value over the phases that pass a test.
 * @param {ResultJson[]} phases @param {(phase: ResultJson) => number|null} valueOf
 */
function weighted(phases, valueOf) {
  let seconds = 0;
  let sum = 0;
  for (const phase of phases) {
    const value = valueOf(phase);
    if (value === null || !(phase.seconds > 0)) continue;
    seconds += phase.seconds;
    sum += value * phase.seconds;
  }
  return seconds ? sum / seconds : null;
}

/** Jain's index over the phases with exactly n flows (J16 §8-4 gives it per number of calls). @param {number} n */
const jainWithFlows = (n) => (/** @type {ResultJson} */ result) => weighted(fairnessPhases(result).filter((p) => p.flows?.length === n),
  (p) => finiteOrNull(p.jainIndex));

/**
 * A flow series' mean rate over the phases where every flow of its link runs (J16's 1408 vs 451 kbps are over the TCP
 * phase, I22's 0.106 vs 1.889 Mbps over the interval both flows run).
 * @param {string} series
 */
const flowKbps = (series) => (/** @type {ResultJson} */ result) => {
  const links = Object.values(result?.summary?.fairness?.links ?? {}).filter((link) => link?.flows?.includes(series));
  const phases = links.flatMap((link) => (link.phases ?? [])
    .filter((/** @type {ResultJson} */ p) => p.flows?.length === link.flows.length));
  return weighted(phases, (p) => finiteOrNull(p.meanKbps?.[series]));
};

/** The mean over the measurement window of the bottleneck's per-second median queuing delay (network.truth). @param {ResultJson} result */
function queueDelayMs(result) {
  const [fromS, toS] = result?.summary?.windowS ?? [0, Infinity];
  return mean((result?.network?.truth ?? [])
    .filter((/** @type {ResultJson} */ row) => row.link === 'bottleneck.fwd' && row.t > fromS && row.t <= toS)
    .map((/** @type {ResultJson} */ row) => finiteOrNull(row.queueDelayMsP50)).filter(known));
}

/**
 * A capped link's bytes out over its configured capacity in the measurement window, from the emulator's truth and
 * the configured rates (network.configured: each change of a link's parameters, from t = 0).
 * @param {ResultJson} result @param {string} link
 */
function truthUtilization(result, link) {
  const [fromS, toS] = result?.summary?.windowS ?? [0, Infinity];
  const configured = result?.network?.configured;
  const capacityAt = capacityOf(Array.isArray(configured) ? configured.filter((row) => finiteOrNull(row?.t) !== null) : [], link);
  let sentKbps = 0;
  let capacityKbps = 0;
  for (const row of result?.network?.truth ?? []) {
    if (row?.link !== link || !(row.t > fromS && row.t <= toS)) continue;
    const capacity = finiteOrNull(capacityAt(row.t - 1));
    const bytes = finiteOrNull(row.bytesOut);
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
const bottleneckUtilization = (/** @type {ResultJson} */ result) => finiteOrNull(result?.summary?.fairness?.links?.['bottleneck.fwd']?.utilization)
  ?? truthUtilization(result, 'bottleneck.fwd') ?? finiteOrNull(result?.summary?.utilization?.overall);

/** How many flows joined or left a bottleneck in the measurement window (summary.fairness's convergence events). */
const flowChanges = (/** @type {ResultJson} */ result) => {
  const links = Object.values(result?.summary?.fairness?.links ?? {});
  return links.length ? links.reduce((sum, link) => sum + (Array.isArray(link?.convergence) ? link.convergence.length : 0), 0) : null;
};

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
].map((metric) => Object.freeze(metric)));

const BY_PATH = new Map(DERIVED_METRICS.map((metric) => [metric.path, metric]));

/** @param {string} path @returns {DerivedMetric|undefined} */
export const derivedMetric = (path) => BY_PATH.get(path);
