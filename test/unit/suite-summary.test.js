import assert from 'node:assert/strict';
import { test } from 'node:test';
import { metricByPath } from '../../orchestrator/lib/result/metric-catalogue.js';
import { parseAssertions } from '../../orchestrator/suite/assertions.js';
import { DEFAULT_REGRESSION, baselineFromSummary } from '../../orchestrator/suite/baseline.js';
import { renderJunit } from '../../orchestrator/suite/junit.js';
import { renderMarkdown } from '../../orchestrator/suite/markdown.js';
import { renderSuitePage } from '../../orchestrator/suite/render-suite.js';
import { EXIT_CODES, buildSuiteSummary, compactResult, suiteExitCode } from '../../orchestrator/suite/summary.js';
import { fakeResult } from '../fixtures/suites/make-suite-result.js';

/**
 * The tests give a fixture's summary partial verdicts: the fields the suite reads.
 * @typedef {ReturnType<typeof fakeResult>['summary']} FakeSummary
 * @typedef {FakeSummary['cpuLimitation']} CpuLimitation
 */

const ASSERTIONS = parseAssertions({
  scenarios: {
    unconstrained: [
      { check: 'video.recvKbps median >= 1000', level: 'error', why: 'about 1700 kbps at 360p30' },
      { check: 'rttMs median <= 2', level: 'warn', why: 'loopback' },
      { check: 'setupMs max <= 1', level: 'off', why: 'informational' },
    ],
  },
}, 'fixture.json');

/** A summary of `count` unconstrained runs at `videoKbps`, optionally against a baseline. */
function summaryOf({
  count = 5, videoKbps = 1700, statuses = [], baseline = null, interrupted = false, halted = null, mosLqo = null,
} = {}) {
  const runs = Array.from({ length: count }, (_, i) => ({
    scenario: 'unconstrained', repetition: i + 1, dir: `unconstrained/run-${i + 1}`, hasReport: true,
    result: fakeResult({ videoKbps: videoKbps + i * 7, seed: i + 1, status: statuses[i] ?? 'passed', errors: statuses[i] === 'failed' ? ['page crashed <here> & "there"'] : [], mosLqo }),
  }));
  return buildSuiteSummary({
    suite: { name: 'smoke', description: 'fixture', file: 'smoke.json', emulator: 'relay', video: '360p30' },
    regression: DEFAULT_REGRESSION, assertions: ASSERTIONS, assertionsFile: 'fixture.json', scenarios: ['unconstrained', 'latency-250'], runs,
    baseline, startedAt: '2026-11-21T02:00:00.000Z', endedAt: '2026-11-21T02:05:00.000Z', interrupted, halted,
  });
}

/** The compared metrics the fixture's runs measure: all but the opt-in ones (audio.mosLqo), which compareScenario leaves out. */
const MEASURED = DEFAULT_REGRESSION.metrics.filter((metric) => !metricByPath(metric)?.optIn);

const normal = summaryOf();
const baseline = { file: 'baselines/smoke.json', data: baselineFromSummary(normal) };

