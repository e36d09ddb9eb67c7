// The results store against hostile result.json and summary.json files (a shared store takes results from many
// machines): what a file's fields can do to other runs' rows, to the store's statements and to the workflow
// commands `history` prints under GitHub Actions. Real SQLite stores, the CLI as a user runs it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCli, tempDir } from '../helpers/cli.js';
import { writeRecords } from '../../orchestrator/history/import.js';
import { readRecords } from '../../orchestrator/commands/history.js';
import { insertRows } from '../../orchestrator/history/sql.js';
import { openStore } from '../../orchestrator/history/store.js';
import { syntheticNights } from '../../orchestrator/history/synthetic.js';
import { MAX_RESULT_FILE_BYTES } from '../../orchestrator/lib/input/limits.js';
import { workflowCommand } from '../../orchestrator/lib/system/workflow-command.js';
import { makeResult } from '../fixtures/results/make-result.js';
import { metricsOf, runDir, shiftingResult, victimResult } from '../helpers/hostile-history.js';

const CI_ENV = { GITHUB_ACTIONS: '', GITHUB_STEP_SUMMARY: '' };

/** @param {string} store @param {string} runId */
async function metricsIn(store, runId) {
  const opened = await openStore(store);
  try {
    return await metricsOf(opened, runId);
  } finally {
    await opened.close();
  }
}

test('hostile result.json: an array-valued n cannot add a row to another run\'s history', async () => {
  const root = tempDir('wtb-hostile-history-');
  const store = path.join(root, 'h.sqlite');
  const victim = victimResult();
  assert.equal((await runCli(['history', 'import', runDir(root, 'victim', victim.result), '--store', store], { env: CI_ENV })).code, 0);
  const before = await metricsIn(store, victim.id);
  assert.ok(before.length > 10 && !before.some((row) => row.metric === 'video.recvKbps'));
  const run = await runCli(['history', 'import', runDir(root, 'hostile', shiftingResult(victim.id)), '--store', store], { env: CI_ENV });
  assert.deepEqual(await metricsIn(store, victim.id), before, 'the victim\'s rows are as they were');
  assert.equal(run.code, 2, `${run.stdout}\n${run.stderr}`);
  assert.match(run.stderr, /hostile\/result\.json: summary\.overall\.video\.sendKbps\.n: must be/);
});

/** Each field the store keeps, given a value no harness writes; the import must name the file and that field. */
/** @type {Array<[string, (result: any) => void]>} any: each spoils a result.json fixture a field the types forbid */
const BAD_RESULT_FIELDS = [
  ['summary.overall.video.recvKbps.mean', (r) => { r.summary.overall['video.recvKbps'].mean = { a: 1 }; }],
  ['summary.overall.video.recvKbps.n', (r) => { r.summary.overall['video.recvKbps'].n = 2.5; }],
  ['scenario.reference.metrics.video.recvKbps.mean', (r) => { r.scenario.reference = { metrics: { 'video.recvKbps': { mean: [1] } } }; }],
  ['environment.browser.version', (r) => { r.environment.browser.version = ['157']; }],
  ['environment.browser.name', (r) => { r.environment.browser.name = { name: 'chromium' }; }],
  ['environment.emulator', (r) => { r.environment.emulator = { relay: true }; }],
];

test('hostile result.json: an object, array or fraction where the store keeps a number or text is an error naming the file and field', async () => {
  const root = tempDir('wtb-hostile-fields-');
  for (const [field, spoil] of BAD_RESULT_FIELDS) {
    const result = makeResult('static');
    spoil(result);
    const dir = runDir(root, field, result);
    await assert.rejects(readRecords(dir, { commit: null }), (/** @type {Error & { exitCode?: number }} */ error) => {
      assert.equal(error.exitCode, 2, `${field}: ${error.stack}`);
      assert.ok(error.message.startsWith(`${path.join(dir, 'result.json')}: ${field}: must be `), error.message);
      return true;
    }, field);
  }
  // Through the CLI: exit 2 and one line, not a stack trace.
  const run = await runCli(['history', 'import', path.join(root, BAD_RESULT_FIELDS[0][0]), '--store', path.join(root, 'h.sqlite')], { env: CI_ENV });
  assert.equal(run.code, 2, run.stderr);
  assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace');
});

/** A suite directory whose summary.json has these scenarios (and no runs). @param {string} root @param {unknown[]} scenarios */
function suiteDir(root, scenarios, extra = {}) {
  const dir = path.join(root, `suite-${Math.random().toString(36).slice(2)}`);
  mkdirSync(dir, { recursive: true });
  const summary = { kind: 'webrtc-testbed-suite', schemaVersion: 1, suite: { name: 'nightly' }, startedAt: '2026-01-03T00:00:00.000Z',
    outcome: 'passed', exitCode: 0, runs: [], scenarios, ...extra };
  writeFileSync(path.join(dir, 'summary.json'), JSON.stringify(summary));
  return dir;
}

test('hostile summary.json: an array in a comparison or the night cannot shift the night\'s rows, and is named', async () => {
  const root = tempDir('wtb-hostile-summary-');
  const check = { metric: 'video.recvKbps', verdict: 'regression', current: { median: [1, 'other-night', 's', 'rttMs'] }, baseline: { median: 2 } };
  /** @type {Array<[string, RegExp]>} */
  const cases = [
    [suiteDir(root, [{ name: 'unconstrained', regressions: [check] }]), /summary\.json: scenarios\[0\]\.regressions\[0\]\.current\.median: must be/],
    [suiteDir(root, [], { exitCode: [0, 1] }), /summary\.json: exitCode: must be/],
    [suiteDir(root, [{ name: 'bad\nname', regressions: [] }]), /summary\.json: scenarios\[0\]\.name: must be/],
  ];
  for (const [dir, message] of cases) await assert.rejects(readRecords(dir, { commit: null }), message);
});

