// The `summary` section of result.json, computed from the timeline (pure).
import { pathConditions } from '../network/link-model.js';
import { describe } from '../stats/statistics.js';
import { fairnessFigures } from '../cross/fairness.js';
import { meanOf, meanTimeToSteadyS, timeToSteadyTable } from '../stats/steady-rate.js';
import { peerSeconds, peerTotals } from '../network/topology.js';
import { cpuLimitation, harnessCpuLimitation } from '../devices/cpu-limit.js';

const NOT_METRICS = new Set(['t', 'intervalS']);

/** @typedef {import('./result.js').TimelineEntry} TimelineEntry */
/**
 * A link's parameters from second t on (network.configured); a result written before traces existed has no trace.
 * @typedef {{t: number, link: string, trace?: string|null} & Omit<import('../network/link-model.js').LinkParams, 'trace'>} ConfiguredLink
 */

/**
 * Dotted paths of every numeric field of a timeline entry, e.g. ["video.recvKbps", "rttMs", …].
 * @param {object[]} entries @returns {string[]}
 */
export function metricKeys(entries) {
  /** @type {Set<string>} */
  const keys = new Set();
  /** @param {object} object @param {string} prefix */
  const walk = (object, prefix) => {
    for (const [key, value] of Object.entries(object ?? {})) {
      const dotted = prefix ? `${prefix}.${key}` : key;
      if (value !== null && typeof value === 'object') walk(value, dotted);
      else if (typeof value === 'number' && !NOT_METRICS.has(dotted)) keys.add(dotted);
    }
  };
  for (const entry of entries) walk(entry, '');
  return [...keys].sort();
}

/** @type {Map<string, string[]>} */
const pathKeys = new Map();

/**
 * The value at a dotted path, or undefined. Runs for every entry × metric (and every chart point), so each path is split once.
 * @param {unknown} entry @param {string} dotted @returns {unknown}
 */
export function valueAt(entry, dotted) {
  let keys = pathKeys.get(dotted);
  if (!keys) pathKeys.set(dotted, (keys = dotted.split('.')));
  // Any value but null and undefined can be indexed (a number's fields are undefined, as ?. gave).
  return keys.reduce((object, key) => (object === null || object === undefined ? undefined
    : /** @type {Record<string, unknown>} */ (object)[key]), entry);
}

/**
 * Link parameters in force at second t, from the network.configured array.
 * @param {ConfiguredLink[]} configured
 * @param {number} t
 * @returns {Record<string, ConfiguredLink>}
 */
export function linksAt(configured, t) {
  /** @type {Record<string, ConfiguredLink>} */
  const links = {};
  for (const entry of configured) {
    if (entry.t > t) continue;
    if (!links[entry.link] || links[entry.link].t <= entry.t) links[entry.link] = entry;
  }
  return links;
}

/**
 * @param {{ timeline: TimelineEntry[], warmupS: number, durationS: number, setupMs: Record<string, number|null>,
 *   configured: ConfiguredLink[], routes: Record<string, string[]>,
 *   scheduleEvents?: import('../stats/steady-rate.js').ChangeEvent[],
 *   flows?: { list: import('../cross/flows.js').FlowListEntry[], rows: Array<{ t: number, flow: string, rateKbps: number }> } }} input
 *   without scheduleEvents only the call start is a change, so timeToSteadyS is null; with flows (result.json's),
 *   fairness and the Jain figures are over the scenario's flows (lib/cross/fairness.js fairnessFigures)
 */
