import assert from 'node:assert/strict';
import { test } from 'node:test';
import { linkHistories, pathSteps, configuredPath } from '../../orchestrator/report/network.js';

const base = { rateKbps: null, queuePackets: 50, queueMs: null, oneWayDelayMs: 0, jitterMs: 0, lossPct: 0, lossBurst: null };
const network = {
  links: {
    'p0.up': { ...base, rateKbps: 1000, oneWayDelayMs: 40, lossPct: 5 },
    'p0.down': { ...base, rateKbps: 800, oneWayDelayMs: 10 },
    'p1.up': { ...base, oneWayDelayMs: 25 },
    'p1.down': { ...base, lossPct: 10 },
  },
  routes: { 'p0->p1': ['p0.up', 'p1.down'], 'p1->p0': ['p1.up', 'p0.down'] },
  configured: [
    { t: 60, link: 'p0.up', ...base, rateKbps: 3000, oneWayDelayMs: 40, lossPct: 5 },
    { t: 61, link: 'p0.up', ...base, rateKbps: 3000, oneWayDelayMs: 40, lossPct: 5 },
    { t: 120, link: 'p1.down', ...base, rateKbps: 500, lossPct: 10 },
  ],
};
const span = { startS: 0, endS: 300 };

test('path capacity is the smallest rate on the route, as a step series that reaches the end of the span', () => {
  const { capacityKbps } = configuredPath(network, 'p0', 'p1', span);
  assert.deepEqual(capacityKbps, [[0, 1000], [60, 3000], [120, 500], [300, 500]]);
});

test('configured RTT sums the one-way delays of both routes; loss combines the links of one route', () => {
  const there = configuredPath(network, 'p0', 'p1', span);
  assert.deepEqual(there.rttMs, [[0, 75], [300, 75]]);
  assert.equal(there.lossPct[0][1], 14.5); // 1 − 0.95 × 0.90
  const back = configuredPath(network, 'p1', 'p0', span);
  assert.deepEqual(back.capacityKbps, [[0, 800], [300, 800]]);
  assert.deepEqual(back.lossPct, [[0, 0], [300, 0]]);
});

test('no capacity line when no link of the route is capped; nothing when the route or its links are unknown', () => {
  const open = { links: { a: { ...base }, b: { ...base } }, routes: { 'x->y': ['a', 'b'], 'y->x': ['b', 'a'] } };
  assert.equal(configuredPath(open, 'x', 'y', span).capacityKbps, null);
  assert.deepEqual(configuredPath(open, 'x', 'y', span).rttMs, [[0, 0], [300, 0]]);
  assert.deepEqual(configuredPath(open, 'x', 'z', span), { capacityKbps: null, lossPct: null, rttMs: null });
  assert.equal(pathSteps(linkHistories({}), ['nowhere'], 'rateKbps', span), null);
});

test('links known only from configured entries, with missing fields, still chart', () => {
  const partial = { routes: { 'a->b': ['l'] }, configured: [{ t: 0, link: 'l', rateKbps: 700 }, { t: 30, link: 'l', rateKbps: null }] };
  assert.deepEqual(pathSteps(linkHistories(partial), ['l'], 'rateKbps', span), [[0, 700], [30, null], [300, null]]);
  assert.deepEqual(pathSteps(linkHistories(partial), ['l'], 'lossPct', span), [[0, 0], [300, 0]]);
});
