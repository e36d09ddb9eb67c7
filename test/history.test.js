// The results store with real suite results: a small suite (two scenarios × 2 runs of 4 s, 360p30, real Chromium
// through the relay) is run once, then imported into the embedded SQLite store and into a real PostgreSQL
// (a throwaway cluster of Debian's server, started and removed here): twice, from two writers at once, and into
// a store of schema version 1. The rows are checked against summary.json and the runs' result.json: what the runs
// wrote, not a rate they reach, so 4 s calls with 2 s of warm-up (the first test, which waits for the suite, took
// 38-47 s in two runs with 5 s calls; 68 s with 10 s calls).
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runCli, tempDir } from './helpers/cli.js';
import { copyBaseTables, nightMetrics } from './helpers/history.js';
import { postgresUnavailable, startPostgres } from './helpers/postgres.js';
import { writeRecords } from '../orchestrator/history/import.js';
import { readRecords } from '../orchestrator/commands/history.js';
import { openStore } from '../orchestrator/history/store.js';
import { syntheticNights } from '../orchestrator/history/synthetic.js';
import { SCHEMA_VERSION } from '../orchestrator/history/schema.js';
import { runValues } from '../orchestrator/lib/result/metric-values.js';

const SUITE = fileURLToPath(new URL('./fixtures/suites/e2e-history.json', import.meta.url));
const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));
/** @type {{ dir: string, summary: any }} */
let suite;
/** @type {Awaited<ReturnType<typeof startPostgres>>|null} */
let postgres = null;
const pgSkip = postgresUnavailable();

before(async () => {
  const dir = tempDir('wtb-history-suite-');
  const run = await runCli(['suite', SUITE, '--out', dir], { timeoutMs: 5 * 60_000, env: { GITHUB_STEP_SUMMARY: '' } });
  assert.equal(run.code, 0, `suite exited ${run.code}:\n${run.stdout}\n${run.stderr}`);
  suite = { dir, summary: readJson(path.join(dir, 'summary.json')) };
  if (!pgSkip) postgres = await startPostgres();
});
after(() => postgres?.stop());

const history = async (args) => {
  const run = await runCli(['history', ...args], { env: { GITHUB_ACTIONS: '', GITHUB_STEP_SUMMARY: '' } });
  assert.equal(run.code, 0, `history ${args.join(' ')} exited ${run.code}:\n${run.stdout}\n${run.stderr}`);
  return run;
};

/** Every table's row count, and the stored runs with their metric medians. */
async function contents(target) {
  const store = await openStore(target);
  try {
    const count = async (table) => Number((await store.query(`SELECT COUNT(*) AS n FROM ${table}`))[0].n);
    const runs = await store.query('SELECT id, night_id, scenario, repetition, status FROM runs ORDER BY started_at');
    const metrics = await store.query('SELECT run_id, metric, median, q1, q3 FROM run_metrics');
    const aggregates = await nightMetrics(store);
    return { version: store.version, nights: await count('nights'), runs, metrics, metricRows: await count('run_metrics'), aggregates };
  } finally {
    await store.close();
  }
}

/** The store holds the suite once: one night, its four runs, per run every value the gate compares, and per
 * scenario × metric the night's aggregate: the median of the passed runs' values and their count. */
