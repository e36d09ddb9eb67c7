// `serve --store` as importers and page loads meet it: the real CLI serving a real store (an embedded SQLite file,
// and a throwaway PostgreSQL cluster when this machine can start one), loaded over real HTTP while the test writes
// to the same store as an importer would. No browser.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { CLI, tempDir } from './helpers/cli.js';
import { postgresUnavailable, startPostgres } from './helpers/postgres.js';
import { writeRecords } from '../orchestrator/history/import.js';
import { SCHEMA_VERSION } from '../orchestrator/history/schema.js';
import { openStore } from '../orchestrator/history/store.js';
import { syntheticNights } from '../orchestrator/history/synthetic.js';

/**
 * Starts `serve --port 0` with these arguments; resolves once it serves (with its URL) or has exited.
 * @param {string[]} args
 */
function startServe(args) {
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--dir', tempDir('wtb-serve-store-'), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve) => {
    const seen = (chunk) => {
      output += chunk;
      const url = / at (http:\/\/127\.0\.0\.1:\d+\/)/.exec(output)?.[1];
      if (url) resolve({ url, child, exited, output: () => output });
    };
    child.stdout.on('data', seen);
    child.stderr.on('data', seen);
    exited.then((code) => resolve({ url: null, child, exited, code, output: () => output }));
  });
}

/** Loads the dashboard; resolves with its status and how long it took. @param {string} url */
async function loadTrends(url) {
  const started = performance.now();
  const response = await fetch(`${url}trends.html`);
  await response.text();
  return { status: response.status, ms: performance.now() - started };
}

/** A store holding a month of synthetic nights. @param {string} target */
async function seed(target) {
  const store = await openStore(target);
  try {
    for (const night of syntheticNights({ scenarios: ['a', 'b'], nights: 30, runsPerNight: 2 })) await writeRecords(store, night);
  } finally {
    await store.close();
  }
}

/** Stops a serve that should not have started (the code before the fix), after doing what a page load does. */
async function stopStarted(served) {
  if (!served.url) return;
  await loadTrends(served.url).catch(() => null);
  served.child.kill('SIGINT');
  await served.exited;
}

describe('serve --store with an embedded store', () => {
  const file = path.join(tempDir('wtb-serve-store-'), 'history.sqlite');
  let served;
  before(async () => {
    await seed(file);
    served = await startServe(['--store', file]);
    assert.ok(served.url, served.output());
  });
  after(async () => {
    served?.child.kill('SIGINT');
    await served?.exited;
  });

  test('an importer holding the store\'s write lock does not delay a page load', async () => {
    const importer = await openStore(file);
    await importer.begin(); // BEGIN IMMEDIATE: what an import holds while it writes a night
    const release = setTimeout(() => importer.rollback(), 5000);
    try {
      const page = await loadTrends(served.url);
      assert.equal(page.status, 200);
      assert.ok(page.ms < 1500, `the page took ${Math.round(page.ms)} ms behind the importer's transaction`);
    } finally {
      clearTimeout(release);
      await importer.rollback();
      await importer.close();
    }
  });

  test('a client loading the dashboard over and over does not hold an importer off', async () => {
    // An importer that never waits: any lock the server takes makes its BEGIN IMMEDIATE fail with SQLITE_BUSY.
    const importer = new Database(file, { timeout: 0 });
    let stop = false;
    const loads = Array.from({ length: 4 }, async () => {
      let n = 0;
      while (!stop) {
        assert.equal((await loadTrends(served.url)).status, 200);
        n += 1;
      }
      return n;
    });
    let attempts = 0;
    const busy = [];
    const until = Date.now() + 4000;
    while (Date.now() < until) {
      try {
        importer.exec('BEGIN IMMEDIATE');
        importer.exec('ROLLBACK');
      } catch (error) {
        busy.push(error.code);
      }
      attempts += 1;
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    stop = true;
    const pages = (await Promise.all(loads)).reduce((sum, n) => sum + n, 0);
    importer.close();
    assert.ok(pages >= 20 && attempts >= 200, `${pages} page loads, ${attempts} attempts`);
    assert.deepEqual(busy, [], `${busy.length} of ${attempts} importer transactions found the store locked by ${pages} page loads`);
  });
});

test('serve --store with a missing store file stops at start naming the file, and creates nothing', async () => {
  const missing = path.join(tempDir('wtb-serve-store-'), 'nested', 'missing.sqlite');
  const served = await startServe(['--store', missing]);
  await stopStarted(served);
  assert.equal(served.url, null, `serve started on a missing store:\n${served.output()}`);
  assert.equal(served.code, 2, served.output());
  assert.match(served.output(), /--store \S*missing\.sqlite: no such file; .*history import <suite dir> --store/);
  assert.ok(!existsSync(missing) && !existsSync(path.dirname(missing)), 'neither the file nor its folder was created');
});

const pgSkip = postgresUnavailable();
let postgres = null;
before(async () => { if (!pgSkip) postgres = await startPostgres(); });
after(() => postgres?.stop());

const backends = [
  { name: 'embedded', skip: false, fresh: (label) => path.join(tempDir('wtb-serve-store-'), `${label}.sqlite`) },
  { name: 'PostgreSQL', skip: pgSkip ?? false, fresh: (label) => postgres.createDatabase(label) },
];
for (const backend of backends) {
  test(`serve --store (${backend.name}) refuses a store of an older schema at start instead of migrating it`, { skip: backend.skip }, async () => {
    const target = backend.fresh('old_schema');
    await (await openStore(target, { upTo: 2 })).close();
    const served = await startServe(['--store', target]);
    await stopStarted(served);
    const store = await openStore(target, { upTo: 2 });
    const version = store.version;
    await store.close();
    assert.equal(version, 2, 'serving left the store at its schema version');
    assert.equal(served.url, null, `serve started on a store of schema version 2:\n${served.output()}`);
    assert.equal(served.code, 2, served.output());
    assert.match(served.output(), new RegExp(`schema version 2, this harness reads ${SCHEMA_VERSION}; serving never migrates: migrate it with \`history import`));
  });
}

test('serve --store (PostgreSQL) does not open a connection per page load, and Ctrl-C closes its connections', { skip: pgSkip ?? false }, async () => {
  const url = postgres.createDatabase('served');
  await seed(url);
  const store = await openStore(url);
  const sessions = async () => Number((await store.query('SELECT sessions FROM pg_stat_database WHERE datname = ?', ['served']))[0].sessions);
  const open = async () => Number((await store.query("SELECT COUNT(*) AS n FROM pg_stat_activity WHERE application_name = 'wtb-serve'"))[0].n);
  const served = await startServe(['--store', `${url}&application_name=wtb-serve`]);
  try {
    assert.ok(served.url, served.output());
    const before = await sessions();
    for (let i = 0; i < 12; i += 1) assert.equal((await loadTrends(served.url)).status, 200);
    const opened = (await sessions()) - before;
    assert.ok(opened <= 3, `${opened} connections opened for 12 page loads`);
    assert.ok(await open() >= 1, 'serve keeps its connections between page loads');
    const stopping = performance.now();
    served.child.kill('SIGINT');
    assert.equal(await served.exited, 0, served.output());
    assert.ok(performance.now() - stopping < 3000, 'serve ends at once: nothing left open');
    assert.equal(await open(), 0, 'its connections are closed');
  } finally {
    if (served.child.exitCode === null) served.child.kill('SIGKILL');
    await store.close();
  }
});
