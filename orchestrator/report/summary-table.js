// The rows of the summary table (thesis style: mean ± sd per peer and averaged, next to the
// scenario's published reference) and of the derived-figures table. Pure.

import { harnessCpuLimitation } from '../lib/devices/cpu-limit.js';
import { summarize } from '../lib/result/run-summary.js';
import { RUN_METRIC_PATHS, headlinePaths, metricByPath } from '../lib/result/metric-catalogue.js';
import { HarnessError } from '../lib/system/errors.js';
import { referenceValue } from '../lib/scenario/reference.js';
import { fairnessFigures, jainBySharedLink } from '../lib/cross/fairness.js';
import { meanTimeToSteadyS, timeToSteadyTable } from '../lib/stats/steady-rate.js';
import { fairnessByLink, perChangeReference } from './derived.js';
import { timeSpan } from './series.js';
import { finiteOrNull } from '../lib/stats/statistics.js';
import { isRecord } from '../lib/input/validate.js';

const RESOLUTION_KEYS = ['video.recvWidth', 'video.recvHeight'];
/** Table-level metrics every run has (an opt-in one is an extra row: shown when the run has it). */
const TABLE_KEYS = headlinePaths('table').filter((key) => !metricByPath(key)?.optIn);
/** Rows of the main table, in the order of J16 table 8-1 (the catalogue's); resolution is one "W × H" row. */
export const MAIN_ROWS = [...new Set(TABLE_KEYS.map((key) => (RESOLUTION_KEYS.includes(key) ? 'resolution' : key)))];
/** Further rows shown under the main ones when the run has data for them. */
export const EXTRA_ROWS = headlinePaths('detail').filter((key) => !TABLE_KEYS.includes(key));

/**
 * @typedef {ReturnType<typeof import('../lib/stats/statistics.js').describe>} Stat
 * @typedef {import('../lib/scenario/reference.js').ReferenceValue} RefStat
 * @typedef {{key: string, perPeer: Record<string, Stat|null>, overall: Stat|null, reference: RefStat|null, extra: boolean}} SummaryRow
 * @typedef {{width: Stat|null, height: Stat|null}} ResolutionStat
 * @typedef {{key: 'resolution', perPeer: Record<string, ResolutionStat>, overall: ResolutionStat,
 *   reference: {width: RefStat|null, height: RefStat|null}|null, extra: false}} ResolutionRow
 * @typedef {{peers: Record<string, Record<string, Stat>>, overall: Record<string, Stat>, utilization: Record<string, number>|null,
 *   setupMs: Record<string, number|null>, windowS: [number, number], computed: boolean}} RunStatistics
 */

/** summary.windowS as written: [from, to] in seconds (lib/result/run-summary.js). @param {unknown} v @returns {v is [number, number]} */
const isWindow = (v) => Array.isArray(v);

/**
 * The run's summary: result.summary when the run wrote one, else lib/result/run-summary.js's summarize over
 * the timeline (an aborted run), so both are computed the same way.
 * @param {import('./result-file.js').ReportResult} result normalized
 * @returns {RunStatistics}
 */