function assertHoldsSuite(stored) {
  const { summary, dir } = suite;
  assert.equal(stored.version, SCHEMA_VERSION);
  assert.equal(stored.nights, 1);
  assert.equal(stored.runs.length, summary.runs.length);
  for (const entry of summary.runs) {
    const result = readJson(path.join(dir, entry.dir, 'result.json'));
    const run = stored.runs.find((r) => r.scenario === entry.scenario && r.repetition === entry.repetition);
    assert.ok(run, `${entry.dir} stored`);
    assert.equal(run.status, entry.status);
    const values = runValues(result);
    const mine = stored.metrics.filter((m) => m.run_id === run.id);
    assert.ok(Object.keys(values).length >= 10, `${entry.dir} has values`);
    assert.equal(mine.length, Object.keys(values).length, `${entry.dir}: one row per metric with a value`);
    for (const [metric, value] of Object.entries(values)) {
      const row = mine.find((m) => m.metric === metric);
      assert.ok(Math.abs(row.median - value) < 1e-9, `${entry.dir} ${metric}: ${row.median} vs ${value}`);
      // The IQR is of the timeline's values, rounded to 4 decimals; the median (summary.overall) is of the raw ones.
      const slack = 1e-3 * Math.abs(row.median) + 1e-9;
      assert.ok(row.q1 <= row.median + slack && row.median <= row.q3 + slack, `${entry.dir} ${metric}: IQR ${row.q1}..${row.q3} around the median ${row.median}`);
    }
  }
  const passed = summary.runs.filter((run) => run.status === 'passed');
  const expected = new Set(passed.flatMap((run) => Object.keys(run.values).map((metric) => `${run.scenario} ${metric}`)));
  assert.equal(stored.aggregates.length, expected.size, 'one aggregate row per scenario × metric with a value');
  for (const row of stored.aggregates) {
    const values = passed.map((run) => run.scenario === row.scenario && run.values[row.metric]).filter(Number.isFinite);
    assert.equal(Number(row.n), values.length, `${row.scenario} ${row.metric}: n`);
    assert.ok(Math.min(...values) - 1e-9 <= row.median && row.median <= Math.max(...values) + 1e-9, `${row.scenario} ${row.metric}: median within the runs'`);
  }
}

test('merge --history writes the night to the store and its slow drift lands in summary.json and summary.md as a warning', async () => {
  const store = path.join(tempDir('wtb-history-'), 'drift.sqlite');
  const seeded = await openStore(store);
  try {
    // 14 nights before the suite's, the last 8 of them falling 5 % more each night: the suite's night joins the slide.
    const drift = { scenario: 'unconstrained', metric: 'video.recvKbps', lastNights: 8, pctPerNight: 5 };
    for (const night of syntheticNights({ scenarios: ['unconstrained'], nights: 14, runsPerNight: 2, suite: 'e2e-history', start: '2020-01-01', drift })) {
      await writeRecords(seeded, night);
    }
  } finally {
    await seeded.close();
  }
  const out = path.join(tempDir('wtb-history-merge-'), 'merged');
  const merge = await runCli(['merge', suite.dir, '--out', out, '--history', store], { env: { GITHUB_STEP_SUMMARY: '', GITHUB_SHA: 'feed' } });
  assert.equal(merge.code, suite.summary.exitCode, `${merge.stdout}\n${merge.stderr}`);
  const summary = readJson(path.join(out, 'summary.json'));
  assert.equal(summary.outcome, suite.summary.outcome, 'a warning is not a failure');
  assert.equal(summary.warnings.length, 1, summary.warnings.join('\n'));
  assert.match(summary.warnings[0], /^slow drift \(results store\): unconstrained video\.recvKbps: drifted -\d+\.\d % \(worse\)/);
  assert.match(readFileSync(path.join(out, 'summary.md'), 'utf8'), /\*\*Warnings\*\* \(not failures\)\n\n- ⚠️ slow drift/);
  const stored = await contents(store);
  assert.equal(stored.nights, 15, 'the merged night was stored');
});

const backends = [
  { name: 'embedded SQLite', skip: false, fresh: (label) => path.join(tempDir('wtb-history-'), `${label}.sqlite`) },
  { name: 'PostgreSQL', skip: pgSkip ?? false, fresh: (label) => postgres.createDatabase(label) },
];

