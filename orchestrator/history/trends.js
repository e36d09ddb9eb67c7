// The trend dashboard's data (pure): per scenario, metric and night the median and IQR of the night's per-run
// medians (the stored aggregate, night-metrics.js), the gate's regressions, the published reference, browser
// changes and drift. Per night, so a year of nights × 54 scenarios stays a few MB however many runs a night had.
import { DEFAULT_DRIFT, describeDrift, detectDrift } from '../lib/stats/drift.js';
import { RUN_METRIC_PATHS, headlinePaths, metricByPath } from '../lib/result/metric-catalogue.js';

/** What the dashboard draws by default: the metrics the gate compares and the derived per-run figures. */
export const DASHBOARD_METRICS = [...headlinePaths('compared'), ...RUN_METRIC_PATHS];

/** Four significant digits: the dashboard draws, it does not store. @param {number} value */
const round = (value) => Number(value.toPrecision(4));
/** @param {number|null} value */
const roundOrNull = (value) => (value === null ? null : round(value));

/**
 * @typedef {import('./night-metrics.js').NightMetricRow} NightMetricRow
 * @typedef {{ id: string, started_at: string, outcome: string, browser: string|null, commit_sha: string|null,
 *   report: string|null }} NightRecord
 * @typedef {{ night_id: string, scenario: string, status: string, runs: number }} StatusRow
 * @typedef {import('../report/render-trends.js').TrendVerdict} Verdict
 * @typedef {import('../report/render-trends.js').TrendSeries} TrendSeries
 */

/** The catalogue entry of a dashboard metric; throws naming it when it is none. @param {string} path */
function catalogued(path) {
  const metric = metricByPath(path);
  if (!metric) throw new RangeError(`${path} is not a metric of lib/result/metric-catalogue.js: pass catalogue paths`);
  return metric;
}

/**
 * @param {object} input
 * @param {NightRecord[]} input.nights oldest first
 * @param {NightMetricRow[]} input.aggregates per night, scenario and metric
 * @param {StatusRow[]} input.statuses
 * @param {string[]} input.metrics catalogue paths, in the order shown
 * @param {{ nights: number, thresholdPct: number }} [input.drift]
 * @returns {import('../report/render-trends.js').Trends}
 */
export function buildTrends({ nights, aggregates, statuses, metrics, drift = DEFAULT_DRIFT }) {
  const nightIndex = new Map(nights.map((night, index) => [night.id, index]));
  /** @param {string} id a night's, present in nightIndex */
  const indexOf = (id) => nightIndex.get(id) ?? -1;
  /** @type {Map<string, Map<string, Array<NightMetricRow & { median: number }>>>} scenario -> metric -> aggregate rows */
  const grouped = new Map();
  for (const row of aggregates) {
    const { median } = row;
    if (!nightIndex.has(row.night_id) || typeof median !== 'number' || !Number.isFinite(median)) continue;
    const byMetric = grouped.get(row.scenario) ?? new Map();
    grouped.set(row.scenario, byMetric);
    byMetric.set(row.metric, [...(byMetric.get(row.metric) ?? []), { ...row, median }]);
  }
  const regressions = aggregates.filter((row) => row.regression && nightIndex.has(row.night_id));

  /** @type {Array<{ scenario: string, metric: string, worse: boolean, text: string }>} */
  const drifts = [];
  const scenarios = [...grouped.keys()].sort().map((name) => {
    /** @type {Record<string, TrendSeries>} */
    const series = {};
    for (const metric of metrics) {
      const rows = grouped.get(name)?.get(metric);
      if (!rows) continue;
      rows.sort((a, b) => indexOf(a.night_id) - indexOf(b.night_id));
      const x = rows.map((row) => indexOf(row.night_id));
      const found = detectDrift(rows.map((row) => row.median), { ...drift, worseWhen: catalogued(metric).worseWhen });
      series[metric] = {
        x, med: rows.map((row) => round(row.median)),
        q1: rows.map((row) => roundOrNull(row.q1)), q3: rows.map((row) => roundOrNull(row.q3)),
        n: rows.map((row) => Number(row.n)), reference: rows.findLast((row) => row.reference !== null)?.reference ?? null,
        regressions: rows.filter((row) => row.regression).map((row) => indexOf(row.night_id)),
        drift: found && { ...found, fromNight: x[found.fromIndex], text: describeDrift(name, metric, found) },
      };
      if (found) drifts.push({ scenario: name, metric, worse: found.worse, text: describeDrift(name, metric, found) });
    }
    return { name, latest: latestVerdict(name, nights, nightIndex, statuses, regressions), series };
  });

  return {
    nights: nights.map((night) => ({
      t: night.started_at, outcome: night.outcome, browser: night.browser, commit: night.commit_sha, report: night.report,
    })),
    browserChanges: browserChanges(nights),
    metrics: metrics.map((path) => {
      const { label, unit, worseWhen, scale = 1 } = catalogued(path);
      return { path, label, unit, worseWhen, scale };
    }),
    scenarios,
    drifts,
    drift,
  };
}

/** Nights whose browser differs from the night before: marked on every chart's axis. @param {{ browser: string|null }[]} nights */
export function browserChanges(nights) {
  /** @type {Array<{ night: number, from: string, to: string }>} */
  const changes = [];
  for (let i = 1; i < nights.length; i++) {
    const from = nights[i - 1].browser;
    const to = nights[i].browser;
    if (to && from && to !== from) changes.push({ night: i, from, to });
  }
  return changes;
}

/**
 * The scenario's newest night and what it said: regression (the gate), failed (a run did not pass) or passed.
 * @param {string} scenario @param {NightRecord[]} nights @param {Map<string, number>} nightIndex
 * @param {StatusRow[]} statuses @param {NightMetricRow[]} regressions
 * @returns {Verdict|null}
 */
function latestVerdict(scenario, nights, nightIndex, statuses, regressions) {
  const mine = statuses.filter((row) => row.scenario === scenario && nightIndex.has(row.night_id));
  if (!mine.length) return null;
  const night = Math.max(...mine.map((row) => nightIndex.get(row.night_id) ?? -1));
  const id = nights[night].id;
  if (regressions.some((row) => row.scenario === scenario && row.night_id === id)) return { night, verdict: 'regression' };
  const failed = mine.some((row) => row.night_id === id && row.status !== 'passed');
  return { night, verdict: failed ? 'failed' : 'passed' };
}
