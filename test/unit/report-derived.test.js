import assert from 'node:assert/strict';
import { test } from 'node:test';
import { changePoints, flows, meanTimeToSteadyS, timeToSteady, timeToSteadyTable } from '../../orchestrator/lib/stats/steady-rate.js';
import { describeChange, perChangeReference } from '../../orchestrator/report/derived.js';

/** @typedef {import('../../orchestrator/lib/stats/steady-rate.js').Points} Points */

const entry = (t, peer, remote, videoKbps, audioKbps = 40) => ({
  t, peer, remote, video: { recvKbps: videoKbps }, audio: { recvKbps: audioKbps },
});

test('change points: call start, step changes, and a ramp counted once at its last step', () => {
  const events = [
    { atS: 0, link: 'a', params: {} },
    { atS: 60, link: 'a', params: {} }, { atS: 60, link: 'b', params: {} },
    ...Array.from({ length: 20 }, (_, i) => ({ atS: 120 + i * 0.5, link: 'a', params: {} })),
    { atS: 290, link: 'a', params: {} },
  ];
  const points = changePoints(events, 300);
  assert.deepEqual(points.map((p) => [p.atS, p.untilS]), [[0, 60], [60, 120], [129.5, 290]]);
  assert.equal(points[1].events.length, 2);
  assert.equal(points[0].events.length, 1);
});

test('time to steady: the ramp ends where the 5 s mean stays within 15 % of the steady rate', () => {
  // 500 kbps, a change at 60 s, then a linear climb to 2000 kbps reached at 80 s and held.
  /** @type {Points} */
  const points = [];
  for (let t = 60; t < 120; t += 1) points.push([t, t < 80 ? 500 + (1500 * (t - 60)) / 20 : 2000]);
  const r = timeToSteady(points, 60, 120);
  assert.equal(r.steadyKbps, 2000);
  // The forward 5 s mean from t covers t..t+4: first within 1700 kbps at t = 75 (1700, 1775, 1850, 1925, 2000 → 1850).
  assert.equal(r.timeToSteadyS, 14);
  assert.equal(r.n, 60);
});

test('time to steady is null when the rate leaves the band at the end, and when there are too few samples', () => {
  // One second in three at 3000, the rest at 500: the steady (median) rate is 500 but every 5 s mean is 1500 or 2000.
  const swinging = /** @type {Points} */ (Array.from({ length: 30 }, (_, i) => [60 + i, i % 3 === 0 ? 3000 : 500]));
  const r = timeToSteady(swinging, 60, 90);
  assert.equal(r.steadyKbps, 500);
  assert.equal(r.timeToSteadyS, null);
  assert.deepEqual(timeToSteady([[1, 100], [2, 100]], 0, 60), { steadyKbps: null, timeToSteadyS: null, n: 2 });
});

test('a flat rate is steady from the first sample; low rates use the ±20 kbps floor; no media is not timed', () => {
  const flat = /** @type {Points} */ (Array.from({ length: 40 }, (_, i) => [100 + i, 60 + (i % 2 ? 10 : -10)]));
  assert.equal(timeToSteady(flat, 100, 140).timeToSteadyS, 0);
  const died = /** @type {Points} */ (Array.from({ length: 40 }, (_, i) => [i, i < 20 ? 1000 : 0]));
  assert.deepEqual(timeToSteady(died, 0, 40), { steadyKbps: 0, timeToSteadyS: null, n: 40 });
});

test('time-to-steady table: one column per flow, mean per change', () => {
  const timeline = [];
  for (let t = 1; t <= 120; t += 1) {
    timeline.push(entry(t, 'p1', 'p0', t < 60 ? 1000 : t < 70 ? 1000 + (t - 60) * 100 : 2000));
    timeline.push(entry(t, 'p0', 'p1', 1000));
  }
  const table = timeToSteadyTable(timeline, [{ atS: 60, link: 'p0.up', params: { rateKbps: 3000 } }], 120);
  assert.deepEqual(table.flows, [{ receiver: 'p1', sender: 'p0' }, { receiver: 'p0', sender: 'p1' }]);
  assert.deepEqual(table.changes.map((c) => c.atS), [0, 60]);
  const [toP1, toP0] = table.changes[1].perFlow;
  assert.equal(toP0.timeToSteadyS, 0);
  assert.ok(toP1.timeToSteadyS > 0 && toP1.timeToSteadyS < 10, `${toP1.timeToSteadyS}`);
  assert.equal(table.changes[1].meanS, (toP1.timeToSteadyS + toP0.timeToSteadyS) / 2);
});

test('describeChange names the changed parameters and links', () => {
  const network = { links: { 'p0.up': { rateKbps: 1000, lossPct: 0 }, 'p1.up': { rateKbps: 1000, lossPct: 0 } } };
  const events = [{ atS: 60, link: 'p0.up', params: { rateKbps: 3000, lossPct: 0 } }, { atS: 60, link: 'p1.up', params: { rateKbps: 3000, lossPct: 0 } }];
  assert.equal(describeChange(events, network, 60), 'rateKbps 1000→3000 (p0.up, p1.up)');
  assert.equal(describeChange([{ atS: 5, link: 'p0.up', params: { rateKbps: 1000 }, cause: 'reapply' }], network, 5), 'reapply');
  assert.equal(describeChange([], network, 0), 'call start');
});

test('flows of a timeline', () => {
  assert.deepEqual(flows([entry(1, 'p1', 'p0', 1), entry(1, 'p0', 'p1', 1), entry(2, 'p1', 'p0', 1)]), [{ receiver: 'p1', sender: 'p0' }, { receiver: 'p0', sender: 'p1' }]);
});

test("the run's time to steady rate is the mean over the changes after the call start", () => {
  const changes = [{ atS: 0, meanS: 9 }, { atS: 60, meanS: 16 }, { atS: 120, meanS: null }, { atS: 180, meanS: 20 }];
  assert.equal(meanTimeToSteadyS(/** @type {any} */ (changes)), 18);
  assert.equal(meanTimeToSteadyS(/** @type {any} */ (changes.slice(0, 1))), null);
});

test('a reference given per change is matched to the run changes on the scenario clock, and compared over them', () => {
  const changes = [{ atS: 0, meanS: 9 }, { atS: 15, meanS: 4 }, { atS: 30, meanS: 1 }, { atS: 45.1, meanS: 6 }];
  // A run at time scale 0.25: the scenario's 60 s and 180 s changes happen at 15 s and 45 s.
  const r = perChangeReference(changes, { 60: 16, 180: 18, 290: 5 }, 0.25);
  assert.deepEqual(r.published, [null, 16, null, 18]);
  assert.equal(r.runMeanS, 5);
  assert.deepEqual(r.unmatched, ['290']);
  assert.equal(perChangeReference(changes, undefined, 1), null);
});
