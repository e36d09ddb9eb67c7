import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HarnessError, InputError } from '../../orchestrator/lib/system/errors.js';
import {
  mergeLinkParams, normalizeLinkParams, pathConditions, queueLimitBytes,
} from '../../orchestrator/lib/network/link-model.js';

const where = 'x.json: network.link';

test('normalizeLinkParams fills defaults: unlimited, 50-packet queue, no delay or loss', () => {
  assert.deepEqual(normalizeLinkParams({}, where), {
    rateKbps: null, queuePackets: 50, queueMs: null, oneWayDelayMs: 0, jitterMs: 0, lossPct: 0, lossBurst: null, trace: null,
  });
});

test('normalizeLinkParams keeps a time-based queue and leaves queuePackets null', () => {
  const params = normalizeLinkParams({ rateKbps: 1000, queueMs: 500, lossPct: 10, lossBurst: 3 }, where);
  assert.equal(params.queueMs, 500);
  assert.equal(params.queuePackets, null);
  assert.equal(params.lossBurst, 3);
});

test('normalizeLinkParams names the file, field and reason', () => {
  const cases = [
    [{ lossPct: 120 }, 'x.json: network.link.lossPct: must be a number from 0 to 100, got 120'],
    [{ rateKbps: 0 }, 'x.json: network.link.rateKbps: must be a number from 8 to 10000000, got 0'],
    [{ queuePackets: 2.5 }, 'x.json: network.link.queuePackets: must be an integer from 1 to 100000, got 2.5'],
    [{ oneWayDelayMs: null }, 'x.json: network.link.oneWayDelayMs: must be a number from 0 to 60000, got null'],
    [{ jitterMs: '5' }, 'x.json: network.link.jitterMs: must be a number from 0 to 60000, got "5"'],
    [{ lossBurst: 0.5 }, 'x.json: network.link.lossBurst: must be a number from 1 to 1000, got 0.5'],
    [{ queuePackets: 10, queueMs: 100 }, 'x.json: network.link: set only one of queuePackets and queueMs (got 10 packets and 100 ms)'],
    [[], 'x.json: network.link: must be an object, got []'],
  ];
  for (const [raw, message] of cases) {
    assert.throws(() => normalizeLinkParams(raw, where), (error) => error instanceof InputError && error.message === message);
  }
});

test('every field has a range: values that would break an emulator\'s command are rejected, naming field and range', () => {
  /** @type {Array<[object, string|RegExp]>} */
  const cases = [
    // tc would get `rate 0bit`
    [{ rateKbps: 0.0001 }, 'x.json: network.link.rateKbps: must be a number from 8 to 10000000, got 0.0001'],
    [{ rateKbps: 10_000_001 }, 'x.json: network.link.rateKbps: must be a number from 8 to 10000000, got 10000001'],
    [{ rateKbps: 1000, queueMs: 1e300 }, 'x.json: network.link.queueMs: must be a number > 0 and <= 60000, got 1e+300'],
    [{ queuePackets: 100_001 }, 'x.json: network.link.queuePackets: must be an integer from 1 to 100000, got 100001'],
    [{ oneWayDelayMs: 60_001 }, 'x.json: network.link.oneWayDelayMs: must be a number from 0 to 60000, got 60001'],
    [{ lossBurst: 1001, lossPct: 1 }, 'x.json: network.link.lossBurst: must be a number from 1 to 1000, got 1001'],
    [{ oneWayDelayMs: 10, jitterMs: 11 }, /^x\.json: network\.link: jitterMs 11 is more than oneWayDelayMs 10; .*must be at most oneWayDelayMs/],
    [{ rateKbps: 1_000_000, queueMs: 10_000 }, /^x\.json: network\.link: queueMs 10000 at rateKbps 1000000 is a 1250000000-byte queue; at most 1000000000 bytes .*lower queueMs to 8000 or less/],
    [{ lossPct: 60, lossBurst: 1 }, /^x\.json: network\.link: lossPct 60 with lossBurst 1: bursts of 1 packets lose at most 50 % .* raise lossBurst to at least 1\.5 or lower lossPct/],
    [{ lossPct: 100, lossBurst: 5 }, /lose at most 83\.333 %.*lower lossPct, or remove lossBurst/],
  ];
  for (const [raw, message] of cases) {
    assert.throws(() => normalizeLinkParams(raw, where), (error) => error instanceof InputError
      && (typeof message === 'string' ? error.message === message : message.test(error.message)), JSON.stringify(raw));
  }
  const edges = normalizeLinkParams(
    { rateKbps: 8, queueMs: 60_000, oneWayDelayMs: 60_000, jitterMs: 60_000, lossPct: 50, lossBurst: 1 },
    where,
  );
  assert.deepEqual([edges.rateKbps, edges.queueMs, edges.jitterMs], [8, 60_000, 60_000]);
  assert.equal(
    normalizeLinkParams({ rateKbps: 10_000_000, queuePackets: 100_000, lossPct: 99.9, lossBurst: 1000 }, where).queuePackets,
    100_000,
  );
});

