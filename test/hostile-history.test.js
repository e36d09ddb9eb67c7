// The shared PostgreSQL results store against hostile result.json files: a throwaway cluster (test/helpers/postgres.js),
// the CLI as a nightly runs it. The same attacks on the embedded store are in test/unit/hostile-history.test.js.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { runCli, tempDir } from './helpers/cli.js';
import { metricsOf, runDir, shiftingResult, victimResult } from './helpers/hostile-history.js';
import { postgresUnavailable, startPostgres } from './helpers/postgres.js';
import { insertRows } from '../orchestrator/history/sql.js';
import { openStore } from '../orchestrator/history/store.js';

const skip = postgresUnavailable() ?? false;
/** @type {Awaited<ReturnType<typeof startPostgres>>|null} */
let postgres = null;
before(async () => { if (!skip) postgres = await startPostgres(); });
after(() => postgres?.stop());

/** @param {string} url @param {(store: import('../orchestrator/history/store.js').Store) => Promise<any>} work */
async function withStore(url, work) {
  const store = await openStore(url);
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

test('hostile result.json into PostgreSQL: an array-valued n is refused naming the file and field, the victim\'s rows as they were', { skip }, async () => {
  const url = postgres.createDatabase('shift');
  const root = tempDir('wtb-hostile-pg-');
  const env = { GITHUB_ACTIONS: '', GITHUB_STEP_SUMMARY: '' };
  const victim = victimResult();
  assert.equal((await runCli(['history', 'import', runDir(root, 'victim', victim.result), '--store', url], { env })).code, 0);
  const stored = await withStore(url, (store) => metricsOf(store, victim.id));
  assert.ok(stored.length > 10);
  const run = await runCli(['history', 'import', runDir(root, 'hostile', shiftingResult(victim.id)), '--store', url], { env });
  assert.equal(run.code, 2, `${run.stdout}\n${run.stderr}`);
  assert.match(run.stderr, /hostile\/result\.json: summary\.overall\.video\.sendKbps\.n: must be a whole number >= 0 or absent, got an array/);
  assert.deepEqual(await withStore(url, (store) => metricsOf(store, victim.id)), stored);
  assert.deepEqual(await withStore(url, (store) => store.query('SELECT id FROM runs WHERE id <> ?', [victim.id])), [], 'nothing of the hostile run');
});

test('the PostgreSQL store binds only text, finite numbers and null: an array or object reaching a statement is refused, nothing stored', { skip }, async () => {
  await withStore(postgres.createDatabase('bind'), async (store) => {
    const night = { id: 'n', suite: 'nightly', started_at: '2026-01-01', outcome: 'passed', imported_at: 'now' };
    // pg would store an array literal ('{"n1","n2"}') and an object as JSON text.
    for (const bad of [['n1', 'n2'], { id: 'n' }, Number.NaN]) {
      await assert.rejects(insertRows(store, 'nights', Object.keys(night), [{ ...night, suite: bad }], '(id) DO NOTHING'),
        /results store: parameter 2 of INSERT INTO nights .* only text, finite numbers and null are stored/);
    }
    assert.deepEqual(await store.query('SELECT id FROM nights'), []);
  });
});
