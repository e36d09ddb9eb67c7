// What the results store keeps of a suite (a "night") and of each run (pure): the rows, derived from
// summary.json and result.json. Keys come from the results themselves, so a second import finds the first's rows.
import path from 'node:path';
import { InputError } from '../lib/system/errors.js';
import { displayPath } from '../lib/input/json-file.js';
import { describeKind, expectName, isRecord } from '../lib/input/validate.js';
import { RUN_METRIC_PATHS, TIMELINE_METRIC_PATHS } from '../lib/result/metric-catalogue.js';
import { percentile } from '../lib/stats/statistics.js';
import { machineClass } from '../lib/result/machine-class.js';
import { metricPool, runValues } from '../lib/result/metric-values.js';

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

// Every field the store keeps is checked here, naming the file and field: the store binds only text, finite numbers
// and null (sql.js checks again), as better-sqlite3 spreads an array over several parameters and takes an object as
// named ones: an array in a hostile file would move its values into another run's rows.
const LEAVE_OUT = 'no run of this harness writes that: leave the directory out of the import';

/**
 * @param {unknown} value @param {string} where "file: field" @param {{ integer?: boolean, required?: boolean }} [options]
 * @returns {number|null}
 */
function storedNumber(value, where, { integer = false, required = false } = {}) {
  if ((value === undefined || value === null) && !required) return null;
  if (typeof value === 'number' && Number.isFinite(value) && (!integer || (Number.isInteger(value) && value >= 0))) return value;
  throw new InputError(`${where}: must be ${integer ? 'a whole number >= 0' : 'a finite number'}${required ? '' : ' or absent'}, got ${describeKind(value)}; ${LEAVE_OUT}`);
}

/** @param {unknown} value @param {string} where @param {{ required?: boolean }} [options] @returns {string|null} */
function storedText(value, where, { required = false } = {}) {
  if ((value === undefined || value === null) && !required) return null;
  if (typeof value === 'string') return value;
  throw new InputError(`${where}: must be text${required ? '' : ' or absent'}, got ${describeKind(value)}; ${LEAVE_OUT}`);
}

/** An ISO 8601 time: part of a run's or night's key. @param {unknown} value @param {string} where @returns {string} */
function storedTime(value, where) {
  if (typeof value === 'string' && Number.isFinite(Date.parse(value))) return value;
  throw new InputError(`${where}: must be an ISO 8601 time, got ${describeKind(value)}; ${LEAVE_OUT}`);
}

/**
 * The environment fields the machine class is made of. result.json's browser ({ name, version }) and summary.json's
 * (text) are checked by their callers.
 * @param {unknown} env  an environment of result.json or summary.json, checked here field by field
 * @param {string} where "file: environment"
 * @returns {Record<string, unknown>|null}
 */
function checkEnvironment(env, where) {
  if (env === null || env === undefined) return null;
  if (!isRecord(env)) throw new InputError(`${where}: must be an object, got ${describeKind(env)}; ${LEAVE_OUT}`);
  for (const field of ['os', 'cpuModel', 'emulator']) storedText(env[field], `${where}.${field}`);
  storedNumber(env.cpus, `${where}.cpus`, { integer: true });
  return env;
}

/**
 * @typedef {{ run_id: string, metric: string, median: number, mean: number|null, q1: number|null, q3: number|null,
 *   n: number, reference: number|null }} MetricRow
 * @typedef {{ id: string, night_id: string|null, scenario: string, repetition: number|null, started_at: string|null,
 *   status: string, commit_sha: string|null, browser: string|null, browser_version: string|null, emulator: string|null,
 *   machine_class: string|null, result_path: string|null, report: string|null }} RunRow
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
 * @param {string} [file] the result.json as messages name it
 * @returns {MetricRow[]}
 */
