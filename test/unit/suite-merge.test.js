import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { InputError } from '../../orchestrator/lib/system/errors.js';
import { parseAssertions } from '../../orchestrator/suite/assertions.js';
import { baselineFromSummary } from '../../orchestrator/suite/baseline.js';
import { missingShards, mergeSuiteDirs } from '../../orchestrator/suite/merge.js';
import { fakeResult, writeFakeSuiteDir } from '../fixtures/suites/make-suite-result.js';

const tmp = () => mkdtempSync(path.join(os.tmpdir(), 'wtb-merge-'));
const inputError = (pattern) => (error) => error instanceof InputError && pattern.test(error.message);
const assertions = parseAssertions({ scenarios: { unconstrained: [{ check: 'video.recvKbps median >= 1000' }], 'latency-250': [{ check: 'rttMs median >= 10' }] } }, 'a.json');
const runsOf = (scenario, count, options = {}) => Array.from({ length: count }, (_, i) => ({
  scenario, result: fakeResult({ scenario, seed: i + 1, ...options }),
}));

test('missing shards of a matrix are named', () => {
  assert.deepEqual(missingShards([{ index: 1, count: 4 }, { index: 3, count: 4 }]), ['2/4', '4/4']);
  assert.deepEqual(missingShards([null, null]), []);
});

test('merging the shards of a matrix: runs copied and renumbered, assertions re-evaluated, every output written', async () => {
  const root = tmp();
  await writeFakeSuiteDir(path.join(root, 'shard-1'), { runs: runsOf('unconstrained', 2), shard: { index: 1, count: 2 }, assertions });
  await writeFakeSuiteDir(path.join(root, 'shard-2'), { runs: runsOf('latency-250', 2, { rttMs: 3 }), shard: { index: 2, count: 2 }, assertions });
  const stepSummary = path.join(root, 'step-summary.md');
  writeFileSync(stepSummary, 'earlier step\n');
  process.env.GITHUB_STEP_SUMMARY = stepSummary;
  try {
    const out = path.join(root, 'merged');
    const { summary, paths } = await mergeSuiteDirs([path.join(root, 'shard-1'), path.join(root, 'shard-2', 'summary.json')], { outDir: out });
    assert.deepEqual(summary.scenarios.map((s) => [s.name, s.runs]), [['unconstrained', 2], ['latency-250', 2]]);
    assert.deepEqual(summary.runs.map((r) => r.dir), ['unconstrained/run-1', 'unconstrained/run-2', 'latency-250/run-1', 'latency-250/run-2']);
    for (const run of summary.runs) assert.ok(existsSync(path.join(out, run.dir, 'result.json')), run.dir);
    assert.equal(summary.shard, null);
    assert.equal(summary.mergedFrom.length, 2);
    assert.deepEqual(summary.problems, []);
    // The latency-250 shard recorded its assertion; 3 ms RTT fails it after the merge too.
    assert.equal(summary.outcome, 'failed');
    assert.equal(summary.scenarios[1].assertions[0].passed, false);
    for (const file of Object.values(paths)) assert.ok(existsSync(file), file);
    assert.ok(existsSync(path.join(out, 'index.html')), 'results index of the merged directory');
    assert.equal(JSON.parse(readFileSync(paths.summary, 'utf8')).outcome, 'failed');
    const appended = readFileSync(stepSummary, 'utf8');
    assert.match(appended, /^earlier step\n### ❌ failed: suite `smoke` \(exit 1\)/);
  } finally {
    delete process.env.GITHUB_STEP_SUMMARY;
  }
});

test('merging repeated runs of one scenario makes a conclusive baseline comparison; a missing shard is reported', async () => {
  const root = tmp();
  await writeFakeSuiteDir(path.join(root, 'a'), { runs: runsOf('unconstrained', 3), shard: { index: 1, count: 3 } });
  await writeFakeSuiteDir(path.join(root, 'b'), { runs: runsOf('unconstrained', 3, { videoKbps: 1750 }), shard: { index: 2, count: 3 } });
  const baselineSummary = await writeFakeSuiteDir(path.join(root, 'base'), { runs: runsOf('unconstrained', 5, { videoKbps: 3000 }) });
  const baseline = { file: 'base.json', data: baselineFromSummary(baselineSummary) };
  const { summary } = await mergeSuiteDirs([path.join(root, 'a'), path.join(root, 'b')], { outDir: path.join(root, 'm'), baseline });
  assert.deepEqual(summary.runs.map((r) => r.repetition), [1, 2, 3, 4, 5, 6]);
  const video = summary.scenarios[0].regressions.find((c) => c.metric === 'video.recvKbps');
  assert.equal(video.current.n, 6);
  assert.equal(video.verdict, 'regression');
  assert.match(summary.problems[0], /shard 3\/3 missing/);
  // Flags override the thresholds the shards recorded.
  const lenient = await mergeSuiteDirs([path.join(root, 'a'), path.join(root, 'b')], { outDir: path.join(root, 'm2'), baseline, regression: { minRelativeChange: 0.9 } });
  assert.equal(lenient.summary.scenarios[0].regressions.find((c) => c.metric === 'video.recvKbps').verdict, 'unchanged');
});

test('bad merge inputs name the file and field', async () => {
  const root = tmp();
  await writeFakeSuiteDir(path.join(root, 's1'), { runs: runsOf('unconstrained', 1), shard: { index: 1, count: 2 } });
  await writeFakeSuiteDir(path.join(root, 's1-again'), { runs: runsOf('unconstrained', 1), shard: { index: 1, count: 2 } });
  await writeFakeSuiteDir(path.join(root, 'other'), { suiteName: 'nightly', runs: runsOf('unconstrained', 1) });
  await writeFakeSuiteDir(path.join(root, 'three'), { runs: runsOf('unconstrained', 1), shard: { index: 2, count: 3 } });
  writeFileSync(path.join(root, 'not-a-summary.json'), JSON.stringify({ schemaVersion: 1, status: 'passed' }));
  await assert.rejects(mergeSuiteDirs([path.join(root, 's1'), path.join(root, 'other')]), inputError(/other\/summary\.json: suite\.name: 'nightly' differs from 'smoke'/));
  await assert.rejects(mergeSuiteDirs([path.join(root, 's1'), path.join(root, 's1-again')], { outDir: path.join(root, 'x') }), inputError(/s1\/summary\.json: shard: 1\/2 appears in more than one input/));
  await assert.rejects(mergeSuiteDirs([path.join(root, 's1'), path.join(root, 'three')], { outDir: path.join(root, 'x') }), inputError(/matrices of different sizes/));
  await assert.rejects(mergeSuiteDirs([path.join(root, 'not-a-summary.json')]), inputError(/not-a-summary\.json: kind: must be "webrtc-testbed-suite"/));
  await assert.rejects(mergeSuiteDirs([path.join(root, 'nothing-here')]), inputError(/nothing-here: cannot read the suite summary \(no such file\)/));
  await assert.rejects(mergeSuiteDirs([path.join(root, 's1')], { outDir: path.join(root, 's1') }), inputError(/is one of the inputs/));
});
