// `reproduce j16-table-8-1` end to end with real browsers through the relay, compressed hard (360p30, time scale
// 0.04 so the 300 s call lasts 12 s, 2 s of it after the unscaled 10 s warm-up, 1 repetition; about 20 s on 2
// cores): the reproduction page shows the table's row with this run's value beside the published one, and the suite page links to
// it. What is checked is the wiring (the row, its cells, the links), not the value, so the call is short.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { findReproduction } from '../orchestrator/lib/scenario/reproductions.js';
import { loadScenario } from '../orchestrator/lib/scenario/scenario-file.js';
import { runCli, tempDir } from './helpers/cli.js';

const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));
/** 300 s × TIME_SCALE: the scenario's warm-up (10 s) is not scaled, so this leaves 2 measured seconds. */
const TIME_SCALE = 0.04;
const DURATION_S = 12;

test('reproduce j16-table-8-1 renders the table from a real compressed suite run', async () => {
  const out = tempDir('wtb-reproduce-');
  const compressed = ['--video', '360p30', '--time-scale', String(TIME_SCALE), '--repetitions', '1', '--out', out];
  const run = await runCli(['reproduce', 'j16-table-8-1', ...compressed],
    { timeoutMs: 3 * 60_000, env: { GITHUB_STEP_SUMMARY: '' } });
  assert.equal(run.code, 0, `reproduce exited ${run.code}:\n${run.stdout}\n${run.stderr}`);
  assert.match(run.stdout, /reproduction: .*reproduction-j16-table-8-1\.html/);

  const summary = readJson(path.join(out, 'summary.json'));
  assert.deepEqual(summary.runs.map((r) => [r.scenario, r.status]), [['unconstrained', 'passed']]);
  const result = readJson(path.join(out, summary.runs[0].dir, 'result.json'));
  assert.equal(result.scenario.durationS, DURATION_S);

  const page = readFileSync(path.join(out, 'reproduction-j16-table-8-1.html'), 'utf8');
  const table = findReproduction('j16-table-8-1');
  const reference = loadScenario('unconstrained').reference;
  const row = /<tr data-scenario="unconstrained">(.*?)<\/tr>/s.exec(page)?.[1];
  assert.ok(row, 'the unconstrained row');
  assert.match(row, /1\/1 runs passed/);
  for (const { path: metric } of table.columns) {
    const cell = new RegExp(`data-path="${metric.replace('.', '\\.')}" data-ours="([^"]*)" data-published="([^"]*)"`).exec(row);
    assert.ok(cell, `${metric} cell`);
    assert.equal(Number(cell[2]), reference.metrics[metric].mean, `${metric}: the published value`);
    assert.ok(cell[1] !== '', `${metric}: our value`);
    assert.ok(Math.abs(Number(cell[1]) - result.summary.overall[metric].mean) < 1e-9, `${metric}: our value is the run's window mean`);
  }
  assert.ok(result.summary.overall['video.recvKbps'].mean > 100, 'video flowed');
  assert.match(page, /These runs were compressed/);
  assert.match(page, /id="cause-source">J16 injected a 1080p50 source; these runs sent 360p30/);

  const suitePage = readFileSync(path.join(out, 'report.html'), 'utf8');
  assert.match(suitePage, /<a href="reproduction-j16-table-8-1\.html">J16 §8-1-1, table 8-1: Average results for unconstrained test<\/a>/);

  // Published, this one table's chunk counts against the whole reproduction's plan, as --all plans it.
  const plan = await runCli(['reproduce', '--all', '--repetitions', '1', '--dry-run']);
  const planned = /^(\d+) runs of \d+ scenarios/m.exec(plan.stdout)?.[1];
  assert.ok(Number(planned) > 20, `the --all plan: ${plan.stdout.slice(-300)}`);
  const publishTo = tempDir('wtb-reproduce-publish-');
  const publish = await runCli(['reproduce', 'j16-table-8-1', '--repetitions', '1', '--out', out, '--publish', publishTo]);
  assert.equal(publish.code, 0, publish.stderr);
  assert.match(publish.stdout, new RegExp(`^published 1 runs \\(1 new\\) of ${planned} planned`, 'm'));
  assert.match(readFileSync(path.join(publishTo, 'README.md'), 'utf8'), new RegExp(`Runs: 1 of the ${planned} planned`));

  // Going on from the page at the same length: the published run is skipped, the table's other repetition planned.
  const next = await runCli(['reproduce', 'j16-table-8-1', '--repetitions', '2', '--time-scale', String(TIME_SCALE),
    '--skip-published', publishTo, '--dry-run']);
  assert.equal(next.code, 0, next.stderr);
  const skipped = `^unconstrained/run-1 +${DURATION_S} s +skip: published in .*runs\\.json \\(started 20\\d\\d-`;
  assert.match(next.stdout, new RegExp(skipped, 'm'));
  assert.match(next.stdout, new RegExp(`^unconstrained/run-2 +${DURATION_S} s +run$`, 'm'));
  assert.match(next.stdout, /^2 runs of 1 scenarios \(1 skipped\)/m);
  // At full length the compressed run published is run again.
  const full = await runCli(['reproduce', 'j16-table-8-1', '--repetitions', '1', '--skip-published', publishTo, '--dry-run']);
  assert.equal(full.code, 0, full.stderr);
  assert.match(full.stdout, /^unconstrained\/run-1 +300 s +run$/m);
});
