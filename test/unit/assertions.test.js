import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { InputError } from '../../orchestrator/lib/system/errors.js';
import { listScenarios } from '../../orchestrator/lib/scenario/scenario-file.js';
import {
  DEFAULT_ASSERTIONS_FILE, aggregate, evaluateAssertions, loadAssertions, parseAssertions, parseCondition,
} from '../../orchestrator/suite/assertions.js';
import { parseBaseline } from '../../orchestrator/suite/baseline.js';
import { fakeResult } from '../fixtures/suites/make-suite-result.js';

const BASELINE_FILE = new URL('../../baselines/smoke.json', import.meta.url);

const inputError = (pattern) => (error) => error instanceof InputError && pattern.test(error.message);

test('conditions: comparisons and within-ranges parse into metric, statistic and bounds', () => {
  assert.deepEqual(parseCondition('video.recvKbps median >= 400', 'f'), { metric: 'video.recvKbps', statistic: 'median', op: '>=', threshold: 400 });
  assert.deepEqual(parseCondition('  rttMs   p95 <= 1100 ', 'f'), { metric: 'rttMs', statistic: 'p95', op: '<=', threshold: 1100 });
  assert.deepEqual(parseCondition('utilization median within 0.6..0.95', 'f'), { metric: 'utilization', statistic: 'median', op: 'within', min: 0.6, max: 0.95 });
  assert.deepEqual(parseCondition('lossPct max < 0.5', 'f'), { metric: 'lossPct', statistic: 'max', op: '<', threshold: 0.5 });
  assert.deepEqual(/** @type {{ max: number }} */ (parseCondition('audio.lossPct mean within 2 .. 8', 'f')).max, 8);
});

test('bad conditions name the field, the text and what is wrong', () => {
  const where = 'a.json: scenarios.x[0].check';
  assert.throws(() => parseCondition('video.recvKpbs median >= 400', where), inputError(/^a\.json: scenarios\.x\[0\]\.check: 'video\.recvKpbs median >= 400': unknown metric 'video\.recvKpbs'; known: .*video\.recvKbps/));
  assert.throws(() => parseCondition('rttMs avg <= 10', where), inputError(/unknown statistic 'avg'; use one of median, mean, p5, p95, min, max/));
  assert.throws(() => parseCondition('rttMs p95 =< 10', where), inputError(/unknown operator '=<'/));
  assert.throws(() => parseCondition('rttMs p95 <= ten', where), inputError(/'ten' is not a number/));
  assert.throws(() => parseCondition('rttMs p95', where), inputError(/write "<metric> <statistic> <op> <number>"/));
  assert.throws(() => parseCondition('utilization median within 0.9..0.6', where), inputError(/range 0\.9\.\.0\.6 is empty/));
  assert.throws(() => parseCondition('utilization median within 0.6', where), inputError(/'within' needs a range/));
});

test('assertion files: level defaults to error; bad levels, fields and shapes name the file and field', () => {
  const parsed = parseAssertions({ scenarios: { x: [{ check: 'rttMs median <= 10' }, { check: 'lossPct mean <= 1', level: 'warn', why: 'no loss configured' }] } }, 'a.json');
  assert.equal(parsed.x[0].level, 'error');
  assert.equal(parsed.x[0].why, null);
  assert.equal(parsed.x[1].why, 'no loss configured');
  assert.throws(() => parseAssertions({ scenarios: { x: [{ check: 'rttMs median <= 10', level: 'fatal' }] } }, 'a.json'), inputError(/^a\.json: scenarios\.x\[0\]\.level: must be one of off, warn, error, got "fatal"/));
  assert.throws(() => parseAssertions({ scenarios: { x: [{ check: 'rttMs median <= 10', severity: 'warn' }] } }, 'a.json'), inputError(/^a\.json: scenarios\.x\[0\]: unknown field 'severity'/));
  assert.throws(() => parseAssertions({ scenarios: { x: { check: 'rttMs median <= 10' } } }, 'a.json'), inputError(/^a\.json: scenarios\.x: must be an array/));
  assert.throws(() => parseAssertions({ scenarios: { x: [{ check: 42 }] } }, 'a.json'), inputError(/^a\.json: scenarios\.x\[0\]\.check: must be a condition string/));
  assert.throws(() => parseAssertions({ checks: {} }, 'a.json'), inputError(/^a\.json: unknown field 'checks'/));
  assert.throws(() => parseAssertions({}, 'a.json'), inputError(/^a\.json: scenarios: must be an object/));
});

