import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InputError } from '../../orchestrator/lib/system/errors.js';
import {
  DEFAULT_REGRESSION, MIN_RUNS_PER_SIDE, baselineFromSummary, checkMachineClass, compareMetric, compareScenario,
  parseBaseline, resolveRegressionOptions, rollBaselines,
} from '../../orchestrator/suite/baseline.js';
import { machineClass, sameMachineClass } from '../../orchestrator/lib/result/machine-class.js';
import { KNOWN_METRICS, WORSE_WHEN, runValues } from '../../orchestrator/lib/result/metric-values.js';
import { buildSuiteSummary } from '../../orchestrator/suite/summary.js';
import { fakeResult } from '../fixtures/suites/make-suite-result.js';

const inputError = (pattern) => (error) => error instanceof InputError && pattern.test(error.message);
const options = DEFAULT_REGRESSION;
const base = [1700, 1710, 1690, 1705, 1695];

test('every known metric has a direction: rates down and delay/loss up are worse', () => {
  assert.deepEqual(Object.keys(WORSE_WHEN).sort(), [...KNOWN_METRICS].sort());
  assert.equal(WORSE_WHEN['video.recvKbps'], 'lower');
  assert.equal(WORSE_WHEN.rttMs, 'higher');
  assert.equal(WORSE_WHEN.lossPct, 'higher');
  assert.equal(WORSE_WHEN.utilization, 'lower');
});

test('a clear drop in rate is a regression: p < alpha, |delta| and the relative change all in the worse direction', () => {
  const c = compareMetric('video.recvKbps', base, [400, 420, 390, 410, 405], options);
  assert.equal(c.verdict, 'regression');
  assert.equal(c.method, 'exact');
  assert.ok(Math.abs(c.pValue - 2 / 252) < 1e-12);
  assert.equal(c.cliffsDelta, -1);
  assert.ok(Math.abs(c.relativeChange - (405 - 1700) / 1700) < 1e-12);
  assert.equal(c.baseline.median, 1700);
  assert.equal(c.current.median, 405);
  // The same drop in RTT is an improvement; a rise in RTT is the regression.
  assert.equal(compareMetric('rttMs', [30, 31, 29, 30, 32], [10, 11, 9, 10, 12], options).verdict, 'improvement');
  assert.equal(compareMetric('rttMs', [10, 11, 9, 10, 12], [30, 31, 29, 30, 32], options).verdict, 'regression');
});

test('a regression needs all three criteria: significant but small changes, or large but noisy ones, are not', () => {
  // Completely separated (p = 0.008, delta = -1) but only 3 % lower: below the 10 % minimum change.
  const small = compareMetric('video.recvKbps', base, base.map((v) => v * 0.98 - 20), options);
  assert.equal(small.verdict, 'unchanged');
  assert.match(small.reason, /change towards worse 3\.2 % < 10\.0 %/);
  // 20 % lower median but interleaved runs: not significant.
  const noisy = compareMetric('video.recvKbps', [1000, 1800, 1200, 1700, 1300], [1750, 1000, 1100, 1040, 1650], options);
  assert.equal(noisy.verdict, 'unchanged');
  assert.match(noisy.reason, /p = 0\.\d+ ≥ α 0\.05/);
  // All three thresholds are configurable.
  assert.equal(compareMetric('video.recvKbps', base, base.map((v) => v * 0.98 - 20), { ...options, minRelativeChange: 0.01 }).verdict, 'regression');
  assert.equal(compareMetric('video.recvKbps', base, [400, 420, 390, 410, 405], { ...options, alpha: 0.005 }).verdict, 'unchanged');
  // U = 2 of 5 vs 5: p = 0.032 and delta = -0.84, a regression unless the effect size must reach 0.9.
  /** @type {[number[], number[]]} */
  const overlapping = [[5, 6, 8, 9, 10], [1, 2, 3, 4, 7]];
  assert.equal(compareMetric('video.recvKbps', ...overlapping, options).cliffsDelta, -0.84);
  assert.equal(compareMetric('video.recvKbps', ...overlapping, options).verdict, 'regression');
  assert.equal(compareMetric('video.recvKbps', ...overlapping, { ...options, minEffectSize: 0.9 }).verdict, 'unchanged');
});

