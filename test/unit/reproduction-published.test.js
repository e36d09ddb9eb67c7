// The committed reproduction (docs/reproduction/): README.md is what runs.json renders to, and every figure on it is
// the median of the passed runs its row cites, recomputed here from runs.json without the page's own code.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { REPRODUCTIONS } from '../../orchestrator/lib/scenario/reproductions.js';
import { REPO_ROOT } from '../../orchestrator/lib/system/paths.js';
import { loadScenario } from '../../orchestrator/lib/scenario/scenario-file.js';
import { PUBLISHED_KIND, publishReproduction } from '../../orchestrator/suite/publish-reproduction.js';
import { renderReproductionMarkdown } from '../../orchestrator/suite/render-reproduction-md.js';
import { format } from '../../orchestrator/suite/render-reproduction.js';
import { referencesOf } from '../../orchestrator/suite/reproduction-runs.js';
import { makeResult } from '../fixtures/results/make-result.js';

const DIR = path.join(REPO_ROOT, 'docs', 'reproduction');
const published = JSON.parse(readFileSync(path.join(DIR, 'runs.json'), 'utf8'));
const readme = readFileSync(path.join(DIR, 'README.md'), 'utf8');

/** @param {number[]} values */
function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

test('docs/reproduction/README.md is what its runs.json renders to (npm run reproduce -- --publish)', () => {
  assert.equal(published.kind, PUBLISHED_KIND);
  assert.ok(published.runs.length > 0, 'runs.json has runs');
  const needed = new Set(published.runs.map((/** @type {any} */ run) => run.scenario));
  const scenarios = new Set(REPRODUCTIONS.flatMap((t) => t.rows.map((r) => r.scenario)));
  const expected = renderReproductionMarkdown({ runs: published.runs, references: referencesOf(scenarios), planned: published.planned });
  assert.ok(needed.size > 0);
  assert.equal(readme, expected, 'stale: publish again from the suite directory the runs came from');
});