for (const backend of backends) {
  describe(`results store: ${backend.name}`, { skip: backend.skip }, () => {
    test('a suite imported twice is stored once, row for row as in its results', async () => {
      const store = backend.fresh('twice');
      const first = await history(['import', suite.dir, '--store', store, '--commit', 'abc123']);
      assert.match(first.stdout, /added 1 nights, 4 runs/);
      const second = await history(['import', suite.dir, '--store', store]);
      assert.match(second.stdout, /added 0 nights, 0 runs, 0 metric summaries, 0 comparisons \(already stored\)/);
      assertHoldsSuite(await contents(store));
    });

    test('two importers writing one store at once leave one copy and no error', async () => {
      const store = backend.fresh('two_writers');
      const runDir = path.join(suite.dir, suite.summary.runs[0].dir);
      await Promise.all([history(['import', suite.dir, '--store', store]), history(['import', runDir, suite.dir, '--store', store])]);
      assertHoldsSuite(await contents(store));
    });

    test('a store of schema version 1 is migrated, keeping its rows, and then takes the suite', async () => {
      const target = backend.fresh('v1');
      const old = await openStore(target, { upTo: 1 });
      assert.equal(old.version, 1);
      await old.run("INSERT INTO nights (id, suite, started_at, outcome, imported_at) VALUES ('old', 'nightly', '2025-01-01T01:00:00Z', 'passed', 'x')");
      await old.close();
      await history(['import', suite.dir, '--store', target]);
      const stored = await contents(target);
      assert.equal(stored.version, SCHEMA_VERSION);
      assert.equal(stored.nights, 2, 'the old night is kept');
      assert.equal(stored.runs.length, suite.summary.runs.length);
    });

    test('a store of schema version 2 holding the suite gets the per-night aggregate an import writes', async () => {
      const current = await openStore(backend.fresh('current'));
      const target = backend.fresh('v2');
      const old = await openStore(target, { upTo: 2 });
      try {
        await writeRecords(current, await readRecords(suite.dir, { commit: null }));
        await copyBaseTables(current, old);
      } finally {
        await old.close();
      }
      const migrated = await openStore(target);
      try {
        assert.equal(migrated.version, SCHEMA_VERSION);
        const expected = await nightMetrics(current);
        assert.ok(expected.length >= 20, `${expected.length} aggregate rows`);
        assert.deepEqual(await nightMetrics(migrated), expected);
      } finally {
        await migrated.close();
        await current.close();
      }
    });

    test('export, the rolling baseline and the dashboard read what was imported', async () => {
      const store = backend.fresh('readers');
      await history(['import', suite.dir, '--store', store]);
      const csv = (await history(['export', '--store', store, '--format', 'csv', '--metric', 'video.recvKbps'])).stdout.trim().split('\n');
      assert.equal(csv.length, 1 + suite.summary.runs.length, 'a header and one row per run');
      const exported = JSON.parse((await history(['export', '--store', store, '--format', 'json'])).stdout);
      assert.ok(exported.length > 40 && exported.every((row) => row.suite === 'e2e-history'));

      const out = tempDir('wtb-history-baseline-');
      await history(['baseline', '--store', store, '--suite', 'e2e-history', '--like', suite.dir, '--out', path.join(out, 'store.json')]);
      await runCli(['baseline', 'save', suite.dir, '--out', path.join(out, 'saved.json')]);
      const fromStore = readJson(path.join(out, 'store.json'));
      const saved = readJson(path.join(out, 'saved.json'));
      for (const [name, entry] of Object.entries(saved.scenarios)) {
        assert.equal(fromStore.scenarios[name].runs, entry.runs, name);
        const sorted = (list) => [...list].sort((a, b) => a - b);
        assert.deepEqual(sorted(fromStore.scenarios[name].values['video.recvKbps']), sorted(entry.values['video.recvKbps']), name);
      }
      assert.deepEqual(fromStore.machineClass, saved.machineClass);

      const html = path.join(out, 'trends.html');
      await history(['report', '--store', store, '--out', html]);
      const page = readFileSync(html, 'utf8');
      for (const name of ['unconstrained', 'bandwidth-750']) assert.match(page, new RegExp(`data-scenario="${name}"`));
    });
  });
}

test('suite --history with a store that cannot be opened stops before the first call (exit 3), naming the store without its password', async () => {
  const out = path.join(tempDir('wtb-history-unreachable-'), 'suite');
  const started = Date.now();
  // Port 9 on loopback: nothing listens there, the connection is refused at once.
  const run = await runCli(['suite', SUITE, '--out', out, '--history', 'postgres://wtb:hunter2@127.0.0.1:9/nights'], { env: { GITHUB_STEP_SUMMARY: '' } });
  assert.equal(run.code, 3, `${run.stdout}\n${run.stderr}`);
  assert.match(run.stderr, /--history postgres:\/\/wtb:\*+@127\.0\.0\.1:9\/nights: the results store cannot be opened .*history import/);
  assert.doesNotMatch(run.stdout + run.stderr, /hunter2/);
  assert.ok(!existsSync(out), 'no suite directory: nothing ran');
  assert.ok(Date.now() - started < 60_000, 'at once, not after the suite');
});