test('normalizeLinkParams rejects unknown fields such as delayMs', () => {
  assert.throws(() => normalizeLinkParams({ delayMs: 100 }, where),
    /^InputError: x\.json: network\.link: unknown field 'delayMs'; allowed: rateKbps, .*oneWayDelayMs/);
});

test('mergeLinkParams changes only the given fields and treats the queue limit as one field', () => {
  const base = normalizeLinkParams({ rateKbps: 1000, lossPct: 5 }, where);
  const timeQueue = mergeLinkParams(base, { queueMs: 100 }, 'x.json: set');
  assert.deepEqual(timeQueue, { ...base, queuePackets: null, queueMs: 100 });
  assert.equal(base.queuePackets, 50, 'base is not mutated');
  const faster = mergeLinkParams(timeQueue, { rateKbps: 3000 }, 'x.json: set');
  assert.equal(faster.queueMs, 100, 'queueMs survives a rate change');
  assert.equal(faster.lossPct, 5);
  assert.equal(mergeLinkParams(timeQueue, { queuePackets: null }, 'x.json: set').queuePackets, 50);
  assert.throws(() => mergeLinkParams(base, { lossPct: -1 }, 'x.json: network.schedule[2].set'),
    { message: 'x.json: network.schedule[2].set.lossPct: must be a number from 0 to 100, got -1' });
});

test('queueLimitBytes converts queueMs at the current rate (F eq. 3) and packets at the MTU', () => {
  const params = (raw) => normalizeLinkParams(raw, where);
  // 1 Mbit/s × 100 ms = 12 500 bytes = 8.33 packets of 1500 bytes
  assert.equal(queueLimitBytes(params({ rateKbps: 1000, queueMs: 100 })), 12500);
  assert.equal(queueLimitBytes(params({ rateKbps: 5000, queueMs: 10000 })), 6250000);
  assert.equal(queueLimitBytes(params({ rateKbps: 3000, queueMs: 100 })), 37500, 'recomputed when the rate changes');
  assert.equal(queueLimitBytes(params({ rateKbps: 750 })), 75000, 'default 50 packets × 1500 bytes');
  assert.equal(queueLimitBytes(params({ rateKbps: 750, queuePackets: 20 }), 1200), 24000);
  assert.equal(queueLimitBytes(params({ queueMs: 100 })), null, 'no queue builds at an unlimited rate');
});

test('pathConditions: narrowest rate, summed delay and jitter, combined loss', () => {
  const links = {
    'p0.up': normalizeLinkParams({ rateKbps: 1500, oneWayDelayMs: 100, jitterMs: 5, lossPct: 5 }, where),
    bottleneck: normalizeLinkParams({ rateKbps: 1000, oneWayDelayMs: 20 }, where),
    'p1.down': normalizeLinkParams({ oneWayDelayMs: 30, jitterMs: 2, lossPct: 5 }, where),
    'p1.up': normalizeLinkParams({}, where),
    'p0.down': normalizeLinkParams({ lossPct: 100 }, where),
  };
  assert.deepEqual(pathConditions(links, ['p0.up', 'bottleneck', 'p1.down']),
    { rateKbps: 1000, oneWayDelayMs: 150, jitterMs: 7, lossPct: 9.75 });
  assert.deepEqual(pathConditions(links, ['p1.up', 'p0.down']),
    { rateKbps: null, oneWayDelayMs: 0, jitterMs: 0, lossPct: 100 });
  assert.throws(() => pathConditions(links, ['p2.up']), (error) => error instanceof HarnessError && /'p2\.up'/.test(error.message));
});