test('fewer than 5 runs on either side is inconclusive, never a pass', () => {
  assert.equal(MIN_RUNS_PER_SIDE, 5);
  const few = compareMetric('video.recvKbps', base, [400, 410, 420, 430], options);
  assert.equal(few.verdict, 'inconclusive');
  assert.equal(few.pValue, null);
  assert.match(few.reason, /4 current and 5 baseline runs/);
  assert.equal(compareMetric('video.recvKbps', [], [400, 410, 420, 430, 440], options).verdict, 'inconclusive');
  const [missing] = compareScenario({ 'video.recvKbps': base }, undefined, { ...options, metrics: ['video.recvKbps'] });
  assert.equal(missing.verdict, 'inconclusive');
});

test('identical samples and a zero baseline median', () => {
  const same = compareMetric('lossPct', [0, 0, 0, 0, 0], [0, 0, 0, 0, 0], options);
  assert.deepEqual([same.verdict, same.pValue, same.cliffsDelta, same.relativeChange], ['unchanged', 1, 0, 0]);
  // From 0 % loss to ~2 %: the relative change is unbounded (null in JSON) and counts as large enough.
  const fromZero = compareMetric('lossPct', [0, 0, 0, 0, 0], [2, 2.5, 1.8, 2.2, 3], options);
  assert.equal(fromZero.verdict, 'regression');
  assert.equal(fromZero.relativeChange, null);
});

test('baselines store every passed run\'s values per scenario; per-run value = summary.overall[metric].median', () => {
  const results = [fakeResult({ videoKbps: 1000, seed: 1 }), fakeResult({ videoKbps: 1100, seed: 2 }), fakeResult({ status: 'failed', seed: 3 })];
  const summary = buildSuiteSummary({
    suite: { name: 'smoke', description: 'd', file: 'smoke.json', emulator: 'relay' }, regression: options, assertions: {}, assertionsFile: null,
    scenarios: ['unconstrained'], runs: results.map((result, i) => ({ scenario: 'unconstrained', repetition: i + 1, dir: `unconstrained/run-${i + 1}`, hasReport: false, result })),
    startedAt: 'a', endedAt: 'b',
  });
  const baseline = baselineFromSummary(summary, { source: 'results/suites/smoke/x', createdAt: '2026-11-21T00:00:00.000Z' });
  assert.equal(baseline.suite, 'smoke');
  assert.equal(baseline.scenarios.unconstrained.runs, 2);
  assert.deepEqual(baseline.scenarios.unconstrained.values['video.recvKbps'], [runValues(results[0])['video.recvKbps'], runValues(results[1])['video.recvKbps']]);
  assert.equal(runValues(results[0])['video.recvKbps'], results[0].summary.overall['video.recvKbps'].median);
  assert.equal(runValues(results[0]).setupMs, 2000);
  assert.deepEqual(baseline.machineClass, { os: 'linux', cpu: null, cores: 2, browser: 'chromium 156', emulator: 'relay' });
  assert.deepEqual(parseBaseline(JSON.parse(JSON.stringify(baseline)), 'b.json'), baseline);
});

test('bad baseline files name the file and field', () => {
  const good = { kind: 'webrtc-testbed-baseline', schemaVersion: 1, suite: 's', createdAt: 'x', source: null, environment: {}, scenarios: { a: { runs: 1, values: { rttMs: [1] } } } };
  const bad = (patch) => ({ ...good, ...patch });
  assert.throws(() => parseBaseline(bad({ kind: 'webrtc-testbed-suite' }), 'b.json'), inputError(/^b\.json: kind: must be "webrtc-testbed-baseline".*baseline save/));
  assert.throws(() => parseBaseline(bad({ schemaVersion: 2 }), 'b.json'), inputError(/^b\.json: schemaVersion:/));
  assert.throws(() => parseBaseline(bad({ scenarios: [] }), 'b.json'), inputError(/^b\.json: scenarios: must be an object/));
  assert.throws(() => parseBaseline(bad({ scenarios: { a: { runs: 1, values: { rttMS: [1] } } } }), 'b.json'), inputError(/^b\.json: scenarios\.a\.values: unknown field 'rttMS'/));
  assert.throws(() => parseBaseline(bad({ scenarios: { a: { runs: 1, values: { rttMs: [1, 'x'] } } } }), 'b.json'), inputError(/^b\.json: scenarios\.a\.values\.rttMs\[1\]: must be a number/));
  assert.throws(() => parseBaseline(bad({ scenarios: { a: { runs: -1, values: {} } } }), 'b.json'), inputError(/^b\.json: scenarios\.a\.runs:/));
});

