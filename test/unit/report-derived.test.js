import assert from 'node:assert/strict';
import { test } from 'node:test';
import { changePoints, timeToSteady, timeToSteadyTable, jainBySharedLink, describeChange, flows, totalRecvKbps } from '../../orchestrator/report/derived.js';

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
  const swinging = Array.from({ length: 30 }, (_, i) => [60 + i, i % 3 === 0 ? 3000 : 500]);
  const r = timeToSteady(swinging, 60, 90);
  assert.equal(r.steadyKbps, 500);
  assert.equal(r.timeToSteadyS, null);
  assert.deepEqual(timeToSteady([[1, 100], [2, 100]], 0, 60), { steadyKbps: null, timeToSteadyS: null, n: 2 });
});

test('a flat rate is steady from the first sample; low rates use the ±20 kbps floor; no media is not timed', () => {
  const flat = Array.from({ length: 40 }, (_, i) => [100 + i, 60 + (i % 2 ? 10 : -10)]);
  assert.equal(timeToSteady(flat, 100, 140).timeToSteadyS, 0);
  const died = Array.from({ length: 40 }, (_, i) => [i, i < 20 ? 1000 : 0]);
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

test("Jain's index per second on links shared by several routes, grouped by number of active flows", () => {
  const routes = { 'a0->a1': ['a0.up', 'bottleneck', 'a1.down'], 'b0->b1': ['b0.up', 'bottleneck', 'b1.down'], 'c0->c1': ['c0.up', 'c1.down'] };
  const timeline = [];
  for (let t = 1; t <= 20; t += 1) {
    timeline.push(entry(t, 'a1', 'a0', 60, 40)); // 100 kbps
    if (t > 10) timeline.push(entry(t, 'b1', 'b0', 260, 40)); // 300 kbps from 11 s on
    timeline.push(entry(t, 'c1', 'c0', 1000));
  }
  const groups = jainBySharedLink(timeline, routes, [0, 20]);
  assert.equal(groups.length, 1);
  const [g] = groups;
  assert.deepEqual(g.links, ['bottleneck']);
  assert.deepEqual(g.flows, ['a0->a1', 'b0->b1']);
  assert.equal(g.series.length, 10); // seconds with one active flow are skipped
  assert.ok(Math.abs(g.mean - 0.8) < 1e-12); // (100 + 300)² / (2 · (100² + 300²))
  assert.deepEqual(Object.keys(g.byActiveFlows), ['2']);
  assert.equal(g.flowMeansKbps['a0->a1'], 100);
});

test('links carrying the same flows are reported together', () => {
  const routes = { 'x->y': ['l1', 'l2'], 'z->y': ['l1', 'l2'] };
  const timeline = [entry(1, 'y', 'x', 100), entry(1, 'y', 'z', 100)];
  const groups = jainBySharedLink(timeline, routes, [0, 10]);
  assert.deepEqual(groups.map((g) => g.links), [['l1', 'l2']]);
  assert.equal(groups[0].mean, 1);
});

test('describeChange names the changed parameters and links', () => {
  const network = { links: { 'p0.up': { rateKbps: 1000, lossPct: 0 }, 'p1.up': { rateKbps: 1000, lossPct: 0 } } };
  const events = [{ atS: 60, link: 'p0.up', params: { rateKbps: 3000, lossPct: 0 } }, { atS: 60, link: 'p1.up', params: { rateKbps: 3000, lossPct: 0 } }];
  assert.equal(describeChange(events, network, 60), 'rateKbps 1000→3000 (p0.up, p1.up)');
  assert.equal(describeChange([{ atS: 5, link: 'p0.up', params: { rateKbps: 1000 }, cause: 'reapply' }], network, 5), 'reapply');
  assert.equal(describeChange([], network, 0), 'call start');
});

test('flows and the total receive rate of an interval', () => {
  assert.deepEqual(flows([entry(1, 'p1', 'p0', 1), entry(1, 'p0', 'p1', 1), entry(2, 'p1', 'p0', 1)]), [{ receiver: 'p1', sender: 'p0' }, { receiver: 'p0', sender: 'p1' }]);
  assert.equal(totalRecvKbps(entry(1, 'a', 'b', 100, 40)), 140);
  assert.equal(totalRecvKbps({ video: { recvKbps: null }, audio: {} }), null);
  assert.equal(totalRecvKbps({ video: { recvKbps: 5 } }), 5);
});
