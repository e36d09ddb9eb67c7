// Baselines (per-run values of a suite result) and the regression check against one (pure).
// Format and decision rule: docs/suites.md "Baselines".
import { InputError } from '../lib/system/errors.js';
import { describeValue, expectNumber, expectObject, expectText } from '../lib/input/validate.js';
import { cliffsDelta, mannWhitneyU } from '../lib/stats/significance.js';
import { median } from '../lib/stats/statistics.js';
import { headlinePaths, metricByPath } from '../lib/result/metric-catalogue.js';
import { MACHINE_CLASS_FIELDS, describeMachineClass, machineClass, sameMachineClass } from '../lib/result/machine-class.js';
import { KNOWN_METRICS, WORSE_WHEN } from '../lib/result/metric-values.js';

export const BASELINE_KIND = 'webrtc-testbed-baseline';
export const BASELINE_SCHEMA_VERSION = 1;
/** Below this many runs on either side the comparison is inconclusive, never a pass. */
export const MIN_RUNS_PER_SIDE = 5;

/**
 * @typedef {{ alpha: number, minEffectSize: number, minRelativeChange: number, metrics: string[] }} RegressionOptions
 *   a regression needs all three: p < alpha, |Cliff's delta| >= minEffectSize and |relative change of the
 *   medians| >= minRelativeChange, the last two in the metric's worse direction
 */

/** @type {RegressionOptions} */
export const DEFAULT_REGRESSION = {
  alpha: 0.05,
  // "Large" by Romano et al. (2006); with 5 runs a side p < 0.05 already needs |delta| >= 0.84.
  minEffectSize: 0.474,
  minRelativeChange: 0.1,
  metrics: headlinePaths('compared'),
};

const REGRESSION_FIELDS = Object.keys(DEFAULT_REGRESSION);

/**
 * Validates a partial regression section (suite file or flags) and fills it from base.
 * @param {unknown} raw @param {string} where "file: regression" or "flags"
 * @param {RegressionOptions} [base]
 * @returns {RegressionOptions}
 */
export function resolveRegressionOptions(raw, where, base = DEFAULT_REGRESSION) {
  const given = expectObject(raw ?? {}, where, REGRESSION_FIELDS);
  const options = { ...base };
  if (given.alpha !== undefined) options.alpha = expectNumber(given.alpha, `${where}.alpha`, { above: 0, max: 0.5 });
  if (given.minEffectSize !== undefined) options.minEffectSize = expectNumber(given.minEffectSize, `${where}.minEffectSize`, { min: 0, max: 1 });
  if (given.minRelativeChange !== undefined) options.minRelativeChange = expectNumber(given.minRelativeChange, `${where}.minRelativeChange`, { min: 0 });
  if (given.metrics !== undefined) options.metrics = expectMetricList(given.metrics, `${where}.metrics`);
  return options;
}

/** @param {unknown} value @param {string} where */
function expectMetricList(value, where) {
  if (!Array.isArray(value) || value.length === 0) throw new InputError(`${where}: must be a non-empty array of metric names, got ${describeValue(value)}`);
  for (const [index, metric] of value.entries()) {
    if (!KNOWN_METRICS.includes(metric)) throw new InputError(`${where}[${index}]: unknown metric ${describeValue(metric)}; known: ${KNOWN_METRICS.join(', ')}`);
  }
  return [...value];
}

/** @typedef {import('../lib/result/machine-class.js').MachineClass} MachineClass */

export const ALLOW_MISMATCH_FLAG = '--allow-machine-mismatch';

/**
 * Refuses a comparison across machine classes unless allowed; a baseline without a recorded class (saved
 * before classes were recorded) counts as unknown, so it needs the flag too.
 * @param {{ file: string, data: Baseline }} baseline
 * @param {MachineClass} current the class of the runs compared with it
 * @param {{ allowMismatch?: boolean, what?: string }} [options] what: the runs, e.g. "the runs in shard-2 are"
 * @returns {string|null} a note for the outputs when a mismatch was allowed, else null
 * @throws {InputError} on a mismatch without allowMismatch
 */