export function runStatistics(result) {
  const written = result.summary;
  if (written?.peers && Object.keys(written.peers).length) {
    const { endS } = timeSpan(result);
    return {
      peers: written.peers, overall: isRecord(written.overall) ? written.overall : {},
      utilization: isRecord(written.utilization) ? written.utilization : null, setupMs: isRecord(written.setupMs) ? written.setupMs : {},
      windowS: isWindow(written.windowS) ? written.windowS : [result.scenario.warmupS ?? 0, endS], computed: false,
    };
  }
  // A result.json read back has the shapes buildResult wrote (normalizeResult keeps only entries whose peer and remote
  // are strings), and summarize tolerates missing values in them: it summarized the same data when the run ended.
  const input = /** @type {Parameters<typeof summarize>[0]} */ ({
    timeline: result.timeline, warmupS: result.scenario.warmupS ?? 0, durationS: timeSpan(result).endS,
    setupMs: isRecord(written?.setupMs) ? written.setupMs : {}, configured: result.network.configured, routes: result.network.routes,
    scheduleEvents: result.network.scheduleEvents, flows: result.flows,
  });
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
 * @param {import('./result-file.js').ReportResult} result normalized
 * @returns {{peers: string[], rows: Array<SummaryRow|ResolutionRow>, windowS: [number, number], computed: boolean, source: string|null}}
 */
export function buildSummaryTable(result) {
  const stats = runStatistics(result);
  const peers = Object.keys(stats.peers).sort();
  const reference = result.scenario.reference;
  /** @param {string} key */
  const has = (key) => peers.some((p) => stats.peers[p]?.[key]?.n > 0) || stats.overall[key]?.n > 0;
  /** @param {string} key @param {boolean} extra @returns {SummaryRow} */
  const row = (key, extra) => ({
    key,
    perPeer: Object.fromEntries(peers.map((p) => [p, stats.peers[p]?.[key] ?? null])),
    overall: stats.overall[key] ?? null,
    reference: referenceValue(reference, key),
    extra,
  });
  /** @returns {ResolutionRow} */
  const resolutionRow = () => {
    const [width, height] = RESOLUTION_KEYS;
    /** @param {Record<string, Stat>|undefined} of */
    const both = (of) => ({ width: of?.[width] ?? null, height: of?.[height] ?? null });
    const refs = { width: referenceValue(reference, width), height: referenceValue(reference, height) };
    return {
      key: 'resolution',
      perPeer: Object.fromEntries(peers.map((p) => [p, both(stats.peers[p])])),
      overall: both(stats.overall),
      reference: refs.width || refs.height ? refs : null,
      extra: false,
    };
  };
  /** @type {Array<SummaryRow|ResolutionRow>} */
  const rows = MAIN_ROWS.map((key) => (key === 'resolution' ? resolutionRow() : row(key, false)));
  const shown = new Set([...MAIN_ROWS, ...RESOLUTION_KEYS]);
  const referenced = Object.keys(reference?.metrics ?? {}).filter((key) => referenceValue(reference, key));
  // Per-run metrics are figures of the derived table; a path outside the catalogue (an old result) has no row.
  /** @param {string} key */
  const perSecond = (key) => metricByPath(key)?.per === 'second';
  for (const key of [...EXTRA_ROWS.filter(has), ...referenced.filter(perSecond)]) {
    if (!shown.has(key)) { rows.push(row(key, true)); shown.add(key); }
  }
  return { peers, rows, windowS: stats.windowS, computed: stats.computed, source: reference?.source ?? null };
}

/**
 * One per-run figure of the derived table (a catalogue metric with per === 'run'), in the metric's own unit.
 * @typedef {{ path: string, perPeer: Record<string, number|null>|null, value: number|null,
 *   reference: RefStat|null, compared: number|null, comparedOver: number[]|null }} RunFigure
 *   compared: the run's value the reference is compared with; comparedOver, when it is not `value`: the scenario
 *   times (s) of the changes a per-change reference gives
 */

/**
 * Derived figures with their references: every per-run catalogue metric the run has a value or a reference for
 * (utilisation, set-up time, both Jain figures, time to steady rate), the time to steady rate after each change and
 * the fairness per shared link. Computed with the run summary's own functions, so a result without them in its
 * summary (older or aborted) shows the same figures.
 * @param {import('./result-file.js').ReportResult} result normalized
 */
export function buildDerived(result) {
  const stats = runStatistics(result);
  const reference = result.scenario.reference;
  const { routes, configured } = result.network;
  const groups = jainBySharedLink(result.timeline, routes, stats.windowS);
  const steady = timeToSteadyTable(result.timeline, result.network.scheduleEvents, stats.windowS[1]);
  const steadyRef = referenceValue(reference, 'timeToSteadyS');
  const perChange = perChangeReference(steady.changes, steadyRef?.byChangeAtS, result.scenario.timeScale ?? 1);
  // The summary's per-run fields, so each catalogue entry's fromSummary reads them.
  const { fairness: flowLinks, ...fair } = fairnessFigures({
    timeline: result.timeline, routes, configured, windowS: stats.windowS, flows: result.flows,
  });
  /** @type {Record<string, unknown>} */
  const figures = {
    utilization: stats.utilization, setupMs: stats.setupMs, timeToSteadyS: meanTimeToSteadyS(steady.changes), ...fair,
    cpuLimitation: { harness: harnessCpuLimitation(result.timeline, stats.windowS) },
    // Paired per mark from the pages' onsets and frame logs, which the timeline does not keep: the summary's.
    lipSync: result.summary?.lipSync ?? null,
    talk: result.summary?.talk ?? null,
    handover: result.summary?.handover ?? null,
  };
  const peers = Object.keys(stats.peers).sort();
  /** @param {unknown} v */
  /** @type {RunFigure[]} */
  const rows = RUN_METRIC_PATHS.map((path) => {
    const value = finiteOrNull(metricByPath(path)?.fromSummary?.(figures));
    const byPeer = figures[path];
    const perPeer = isRecord(byPeer) ? Object.fromEntries(peers.map((p) => [p, finiteOrNull(byPeer[p])])) : null;
    // perChange is there only with the reference's byChangeAtS.
    const overChanges = path === 'timeToSteadyS' && perChange ? Object.keys(steadyRef?.byChangeAtS ?? {}).map(Number) : null;
    return {
      path, perPeer, value, reference: referenceValue(reference, path),
      compared: overChanges && perChange ? perChange.runMeanS : value, comparedOver: overChanges,
    };
  }).filter((figure) => figure.value !== null || figure.reference !== null || Object.values(figure.perPeer ?? {}).some((v) => v !== null));
  const run = {
    jainIndex: finiteOrNull(fair.jainIndex), jainIndexPerSecond: finiteOrNull(fair.jainIndexPerSecond),
    reference: Object.fromEntries(['jainIndex', 'jainIndexPerSecond'].map((path) => [path, referenceValue(reference, path)])),
  };
  const fairness = { ...fairnessByLink(flowLinks, groups), run };
  return { figures: rows, computed: stats.computed, steady: { ...steady, perChange }, fairness };
}