test('aggregate: median, mean, interpolated p5/p95, min, max; nothing is null', () => {
  const values = [5, 1, 4, 2, 3];
  assert.equal(aggregate(values, 'median'), 3);
  assert.equal(aggregate(values, 'mean'), 3);
  assert.equal(aggregate(values, 'p5'), 1.2);
  assert.equal(aggregate(values, 'p95'), 4.8);
  assert.equal(aggregate(values, 'min'), 1);
  assert.equal(aggregate(values, 'max'), 5);
  assert.equal(aggregate([], 'median'), null);
});

test('evaluation pools every peer-second inside each run\'s window over the runs; run-level metrics give one value per run', () => {
  // Runs at 1000 and 2000 kbps; their warm-up seconds (at a tenth of the rate) are excluded from the pool.
  const results = [fakeResult({ videoKbps: 1000, seed: 1, utilization: 0.7 }), fakeResult({ videoKbps: 2000, seed: 2, utilization: 0.9 })];
  const assertions = parseAssertions({
    scenarios: {
      x: [
        { check: 'video.recvKbps min >= 900' },
        { check: 'video.recvKbps max <= 2100', level: 'warn' },
        { check: 'video.recvKbps median >= 1600' },
        { check: 'utilization median within 0.75..0.85' },
        { check: 'setupMs max <= 1000', level: 'off' },
      ],
    },
  }, 'a.json').x;
  const [min, max, median, utilization, off] = evaluateAssertions(assertions, results);
  assert.equal(min.n, 2 * 2 * 15); // 2 runs × 2 peers × seconds 6..20
  assert.ok(min.passed, `min ${min.value}`);
  assert.ok(max.passed, `max ${max.value}`);
  assert.ok(median.value > 1000 && median.value < 2000 && median.passed === false, `pooled median ${median.value}`);
  assert.equal(utilization.n, 2);
  assert.ok(Math.abs(utilization.value - 0.8) < 1e-12);
  assert.equal(utilization.passed, true);
  assert.equal(off.passed, null);
  assert.equal(off.value, 2000);
});

test('no data fails the assertion: no passed run, or a metric the runs never had', () => {
  const [rtt] = evaluateAssertions(parseAssertions({ scenarios: { x: [{ check: 'rttMs median <= 10' }] } }, 'a.json').x, []);
  assert.deepEqual({ value: rtt.value, n: rtt.n, passed: rtt.passed }, { value: null, n: 0, passed: false });
  const [util] = evaluateAssertions(parseAssertions({ scenarios: { x: [{ check: 'utilization median >= 0.5', level: 'warn' }] } }, 'a.json').x, [fakeResult()]);
  assert.equal(util.passed, false);
});

test('the shipped defaults parse, cover every built-in scenario, and explain every check', () => {
  const defaults = loadAssertions(DEFAULT_ASSERTIONS_FILE);
  const names = listScenarios().map((s) => s.name);
  assert.deepEqual(Object.keys(defaults).sort(), [...names].sort());
  for (const [name, list] of Object.entries(defaults)) {
    assert.ok(list.some((a) => a.level === 'error'), `${name} has an error-level check`);
    for (const a of list) assert.ok(a.why && a.why.length > 15, `${name}: '${a.check}' says why`);
  }
});

test('every error-level quality floor lies well below the shipped smoke baseline\'s runs it came from', () => {
  const defaults = loadAssertions(DEFAULT_ASSERTIONS_FILE);
  const baseline = parseBaseline(JSON.parse(readFileSync(BASELINE_FILE, 'utf8')), 'baselines/smoke.json');
  let checked = 0;
  for (const [scenario, list] of Object.entries(defaults)) {
    for (const assertion of list.filter((a) => a.level === 'error' && a.why.startsWith('floor:'))) {
      const { metric, op, threshold } = /** @type {{ metric: string, op: string, threshold: number }} */ (assertion.condition);
      assert.ok(op === '>=' || op === '>', `${scenario}: '${assertion.check}': a floor is a lower bound`);
      const runs = baseline.scenarios[scenario]?.values[metric];
      if (!runs) continue;
      // The floors sit at a quarter to two thirds of the lowest run: a healthy run never comes near them.
      assert.ok(threshold <= (2 / 3) * Math.min(...runs), `${scenario}: '${assertion.check}' vs runs ${runs.join(', ')}`);
      checked += 1;
    }
  }
  assert.ok(checked >= 10, `${checked} floors checked against baselines/smoke.json`);
});
