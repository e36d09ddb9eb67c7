// The nightly workflow: linted by actionlint when it is installed, and kept consistent with the CLI.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { DEFAULT_KEEP_NIGHTS } from '../../orchestrator/suite/baseline.js';
import { tempDir } from '../helpers/cli.js';
import { fakeResult, writeFakeSuiteDir } from '../fixtures/suites/make-suite-result.js';

const WORKFLOW = fileURLToPath(new URL('../../.github/workflows/nightly.yml', import.meta.url));
const text = readFileSync(WORKFLOW, 'utf8');
const onPath = spawnSync('sh', ['-c', 'command -v actionlint'], { encoding: 'utf8' }).status === 0;

test('actionlint finds no problem in .github/workflows/nightly.yml', {
  skip: !onPath && 'actionlint is not on PATH (install: go install github.com/rhysd/actionlint/cmd/actionlint@v1.7.12, then add $(go env GOPATH)/bin to PATH)',
}, () => {
  const { status, stdout, stderr } = spawnSync('actionlint', ['-no-color', WORKFLOW], { encoding: 'utf8' });
  assert.equal(status, 0, `${stdout}${stderr}`);
});

test('the shard matrix matches SHARDS, and the steps use the suite, merge and baseline commands', () => {
  const matrix = /^\s+shard: \[([\d, ]+)\]$/m.exec(text)?.[1].split(',').map(Number);
  const shards = Number(/^\s+SHARDS: (\d+)$/m.exec(text)?.[1]);
  assert.deepEqual(matrix, Array.from({ length: shards }, (_, i) => i + 1));
  assert.match(text, /cli\.js suite "\$SUITE" --shard "\$\{\{ matrix\.shard \}\}\/\$SHARDS" --out "shard-\$\{\{ matrix\.shard \}\}" --no-fail/);
  assert.match(text, /cli merge shards\/shard-\* --out merged "\$\{baseline\[@\]\}"/);
  assert.equal(Number(/^\s+KEEP_NIGHTS: (\d+)$/m.exec(text)?.[1]), DEFAULT_KEEP_NIGHTS);
  // The rolling baseline is restored by prefix and saved under the same per-night key.
  const keys = [...text.matchAll(/^\s+key: (.+)$/gm)].map((m) => m[1]);
  assert.deepEqual(keys, Array(2).fill('baseline-${{ env.SUITE }}-${{ github.run_id }}-${{ github.run_attempt }}'));
  assert.match(text, /^\s+restore-keys: baseline-\$\{\{ env\.SUITE \}\}-$/m);
  assert.match(text, /cli\.js baseline save merged --out/);
  assert.match(text, /^\s+schedule:\n\s+- cron: /m);
  assert.match(text, /^\s+workflow_dispatch:/m);
});

