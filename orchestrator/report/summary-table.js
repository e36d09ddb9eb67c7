// The rows of the summary table (thesis style: mean ± sd per peer and averaged, next to the
// scenario's published reference) and of the derived-figures table. Pure.

import { summarize } from '../lib/run-summary.js';
import { RUN_METRIC_PATHS, headlinePaths } from '../lib/metrics.js';
import { HarnessError } from '../lib/errors.js';
import { mean, finite } from './timeline.js';
import { timeToSteadyTable, jainBySharedLink } from './derived.js';
import { timeSpan } from './series.js';

const RESOLUTION_KEYS = ['video.recvWidth', 'video.recvHeight'];
/** Rows of the main table, in the order of J16 table 8-1 (the catalogue's); resolution is one "W × H" row. */
export const MAIN_ROWS = [...new Set(headlinePaths('table').map((key) => (RESOLUTION_KEYS.includes(key) ? 'resolution' : key)))];
/** Further rows shown under the main ones when the run has data for them. */
export const EXTRA_ROWS = headlinePaths('detail').filter((key) => !headlinePaths('table').includes(key));
/** Reference keys shown in the derived-figures table, not the summary table: per-run metrics and the report's own figures. */
export const DERIVED_KEYS = [...RUN_METRIC_PATHS, 'jainIndex', 'timeToSteadyS'];

/**
 * @typedef {ReturnType<typeof import('../lib/statistics.js').describe>} Stat
 * @typedef {{mean?: number|null, sd?: number|null}} RefStat
 * @typedef {{key: string, perPeer: Record<string, Stat|null>, overall: Stat|null, reference: RefStat|null, extra: boolean}} SummaryRow
 * @typedef {{width: Stat|null, height: Stat|null}} ResolutionStat
 * @typedef {{key: 'resolution', perPeer: Record<string, ResolutionStat>, overall: ResolutionStat,
 *   reference: {width: RefStat|null, height: RefStat|null}|null, extra: false}} ResolutionRow
 * @typedef {{peers: Record<string, Record<string, Stat>>, overall: Record<string, Stat>, utilization: Record<string, number>|null,
 *   setupMs: Record<string, number|null>, windowS: [number, number], computed: boolean}} RunStatistics
 */

/** @param {unknown} v */
const isRecord = (v) => Boolean(v) && typeof v === 'object' && !Array.isArray(v);

/**
 * The run's summary: result.summary when the run wrote one, else lib/run-summary.js's summarize over
 * the timeline (an aborted run), so both are computed the same way.
 * @param {object} result normalized
 * @returns {RunStatistics}
 */
export function runStatistics(result) {
  const written = result.summary;
  if (written?.peers && Object.keys(written.peers).length) {
    const { endS } = timeSpan(result);
    return {
      peers: written.peers, overall: isRecord(written.overall) ? written.overall : {},
      utilization: isRecord(written.utilization) ? written.utilization : null, setupMs: isRecord(written.setupMs) ? written.setupMs : {},
      windowS: Array.isArray(written.windowS) ? written.windowS : [result.scenario.warmupS ?? 0, endS], computed: false,
    };
  }
  const input = {
    timeline: result.timeline, warmupS: result.scenario.warmupS ?? 0, durationS: timeSpan(result).endS,
    setupMs: isRecord(written?.setupMs) ? written.setupMs : {}, configured: result.network.configured, routes: result.network.routes,
  };
  let computed;
  try {
    computed = summarize(input);
  } catch (error) {
    // A configured section that misses a route's links: statistics without utilisation.
    if (!(error instanceof HarnessError)) throw error;
    computed = summarize({ ...input, routes: {} });
  }
  // summarize() fills its objects key by key, so its inferred return type ({} for them) is too loose to check.
  return /** @type {RunStatistics} */ (/** @type {unknown} */ ({ ...computed, setupMs: computed.setupMs ?? {}, computed: true }));
}

/**
 * @param {object} result normalized
 * @returns {{peers: string[], rows: Array<SummaryRow|ResolutionRow>, windowS: [number, number], computed: boolean, source: string|null}}
 */
export function buildSummaryTable(result) {
  const stats = runStatistics(result);
  const peers = Object.keys(stats.peers).sort();
  const refs = result.scenario.reference?.metrics ?? {};
  const has = (key) => peers.some((p) => stats.peers[p]?.[key]?.n > 0) || stats.overall[key]?.n > 0;
  const refOf = (key) => (refs[key] && typeof refs[key] === 'object' ? refs[key] : Number.isFinite(refs[key]) ? { mean: refs[key] } : null);
  /** @param {string} key @param {boolean} extra @returns {SummaryRow} */
  const row = (key, extra) => ({
    key,
    perPeer: Object.fromEntries(peers.map((p) => [p, stats.peers[p]?.[key] ?? null])),
    overall: stats.overall[key] ?? null,
    reference: refOf(key),
    extra,
  });
  /** @returns {ResolutionRow} */
  const resolutionRow = () => {
    const [width, height] = RESOLUTION_KEYS;
    /** @param {Record<string, Stat>|undefined} of */
    const both = (of) => ({ width: of?.[width] ?? null, height: of?.[height] ?? null });
    return {
      key: 'resolution',
      perPeer: Object.fromEntries(peers.map((p) => [p, both(stats.peers[p])])),
      overall: both(stats.overall),
      reference: refOf(width) || refOf(height) ? { width: refOf(width), height: refOf(height) } : null,
      extra: false,
    };
  };
  /** @type {Array<SummaryRow|ResolutionRow>} */
  const rows = MAIN_ROWS.map((key) => (key === 'resolution' ? resolutionRow() : row(key, false)));
  const shown = new Set([...MAIN_ROWS, ...RESOLUTION_KEYS]);
  for (const key of EXTRA_ROWS) if (has(key) && !shown.has(key)) { rows.push(row(key, true)); shown.add(key); }
  for (const key of Object.keys(refs)) if (!shown.has(key) && !DERIVED_KEYS.includes(key)) { rows.push(row(key, true)); shown.add(key); }
  return { peers, rows, windowS: stats.windowS, computed: stats.computed, source: result.scenario.reference?.source ?? null };
}

/**
 * Derived figures with their references: utilisation, set-up time, Jain's index per shared link,
 * time to steady rate after each change.
 * @param {object} result normalized
 */
export function buildDerived(result) {
  const { endS } = timeSpan(result);
  const stats = runStatistics(result);
  const refs = result.scenario.reference?.metrics ?? {};
  const refMean = (key) => (Number.isFinite(refs[key]) ? refs[key] : Number.isFinite(refs[key]?.mean) ? refs[key].mean : null);
  const util = stats.utilization ?? {};
  const setup = stats.setupMs ?? {};
  const steady = timeToSteadyTable(result.timeline, result.network.scheduleEvents, endS);
  const afterChanges = steady.changes.filter((c) => c.atS > 0);
  const jain = jainBySharedLink(result.timeline, result.network.routes, stats.windowS);
  return {
    utilization: { values: util, overall: Number.isFinite(util.overall) ? util.overall : mean(Object.values(util)), reference: refMean('utilization'), computed: stats.computed },
    setupMs: { values: setup, max: Number.isFinite(setup.max) ? setup.max : (finite(Object.values(setup)).length ? Math.max(...finite(Object.values(setup))) : null), reference: refMean('setupMs') },
    steady: { ...steady, meanAfterChangesS: mean(afterChanges.map((c) => c.meanS)), reference: refMean('timeToSteadyS') },
    jain: { groups: jain, reference: refMean('jainIndex') },
  };
}