export function checkMachineClass(baseline, current, { allowMismatch = false, what = 'these runs are' } = {}) {
  const recorded = baseline.data.machineClass ?? null;
  if (sameMachineClass(recorded, current)) return null;
  const classes = `baseline ${baseline.file} is of machine class ${describeMachineClass(recorded)}${recorded ? '' : ' (saved before machine classes were recorded)'}, ${what} of ${describeMachineClass(current)}`;
  if (allowMismatch) return `${classes}: compared anyway (${ALLOW_MISMATCH_FLAG})`;
  throw new InputError(`${classes}; numbers from different machines are not comparable: use a baseline saved on this machine class (\`baseline save\`), or pass ${ALLOW_MISMATCH_FLAG} to compare anyway`);
}

/**
 * @typedef {{ kind: string, schemaVersion: number, suite: string, createdAt: string, source: string|null,
 *   environment: object, machineClass?: MachineClass|null,
 *   scenarios: Record<string, { runs: number, values: Record<string, number[]> }> }} Baseline
 */

/**
 * A baseline from a suite summary: per scenario, every passed run's value of every metric.
 * @param {import('./summary.js').SuiteSummary} summary summary.json of a suite or merge
 * @param {{ source?: string|null, createdAt?: string }} [options]
 * @returns {Baseline}
 */
export function baselineFromSummary(summary, { source = null, createdAt = new Date().toISOString() } = {}) {
  /** @type {Baseline['scenarios']} */
  const scenarios = {};
  for (const run of summary.runs) {
    if (run.status !== 'passed') continue;
    const entry = (scenarios[run.scenario] ??= { runs: 0, values: {} });
    entry.runs += 1;
    for (const [metric, value] of Object.entries(run.values ?? {})) (entry.values[metric] ??= []).push(value);
  }
  return {
    kind: BASELINE_KIND, schemaVersion: BASELINE_SCHEMA_VERSION, suite: summary.suite.name, createdAt, source,
    environment: summary.environment ?? {}, machineClass: summary.environment ? machineClass(summary.environment) : null, scenarios,
  };
}

/**
 * Validates a parsed baseline file.
 * @param {unknown} raw @param {string} file shown in errors
 * @returns {Baseline}
 */
export function parseBaseline(raw, file) {
  const top = expectObject(raw, file, ['kind', 'schemaVersion', 'suite', 'createdAt', 'source', 'environment', 'machineClass', 'scenarios']);
  if (top.kind !== BASELINE_KIND) {
    throw new InputError(`${file}: kind: must be "${BASELINE_KIND}", got ${describeValue(top.kind)}; create a baseline with \`baseline save <suite-dir>\``);
  }
  if (top.schemaVersion !== BASELINE_SCHEMA_VERSION) {
    throw new InputError(`${file}: schemaVersion: this harness reads ${BASELINE_SCHEMA_VERSION}, got ${describeValue(top.schemaVersion)}; save the baseline again with this version`);
  }
  expectText(top.suite, `${file}: suite`, { what: 'the suite name', allowEmpty: true });
  if (top.machineClass !== undefined && top.machineClass !== null) {
    const machine = expectObject(top.machineClass, `${file}: machineClass`, MACHINE_CLASS_FIELDS);
    for (const field of MACHINE_CLASS_FIELDS) {
      const value = machine[field];
      const ok = value === null || (field === 'cores' ? typeof value === 'number' && Number.isInteger(value) && value > 0 : typeof value === 'string' && value !== '');
      if (!ok) throw new InputError(`${file}: machineClass.${field}: must be ${field === 'cores' ? 'a positive integer' : 'a non-empty string'} or null, got ${describeValue(value)}; save the baseline again`);
    }
  }
  const scenarios = expectObject(top.scenarios, `${file}: scenarios`, null, { what: 'an object of scenario name -> { runs, values }' });
  for (const [name, entry] of Object.entries(scenarios)) {
    const where = `${file}: scenarios.${name}`;
    const scenario = expectObject(entry, where, ['runs', 'values']);
    expectNumber(scenario.runs, `${where}.runs`, { min: 0, integer: true });
    const values = expectObject(scenario.values, `${where}.values`, KNOWN_METRICS);
    for (const [metric, list] of Object.entries(values)) {
      if (!Array.isArray(list)) throw new InputError(`${where}.values.${metric}: must be an array of per-run numbers, got ${describeValue(list)}`);
      list.forEach((value, index) => expectNumber(value, `${where}.values.${metric}[${index}]`));
    }
  }
  return /** @type {Baseline} */ (top);
}