test('regression options: partial sections fill from defaults; bad values name the field', () => {
  assert.deepEqual(resolveRegressionOptions({ alpha: 0.01 }, 's.json: regression'), { ...DEFAULT_REGRESSION, alpha: 0.01 });
  assert.deepEqual(resolveRegressionOptions({ metrics: ['rttMs'] }, 'flags', { ...DEFAULT_REGRESSION, alpha: 0.01 }).alpha, 0.01);
  assert.throws(() => resolveRegressionOptions({ alpha: 2 }, 's.json: regression'), inputError(/^s\.json: regression\.alpha: must be a number/));
  assert.throws(() => resolveRegressionOptions({ metrics: ['rtt'] }, 's.json: regression'), inputError(/^s\.json: regression\.metrics\[0\]: unknown metric "rtt"/));
  assert.throws(() => resolveRegressionOptions({ minEffect: 0.5 }, 's.json: regression'), inputError(/unknown field 'minEffect'/));
});

const runnerEnv = { os: 'linux 6.8.0-1017-azure x64', cpus: 4, cpuModel: 'AMD EPYC 7763  64-Core Processor ', browser: 'chromium 156.0.8078.79', emulator: 'relay' };
const runnerClass = { os: 'linux 6.8 x64', cpu: 'AMD EPYC 7763 64-Core Processor', cores: 4, browser: 'chromium 156', emulator: 'relay' };

test('machine class: kernel major.minor, CPU model, cores, browser major and emulator, from a summary or a result environment', () => {
  assert.deepEqual(machineClass(runnerEnv), runnerClass);
  // result.json's shape gives the same class; a patch release or browser build does not change it.
  assert.deepEqual(machineClass({ ...runnerEnv, os: 'linux 6.8.0-1020-azure x64', browser: { name: 'chromium', version: '156.0.9000.1' } }), runnerClass);
  /** @type {Array<[object, string]>} */
  const patches = [[{ os: 'linux 6.11.0-1 x64' }, 'os'], [{ cpus: 2 }, 'cores'], [{ cpuModel: 'Intel Xeon' }, 'cpu'], [{ browser: 'chromium 157.0.1' }, 'browser'], [{ emulator: 'netem' }, 'emulator']];
  for (const [patch, field] of patches) {
    const other = machineClass({ ...runnerEnv, ...patch });
    assert.equal(sameMachineClass(other, runnerClass), false, field);
    assert.deepEqual(Object.keys(other).filter((key) => other[key] !== runnerClass[key]), [field]);
  }
  assert.equal(sameMachineClass(null, runnerClass), false);
});

test('a baseline of another machine class, or of none recorded, is refused without --allow-machine-mismatch', () => {
  /** @typedef {Parameters<typeof checkMachineClass>[0]} BaselineFile */
  // Baselines with only the machine class, the field the check reads.
  const baseline = /** @type {BaselineFile} */ ({ file: 'baselines/smoke.json', data: { machineClass: runnerClass } });
  assert.equal(checkMachineClass(baseline, runnerClass), null);
  const laptop = machineClass({ ...runnerEnv, cpus: 2, cpuModel: 'Intel Core i5' });
  assert.throws(() => checkMachineClass(baseline, laptop), inputError(/^baseline baselines\/smoke\.json is of machine class linux 6\.8 x64, AMD EPYC 7763 64-Core Processor × 4, chromium 156, relay, these runs are of linux 6\.8 x64, Intel Core i5 × 2, chromium 156, relay; .*--allow-machine-mismatch/));
  assert.match(checkMachineClass(baseline, laptop, { allowMismatch: true }), /Intel Core i5 × 2.*compared anyway \(--allow-machine-mismatch\)$/);
  const old = /** @type {BaselineFile} */ ({ file: 'old.json', data: {} });
  assert.throws(() => checkMachineClass(old, runnerClass), inputError(/^baseline old\.json is of machine class unknown \(not recorded\) \(saved before machine classes were recorded\), .*--allow-machine-mismatch/));
  assert.throws(() => parseBaseline({ kind: 'webrtc-testbed-baseline', schemaVersion: 1, suite: 's', createdAt: 'x', source: null, environment: {}, machineClass: { ...runnerClass, cores: 'four' }, scenarios: {} }, 'b.json'), inputError(/^b\.json: machineClass\.cores: must be a positive integer or null/));
});

