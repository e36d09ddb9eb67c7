// The embedded results store (a real SQLite file, no browser): the per-night aggregate written at import and
// back-filled by the migration that added it; the rolling baseline's nights.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { tempDir } from '../helpers/cli.js';
import { copyBaseTables, nightMetrics } from '../helpers/history.js';
import { writeRecords } from '../../orchestrator/history/import.js';
import { readGreenNights, trendsFromStore } from '../../orchestrator/history/query.js';
import { SCHEMA_VERSION } from '../../orchestrator/history/schema.js';
import { openStore } from '../../orchestrator/history/store.js';
import { SYNTHETIC_METRICS, syntheticNights } from '../../orchestrator/history/synthetic.js';

const SCENARIOS = ['a', 'b'];
const nights = () => syntheticNights({ scenarios: SCENARIOS, nights: 16, runsPerNight: 3, regression: { night: 15, scenario: 'b', metric: 'rttMs' } });

test('each imported night gets one aggregate row per scenario × metric, the same after a second import', async () => {
  const store = await openStore(path.join(tempDir('wtb-history-store-'), 'h.sqlite'));
  try {
    const all = [...nights()];
    for (const night of all) await writeRecords(store, night);
    const first = await nightMetrics(store);
    assert.equal(first.length, 16 * SCENARIOS.length * SYNTHETIC_METRICS.length);
    const last = all.at(-1);
    const values = last.runs.filter(({ run }) => run.scenario === 'b').map(({ metrics }) => /** @type {number} */ (metrics.find((m) => m.metric === 'rttMs').median)).sort((x, y) => x - y);
    const row = first.find((r) => r.night_id === last.night.id && r.scenario === 'b' && r.metric === 'rttMs');
    assert.deepEqual([row.median, row.n, row.regression], [values[1], 3, 1]);
    for (const night of all) await writeRecords(store, night);
    assert.deepEqual(await nightMetrics(store), first);
    const trends = await trendsFromStore(store, { metrics: SYNTHETIC_METRICS });
    assert.deepEqual(trends.scenarios.find((s) => s.name === 'b').series.rttMs.regressions, [15]);
  } finally {
    await store.close();
  }
});

test('a store of schema version 2 is back-filled with the aggregate an import writes', async () => {
  const dir = tempDir('wtb-history-store-');
  const current = await openStore(path.join(dir, 'current.sqlite'));
  const old = await openStore(path.join(dir, 'old.sqlite'), { upTo: 2 });
  try {
    for (const night of nights()) await writeRecords(current, night);
    await copyBaseTables(current, old);
    assert.equal(old.version, 2);
    assert.equal((await old.query("SELECT COUNT(*) AS n FROM sqlite_master WHERE name = 'night_metrics'"))[0].n, 0);
  } finally {
    await old.close();
  }
  const migrated = await openStore(path.join(dir, 'old.sqlite'));
  try {
    assert.equal(migrated.version, SCHEMA_VERSION);
    const expected = await nightMetrics(current);
    assert.ok(expected.length > 0);
    assert.deepEqual(await nightMetrics(migrated), expected);
  } finally {
    await migrated.close();
    await current.close();
  }
});

test('the rolling baseline from the store starts at the newest night compared with no baseline (a reset)', async () => {
  const store = await openStore(path.join(tempDir('wtb-history-store-'), 'h.sqlite'));
  try {
    const all = [...nights()].map(({ night, ...rest }, i) => ({
      ...rest, night: /** @type {typeof night} */ ({ ...night, compared_with: i === 0 || i === 12 ? '' : 'rolling: 5 nights' }),
    }));
    for (const night of all) await writeRecords(store, night);
    const green = all.filter(({ night }) => night.outcome === 'passed').map(({ night }) => night.id);
    const { nights: rolled, values } = await readGreenNights(store, { suite: 'nightly', limit: 20 });
    assert.deepEqual(rolled.map((n) => n.id), green.filter((id) => id >= all[12].night.id).reverse(), 'nights 12.. (15 was red), newest first');
    assert.equal(new Set(values.map((v) => v.night_id)).size, rolled.length);
    await store.run("UPDATE nights SET compared_with = 'pinned' WHERE id = ?", [all[12].night.id]);
    assert.equal((await readGreenNights(store, { suite: 'nightly', limit: 20 })).nights.length, 15, 'no reset after the first night: every green night');
  } finally {
    await store.close();
  }
});