test('outcomes and exit codes: pass with warnings, failed assertion, regression, crash, environment, interrupt', () => {
  assert.equal(normal.outcome, 'passed');
  assert.equal(normal.exitCode, 0);
  assert.equal(normal.counts.assertionWarnings, 1, 'the RTT warning does not fail the suite');
  assert.deepEqual(normal.notRun, ['latency-250']);
  const [video, rtt, off] = normal.scenarios[0].assertions;
  assert.deepEqual([video.passed, rtt.passed, off.passed], [true, false, null]);

  const slow = summaryOf({ videoKbps: 400, baseline });
  assert.equal(slow.outcome, 'failed');
  assert.equal(suiteExitCode(slow), 1);
  assert.equal(slow.counts.assertionErrors, 1);
  assert.equal(slow.counts.regressions, 1, 'video.recvKbps');
  assert.equal(slow.scenarios[0].regressions.find((c) => c.metric === 'video.recvKbps').verdict, 'regression');
  assert.equal(suiteExitCode(slow, { noFail: true }), 0);

  const same = summaryOf({ baseline });
  assert.equal(same.outcome, 'passed');
  assert.equal(same.counts.regressions, 0);
  assert.ok(same.scenarios[0].regressions.length > 0, 'same.scenarios[0].regressions: nothing to check');
  assert.ok(same.scenarios[0].regressions.every((c) => c.verdict === 'unchanged'), same.scenarios[0].regressions.map((c) => c.verdict).join());

  const crashed = summaryOf({ statuses: ['passed', 'failed'] });
  assert.equal(crashed.outcome, 'crashed');
  assert.equal(suiteExitCode(crashed), 4);
  assert.equal(suiteExitCode(crashed, { noFail: true }), 0);
  assert.equal(crashed.scenarios[0].passedRuns, 4, 'crashed runs are left out of assertions and comparisons');

  assert.equal(suiteExitCode(summaryOf({ halted: 'environment-error' })), 3);
  assert.equal(suiteExitCode(summaryOf({ halted: 'environment-error' }), { noFail: true }), 3);
  assert.equal(suiteExitCode(summaryOf({ statuses: ['passed', 'aborted'] })), 130);
  assert.equal(summaryOf({ interrupted: true }).outcome, 'aborted');
  assert.deepEqual(EXIT_CODES, { passed: 0, failed: 1, 'input-error': 2, 'environment-error': 3, crashed: 4, aborted: 130 });

  const few = summaryOf({ count: 3, baseline });
  assert.equal(few.outcome, 'passed');
  assert.ok(few.scenarios[0].regressions.length > 0, 'few.scenarios[0].regressions: nothing to check');
  assert.ok(few.scenarios[0].regressions.every((c) => c.verdict === 'inconclusive'));
  assert.equal(few.counts.inconclusive, MEASURED.length);
});

