// `reproduce --publish` (and the other readers of a suite directory) against a hostile summary.json and result.json:
// a suite directory may come from another machine or a shared folder, and the page it publishes is committed.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { readRecords } from '../../orchestrator/commands/history.js';
import { loadScenario } from '../../orchestrator/lib/scenario/scenario-file.js';
import { mergeSuiteDirs } from '../../orchestrator/suite/merge.js';
import { publishReproduction, skipPublished } from '../../orchestrator/suite/publish-reproduction.js';
import { makeResult } from '../fixtures/results/make-result.js';

/** A passed result of the shipped scenario of that name. @param {string} name */
function shippedResult(name) {
  const base = makeResult('static');
  const { file, durationS } = loadScenario(name);
  return { ...base, scenario: { ...base.scenario, name, file, durationS } };
}

/** Writes <dir>/<run>/result.json. @param {string} dir @param {string} run @param {unknown} result */
function writeResult(dir, run, result) {
  mkdirSync(path.join(dir, run), { recursive: true });
  writeFileSync(path.join(dir, run, 'result.json'), JSON.stringify(result));
}

/** A reproduce suite directory with this summary.json's runs. @param {object[]} runs */
function suiteWith(runs) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'wtb-hostile-suite-'));
  const summary = { kind: 'webrtc-testbed-suite', schemaVersion: 1, suite: { name: 'reproduce-j16' }, startedAt: '2026-01-01T00:00:00.000Z',
    outcome: 'passed', runs: runs.map((run) => ({ scenario: 'unconstrained', repetition: 1, status: 'passed', dir: 'unconstrained/run-1', report: null, ...run })) };
  writeFileSync(path.join(dir, 'summary.json'), JSON.stringify(summary));
  return dir;
}

const toDir = () => mkdtempSync(path.join(os.tmpdir(), 'wtb-hostile-page-'));

test('hostile summary.json: a run dir that leaves the suite directory (by .. or a symbolic link) is not published, merged or imported', async () => {
  const outside = mkdtempSync(path.join(os.tmpdir(), 'wtb-hostile-outside-'));
  writeResult(outside, 'unconstrained/run-1', shippedResult('unconstrained'));
  const byName = suiteWith([{ dir: `../${path.basename(outside)}/unconstrained/run-1` }]);
  const page = toDir();
  await assert.rejects(publishReproduction(byName, page, { planned: 1 }), /summary\.json: runs\[0\]\.dir: must be a path inside the suite directory/);
  const byDirLink = suiteWith([{}]);
  symlinkSync(path.join(outside, 'unconstrained'), path.join(byDirLink, 'unconstrained'));
  const byFileLink = suiteWith([{}]);
  mkdirSync(path.join(byFileLink, 'unconstrained', 'run-1'), { recursive: true });
  symlinkSync(path.join(outside, 'unconstrained', 'run-1', 'result.json'), path.join(byFileLink, 'unconstrained', 'run-1', 'result.json'));
  const linked = /unconstrained\/run-1(\/result\.json)?: a symbolic link out of the suite directory .*remove the link/;
  for (const suiteDir of [byDirLink, byFileLink]) {
    await assert.rejects(publishReproduction(suiteDir, page, { planned: 1 }), linked);
    await assert.rejects(mergeSuiteDirs([suiteDir], { outDir: path.join(toDir(), 'merged') }), linked);
    await assert.rejects(readRecords(suiteDir, { commit: null }), linked);
  }
  assert.ok(!existsSync(path.join(page, 'runs.json')), 'nothing was published');
});

test('hostile summary.json: a string repetition is refused, so it cannot break every later --publish and --skip-published', async () => {
  const page = toDir();
  const bad = suiteWith([{ repetition: '1' }]);
  writeResult(bad, 'unconstrained/run-1', shippedResult('unconstrained'));
  await assert.rejects(publishReproduction(bad, page, { planned: 1 }), /summary\.json: runs\[0\]\.repetition: must be an integer >= 1, got "1"/);
  const good = suiteWith([{}]);
  writeResult(good, 'unconstrained/run-1', shippedResult('unconstrained'));
  assert.deepEqual(await publishReproduction(good, page, { planned: 1 }).then((r) => [r.runs, r.added]), [1, 1]);
  assert.match((await skipPublished(page))('unconstrained', 1, 300) ?? '', /published in/);
});

test('hostile result.json: a browser string cannot add a link, an image, HTML or a heading to the published page', async () => {
  const suiteDir = suiteWith([{}]);
  const result = shippedResult('unconstrained');
  result.environment.browser = { name: 'chromium', version: '1 [x](https://evil.example) ![i](https://evil.example/i.png) <img src=x onerror=alert(1)>\n# Owned | cell' };
  result.environment.commit = 12345;
  writeResult(suiteDir, 'unconstrained/run-1', result);
  const page = toDir();
  await publishReproduction(suiteDir, page, { planned: 1 });
  const readme = readFileSync(path.join(page, 'README.md'), 'utf8');
  const browsers = readme.split('\n').find((line) => line.startsWith('- Browsers: ')) ?? '';
  assert.match(browsers, /^- Browsers: chromium 1 \\\[x\\\]\(https:\/\/evil\.example\) \\!\\\[i\\\]/);
  assert.doesNotMatch(readme, /[^\\]\]\(https|[^\\]<img|^# Owned/m);
  assert.match(readme, /^- Commits \(the checkout each run was made from\): commit unknown \(tree state unknown\) in 1 run$/m,
    'a commit that is not text is not recorded');
});
