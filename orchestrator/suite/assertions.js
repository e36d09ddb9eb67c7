// Per-scenario assertions: "<metric> <statistic> <op> <number>" or "<metric> <statistic> within <lo>..<hi>",
// with a level off|warn|error. Format: docs/suites.md "Assertions". Pure apart from loadAssertions.
import { fileURLToPath } from 'node:url';
import { InputError } from '../lib/system/errors.js';
import { describeValue, expectObject, expectText, isOneOf } from '../lib/input/validate.js';
import { percentile } from '../lib/stats/statistics.js';
import { displayPath, readJsonFile } from '../lib/input/json-file.js';
import { KNOWN_METRICS, metricPool } from '../lib/result/metric-values.js';

export const DEFAULT_ASSERTIONS_FILE = fileURLToPath(new URL('../assertions/defaults.json', import.meta.url));
/** @type {Array<Assertion['level']>} */
export const LEVELS = ['off', 'warn', 'error'];
export const STATISTICS = ['median', 'mean', 'p5', 'p95', 'min', 'max'];
/** @type {Record<'>='|'<='|'>'|'<', (value: number, threshold: number) => boolean>} */
const COMPARATORS = { '>=': (v, t) => v >= t, '<=': (v, t) => v <= t, '>': (v, t) => v > t, '<': (v, t) => v < t };
/** @type {Record<string, number>} */
const PERCENTILES = { median: 50, p5: 5, p95: 95 };
const NUMBER = /^-?\d+(\.\d+)?$/;

/**
 * @typedef {{ metric: string, statistic: string, op: '>='|'<='|'>'|'<', threshold: number }
 *   | { metric: string, statistic: string, op: 'within', min: number, max: number }} Condition
 * @typedef {{ check: string, level: 'off'|'warn'|'error', why: string|null, condition: Condition }} Assertion
 * @typedef {{ check: string, level: string, why: string|null, metric: string, statistic: string,
 *   value: number|null, n: number, passed: boolean|null }} AssertionResult  passed is null for level off
 */

/**
 * @param {string} text e.g. "video.recvKbps median >= 400", "utilization median within 0.6..0.95"
 * @param {string} where "file: field" named in errors
 * @returns {Condition}
 */
export function parseCondition(text, where) {
  /** @type {(reason: string) => never} */
  const fail = (reason) => { throw new InputError(`${where}: '${text}': ${reason}`); };
  const tokens = String(text).trim().split(/\s+/);
  const usage = 'write "<metric> <statistic> <op> <number>" (op one of >=, <=, >, <) or "<metric> <statistic> within <lo>..<hi>"';
  if (tokens.length < 3) fail(usage);
  const [metric, statistic, op, ...rest] = tokens;
  if (!KNOWN_METRICS.includes(metric)) fail(`unknown metric '${metric}'; known: ${KNOWN_METRICS.join(', ')}`);
  if (!STATISTICS.includes(statistic)) fail(`unknown statistic '${statistic}'; use one of ${STATISTICS.join(', ')}`);
  if (op === 'within') {
    const range = /^(-?\d+(?:\.\d+)?)\.\.(-?\d+(?:\.\d+)?)$/.exec(rest.join(''));
    if (!range) fail(`'within' needs a range like 0.6..0.95; ${usage}`);
    const [min, max] = [Number(range[1]), Number(range[2])];
    if (min > max) fail(`the range ${min}..${max} is empty; put the lower bound first`);
    return { metric, statistic, op, min, max };
  }
  if (!(op in COMPARATORS)) fail(`unknown operator '${op}'; ${usage}`);
  if (rest.length !== 1 || !NUMBER.test(rest[0])) fail(`'${rest.join(' ')}' is not a number; ${usage}`);
  return { metric, statistic, op: /** @type {'>='|'<='|'>'|'<'} */ (op), threshold: Number(rest[0]) };
}

/**
 * Validates an assertions file: { "description"?: string, "scenarios": { "<name>": [{ "check", "level"?, "why"? }] } }.
 * @param {unknown} raw @param {string} file shown in errors
 * @returns {Record<string, Assertion[]>}
 */
export function parseAssertions(raw, file) {
  const top = expectObject(raw, file, ['$comment', 'description', 'scenarios']);
  const scenarios = expectObject(top.scenarios, `${file}: scenarios`, null, { what: 'an object mapping scenario names to lists of assertions' });
  /** @type {Record<string, Assertion[]>} */
  const parsed = {};
  for (const [name, list] of Object.entries(scenarios)) {
    if (!Array.isArray(list)) throw new InputError(`${file}: scenarios.${name}: must be an array of assertions, got ${describeValue(list)}`);
    parsed[name] = list.map((item, index) => {
      const where = `${file}: scenarios.${name}[${index}]`;
      const entry = expectObject(item, where, ['check', 'level', 'why']);
      const check = expectText(entry.check, `${where}.check`, { what: 'a condition string such as "video.recvKbps median >= 400"', allowEmpty: true });
      const level = entry.level ?? 'error';
      if (!isOneOf(LEVELS, level)) throw new InputError(`${where}.level: must be one of ${LEVELS.join(', ')}, got ${describeValue(entry.level)}`);
      const why = entry.why === undefined || entry.why === null ? null : expectText(entry.why, `${where}.why`, { what: 'a string', allowEmpty: true });
      return { check: check.trim(), level, why, condition: parseCondition(check, `${where}.check`) };
    });
  }
  return parsed;
}

/**
 * Reads and validates an assertions file.
 * @param {string} file @returns {Record<string, Assertion[]>}
 */
export function loadAssertions(file) {
  return parseAssertions(readJsonFile(file, 'assertions file', 'pass an existing file to --assertions (format: docs/suites.md)'), displayPath(file));
}

/**
 * @param {number[]} values @param {string} statistic one of STATISTICS
 * @returns {number|null}
 */
export function aggregate(values, statistic) {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  switch (statistic) {
    case 'mean': return sorted.reduce((sum, v) => sum + v, 0) / sorted.length;
    case 'min': return sorted[0];
    case 'max': return sorted[sorted.length - 1];
    default: return percentile(sorted, PERCENTILES[statistic]);
  }
}

/** @param {Condition} condition @param {number} value */
function holds(condition, value) {
  return condition.op === 'within' ? value >= condition.min && value <= condition.max : COMPARATORS[condition.op](value, condition.threshold);
}

/**
 * Evaluates a scenario's assertions over its passed runs. No data (no passed run, or the metric never
 * had a value) fails the assertion: a check that cannot be made is not a pass.
 * @param {Assertion[]} assertions
 * @param {import('./summary.js').SuiteResult[]} results result.json objects of the scenario's passed runs
 * @returns {AssertionResult[]}
 */
export function evaluateAssertions(assertions, results) {
  return assertions.map(({ check, level, why, condition }) => {
    const pool = metricPool(results, condition.metric);
    const value = aggregate(pool, condition.statistic);
    const passed = level === 'off' ? null : value !== null && holds(condition, value);
    return { check, level, why, metric: condition.metric, statistic: condition.statistic, value, n: pool.length, passed };
  });
}