export function summarize({ timeline, warmupS, durationS, setupMs, configured, routes, scheduleEvents = [], flows }) {
  const window = timeline.filter((entry) => entry.t > warmupS && entry.t <= durationS);
  const keys = metricKeys(window);
  const peers = [...new Set(timeline.map((entry) => entry.peer))].sort();

  /** @type {Record<string, Record<string, ReturnType<typeof describe>>>} */
  const perPeer = {};
  for (const peer of peers) {
    const mine = window.filter((entry) => entry.peer === peer);
    perPeer[peer] = Object.fromEntries(keys.map((key) => [key, describe(mine.map((entry) => valueAt(entry, key)))]));
  }

  // Averaged over peers as J16 reports it: the mean of each per-peer statistic.
  /** @type {Record<string, {mean: number|null, sd: number|null, median: number|null, p5: number|null, p95: number|null, n: number}>} */
  const overall = {};
  for (const key of keys) {
    const stats = peers.map((peer) => perPeer[peer][key]).filter((s) => s.n > 0);
    // Over statistics with n > 0, whose fields are all numbers.
    /** @param {'mean'|'sd'|'median'|'p5'|'p95'} field */
    const mean = (field) => (stats.length ? stats.reduce((sum, s) => sum + (s[field] ?? 0), 0) / stats.length : null);
    overall[key] = { mean: mean('mean'), sd: mean('sd'), median: mean('median'), p5: mean('p5'), p95: mean('p95'), n: stats.reduce((sum, s) => sum + s.n, 0) };
  }

  // Utilisation (F's "ABU"): bits received over bits the path could carry, over the seconds that had a cap.
  /** @param {import('./result.js').MediaMetrics|undefined} metrics */
  const kbpsOf = (metrics) => (typeof metrics?.recvKbps === 'number' ? metrics.recvKbps : 0);
  /** @type {Record<string, number>} */
  const utilization = {};
  for (const peer of peers) {
    let receivedKb = 0;
    let capacityKb = 0;
    for (const entry of window.filter((e) => e.peer === peer)) {
      const route = routes[`${entry.remote}->${peer}`];
      const capKbps = route ? pathConditions(linksAt(configured, entry.t - 1), route).rateKbps : null;
      if (!capKbps) continue;
      receivedKb += (kbpsOf(entry.video) + kbpsOf(entry.audio)) * (entry.intervalS ?? 1);
      capacityKb += capKbps * (entry.intervalS ?? 1);
    }
    if (capacityKb > 0) utilization[peer] = receivedKb / capacityKb;
  }
  const utilValues = Object.values(utilization);
  if (utilValues.length) utilization.overall = utilValues.reduce((a, b) => a + b, 0) / utilValues.length;

  // setupMs has the main call's peers; extra calls connect later, on the flows' schedule.
  const setupValues = Object.values(setupMs).filter((v) => typeof v === 'number');
  const setupPeers = Object.keys(setupMs).length;
  const fairness = fairnessFigures({ timeline, routes, configured, windowS: [warmupS, durationS], flows });
  // Flows share the bottleneck: the run's utilisation is the bottleneck's (J16 §8-4-1's cumulative rate), not a peer's share.
  const bottleneckUtil = meanOf(Object.values(fairness.fairness?.links ?? {}).map((link) => link.utilization));
  if (bottleneckUtil !== null) utilization.overall = bottleneckUtil;
  return {
    windowS: /** @type {[number, number]} */ ([warmupS, durationS]),
    setupMs: /** @type {Record<string, number|null> & { max: number|null }} */ (
      { ...setupMs, max: setupValues.length === setupPeers && setupPeers ? Math.max(...setupValues) : null }),
    peers: perPeer,
    overall,
    utilization: utilValues.length || bottleneckUtil !== null ? utilization : null,
    ...fairness,
    timeToSteadyS: meanTimeToSteadyS(timeToSteadyTable(timeline, scheduleEvents, durationS).changes),
    // Each peer's connections summed: a mesh peer sends n − 1 copies (J16 §8-3).
    peerTotals: peerTotals(peerSeconds(window), [warmupS, durationS]),
    // The browser's reason, and beside it the harness's own verdict from encode time and frame rates.
    cpuLimitation: { ...cpuLimitation(timeline, [warmupS, durationS]), harness: harnessCpuLimitation(timeline, [warmupS, durationS]) },
  };
}