test('the store binds only text, finite numbers and null: an array, object or NaN reaching a statement is refused (SQLite)', async () => {
  const store = await openStore(path.join(tempDir('wtb-hostile-bind-'), 'h.sqlite'));
  try {
    const night = { id: 'n', suite: 'nightly', started_at: '2026-01-01', outcome: 'passed', imported_at: 'now' };
    const columns = Object.keys(night);
    for (const bad of [['n1', 'n2'], { id: 'n' }, Number.NaN, Infinity, true]) {
      await assert.rejects(insertRows(store, 'nights', columns, [{ ...night, suite: bad }], '(id) DO NOTHING'),
        /results store: parameter 2 of INSERT INTO nights .* only text, finite numbers and null are stored/);
    }
    await assert.rejects(store.query('SELECT id FROM nights WHERE id = ?', [['n']]), /parameter 1 of SELECT/);
    assert.deepEqual(await store.query('SELECT id FROM nights'), [], 'nothing was stored');
  } finally {
    await store.close();
  }
});

test('hostile result.json: a scenario name with a line break (a workflow command on the next line) is refused at import', async () => {
  const result = makeResult('static');
  result.scenario.name = 'bandwidth-1500\n::error::injected';
  const dir = runDir(tempDir('wtb-hostile-name-'), 'run', result);
  await assert.rejects(readRecords(dir, { commit: null }), /result\.json: scenario\.name: must be .*letters, digits/);
});

test('hostile store: a stored scenario name with a line break cannot inject a workflow command into history drift under GitHub Actions', async () => {
  const store = path.join(tempDir('wtb-hostile-drift-'), 'h.sqlite');
  const seeded = await openStore(store);
  try {
    // A store written by an older harness, or by another writer of a shared PostgreSQL: the name was never checked.
    const name = 'x%0A\r\n::error file=a,line=1::injected';
    const drift = { scenario: name, metric: 'video.recvKbps', lastNights: 8, pctPerNight: 5 };
    for (const night of syntheticNights({ scenarios: [name], nights: 16, runsPerNight: 2, suite: 'nightly', start: '2020-01-01', drift })) {
      await writeRecords(seeded, night);
    }
  } finally {
    await seeded.close();
  }
  const run = await runCli(['history', 'drift', '--store', store], { env: { ...CI_ENV, GITHUB_ACTIONS: 'true' } });
  assert.equal(run.code, 0, run.stderr);
  const lines = run.stdout.split(/\r?\n|\r/);
  const commands = lines.filter((line) => line.trimStart().startsWith('::'));
  assert.ok(commands.length > 0, run.stdout);
  assert.deepEqual(commands.filter((line) => !line.startsWith('::warning title=drift::')), [], 'only the drift warnings are workflow commands');
  assert.ok(commands.every((line) => line.includes('x%250A%0D%0A::error file=a,line=1::injected')), run.stdout);
});

test('workflow commands: %, CR and LF are escaped in the message; in properties also : and ,', () => {
  assert.equal(workflowCommand('warning', { title: 'a: b, c%\n' }, '50 %\r\n::error::x'), '::warning title=a%3A b%2C c%25%0A::50 %25%0D%0A::error::x');
  assert.equal(workflowCommand('notice', {}, 'plain'), '::notice::plain');
});

/** A run directory whose result.json is made by make(file). @param {(file: string) => void} make */
function oddRunDir(make) {
  const dir = path.join(tempDir('wtb-hostile-read-'), 'run');
  mkdirSync(dir);
  make(path.join(dir, 'result.json'));
  return dir;
}

test('hostile result.json: a FIFO in its place cannot hang history import or report', async () => {
  const dir = oddRunDir((file) => execFileSync('mkfifo', [file]));
  for (const args of [['history', 'import', dir, '--store', path.join(dir, '..', 'h.sqlite')], ['report', dir]]) {
    const run = await runCli(args, { env: CI_ENV, timeoutMs: 20_000 });
    assert.equal(run.code, 2, `${args[0]}: ${run.stderr}`);
    assert.match(run.stderr, /result\.json: the result\.json is not a regular file \(a device, FIFO or socket\)/);
  }
});

test('hostile result.json: /dev/zero in its place is refused before it is read', async () => {
  const dir = oddRunDir((file) => symlinkSync('/dev/zero', file));
  const run = await runCli(['history', 'import', dir, '--store', path.join(dir, '..', 'h.sqlite')], { env: CI_ENV, timeoutMs: 20_000 });
  assert.equal(run.code, 2, run.stderr);
  assert.match(run.stderr, /result\.json: the result\.json is not a regular file/);
});

test('hostile result.json: a file over the size limit is refused by its size, not read', async () => {
  // Sparse: no disk and no time to make, but reading it would take the limit in memory twice over.
  const dir = oddRunDir((file) => { writeFileSync(file, ''); truncateSync(file, MAX_RESULT_FILE_BYTES + 1); });
  const run = await runCli(['history', 'import', dir, '--store', path.join(dir, '..', 'h.sqlite')], { env: CI_ENV, timeoutMs: 20_000 });
  assert.equal(run.code, 2, run.stderr);
  assert.match(run.stderr, /the result\.json is larger than 384 MiB, the limit \(docs\/scenario-format\.md "Limits"\)/);
});