test('the nightly never puts the results store (its URL may hold a password) on a command line: the CLI reads $HISTORY_STORE', () => {
  // Every use of the value, in a script or an expression; the shell's own `case` reads it without handing it to a program.
  const uses = text.split('\n').filter((line) => !/^\s*#/.test(line) && /\$\{?HISTORY_STORE\b|env\.HISTORY_STORE\b/.test(line));
  assert.deepEqual(uses.map((line) => line.trim()), ['case "$HISTORY_STORE" in']);
  assert.equal([...text.matchAll(/secrets\.HISTORY_STORE/g)].length, 1, 'the secret goes into the environment only');
  assert.match(text, /^ {6}HISTORY_STORE: \$\{\{ secrets\.HISTORY_STORE \|\| 'history\/history\.sqlite' \}\}$/m);
  assert.match(text, /cli merge shards\/shard-\* --out merged "\$\{baseline\[@\]\}" --history\n/);
});

/** The `run:` script of the merge job's step with this name. @param {string} name */
function stepScript(name) {
  const match = new RegExp(`^ +- name: ${name}\\n(?: +(?!- name)[^\\n]*\\n)*? +run: \\|\\n((?: {10}[^\\n]*\\n|\\n)+)`, 'm').exec(text);
  assert.ok(match, `step ${name} with a run: | block`);
  return match[1].replace(/^ {10}/gm, '');
}

test('the rolling baseline from the store: the first night seeds it, the second is gated by it; a foreign pinned baseline is skipped, a store without green nights falls back to the cache, a reset starts a new series', async () => {
  const merge = stepScript('Merge shards and compare with the baseline');
  const store = stepScript('Add this night to the rolling baseline');
  const work = tempDir('wtb-nightly-');
  symlinkSync(fileURLToPath(new URL('../../orchestrator', import.meta.url)), path.join(work, 'orchestrator'));
  const bash = (script, runId, reset) => spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], {
    cwd: work,
    encoding: 'utf8',
    env: {
      ...process.env, SUITE: 'smoke', KEEP_NIGHTS: '5', GITHUB_RUN_ID: runId, GITHUB_STEP_SUMMARY: '', GITHUB_ACTIONS: '',
      HISTORY_STORE: 'history/history.sqlite', RESET_BASELINE: String(reset),
    },
  });
  // Each night runs on a fresh checkout: only the restored rolling/ directory and the results store survive.
  const night = async (runId, videoKbps, { reset = false, loseStore = false } = {}) => {
    for (const leftover of ['shards', 'merged', 'rolled.json', ...(loseStore ? ['history'] : [])]) rmSync(path.join(work, leftover), { recursive: true, force: true });
    const day = `2026-11-${10 + Number(runId)}`;
    await writeFakeSuiteDir(path.join(work, 'shards', 'shard-1'), {
      day, runs: Array.from({ length: 5 }, (_, i) => ({ scenario: 'unconstrained', result: fakeResult({ seed: i + 1, videoKbps, day }) })),
    });
    const merged = bash(merge, runId, reset);
    return { merged, stored: merged.status === 0 ? bash(store, runId, reset) : null };
  };

  const first = await night('1', 1700);
  assert.equal(first.merged.status, 0, first.merged.stderr);
  assert.match(first.merged.stdout, /no earlier green night of this machine class: no regression check tonight/);
  assert.equal(first.stored.status, 0, first.stored.stderr);
  assert.equal(readdirSync(path.join(work, 'rolling')).length, 1);

  const second = await night('2', 1690);
  assert.equal(second.merged.status, 0, second.merged.stdout);
  assert.match(second.merged.stdout, /rolling baseline from the store -> rolled\.json: rolling: 1 nights/);
  assert.match(second.merged.stdout, /\| unconstrained \| 5\/5 \| .* \| 5 unchanged \|/);

  const pinned = JSON.parse(readFileSync(path.join(work, 'rolling', readdirSync(path.join(work, 'rolling'))[0]), 'utf8'));
  mkdirSync(path.join(work, 'baselines'));
  writeFileSync(path.join(work, 'baselines', 'smoke.json'), JSON.stringify({ ...pinned, machineClass: { ...pinned.machineClass, cores: 64 } }));
  const slow = await night('3', 500);
  assert.equal(slow.merged.status, 1, slow.merged.stdout + slow.merged.stderr);
  assert.match(slow.merged.stdout, /::warning::baselines\/smoke\.json is of machine class linux, \? × 64.*using the rolling baseline/);
  assert.match(slow.merged.stdout, /rolling baseline from the store -> rolled\.json: rolling: 2 nights/);
  assert.match(slow.merged.stdout, /\| unconstrained \| `video\.recvKbps` \| ❌ regression \|/);
  assert.equal(slow.stored, null);
  assert.equal(readdirSync(path.join(work, 'rolling')).length, 2, 'a red night does not feed the rolling baseline');

  // A pinned baseline of this machine class wins over the rolling one.
  writeFileSync(path.join(work, 'baselines', 'smoke.json'), JSON.stringify(pinned));
  const pinnedNight = await night('4', 1700);
  assert.equal(pinnedNight.merged.status, 0, pinnedNight.merged.stdout);
  assert.match(pinnedNight.merged.stdout, /::notice::comparing with the pinned baselines\/smoke\.json/);

  // A store without green nights (here: lost) falls back to the cache's nights.
  rmSync(path.join(work, 'baselines'), { recursive: true });
  const lost = await night('5', 1700, { loseStore: true });
  assert.equal(lost.merged.status, 0, lost.merged.stdout + lost.merged.stderr);
  assert.match(lost.merged.stdout, /no green smoke night .*in the store: rolled\.json not written\n(.|\n)*rolling baseline -> rolled\.json: rolling: 3 nights/);

  // reset_baseline: that night is compared with nothing, and the store rolls from it on.
  const reset = await night('6', 1500, { reset: true });
  assert.equal(reset.merged.status, 0, reset.merged.stdout + reset.merged.stderr);
  assert.match(reset.merged.stdout, /::notice::reset_baseline: no regression check tonight/);
  assert.match(reset.merged.stdout, / · no baseline\n/);
  const after = await night('7', 1500);
  assert.equal(after.merged.status, 0, after.merged.stdout + after.merged.stderr);
  assert.match(after.merged.stdout, /rolling baseline from the store -> rolled\.json: rolling: 1 nights \(2026-11-16/);
});