export function metricRows(result, runId, file = 'result.json') {
  /** @param {string} metric */
  const reference = (metric) => storedNumber(result.scenario?.reference?.metrics?.[metric]?.mean, `${file}: scenario.reference.metrics.${metric}.mean`);
  const rows = [];
  for (const metric of TIMELINE_METRIC_PATHS) {
    const stat = result.summary?.overall?.[metric];
    if (typeof stat?.median !== 'number' || !Number.isFinite(stat.median)) continue;
    const { q1, q3, n } = quartilesOverPeers(result, metric);
    const mean = storedNumber(stat.mean, `${file}: summary.overall.${metric}.mean`);
    const count = storedNumber(stat.n, `${file}: summary.overall.${metric}.n`, { integer: true }) ?? n;
    rows.push({ run_id: runId, metric, median: stat.median, mean, n: count, q1, q3, reference: reference(metric) });
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
  const file = resultPath ? displayPath(resultPath) : 'result.json';
  const env = result.environment;
  checkEnvironment(env, `${file}: environment`);
  const scenario = expectName(result.scenario.name, `${file}: scenario.name`);
  const startedAt = storedTime(env.startedAt, `${file}: environment.startedAt`);
  const name = storedText(env.browser.name, `${file}: environment.browser.name`);
  const version = storedText(env.browser.version, `${file}: environment.browser.version`);
  const id = runKey({ scenario: { name: scenario }, environment: { startedAt } });
  return {
    run: {
      id, night_id: nightId, scenario, repetition, started_at: startedAt,
      status: result.status, commit_sha: commit, browser: [name, version].filter(Boolean).join(' ') || null,
      browser_version: version, emulator: env.emulator ?? null,
      machine_class: machineClassText(env), result_path: resultPath, report,
    },
    metrics: metricRows(result, id, file),
  };
}

/**
 * The night's row and the gate's comparisons (every scenario × compared metric, with its verdict).
 * @param {Record<string, unknown>} summary summary.json; each field stored is checked here
 * @param {{ suiteDir: string|null, report: string|null, commit: string|null, importedAt: string }} where
 */
export function nightRecord(summary, { suiteDir, report, commit, importedAt }) {
  const file = displayPath(path.join(suiteDir ?? '', 'summary.json'));
  const env = checkEnvironment(summary.environment ?? null, `${file}: environment`);
  const suite = expectName(isRecord(summary.suite) ? summary.suite.name : undefined, `${file}: suite.name`);
  const startedAt = storedTime(summary.startedAt, `${file}: startedAt`);
  const shard = summary.shard ? storedShard(summary.shard, `${file}: shard`) : null;
  const id = nightKey({ suite: { name: suite }, startedAt, shard });
  const baseline = isRecord(summary.baseline) ? summary.baseline : null;
  const night = {
    id, suite, started_at: startedAt, ended_at: storedText(summary.endedAt, `${file}: endedAt`),
    outcome: storedText(summary.outcome, `${file}: outcome`, { required: true }),
    exit_code: storedNumber(summary.exitCode, `${file}: exitCode`, { integer: true }), commit_sha: commit,
    browser: storedText(env?.browser, `${file}: environment.browser`), emulator: storedText(env?.emulator, `${file}: environment.emulator`),
    machine_class: machineClassText(env), shard: shard ? `${shard.index}/${shard.count}` : null,
    suite_dir: suiteDir, report, imported_at: importedAt,
    // '' when compared with nothing (the first night, or a reset of the rolling baseline): history/query.js readGreenNights.
    compared_with: summary.baseline ? storedText(baseline?.source ?? baseline?.file ?? 'baseline', `${file}: baseline.source`) : '',
  };
  return { night, comparisons: comparisonsOf(summary.scenarios ?? [], id, file) };
}

/** @param {unknown} shard a truthy summary.shard @param {string} where "file: shard" @returns {{ index: number, count: number }} */
function storedShard(shard, where) {
  const given = isRecord(shard) ? shard : {};
  // required: a number, or storedNumber throws
  const whole = (/** @type {'index'|'count'} */ field) => /** @type {number} */ (storedNumber(given[field], `${where}.${field}`, { integer: true, required: true }));
  return { index: whole('index'), count: whole('count') };
}

/**
 * @param {unknown} list @param {string} where @returns {unknown[]}
 */
function storedList(list, where) {
  if (Array.isArray(list)) return list;
  throw new InputError(`${where}: must be a list, got ${describeKind(list)}; ${LEAVE_OUT}`);
}

/**
 * The gate's comparisons of summary.json's scenarios, checked field by field.
 * @param {unknown} scenarios summary.json's @param {string} nightId @param {string} file as messages name it
 */
function comparisonsOf(scenarios, nightId, file) {
  /** @param {unknown} value @returns {Record<string, unknown>} its fields, none when it has none */
  const fields = (value) => (isRecord(value) ? value : {});
  return storedList(scenarios, `${file}: scenarios`).flatMap((entry, i) => {
    const at = `${file}: scenarios[${i}]`;
    const scenario = fields(entry);
    const name = expectName(scenario.name, `${at}.name`);
    return storedList(scenario.regressions ?? [], `${at}.regressions`).map((regression, j) => {
      const where = `${at}.regressions[${j}]`;
      const check = fields(regression);
      /** @param {unknown} value @param {string} field */
      const number = (value, field) => storedNumber(value, `${where}.${field}`);
      return {
        night_id: nightId, scenario: name, metric: storedText(check.metric, `${where}.metric`, { required: true }),
        verdict: storedText(check.verdict, `${where}.verdict`, { required: true }),
        current_median: number(fields(check.current).median, 'current.median'), baseline_median: number(fields(check.baseline).median, 'baseline.median'),
        p_value: number(check.pValue, 'pValue'), cliffs_delta: number(check.cliffsDelta, 'cliffsDelta'),
        relative_change: number(check.relativeChange, 'relativeChange'),
      };
    });
  });
}
