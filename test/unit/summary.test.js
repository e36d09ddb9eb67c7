import assert from 'node:assert/strict';
import { test } from 'node:test';
import { linksAt, metricKeys, summarize } from '../../orchestrator/lib/result/run-summary.js';

const entry = (t, peer, remote, recvKbps, rttMs) => ({ t, peer, remote, intervalS: 1, video: { recvKbps, codec: 'VP8' }, audio: { recvKbps: 40 }, rttMs });
const routes = { 'p0->p1': ['p0.up', 'p1.down'], 'p1->p0': ['p1.up', 'p0.down'] };
const link = (t, name, rateKbps) => ({
  t, link: name, rateKbps, queuePackets: 50, queueMs: null, oneWayDelayMs: 0, jitterMs: 0, lossPct: 0, lossBurst: null,
});

test('metric keys are the numeric timeline paths, not t or strings', () => {
  assert.deepEqual(metricKeys([entry(1, 'p0', 'p1', 10, 5)]), ['audio.recvKbps', 'rttMs', 'video.recvKbps']);
});

test('linksAt returns the latest configuration at or before t for every link', () => {
  const configured = [link(0, 'p0.up', 1000), link(0, 'p1.up', 500), link(60, 'p0.up', 3000)];
  assert.equal(linksAt(configured, 59)['p0.up'].rateKbps, 1000);
  assert.equal(linksAt(configured, 60)['p0.up'].rateKbps, 3000);
  assert.equal(linksAt(configured, 60)['p1.up'].rateKbps, 500);
});

test('summary uses only the measurement window, per peer and averaged over peers, with utilisation over capped seconds', () => {
  const timeline = [];
  for (let t = 1; t <= 20; t += 1) {
    timeline.push(entry(t, 'p0', 'p1', t <= 5 ? 0 : 700, 100));
    timeline.push(entry(t, 'p1', 'p0', t <= 5 ? 0 : 500, 300));
  }
  const configured = [];
  for (let t = 0; t < 20; t += 1) for (const name of ['p0.up', 'p0.down', 'p1.up', 'p1.down']) configured.push(link(t, name, name.endsWith('up') ? 1000 : null));
  const s = summarize({ timeline, warmupS: 5, durationS: 20, setupMs: { p0: 1200, p1: 1500 }, configured, routes });
  assert.deepEqual(s.windowS, [5, 20]);
  assert.equal(s.peers.p0['video.recvKbps'].n, 15);
  assert.equal(s.peers.p0['video.recvKbps'].mean, 700);
  assert.equal(s.overall['video.recvKbps'].mean, 600);
  assert.equal(s.overall.rttMs.mean, 200);
  assert.ok(Math.abs(s.utilization.p0 - 0.74) < 1e-9); // (700 + 40) / 1000
  assert.ok(Math.abs(s.utilization.p1 - 0.54) < 1e-9);
  assert.equal(s.setupMs.max, 1500);
});

test('no cap anywhere means no utilisation; a peer without first frame leaves setupMs.max null', () => {
  const configured = ['p0.up', 'p0.down', 'p1.up', 'p1.down'].map((name) => link(0, name, null));
  const s = summarize({ timeline: [entry(11, 'p0', 'p1', 1, 1)], warmupS: 10, durationS: 20, setupMs: { p0: null }, configured, routes });
  assert.equal(s.utilization, null);
  assert.equal(s.setupMs.max, null);
});

test("the summary's per-run figures: time to steady rate after the schedule's changes, Jain's index only on shared links", () => {
  const timeline = [];
  for (let t = 1; t <= 120; t += 1) {
    // p1 climbs from 500 to 2000 kbps in the 20 s after the change at 60 s (steady at 74 s, report-derived.test.js); p0 holds 1000.
    timeline.push(entry(t, 'p1', 'p0', t < 60 ? 500 : t < 80 ? 500 + (1500 * (t - 60)) / 20 : 2000, 10));
    timeline.push(entry(t, 'p0', 'p1', 1000, 10));
  }
  const configured = ['p0.up', 'p0.down', 'p1.up', 'p1.down'].map((name) => link(0, name, null));
  const input = { timeline, warmupS: 10, durationS: 120, setupMs: { p0: 900, p1: 900 }, configured, routes };
  const s = summarize({ ...input, scheduleEvents: [{ atS: 60, link: 'p0.up', params: { rateKbps: 3000 } }] });
  assert.equal(s.timeToSteadyS, 7); // (14 + 0) / 2
  assert.equal(summarize(input).timeToSteadyS, null, 'without the schedule only the call start is a change');
  assert.deepEqual([s.jainIndex, s.jainIndexPerSecond], [null, null], 'two peers share no link');
});

test('set-up time is the main call\'s: an extra call\'s peers in the timeline (connected later, on their flow\'s schedule) do not null it', () => {
  const timeline = [entry(11, 'p0', 'p1', 1, 1), entry(11, 'p1', 'p0', 1, 1), entry(11, 'p3', 'p2', 1, 1)];
  const s = summarize({ timeline, warmupS: 10, durationS: 20, setupMs: { p0: 1200, p1: 1500 }, configured: [], routes: {} });
  assert.equal(s.setupMs.max, 1500);
});