test('every figure on the committed page is the median of the passed runs its row cites', () => {
  const baselineOf = new Map(REPRODUCTIONS.flatMap((t) => t.rows.map((r) => [`${t.citation}|${r.scenario}`, r.baseline])));
  let table = '';
  /** @type {string[]} */
  let keys = [];
  let checked = 0;
  for (const line of readme.split('\n')) {
    if (line.startsWith('## ')) table = line.slice(3).split(':')[0];
    if (line.startsWith('| Row |')) keys = line.split(' | ').slice(1).map((head) => /`([^`]+)`/.exec(head)?.[1] ?? '');
    const row = /^\| [^|]*? `([^`]+)` — runs ([^:]*):/.exec(line);
    if (!row) continue;
    const [, scenario, citedText] = row;
    const cited = citedText === 'none yet' ? [] : citedText.split(', ').map((c) => Number.parseInt(c, 10));
    const passed = (/** @type {string} */ name) => published.runs.filter((/** @type {any} */ r) => r.scenario === name && r.status === 'passed');
    const ofScenario = published.runs.filter((/** @type {any} */ r) => r.scenario === scenario);
    assert.deepEqual(ofScenario.map((/** @type {any} */ r) => r.repetition), cited, `${scenario}: the row cites exactly the runs runs.json has`);
    const cells = line.split(' | ').slice(1);
    keys.forEach((key, i) => {
      const shown = /^\*\*([^*]+)\*\*/.exec(cells[i])?.[1];
      if (!key || shown === undefined) return;
      const of = (/** @type {string} */ name, /** @type {string} */ p) => median(
        passed(name).map((/** @type {any} */ r) => r.values[p]).filter(Number.isFinite));
      const value = key.startsWith('×')
        ? of(scenario, key.slice(1)) / of(String(baselineOf.get(`${table}|${scenario}`)), key.slice(1))
        : of(scenario, key);
      assert.equal(shown, format(key, value), `${table}, ${scenario}, ${key}`);
      checked += 1;
    });
  }
  assert.ok(checked > 0, 'the page shows at least one measured figure');
});

test('publishing a chunk adds its finished runs, replaces a re-run one and keeps the others', async () => {
  const suiteDir = mkdtempSync(path.join(os.tmpdir(), 'wtb-publish-suite-'));
  const toDir = mkdtempSync(path.join(os.tmpdir(), 'wtb-publish-to-'));
  const writeChunk = async (/** @type {Array<[string, number, string, number]>} */ runs) => {
    for (const [name, repetition, status, kbps] of runs) {
      const base = makeResult('static');
      const { file, durationS } = loadScenario(name);
      // The relay's packet path comes from its load rows; a run without them names the emulator alone.
      const emulatorLoad = name === 'latency-500' ? [{ t: 1, behind: false, packetPath: 'native' }] : undefined;
      const result = { ...base, status, scenario: { ...base.scenario, name, file, durationS }, network: { ...base.network, emulatorLoad } };
      // unconstrained's run 2 was CPU-limited (its p0, which the scenario does not constrain).
      if (name === 'unconstrained' && repetition === 2) {
        result.summary.cpuLimitation = { share: 0.5, byPeer: { p0: 0.5 }, limited: true, thresholdShare: 0.2, seconds: [] };
      }
      // latency-500's relay was late in 2 of its 300 s; unconstrained's run 2 says only that it fell behind (an older result).
      if (name === 'latency-500') {
        result.summary.emulatorBehind = { behind: true, seconds: 2, measuredSeconds: 300, spans: [], lateMaxMs: 6.25, hostStallSeconds: 1 };
      }
      result.summary.overall['video.recvKbps'] = { ...result.summary.overall['video.recvKbps'], mean: kbps };
      await mkdir(path.join(suiteDir, name, `run-${repetition}`), { recursive: true });
      await writeFile(path.join(suiteDir, name, `run-${repetition}`, 'result.json'), JSON.stringify(result));
    }
    // The summary's flags: unconstrained run 2's relay fell behind, latency-500's too (CPU verdicts come from the results).
    const summary = { kind: 'webrtc-testbed-suite', schemaVersion: 1,
      runs: runs.map(([scenario, repetition, status]) => ({ scenario, repetition, status, dir: `${scenario}/run-${repetition}`, report: null,
        emulatorBehind: repetition === 2 || scenario === 'latency-500' })) };
    await writeFile(path.join(suiteDir, 'summary.json'), JSON.stringify(summary));
  };
  await writeChunk([['unconstrained', 1, 'passed', 1000], ['unconstrained', 2, 'aborted', 1]]);
  assert.deepEqual(await publishReproduction(suiteDir, toDir, { planned: 3 }).then((r) => [r.runs, r.added]), [1, 1], 'the aborted run is not a figure');
  await writeChunk([['unconstrained', 2, 'passed', 3000], ['latency-500', 1, 'passed', 500]]);
  await publishReproduction(suiteDir, toDir, { planned: 3 });
  await writeChunk([['unconstrained', 1, 'passed', 2000]]);
  const { runs } = await publishReproduction(suiteDir, toDir, { planned: 3 });
  assert.equal(runs, 3);
  const data = JSON.parse(readFileSync(path.join(toDir, 'runs.json'), 'utf8'));
  assert.deepEqual(data.runs.map((/** @type {any} */ r) => [r.scenario, r.repetition, Math.round(r.values['video.recvKbps'])]),
    [['unconstrained', 1, 2000], ['unconstrained', 2, 3000], ['latency-500', 1, 500]]);
  const page = readFileSync(path.join(toDir, 'README.md'), 'utf8');
  assert.match(page, /`unconstrained` — runs 1, 2: 2\/2 passed · \*\*host-limited in 1\*\* \(CPU-limited: 2; relay fell behind: 2\) \| [^|]*\| \*\*2500\*\*/);
  assert.match(page, /`latency-500` — runs 1: 1\/1 passed · \*\*host-limited in 1\*\* \(relay fell behind: 1 \(2 of 300 s, latest 6\.3 ms; the host did not run it in 1\)\) \|/);
  assert.match(page, /^- Network emulator \(the relay's packet path\): relay in 2 runs, relay \(native\) in 1 run$/m);
  // A hand-edited record whose relay figures are not numbers still renders (its run number only).
  const edited = JSON.parse(readFileSync(path.join(toDir, 'runs.json'), 'utf8'));
  edited.runs[2].behindSeconds = { seconds: 'two', measuredSeconds: 300, lateMaxMs: '5', hostStallSeconds: {} };
  await writeFile(path.join(toDir, 'runs.json'), JSON.stringify(edited));
  await publishReproduction(suiteDir, toDir, { planned: 3 });
  await writeFile(path.join(toDir, 'runs.json'), JSON.stringify({ kind: 'something else' }));
  await assert.rejects(publishReproduction(suiteDir, toDir, { planned: 3 }), /not a published reproduction.*restore the file from git/);
});