test('rolling baseline: per scenario the runs of the newest K nights of one machine class', () => {
  const night = (day, values, machine = runnerClass, extra = {}) => ({
    kind: 'webrtc-testbed-baseline', schemaVersion: 1, suite: 'nightly', createdAt: `2026-11-${day}T03:00:00.000Z`, source: null, environment: {}, machineClass: machine,
    scenarios: { unconstrained: { runs: values.length, values: { rttMs: values } }, ...extra },
  });
  const other = { ...runnerClass, cpu: 'Intel Xeon' };
  const nights = [night(12, [2, 2]), night(14, [4]), night(10, [1]), night(15, [9], other), night(13, [3], runnerClass, { 'loss-5': { runs: 1, values: { rttMs: [50] } } })];
  const rolled = rollBaselines(nights, { keepNights: 3 });
  // The newest night is of the other class, so by default only it is kept.
  assert.deepEqual(rolled.scenarios.unconstrained.values.rttMs, [9]);
  const mine = rollBaselines(nights, { keepNights: 3, machine: runnerClass });
  assert.deepEqual(mine.scenarios.unconstrained, { runs: 4, values: { rttMs: [2, 2, 3, 4] } });
  assert.deepEqual(mine.scenarios['loss-5'], { runs: 1, values: { rttMs: [50] } });
  assert.equal(mine.createdAt, '2026-11-14T03:00:00.000Z');
  assert.match(mine.source, /^rolling: 3 nights \(2026-11-12.*2026-11-14T03:00:00\.000Z\), at most 3 per scenario$/);
  assert.deepEqual(mine.machineClass, runnerClass);
  assert.deepEqual(parseBaseline(JSON.parse(JSON.stringify(mine)), 'rolled.json'), mine);
  assert.equal(rollBaselines(nights, { machine: { ...runnerClass, cores: 64 } }), null);
  assert.equal(rollBaselines([]), null);
});

test('an opt-in metric (audio.mosLqo) neither side measured is left out; any other metric without values stays inconclusive', () => {
  assert.ok(DEFAULT_REGRESSION.metrics.includes('audio.mosLqo'), 'the gate compares MOS-LQO');
  assert.equal(WORSE_WHEN['audio.mosLqo'], 'lower');
  const metrics = ['video.recvKbps', 'video.recvFps', 'audio.mosLqo'];
  const checks = compareScenario({ 'video.recvKbps': base }, { values: { 'video.recvKbps': base } }, { ...options, metrics });
  assert.deepEqual(checks.map((c) => [c.metric, c.verdict]), [['video.recvKbps', 'unchanged'], ['video.recvFps', 'inconclusive']]);
  const mos = [4.3, 4.32, 4.28, 4.31, 4.29];
  const onlyCurrent = compareScenario({ 'audio.mosLqo': mos }, undefined, { ...options, metrics: ['audio.mosLqo'] });
  const onlyBaseline = compareScenario({}, { values: { 'audio.mosLqo': mos } }, { ...options, metrics: ['audio.mosLqo'] });
  assert.deepEqual([...onlyCurrent, ...onlyBaseline].map((c) => c.verdict), ['inconclusive', 'inconclusive']);
  const [dropped] = compareScenario({ 'audio.mosLqo': mos.map((v) => v - 1) }, { values: { 'audio.mosLqo': mos } }, { ...options, metrics: ['audio.mosLqo'] });
  assert.equal(dropped.verdict, 'regression');
});
