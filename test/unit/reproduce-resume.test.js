import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { resumeDecision } from '../../orchestrator/lib/scenario/reproductions/resume.js';
import { loadScenario } from '../../orchestrator/lib/scenario/scenario-file.js';
import { DEFAULT_REGRESSION } from '../../orchestrator/suite/baseline.js';
import { runSuite } from '../../orchestrator/suite/runner.js';
import { PUBLISHED_KIND, skipPublished } from '../../orchestrator/suite/publish-reproduction.js';
import { makeResult } from '../fixtures/results/make-result.js';

/** A complete result.json of a shipped scenario (the static fixture renamed), or one with another status. */
function resultOf(name, status = 'passed') {
  const result = makeResult('static');
  const { file, durationS } = loadScenario(name);
  return { ...result, status, scenario: { ...result.scenario, name, file, durationS } };
}

/** A reproduce suite of J16 table 8-4's rows, each run this many times. @param {string[]} names @param {number} repetitions */
const tableSuite = (names, repetitions) => ({
  name: 'reproduce-j16-table-8-4', description: 'test', file: 'reproduce j16-table-8-4', emulator: 'relay', video: '720p30',
  assertionsFile: null, regression: DEFAULT_REGRESSION,
  entries: names.map((name) => ({ name, source: name, repetitions, scenario: loadScenario(name) })),
});

/** A stand-in for runScenario that writes a complete result.json and lists the runs it made as scenario/run-N. */
function fakeRunner() {
  /** @type {string[]} */
  const ran = [];
  const runOne = async ({ scenario, outDir }) => {
    ran.push(`${scenario.name}/${path.basename(outDir)}`);
    const result = resultOf(scenario.name);
    await mkdir(outDir, { recursive: true });
    await writeFile(path.join(outDir, 'result.json'), JSON.stringify(result));
    return { result };
  };
  return { ran, runOne };
}

test('resume keeps only a finished result of the same scenario, length and congestion control', () => {
  const scenario = { name: 'bandwidth-750', durationS: 300, fieldTrials: null, bandwidthEstimation: 'send-side' };
  assert.deepEqual(resumeDecision(resultOf('bandwidth-750'), scenario), { keep: true, why: 'complete (passed)' });
  assert.equal(resumeDecision(resultOf('bandwidth-750', 'failed'), scenario).keep, true);
  assert.equal(resumeDecision(resultOf('bandwidth-750', 'aborted'), scenario).keep, false);
  assert.equal(resumeDecision({ ...resultOf('bandwidth-750'), summary: null }, scenario).keep, false);
  assert.equal(resumeDecision(resultOf('bandwidth-250'), scenario).keep, false);
  assert.match(resumeDecision(resultOf('bandwidth-750'), { ...scenario, durationS: 30 }).why, /another --time-scale/);
  assert.equal(resumeDecision(null, scenario).keep, false);
  const remb = resultOf('bandwidth-750');
  remb.scenario = { ...remb.scenario, bandwidthEstimation: 'remb' };
  assert.deepEqual(resumeDecision(remb, scenario), {
    keep: false, why: 'ran with remb bandwidth estimation, unlike this plan (another --field-trials or --bandwidth-estimation?)',
  });
  assert.equal(resumeDecision(remb, { ...scenario, bandwidthEstimation: 'remb' }).keep, true);
  const trials = { ...scenario, fieldTrials: 'WebRTC-Bwe-LossBasedBweV2/Enabled:false/' };
  assert.match(resumeDecision(resultOf('bandwidth-750'), trials).why, /^ran with field trials none, unlike this plan/);
});

test('a resumed suite re-runs only the partial and missing runs and renders the page from all of them', async () => {
  const out = mkdtempSync(path.join(os.tmpdir(), 'wtb-resume-'));
  const write = async (dir, result) => {
    await mkdir(path.join(out, dir), { recursive: true });
    await writeFile(path.join(out, dir, 'result.json'), JSON.stringify(result));
  };
  await write('bandwidth-1500/run-1', resultOf('bandwidth-1500'));
  await write('bandwidth-750/run-1', resultOf('bandwidth-750', 'aborted'));
  /** @type {string[]} */
  const ran = [];
  const runOne = async ({ scenario, outDir, force }) => {
    assert.equal(force, true, 'a partial run\'s result.json is replaced');
    ran.push(scenario.name);
    const result = resultOf(scenario.name);
    await write(path.relative(out, outDir), result);
    return { result };
  };
  const names = ['bandwidth-1500', 'bandwidth-750', 'bandwidth-250'];
  const suite = tableSuite(names, 1);
  const { summary } = await runSuite({
    suite, assertions: {}, assertionsFile: null, regression: suite.regression, outDir: out, resume: true,
    runOne: /** @type {any} */ (runOne),
  });
  assert.deepEqual(ran, ['bandwidth-750', 'bandwidth-250'], 'the complete bandwidth-1500 run is kept');
  assert.deepEqual(summary.runs.map((r) => [r.scenario, r.status]), names.map((name) => [name, 'passed']));
  const page = readFileSync(path.join(out, 'reproduction-j16-table-8-4.html'), 'utf8');
  for (const name of names) assert.match(page, new RegExp(`<tr data-scenario="${name}">.*?1/1 runs passed`, 's'));
  assert.ok(existsSync(path.join(out, 'summary.json')));
});