test('JUnit: one testsuite per scenario; testcases per run, assertion and regression check, with matching counts', () => {
  const summary = summaryOf({ count: 6, videoKbps: 400, baseline, statuses: ['passed', 'failed'] });
  const xml = renderJunit(summary);
  assert.match(xml, /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<testsuites name="webrtc-testbed suite smoke" /);
  const testcases = xml.match(/<testcase /g).length;
  assert.equal(testcases, 6 + 3 + MEASURED.length);
  // failures: the error-level assertion and the video regression; errors: the crash; skipped: the level-off check.
  assert.match(xml, /<testsuites [^>]*tests="14" failures="2" errors="1" skipped="1"/);
  const failures = Number(/<testsuites [^>]*failures="(\d+)"/.exec(xml)[1]);
  assert.equal(failures, (xml.match(/<failure /g) ?? []).length);
  assert.equal(failures, 1 + summary.counts.regressions);
  assert.match(xml, /<testcase classname="smoke\.unconstrained" name="assert \[error\] video\.recvKbps median &gt;= 1000" time="0\.000"><failure message="video\.recvKbps median = \d+ \(\d+ values\): does not hold" type="assertion">about 1700 kbps at 360p30<\/failure><\/testcase>/);
  assert.match(xml, /name="assert \[warn\] rttMs median &lt;= 2"[^>]*><system-out>WARNING: /);
  assert.match(xml, /name="assert \[off\] setupMs max &lt;= 1"[^>]*><skipped message="level off"\/>/);
  assert.match(xml, /name="run 2"[^>]*><error message="run failed: page crashed &lt;here&gt; &amp; &quot;there&quot;" type="crash">/);
  assert.match(xml, /name="regression video\.recvKbps \(worse when lower\)"[^>]*><failure message="median \d+ vs baseline \d+ \(5 vs 5 runs\)/);
  assert.doesNotMatch(xml, /[\u0000-\u0008]/);
  // Inconclusive checks are skipped, not passed.
  assert.match(renderJunit(summaryOf({ count: 3, baseline })), /<skipped message="inconclusive: 3 current and 5 baseline runs/);
});

test('Markdown: outcome headline, a row per scenario, the failing checks and the regressions', () => {
  const md = renderMarkdown(summaryOf({ videoKbps: 400, baseline }), { reportPath: 'results/suites/smoke/x/report.html' });
  const lines = md.split('\n');
  assert.equal(lines[0], '### ❌ failed: suite `smoke` (exit 1)');
  assert.match(md, /\| scenario \| runs \| Video rate \(kbps\) \| RTT \(ms\) \| Packet loss \(%\) \| assertions \| vs baseline \|/);
  assert.match(md, /\| unconstrained \| 5\/5 \| 41\d \| [\d.]+ \| 0\.00 \| ❌ 0\/2 \(1 warning\) \| ❌ 1 regression, 4 unchanged \|$/m);
  assert.match(md, /- ❌ error `unconstrained`: `video\.recvKbps median >= 1000` → 41\d \(about 1700 kbps at 360p30\)/);
  assert.match(md, /- ⚠️ warn `unconstrained`: `rttMs median <= 2`/);
  assert.match(md, /\| unconstrained \| `video\.recvKbps` \| ❌ regression \| 1716 \| 412 \| −76\.0 % \| 0\.0079 \| −1\.00 \|/);
  assert.match(md, /Not run: `latency-250`/);
  assert.match(md, /Report: `results\/suites\/smoke\/x\/report\.html`\n$/);
  assert.equal(renderMarkdown(normal).split('\n')[0], '### ✅ passed: suite `smoke` (exit 0)');
});

test('HTML page: dot strips of baseline and current runs with medians, linking each run\'s report', () => {
  const html = renderSuitePage(summaryOf({ videoKbps: 400, baseline }));
  assert.match(html, /^<!doctype html>/);
  assert.equal((html.match(/<svg class="strip"/g) ?? []).length, MEASURED.length);
  assert.equal((html.match(/<circle class="base"/g) ?? []).length, 5 * MEASURED.length);
  assert.equal((html.match(/<circle class="cur"/g) ?? []).length, 5 * MEASURED.length);
  assert.ok((html.match(/<line class="med"/g) ?? []).length >= 2 * MEASURED.length - 1);
  assert.match(html, /<a href="unconstrained\/run-3\/report\.html"><circle class="cur"/);
  assert.match(html, /<a href="unconstrained\/run-1\/report\.html">report<\/a>/);
  assert.match(html, /<span class="verdict verdict-regression"/);
  assert.doesNotMatch(html, /<script src=/, 'self-contained');
  // Without a baseline the strips show this suite's runs only.
  const alone = renderSuitePage(normal);
  assert.equal((alone.match(/<circle class="base"/g) ?? []).length, 0);
  assert.equal((alone.match(/<circle class="cur"/g) ?? []).length, 5 * MEASURED.length);
});

test('CPU-limited runs are counted per scenario and named in the Markdown, so a starved host is not read as a regression', () => {
  assert.equal(normal.counts.cpuLimitedRuns, 0);
  assert.doesNotMatch(renderMarkdown(normal), /CPU-limited runs/);
  const starved = summaryOf();
  const runs = Array.from({ length: 5 }, (_, i) => {
    const result = fakeResult({ videoKbps: 1700, seed: i + 1 });
    const verdict = { byPeer: {}, thresholdShare: 0.2, seconds: [] };
    if (i < 2) result.summary.cpuLimitation = /** @type {CpuLimitation} */ ({ share: 0.6, ...verdict, limited: true });
    // The harness's own verdict marks a run whose browser said none.
    const harness = { limited: true };
    if (i === 2) result.summary.cpuLimitation = /** @type {CpuLimitation} */ ({ share: 0, ...verdict, limited: false, harness });
    // A saturated Grid node likewise, as compactResult keeps it.
    const nodes = { n1: { cores: 2, saturation: { saturated: true, share: 0.5 } } };
    if (i === 3) result.resources = compactResult({ resources: { grid: { nodes } } }).resources;
    return { scenario: 'unconstrained', repetition: i + 1, dir: `unconstrained/run-${i + 1}`, hasReport: true, result };
  });
  const summary = buildSuiteSummary({
    suite: starved.suite, regression: DEFAULT_REGRESSION, assertions: ASSERTIONS, assertionsFile: 'fixture.json', scenarios: ['unconstrained'], runs,
    startedAt: starved.startedAt, endedAt: starved.endedAt,
  });
  assert.equal(summary.counts.cpuLimitedRuns, 4);
  assert.deepEqual(summary.runs.map((r) => r.cpuLimited), [true, true, true, true, false]);
  assert.equal(summary.scenarios[0].cpuLimitedRuns, 4);
  assert.match(renderMarkdown(summary), /\*\*CPU-limited runs\*\*.*\n\n- `unconstrained`: 4 of 5 runs/);
});

test('a run CPU-limited only in the peer its scenario constrains is not host-limited; another peer or the host makes it so', () => {
  const base = summaryOf();
  // p1 is the constrained device (a quota and a slowed page); p0 is a plain desktop peer.
  const devices = { p1: { width: 640, height: 480, fps: 30, cpuThrottlingRate: 4, cpuQuotaCores: 0.15, cpuCount: null } };
  /** @type {Array<{ byPeer: Record<string, number>, harness: { limited: boolean, peers?: Record<string, { limited: boolean }> } }>} */
  const verdicts = [
    { byPeer: { p0: 0, p1: 0.99 }, harness: { limited: true, peers: { p0: { limited: false }, p1: { limited: true } } } },
    { byPeer: { p0: 0.5, p1: 0.99 }, harness: { limited: true, peers: { p1: { limited: true } } } },
    { byPeer: { p0: 0, p1: 0 }, harness: { limited: true, peers: { p0: { limited: true } } } },
    // A verdict without per-peer detail cannot be excused.
    { byPeer: {}, harness: { limited: false } },
  ];
  const runs = verdicts.map((verdict, i) => {
    const result = fakeResult({ videoKbps: 1700, seed: i + 1 });
    result.scenario = { ...result.scenario, devices };
    result.summary.cpuLimitation = /** @type {CpuLimitation} */ ({ share: 0.5, limited: true, thresholdShare: 0.2, seconds: [],
      ...verdict });
    return { scenario: 'unconstrained', repetition: i + 1, dir: `unconstrained/run-${i + 1}`, hasReport: true, result };
  });
  const plain = fakeResult({ videoKbps: 1700, seed: 9 });
  plain.scenario = { ...plain.scenario, devices };
  plain.resources = { hostSaturation: { saturated: true } };
  plain.summary.cpuLimitation = /** @type {CpuLimitation} */ ({ share: 0.5, limited: true, thresholdShare: 0.2, seconds: [],
    ...verdicts[0] });
  runs.push({ scenario: 'unconstrained', repetition: 5, dir: 'unconstrained/run-5', hasReport: true, result: plain });
  const summary = buildSuiteSummary({
    suite: base.suite, regression: DEFAULT_REGRESSION, assertions: ASSERTIONS, assertionsFile: 'fixture.json', scenarios: ['unconstrained'], runs,
    startedAt: base.startedAt, endedAt: base.endedAt,
  });
  assert.deepEqual(summary.runs.map((r) => r.cpuLimited), [true, true, true, true, true]);
  assert.deepEqual(summary.runs.map((r) => r.hostLimited), [false, true, true, true, true]);
  assert.equal(summary.counts.hostLimitedRuns, 4);
  assert.match(renderMarkdown(summary), /- `unconstrained`: 5 of 5 runs \(1 only in the peers the scenario constrains, by design\)/);
});

test('runs whose relay fell behind are counted per scenario and named in the Markdown, like CPU-limited ones', () => {
  assert.equal(normal.counts.emulatorBehindRuns, 0);
  assert.doesNotMatch(renderMarkdown(normal), /emulator fell behind/);
  const base = summaryOf();
  const runs = Array.from({ length: 4 }, (_, i) => {
    const result = fakeResult({ videoKbps: 1700, seed: i + 1 });
    const own = /** @type {FakeSummary & { emulatorBehind?: object }} */ (result.summary);
    own.emulatorBehind = { behind: i === 1, seconds: i === 1 ? 2 : 0, measuredSeconds: 30, spans: [], lateMaxMs: 1 };
    return { scenario: 'unconstrained', repetition: i + 1, dir: `unconstrained/run-${i + 1}`, hasReport: true, result };
  });
  const summary = buildSuiteSummary({
    suite: base.suite, regression: DEFAULT_REGRESSION, assertions: ASSERTIONS, assertionsFile: 'fixture.json', scenarios: ['unconstrained'], runs,
    startedAt: base.startedAt, endedAt: base.endedAt,
  });
  assert.deepEqual(summary.runs.map((r) => r.emulatorBehind), [false, true, false, false]);
  assert.equal(summary.scenarios[0].emulatorBehindRuns, 1);
  assert.equal(summary.counts.emulatorBehindRuns, 1);
  assert.match(renderMarkdown(summary), /\*\*Runs whose emulator fell behind\*\*.*\n\n- `unconstrained`: 1 of 4 runs/);
});

test('a suite with a group\'s 2-party and n-party calls reports each peer\'s rate against the 2-party call', () => {
  const run = (scenario, peers, uplinkKbps, repetition) => {
    const result = fakeResult({ videoKbps: 1700, seed: repetition });
    result.scenario = { ...result.scenario, name: scenario, group: 'mesh', peers };
    const totals = Object.fromEntries(Array.from({ length: peers }, (_, i) => [`p${i}`, { uplinkKbps }]));
    result.summary.peerTotals = /** @type {FakeSummary['peerTotals']} */ (totals);
    return { scenario, repetition, dir: `${scenario}/run-${repetition}`, hasReport: true, result };
  };
  const summary = buildSuiteSummary({
    suite: normal.suite, regression: DEFAULT_REGRESSION, assertions: {}, assertionsFile: null, scenarios: ['mesh-2', 'mesh-3'],
    runs: [run('mesh-2', 2, 1700, 1), run('mesh-2', 2, 1750, 2), run('mesh-3', 3, 3451, 1)], startedAt: normal.startedAt, endedAt: normal.endedAt,
  });
  assert.deepEqual(summary.twoPartyRatios.map((r) => [r.scenario, r.peers, r.twoPartyKbps, r.ratio]), [['mesh-3', 3, 1725, 3451 / 1725]]);
  assert.match(renderMarkdown(summary), /\| mesh \| `mesh-3` \| 3 \| 3451 \| 1725 \| ×2\.00 \|/);
  assert.deepEqual(normal.twoPartyRatios, []);
});

test('audio MOS-LQO in the gate: a drop fails the suite (higher is better); suites without --audio-quality have no check and no row for it', () => {
  const mosOf = (/** @type {any} */ summary) => summary.scenarios[0].regressions.find((/** @type {any} */ c) => c.metric === 'audio.mosLqo');
  const scored = summaryOf({ mosLqo: 4.3 });
  assert.equal(scored.runs.filter((run) => run.values['audio.mosLqo'] > 4).length, 5, JSON.stringify(scored.runs.map((run) => run.values)));
  const scoredBaseline = { file: 'baselines/audio.json', data: baselineFromSummary(scored) };

  const worse = summaryOf({ mosLqo: 3.1, baseline: scoredBaseline });
  assert.equal(mosOf(worse)?.verdict, 'regression', JSON.stringify(mosOf(worse)));
  assert.equal(mosOf(worse).worseWhen, 'lower');
  assert.equal(worse.outcome, 'failed');
  assert.equal(worse.counts.regressions, 1);
  assert.match(renderJunit(worse), /name="regression audio\.mosLqo \(worse when lower\)"[^>]*><failure /);
  assert.equal(mosOf(summaryOf({ mosLqo: 4.3, baseline: scoredBaseline }))?.verdict, 'unchanged');
  assert.equal(mosOf(summaryOf({ mosLqo: 4.9, baseline: { file: 'b.json', data: baselineFromSummary(summaryOf({ mosLqo: 3.1 })) } }))?.verdict, 'improvement');

  // Neither side asked for audio quality: no check, no inconclusive, no strip; the suite passes.
  const without = summaryOf({ baseline });
  assert.equal(without.outcome, 'passed');
  assert.equal(mosOf(without), undefined);
  assert.equal(without.counts.inconclusive, 0);
  assert.ok(without.scenarios[0].regressions.length === MEASURED.length && MEASURED.length > 0);
  assert.doesNotMatch(renderSuitePage(without), /audio\.mosLqo/);
  assert.doesNotMatch(renderJunit(without), /audio\.mosLqo/);
  // One side without it (a baseline from before, or the suite stopped asking): inconclusive, shown, never a failure.
  for (const oneSided of [summaryOf({ mosLqo: 4.3, baseline }), summaryOf({ baseline: scoredBaseline })]) {
    assert.equal(mosOf(oneSided)?.verdict, 'inconclusive');
    assert.equal(oneSided.outcome, 'passed');
    assert.match(renderSuitePage(oneSided), /audio\.mosLqo/);
  }
});