/**
 * @typedef {{ n: number, median: number|null, values: number[] }} ComparedSide
 * @typedef {{ metric: string, worseWhen: 'lower'|'higher', baseline: ComparedSide, current: ComparedSide,
 *   relativeChange: number|null, reason: string }
 *   & ({ verdict: 'inconclusive', pValue: null, method: null, cliffsDelta: null }
 *     | { verdict: 'regression'|'improvement'|'unchanged', pValue: number, method: string, cliffsDelta: number })} MetricComparison
 *   relativeChange is null when the baseline median is 0 (any change in the worse direction then counts as large enough);
 *   the statistics are null when too few runs made the comparison inconclusive
 */

/**
 * Compares one metric's per-run values with the baseline's.
 * @param {string} metric @param {number[]} baselineValues @param {number[]} currentValues
 * @param {RegressionOptions} options
 * @returns {MetricComparison}
 */
export function compareMetric(metric, baselineValues, currentValues, { alpha, minEffectSize, minRelativeChange }) {
  const worseWhen = WORSE_WHEN[metric];
  /** @param {number[]} values @returns {ComparedSide} */
  const side = (values) => ({ n: values.length, median: values.length ? median(values) : null, values });
  const base = { metric, worseWhen, baseline: side(baselineValues), current: side(currentValues) };
  const { current: { median: currentMedian }, baseline: { median: baselineMedian } } = base;
  // A side without runs has no median; the minimum count already makes it inconclusive.
  if (baselineValues.length < MIN_RUNS_PER_SIDE || currentValues.length < MIN_RUNS_PER_SIDE
    || currentMedian === null || baselineMedian === null) {
    return {
      ...base, pValue: null, method: null, cliffsDelta: null, relativeChange: null, verdict: 'inconclusive',
      reason: `${currentValues.length} current and ${baselineValues.length} baseline runs with a value; at least ${MIN_RUNS_PER_SIDE} per side are needed`,
    };
  }
  const { pValue, method } = mannWhitneyU(currentValues, baselineValues);
  const delta = cliffsDelta(currentValues, baselineValues);
  const change = currentMedian - baselineMedian;
  const relative = baselineMedian === 0 ? (change === 0 ? 0 : Math.sign(change) * Infinity) : change / Math.abs(baselineMedian);
  const worse = worseWhen === 'lower' ? -1 : 1;
  const significant = pValue < alpha;
  /** @param {number} direction */
  const meets = (direction) => significant && delta * direction >= minEffectSize && relative * direction >= minRelativeChange;
  /** @type {'regression'|'improvement'|'unchanged'} */
  const verdict = meets(worse) ? 'regression' : meets(-worse) ? 'improvement' : 'unchanged';
  /** @param {number} v */
  const fmtPct = (v) => (Number.isFinite(v) ? `${(v * 100).toFixed(1)} %` : 'from 0');
  const missed = [
    !significant && `p = ${pValue.toPrecision(2)} ≥ α ${alpha}`,
    delta * worse < minEffectSize && `δ towards worse ${(delta * worse).toFixed(2)} < ${minEffectSize}`,
    relative * worse < minRelativeChange && `change towards worse ${fmtPct(relative * worse)} < ${(minRelativeChange * 100).toFixed(1)} %`,
  ].filter(Boolean);
  const reason = {
    regression: `worse than the baseline on all three criteria (p, δ, change ${fmtPct(relative)})`,
    improvement: `better than the baseline on all three criteria (p, δ, change ${fmtPct(relative)})`,
    unchanged: `no regression: ${missed.join('; ')}`,
  }[verdict];
  return {
    ...base, pValue, method, cliffsDelta: delta, relativeChange: Number.isFinite(relative) ? relative : null, verdict, reason,
  };
}

/**
 * Compares a scenario's current per-run values with a baseline scenario entry, metric by metric. An opt-in metric
 * (audio.mosLqo: runs with --audio-quality) that neither side measured is left out: not inconclusive, not a check.
 * @param {Record<string, number[]>} currentValues metric -> per-run values of the passed runs
 * @param {{ values: Record<string, number[]> }|undefined} baselineEntry
 * @param {RegressionOptions} options
 * @returns {MetricComparison[]}
 */
