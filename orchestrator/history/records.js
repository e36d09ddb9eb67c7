// What the results store keeps of a suite (a "night") and of each run (pure): the rows, derived from
// summary.json and result.json. Keys come from the results themselves, so a second import finds the first's rows.
import { RUN_METRIC_PATHS, TIMELINE_METRIC_PATHS } from '../lib/result/metric-catalogue.js';
import { percentile } from '../lib/stats/statistics.js';
import { machineClass } from '../suite/baseline.js';
import { metricPool, runValues } from '../suite/metrics.js';

/**
 * A run is one scenario started at one instant: the same key whether it is imported alone or with its suite.
 * @param {{ scenario?: { name?: string }, environment?: { startedAt?: string|null } }} result
 */
export const runKey = (result) => `${result.scenario?.name}@${result.environment?.startedAt}`;

/**
 * A night is one suite result (a shard's, a merge's or a local suite's).
 * @param {{ suite: { name: string }, startedAt: string, shard?: { index: number, count: number }|null }} summary  summary.json
 */
export function nightKey(summary) {
  const shard = summary.shard ? `#${summary.shard.index}/${summary.shard.count}` : '';
  return `${summary.suite.name}@${summary.startedAt}${shard}`;
}

/** The machine class as stored: JSON of lib's class object, so classes compare as text. @param {object|null} environment */
export const machineClassText = (environment) => (environment ? JSON.stringify(machineClass(environment)) : null);

/**
 * @typedef {{ run_id: string, metric: string, median: number, mean: number|null, q1: number|null, q3: number|null,
 *   n: number, reference: number|null }} MetricRow
 * @typedef {{ id: string, night_id: string|null, scenario: string, repetition: number|null, started_at: string|null,
 *   status: string, commit_sha: string|null, browser: string|null, browser_version: string|null, emulator: string|null,
 *   machine_class: string|null, result_path: string|null, report: string|null }} RunRow
 * @typedef {{ metric: string, verdict: string, current?: { median?: number|null }, baseline?: { median?: number|null },
 *   pValue?: number|null, cliffsDelta?: number|null, relativeChange?: number|null }} SuiteCheck  one of summary.json's
 *   scenarios[].regressions (suite/baseline.js)
 */

/**
 * Q1 and Q3 taken as summary.overall takes the median: per peer over its seconds in the window, then the mean over
 * the peers. Pooling the peers instead can leave the median outside its own IQR where peers have unequal counts
 * (VMAF: only the captured seconds have a value).
 * @param {import('../report/result-file.js').ReportResult} result @param {string} metric
 * @returns {{ q1: number|null, q3: number|null, n: number }}
 */
function quartilesOverPeers(result, metric) {
  const peers = [...new Set((result.timeline ?? []).map((entry) => entry.peer))];
  /** @type {Array<[number|null, number|null]>} */
  const quartiles = [];
  let n = 0;
  for (const peer of peers) {
    const mine = { ...result, timeline: (result.timeline ?? []).filter((entry) => entry.peer === peer) };
    const pool = metricPool([mine], metric).sort((a, b) => a - b);
    n += pool.length;
    if (pool.length) quartiles.push([percentile(pool, 25), percentile(pool, 75)]);
  }
  /** @param {0|1} i */
  const meanOf = (i) => (quartiles.length ? quartiles.reduce((sum, q) => sum + (q[i] ?? 0), 0) / quartiles.length : null);
  return { q1: meanOf(0), q3: meanOf(1), n };
}

/**
 * Every catalogue metric a run has a value for: per-second metrics with the median, mean and n of
 * summary.overall (what the gate compares) and the IQR of the per-second values in the measurement window,
 * averaged over peers as the median is; per-run metrics (utilisation, Jain, set-up, time to steady …) as one value.
 * @param {import('../report/result-file.js').ReportResult} result @param {string} runId
 * @returns {MetricRow[]}
 */
export function metricRows(result, runId) {
  /** @param {string} metric */
  const reference = (metric) => result.scenario?.reference?.metrics?.[metric]?.mean ?? null;
  const rows = [];
  for (const metric of TIMELINE_METRIC_PATHS) {
    const stat = result.summary?.overall?.[metric];
    if (!Number.isFinite(stat?.median)) continue;
    const { q1, q3, n } = quartilesOverPeers(result, metric);
    const mean = stat.mean ?? null;
    rows.push({ run_id: runId, metric, median: stat.median, mean, n: stat.n ?? n, q1, q3, reference: reference(metric) });
  }
  const values = runValues(result);
  for (const metric of RUN_METRIC_PATHS) {
    if (values[metric] === undefined) continue;
    const value = values[metric];
    rows.push({ run_id: runId, metric, median: value, mean: value, n: 1, q1: value, q3: value, reference: reference(metric) });
  }
  return rows;
}

/**
 * @param {import('../report/result-file.js').ReportResult} result a result.json as report/result-file.js reads it
 * @param {{ nightId?: string|null, repetition?: number|null, resultPath: string|null, report: string|null, commit: string|null }} where
 * @returns {{ run: RunRow, metrics: MetricRow[] }}
 */
export function runRecord(result, { nightId = null, repetition = null, resultPath, report, commit }) {
  const id = runKey(result);
  const browser = result.environment?.browser ?? {};
  return {
    run: {
      id, night_id: nightId, scenario: result.scenario.name, repetition, started_at: result.environment.startedAt,
      status: result.status, commit_sha: commit, browser: [browser.name, browser.version].filter(Boolean).join(' ') || null,
      browser_version: browser.version ?? null, emulator: result.environment.emulator ?? null,
      machine_class: machineClassText(result.environment), result_path: resultPath, report,
    },
    metrics: metricRows(result, id),
  };
}

/**
 * The night's row and the gate's comparisons (every scenario × compared metric, with its verdict).
 * @param {any} summary summary.json (any: suite/summary.js builds it untyped)
 * @param {{ suiteDir: string|null, report: string|null, commit: string|null, importedAt: string }} where
 */
export function nightRecord(summary, { suiteDir, report, commit, importedAt }) {
  const id = nightKey(summary);
  const env = summary.environment ?? null;
  const night = {
    id, suite: summary.suite.name, started_at: summary.startedAt, ended_at: summary.endedAt ?? null, outcome: summary.outcome,
    exit_code: summary.exitCode ?? null, commit_sha: commit, browser: env?.browser ?? null, emulator: env?.emulator ?? null,
    machine_class: machineClassText(env), shard: summary.shard ? `${summary.shard.index}/${summary.shard.count}` : null,
    suite_dir: suiteDir, report, imported_at: importedAt,
    // '' when compared with nothing (the first night, or a reset of the rolling baseline): history/query.js readGreenNights.
    compared_with: summary.baseline ? (summary.baseline.source ?? summary.baseline.file ?? 'baseline') : '',
  };
  /** @type {Array<{ name: string, regressions?: SuiteCheck[] }>} */
  const scenarios = summary.scenarios ?? [];
  const comparisons = scenarios.flatMap((scenario) => (scenario.regressions ?? []).map((check) => ({
    night_id: id, scenario: scenario.name, metric: check.metric, verdict: check.verdict,
    current_median: check.current?.median ?? null, baseline_median: check.baseline?.median ?? null,
    p_value: check.pValue ?? null, cliffs_delta: check.cliffsDelta ?? null, relative_change: check.relativeChange ?? null,
  })));
  return { night, comparisons };
}
