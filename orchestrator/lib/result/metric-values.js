// The metrics suites assert on and compare, and how a value is taken from a result (pure): read by the suite's
// assertions and baselines and by the results store's rows.
import { METRICS, METRIC_PATHS, RUN_METRIC_PATHS, metricByPath } from './metric-catalogue.js';
import { valueAt } from './run-summary.js';
import { finiteOrNull } from '../stats/statistics.js';

/**
 * The parts of a result.json read here, of any schema version (suite/summary.js SuiteResult and
 * report/result-file.js ReportResult have them).
 * @typedef {{ summary?: { overall?: object, windowS?: number[], [field: string]: unknown }|null,
 *   scenario?: { durationS?: number, warmupS?: number }, timeline?: Array<{ t: number, [field: string]: unknown }> }} ValuedResult
 */

/** Metrics with one value per run (not per second): summary.utilization.overall and summary.setupMs.max. */
export const RUN_METRICS = RUN_METRIC_PATHS;

/**
 * Which way is worse, per metric (docs/suites.md "Direction"), from the catalogue.
 * @type {Record<string, 'lower'|'higher'>}
 */
export const WORSE_WHEN = Object.fromEntries(METRICS.map((metric) => [metric.path, metric.worseWhen]));

/** Every metric a suite may name: the numeric timeline paths of docs/results-schema.md plus the per-run ones. */
export const KNOWN_METRICS = METRIC_PATHS;

/** @param {ValuedResult} result a result.json @param {string} metric a per-run metric */
function runLevelValue(result, metric) {
  const fromSummary = metricByPath(metric)?.fromSummary;
  if (!fromSummary) return null;
  return finiteOrNull(fromSummary(result.summary ?? {}));
}

/**
 * One number per metric for a run, the unit of the baseline comparison: summary.overall[metric].median
 * (the per-second median over the measurement window, averaged over peers); utilization and setupMs as above.
 * @param {ValuedResult} result a result.json
 * @returns {Record<string, number>} metrics without a value are left out
 */
export function runValues(result) {
  /** @type {Record<string, number>} */
  const values = {};
  /** @type {Array<[string, { median?: unknown }|null]>} per metric: result.summary.overall */
  const overall = Object.entries(result.summary?.overall ?? {});
  for (const [metric, stat] of overall) {
    const median = stat?.median;
    if (typeof median === 'number' && Number.isFinite(median)) values[metric] = median;
  }
  for (const metric of RUN_METRICS) {
    const value = runLevelValue(result, metric);
    if (value !== null) values[metric] = value;
  }
  return values;
}

/**
 * The values an assertion aggregates: every per-second value of every peer inside each run's measurement
 * window, pooled over the runs; for utilization and setupMs one value per run.
 * @param {ValuedResult[]} results result.json objects
 * @param {string} metric
 * @returns {number[]}
 */
export function metricPool(results, metric) {
  if (RUN_METRICS.includes(metric)) return results.map((result) => runLevelValue(result, metric)).filter((v) => v !== null);
  /** @type {number[]} */
  const pool = [];
  for (const result of results) {
    const [fromS, toS] = result.summary?.windowS ?? [result.scenario?.warmupS ?? 0, result.scenario?.durationS ?? Infinity];
    for (const entry of result.timeline ?? []) {
      if (!(entry.t > fromS && entry.t <= toS)) continue;
      const value = valueAt(entry, metric);
      if (typeof value === 'number' && Number.isFinite(value)) pool.push(value);
    }
  }
  return pool;
}