export function compareScenario(currentValues, baselineEntry, options) {
  const baselineValues = baselineEntry?.values ?? {};
  /** @param {string} metric */
  const measured = (metric) => !metricByPath(metric)?.optIn || Boolean(baselineValues[metric]?.length || currentValues[metric]?.length);
  return options.metrics.filter(measured)
    .map((metric) => compareMetric(metric, baselineValues[metric] ?? [], currentValues[metric] ?? [], options));
}

/**
 * The rolling baseline read from the results store instead of the Actions cache: one baseline per green night,
 * built from its passed runs' values (history/query.js readGreenNights), then joined by rollBaselines as the
 * cache's files are.
 * @param {{ id: string, suite: string, started_at: string, browser: string|null, emulator: string|null,
 *   machine_class: string|null }[]} nights
 * @param {{ night_id: string, run_id: string, scenario: string, metric: string, median: number }[]} values
 * @returns {Baseline[]}
 */
export function nightBaselines(nights, values) {
  return nights.map((night) => {
    /** @type {Record<string, { runIds: Set<string>, values: Record<string, number[]> }>} */
    const byScenario = {};
    for (const row of values) {
      if (row.night_id !== night.id || !Number.isFinite(row.median)) continue;
      const entry = (byScenario[row.scenario] ??= { runIds: new Set(), values: {} });
      entry.runIds.add(row.run_id);
      (entry.values[row.metric] ??= []).push(row.median);
    }
    return {
      kind: BASELINE_KIND, schemaVersion: BASELINE_SCHEMA_VERSION, suite: night.suite, createdAt: night.started_at,
      source: `history: ${night.id}`, environment: { browser: night.browser, emulator: night.emulator },
      machineClass: night.machine_class ? JSON.parse(night.machine_class) : null,
      scenarios: Object.fromEntries(Object.entries(byScenario)
        .map(([name, entry]) => [name, { runs: entry.runIds.size, values: entry.values }])),
    };
  });
}

/** Nights a rolling baseline keeps by default: 5 nights × 5 runs = 25 runs per scenario, a working week. */
export const DEFAULT_KEEP_NIGHTS = 5;

/**
 * The rolling baseline of the nightly workflow: per scenario, the runs of the newest `keepNights` nights
 * that have it, all of one machine class (`machine`, by default the newest night's); other classes are left out.
 * @param {Baseline[]} nights one baseline per (green) night, in any order
 * @param {{ keepNights?: number, machine?: MachineClass|null }} [options]
 * @returns {Baseline|null} null when no night is of the class
 */
export function rollBaselines(nights, { keepNights = DEFAULT_KEEP_NIGHTS, machine } = {}) {
  const newestFirst = [...nights].sort((a, b) => String(b.createdAt).localeCompare(String(a.createdAt)));
  const target = machine === undefined ? newestFirst[0]?.machineClass ?? null : machine;
  const kept = newestFirst.filter((night) => sameMachineClass(night.machineClass, target));
  if (!kept.length) return null;
  /** @type {Baseline['scenarios']} */
  const scenarios = {};
  const used = new Set();
  const names = [...new Set(kept.flatMap((night) => Object.keys(night.scenarios)))];
  for (const name of names) {
    // Oldest of the kept nights first, so the stored order is chronological.
    const withScenario = kept.filter((night) => night.scenarios[name]?.runs > 0).slice(0, keepNights).reverse();
    const entry = { runs: 0, values: /** @type {Record<string, number[]>} */ ({}) };
    for (const night of withScenario) {
      used.add(night);
      entry.runs += night.scenarios[name].runs;
      for (const [metric, list] of Object.entries(night.scenarios[name].values)) (entry.values[metric] ??= []).push(...list);
    }
    if (entry.runs) scenarios[name] = entry;
  }
  const newest = kept[0];
  return {
    kind: BASELINE_KIND, schemaVersion: BASELINE_SCHEMA_VERSION, suite: newest.suite, createdAt: newest.createdAt,
    source: `rolling: ${used.size} nights (${[...used].map((night) => night.createdAt).sort().join(', ')}), at most ${keepNights} per scenario`,
    environment: newest.environment, machineClass: target, scenarios,
  };
}