test('--max-runs runs a chunk of the missing runs, keeps the complete ones in the summary, and says what is left', async () => {
  const out = mkdtempSync(path.join(os.tmpdir(), 'wtb-chunk-'));
  await mkdir(path.join(out, 'bandwidth-250/run-1'), { recursive: true });
  await writeFile(path.join(out, 'bandwidth-250/run-1/result.json'), JSON.stringify(resultOf('bandwidth-250')));
  const { ran, runOne } = fakeRunner();
  const names = ['bandwidth-1500', 'bandwidth-750', 'bandwidth-250'];
  const suite = tableSuite(names, 2);
  const chunk = () => runSuite({
    suite, assertions: {}, assertionsFile: null, regression: suite.regression, outDir: out, resume: true, maxNewRuns: 2,
    runOne: /** @type {any} */ (runOne),
  });
  const first = (await chunk()).summary;
  assert.deepEqual(ran, ['bandwidth-1500/run-1', 'bandwidth-1500/run-2']);
  assert.deepEqual(first.runs.map((r) => `${r.scenario}/${r.dir.split('/')[1]}`), [...ran, 'bandwidth-250/run-1'], 'the kept run after the chunk is in the summary');
  assert.match(first.problems.join('\n'), /3 run\(s\) not run yet \(--max-runs 2\)/);
  await chunk();
  await chunk();
  assert.deepEqual(ran.slice(2), ['bandwidth-750/run-1', 'bandwidth-750/run-2', 'bandwidth-250/run-2']);
  const last = (await chunk()).summary;
  assert.equal(ran.length, 5, 'nothing left to run');
  assert.equal(last.runs.length, 6);
  assert.deepEqual(last.problems, []);
});

test('--skip-published leaves out the runs the committed page already has, and names a folder without one', async () => {
  const out = mkdtempSync(path.join(os.tmpdir(), 'wtb-skip-'));
  const pageDir = path.join(out, 'page');
  await mkdir(pageDir);
  // bandwidth-750's run 1 as long as the plan's; run 3 shorter (its scenario has been lengthened since); run 4 an older
  // record without a clock.
  const published = [
    { scenario: 'bandwidth-750', repetition: 1, startedAt: '2026-11-20T10:00:00.000Z', clock: { timeScale: 1, durationS: 300, nominalDurationS: 300 } },
    { scenario: 'bandwidth-750', repetition: 3, startedAt: '2026-11-20T11:00:00.000Z', clock: { timeScale: 1, durationS: 150, nominalDurationS: 150 } },
    { scenario: 'bandwidth-750', repetition: 4, startedAt: '2026-11-20T12:00:00.000Z' },
  ];
  await writeFile(path.join(pageDir, 'runs.json'), JSON.stringify({ kind: PUBLISHED_KIND, schemaVersion: 1, planned: 4, runs: published }));
  await assert.rejects(skipPublished(out), /--skip-published .*no runs\.json there/);
  const broken = path.join(out, 'broken');
  await mkdir(broken);
  await writeFile(path.join(broken, 'runs.json'), '{"kind": "something else", "runs": [{"scenario": 7}]}');
  await assert.rejects(skipPublished(broken), /broken\/runs\.json: not a published reproduction.*restore the file from git/);
  const skipRun = await skipPublished(pageDir);
  assert.match(skipRun('bandwidth-750', 1, 300) ?? '', /published in .*runs\.json \(started 2026-11-20T10:00:00\.000Z\)/);
  assert.equal(skipRun('bandwidth-750', 2, 300), null);
  assert.equal(skipRun('bandwidth-750', 3, 300), null, 'published shorter than the plan runs it: run again');
  assert.match(skipRun('bandwidth-750', 3, 150) ?? '', /published in/);
  assert.match(skipRun('bandwidth-750', 4, 300) ?? '', /published in/, 'a record without its length is kept, as before');
  const { ran, runOne } = fakeRunner();
  const names = ['bandwidth-1500', 'bandwidth-750'];
  const suite = tableSuite(names, 2);
  const { summary } = await runSuite({
    suite, assertions: {}, assertionsFile: null, regression: suite.regression, outDir: path.join(out, 'suite'), resume: true,
    skipRun, runOne: /** @type {any} */ (runOne),
  });
  assert.deepEqual(ran, ['bandwidth-1500/run-1', 'bandwidth-1500/run-2', 'bandwidth-750/run-2']);
  assert.deepEqual(summary.runs.map((r) => r.dir), ran, 'the published run is not in this suite');
  assert.deepEqual(summary.problems, []);
});
