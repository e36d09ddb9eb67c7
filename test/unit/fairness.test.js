import assert from 'node:assert/strict';
import { test } from 'node:test';
import { jainBySharedLink, phases, runFairness, sharedLinkGroups, totalRecvKbps } from '../../orchestrator/lib/cross/fairness.js';
import { summarize } from '../../orchestrator/lib/result/run-summary.js';

const entry = (t, peer, remote, videoKbps, audioKbps = 40) => ({
  t, peer, remote, video: { recvKbps: videoKbps }, audio: { recvKbps: audioKbps },
});
const BOTTLENECK = { 'a0->a1': ['a0.up', 'bottleneck', 'a1.down'], 'b0->b1': ['b0.up', 'bottleneck', 'b1.down'], 'c0->c1': ['c0.up', 'c1.down'] };

test("J16's definition reproduces its TCP figure: Jain(1408, 451) = 0.79 on the flows' mean rates, not the per-second mean", () => {
  // RTP averages 1408 kbps and TCP 451 kbps over the phase, but second by second they swap who is ahead more or less.
  const timeline = [];
  for (let t = 1; t <= 600; t += 1) {
    const swing = t % 2 ? 400 : -400;
    timeline.push(entry(t, 'a1', 'a0', 1408 - 40 + swing, 40), entry(t, 'b1', 'b0', 451 - 40 - swing, 40));
  }
  const [group] = jainBySharedLink(timeline, BOTTLENECK, [0, 600]);
  assert.equal(Number(group.jainIndex.toFixed(2)), 0.79);
  assert.ok(Math.abs(group.jainIndex - 1859 ** 2 / (2 * (1408 ** 2 + 451 ** 2))) < 1e-12);
  // The per-second figure (what the report showed alone before) is another number: J(1808, 51) and J(1008, 851) alternate.
  const jain = (x, y) => (x + y) ** 2 / (2 * (x * x + y * y));
  assert.ok(Math.abs(group.jainIndexPerSecond - (jain(1808, 51) + jain(1008, 851)) / 2) < 1e-12);
  assert.ok(group.jainIndexPerSecond < 0.77, `${group.jainIndexPerSecond}`);
  assert.deepEqual(group.phases.map((p) => [p.fromS, p.toS, p.seconds, p.flows]), [[1, 600, 600, ['a0->a1', 'b0->b1']]]);
});

test('phases follow the set of active flows; the run figure weights the shared phases by length', () => {
  // rtp-cross-traffic's shape: call a alone, b joins at 11 s, c at 21 s, c leaves after 40 s.
  const rates = new Map([
    ['a', new Map(Array.from({ length: 50 }, (_, i) => [i + 1, 300]))],
    ['b', new Map(Array.from({ length: 40 }, (_, i) => [i + 11, 100]))],
    ['c', new Map(Array.from({ length: 20 }, (_, i) => [i + 21, 300]))],
  ]);
  const byPhase = phases(['a', 'b', 'c'], rates);
  assert.deepEqual(byPhase.map((p) => [p.fromS, p.toS, p.flows.join('')]), [[1, 10, 'a'], [11, 20, 'ab'], [21, 40, 'abc'], [41, 50, 'ab']]);
  assert.equal(byPhase[0].jainIndex, null, 'one flow has no fairness');
  assert.equal(byPhase[1].jainIndex, 0.8); // (300 + 100)² / (2 · (300² + 100²))
  assert.ok(Math.abs(byPhase[2].jainIndex - 49 / 57) < 1e-12); // 700² / (3 · 190000)
  assert.deepEqual(byPhase[2].meanKbps, { a: 300, b: 100, c: 300 });
});

