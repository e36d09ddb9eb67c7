import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { InputError } from '../../orchestrator/lib/system/errors.js';
import { resolveScenarioOrGroup } from '../../orchestrator/lib/scenario/scenario-groups.js';
import { RUN_OVERHEAD_S, entryCostS, parseShard, planRuns, shardEntries } from '../../orchestrator/suite/plan.js';
import { loadSuite } from '../../orchestrator/suite/suite-file.js';

const entry = (name, durationS, repetitions = 5) => ({ name, repetitions, scenario: { durationS } });
/** The nightly shape: 21 five-minute scenarios and one seven-minute one. */
const NIGHTLY = [...Array.from({ length: 21 }, (_, i) => entry(`s${i + 1}`, 300)), entry('seven-minute-mix', 420)];

test('--shard k/n parses; anything else is bad input naming the flag', () => {
  assert.deepEqual(parseShard('2/4'), { index: 2, count: 4 });
  assert.deepEqual(parseShard(' 1 / 1 '), { index: 1, count: 1 });
  for (const bad of ['0/4', '5/4', '2', '2/0', 'a/b', '-1/4', '1.5/4']) {
    assert.throws(() => parseShard(bad), (error) => error instanceof InputError && error.message.startsWith(`--shard ${bad}: must be k/n`), bad);
  }
});

test('shards partition the suite: every scenario on exactly one shard, suite order kept within a shard', () => {
  for (const count of [1, 2, 3, 4, 6, 8, 30]) {
    const shards = Array.from({ length: count }, (_, i) => shardEntries(NIGHTLY, { index: i + 1, count }));
    const names = shards.flat().map((e) => e.name);
    assert.equal(names.length, NIGHTLY.length, `${count} shards`);
    assert.deepEqual([...names].sort(), NIGHTLY.map((e) => e.name).sort());
    for (const shard of shards) assert.deepEqual(shard, NIGHTLY.filter((e) => shard.includes(e)));
  }
});

test('sharding is deterministic: the same suite and shard give the same slice, in any process', () => {
  const first = shardEntries(NIGHTLY, { index: 3, count: 6 }).map((e) => e.name);
  const again = shardEntries(NIGHTLY.map((e) => ({ ...e })), { index: 3, count: 6 }).map((e) => e.name);
  assert.deepEqual(first, again);
  // Pinned: a change here reshuffles every CI matrix, so make it on purpose.
  // The 7-minute scenario goes first to shard 1, which then receives fewer 5-minute ones.
  assert.deepEqual(shardEntries(NIGHTLY, { index: 1, count: 6 }).map((e) => e.name), ['s11', 's17', 'seven-minute-mix']);
  assert.deepEqual(shardEntries(NIGHTLY, { index: 2, count: 6 }).map((e) => e.name), ['s1', 's6', 's12', 's18']);
});

test('shards are balanced by estimated time (longest first to the least-loaded shard)', () => {
  const load = (count) => Array.from(
    { length: count },
    (_, i) => shardEntries(NIGHTLY, { index: i + 1, count }).reduce((sum, e) => sum + entryCostS(e), 0),
  );
  for (const count of [2, 4, 6]) {
    const loads = load(count);
    const ideal = loads.reduce((a, b) => a + b, 0) / count;
    assert.ok(Math.max(...loads) <= ideal + entryCostS(entry('x', 420)), `${count} shards: ${loads}`);
  }
  assert.equal(entryCostS(entry('x', 300, 5)), 5 * (300 + RUN_OVERHEAD_S));
  // More shards than scenarios: the extra shards are empty, not an error.
  assert.deepEqual(shardEntries([entry('a', 30)], { index: 2, count: 3 }), []);
});

test('planRuns lists every repetition, scenario by scenario, with its directory', () => {
  assert.deepEqual(planRuns([entry('a', 30, 2), entry('b', 30, 1)]).map((r) => r.dir), ['a/run-1', 'a/run-2', 'b/run-1']);
});

test('a suite may name a scenario group: each member becomes an entry with the settings written for the group', () => {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'wtb-suite-group-')), 'groups.json');
  writeFileSync(file, JSON.stringify({
    name: 'groups', description: 'a group and a scenario', durationS: 30,
    scenarios: ['unconstrained', { scenario: 'queue-size', repetitions: 2 }],
  }));
  const suite = loadSuite(file);
  const members = resolveScenarioOrGroup('queue-size').names;
  assert.deepEqual(suite.entries.map((e) => e.name), ['unconstrained', ...members]);
  for (const e of suite.entries.slice(1)) {
    assert.equal(e.source, 'queue-size');
    assert.equal(e.repetitions, 2);
    assert.equal(e.scenario.durationS, 30);
  }
  assert.equal(planRuns(suite.entries).length, 1 + 2 * members.length);

  writeFileSync(file, JSON.stringify({ name: 'groups', description: 'twice', scenarios: ['queue-size', 'queue-size-1000-1s'] }));
  assert.throws(() => loadSuite(file), /scenario 'queue-size-1000-1s' is listed twice/);
});
