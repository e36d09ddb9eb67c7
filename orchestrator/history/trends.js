// The trend dashboard's data (pure): per scenario, metric and night the median and IQR of the night's per-run
// medians (the stored aggregate, night-metrics.js), the gate's regressions, the published reference, browser
// changes and drift. Per night, so a year of nights × 54 scenarios stays a few MB however many runs a night had.
import { DEFAULT_DRIFT, describeDrift, detectDrift } from './drift.js';
import { RUN_METRIC_PATHS, headlinePaths, metricByPath } from '../lib/result/metric-catalogue.js';

/** What the dashboard draws by default: the metrics the gate compares and the derived per-run figures. */
export const DASHBOARD_METRICS = [...headlinePaths('compared'), ...RUN_METRIC_PATHS];

/** Four significant digits: the dashboard draws, it does not store. @param {number} value */
const round = (value) => Number(value.toPrecision(4));

/**
 * @param {object} input
 * @param {{ id: string, started_at: string, outcome: string, browser: string|null, commit_sha: string|null,
 *   report: string|null }[]} input.nights oldest first
 * @param {import('./night-metrics.js').NightMetricRow[]} input.aggregates per night, scenario and metric
 * @param {{ night_id: string, scenario: string, status: string, runs: number }[]} input.statuses
 * @param {string[]} input.metrics catalogue paths, in the order shown
 * @param {{ nights: number, thresholdPct: number }} [input.drift]
 */
export function buildTrends({ nights, aggregates, statuses, metrics, drift = DEFAULT_DRIFT }) {
  const nightIndex = new Map(nights.map((night, index) => [night.id, index]));
  /** scenario -> metric -> aggregate rows */
  const grouped = new Map();
  for (const row of aggregates) {
    if (!nightIndex.has(row.night_id) || !Number.isFinite(row.median)) continue;
    const byMetric = grouped.get(row.scenario) ?? grouped.set(row.scenario, new Map()).get(row.scenario);
    (byMetric.get(row.metric) ?? byMetric.set(row.metric, []).get(row.metric)).push(row);
  }
  const regressions = aggregates.filter((row) => row.regression && nightIndex.has(row.night_id));

  const drifts = [];
  const scenarios = [...grouped.keys()].sort().map((name) => {
    /** @type {Record<string, object>} */
    const series = {};
    for (const metric of metrics) {
      const rows = grouped.get(name).get(metric);
      if (!rows) continue;
      rows.sort((a, b) => nightIndex.get(a.night_id) - nightIndex.get(b.night_id));
      const x = rows.map((row) => nightIndex.get(row.night_id));
      const found = detectDrift(rows.map((row) => row.median), { ...drift, worseWhen: metricByPath(metric).worseWhen });
      series[metric] = {
        x, med: rows.map((row) => round(row.median)), q1: rows.map((row) => round(row.q1)), q3: rows.map((row) => round(row.q3)),
        n: rows.map((row) => Number(row.n)), reference: rows.findLast((row) => row.reference !== null)?.reference ?? null,
        regressions: rows.filter((row) => row.regression).map((row) => nightIndex.get(row.night_id)),
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
      const { label, unit, worseWhen, scale = 1 } = metricByPath(path);
      return { path, label, unit, worseWhen, scale };
    }),
    scenarios,
    drifts,
    drift,
  };
}

/** Nights whose browser differs from the night before: marked on every chart's axis. @param {{ browser: string|null }[]} nights */
export function browserChanges(nights) {
  const changes = [];
  for (let i = 1; i < nights.length; i++) {
    if (nights[i].browser && nights[i - 1].browser && nights[i].browser !== nights[i - 1].browser) {
      changes.push({ night: i, from: nights[i - 1].browser, to: nights[i].browser });
    }
  }
  return changes;
}

/**
 * The scenario's newest night and what it said: regression (the gate), failed (a run did not pass) or passed.
 * @returns {{ night: number, verdict: 'regression'|'failed'|'passed' }|null}
 */
function latestVerdict(scenario, nights, nightIndex, statuses, regressions) {
  const mine = statuses.filter((row) => row.scenario === scenario && nightIndex.has(row.night_id));
  if (!mine.length) return null;
  const night = Math.max(...mine.map((row) => nightIndex.get(row.night_id)));
  const id = nights[night].id;
  if (regressions.some((row) => row.scenario === scenario && row.night_id === id)) return { night, verdict: 'regression' };
  const failed = mine.some((row) => row.night_id === id && row.status !== 'passed');
  return { night, verdict: failed ? 'failed' : 'passed' };
}