test("Jain's index on links shared by several routes: phases, per second, by number of active flows", () => {
  const timeline = [];
  for (let t = 1; t <= 20; t += 1) {
    timeline.push(entry(t, 'a1', 'a0', 60, 40)); // 100 kbps
    if (t > 10) timeline.push(entry(t, 'b1', 'b0', t % 2 ? 160 : 360, 40)); // 300 kbps on average from 11 s on
    timeline.push(entry(t, 'c1', 'c0', 1000));
  }
  const groups = jainBySharedLink(timeline, BOTTLENECK, [0, 20]);
  assert.equal(groups.length, 1);
  const [g] = groups;
  assert.deepEqual(g.links, ['bottleneck']);
  assert.deepEqual(g.flows, ['a0->a1', 'b0->b1']);
  assert.equal(g.series.length, 10); // seconds with one active flow are skipped
  assert.equal(g.jainIndex, 0.8); // on the means: (100 + 300)² / (2 · (100² + 300²))
  const perSecond = ((100 + 200) ** 2 / (2 * (100 ** 2 + 200 ** 2)) + (100 + 400) ** 2 / (2 * (100 ** 2 + 400 ** 2))) / 2;
  assert.ok(Math.abs(g.jainIndexPerSecond - perSecond) < 1e-12);
  assert.deepEqual(Object.keys(g.byActiveFlows), ['2']);
  assert.equal(g.flowMeansKbps['a0->a1'], 100);
  // The window excludes its start (the summary's rule): seconds up to 10 do not count.
  assert.deepEqual(jainBySharedLink(timeline, BOTTLENECK, [10, 20])[0].phases.map((p) => p.fromS), [11]);
});

test('links carrying the same flows are reported together; a link of one flow is not shared', () => {
  assert.deepEqual(sharedLinkGroups({ 'x->y': ['l1', 'l2'], 'z->y': ['l1', 'l2', 'l3'] }), [{ links: ['l1', 'l2'], flows: ['x->y', 'z->y'] }]);
  assert.deepEqual(sharedLinkGroups({ 'x->y': ['x.up', 'y.down'], 'y->x': ['y.up', 'x.down'] }), []);
  const groups = jainBySharedLink([entry(1, 'y', 'x', 100), entry(1, 'y', 'z', 100)], { 'x->y': ['l1', 'l2'], 'z->y': ['l1', 'l2'] }, [0, 10]);
  assert.equal(groups[0].jainIndex, 1);
  assert.equal(groups[0].jainIndexPerSecond, 1);
});

test("the run's figures are the means over its shared links, null without one; the summary carries them", () => {
  const group = (jainIndex, jainIndexPerSecond) => /** @type {any} */ ({ jainIndex, jainIndexPerSecond });
  assert.deepEqual(runFairness([group(0.8, 0.7), group(1, null)]), { jainIndex: 0.9, jainIndexPerSecond: 0.7 });
  assert.deepEqual(runFairness([]), { jainIndex: null, jainIndexPerSecond: null });
  const timeline = [];
  for (let t = 1; t <= 20; t += 1) timeline.push(entry(t, 'a1', 'a0', 1368, 40), entry(t, 'b1', 'b0', 411, 40));
  const link = { rateKbps: null, queuePackets: 50, queueMs: null, oneWayDelayMs: 0, jitterMs: 0, lossPct: 0, lossBurst: null };
  const configured = [...new Set(Object.values(BOTTLENECK).flat())].map((name) => ({ t: 0, link: name, ...link }));
  const summary = summarize({ timeline, warmupS: 5, durationS: 20, setupMs: {}, configured, routes: BOTTLENECK });
  assert.equal(Number(summary.jainIndex.toFixed(2)), 0.79);
  assert.ok(Math.abs(summary.jainIndexPerSecond - summary.jainIndex) < 1e-12, 'constant rates: both definitions agree');
  assert.equal(summary.timeToSteadyS, null, 'no schedule change, no time to steady rate');
});

test('the total receive rate of an interval: video + audio, null when neither was measured', () => {
  assert.equal(totalRecvKbps(entry(1, 'a', 'b', 100, 40)), 140);
  assert.equal(totalRecvKbps({ video: { recvKbps: null }, audio: {} }), null);
  assert.equal(totalRecvKbps({ video: { recvKbps: 5 } }), 5);
});
