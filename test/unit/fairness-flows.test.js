// Fairness among a scenario's flows on the bottleneck (lib/cross/fairness.js flowFairness), checked against hand-computed
// phases, shares, utilisation, Jain's indices and convergence times.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { CONVERGENCE, convergenceS, fairnessFigures, flowFairness } from '../../orchestrator/lib/cross/fairness.js';
import { normalizeFlows } from '../../orchestrator/lib/cross/flows.js';
import { flowList } from '../../orchestrator/lib/cross/flow-list.js';
import { buildResult } from '../../orchestrator/lib/result/result.js';
import { summarize } from '../../orchestrator/lib/result/run-summary.js';
import { loadScenario } from '../../orchestrator/lib/scenario/scenario-file.js';

const close = (actual, expected, what) => assert.ok(Math.abs(actual - expected) < 1e-9, `${what}: ${actual}, expected ${expected}`);
/** @returns {any} a flows-list series */
const series = (name, intervals, { fair = true, links = ['bottleneck.fwd'] } = {}) => ({ name, fair, links, intervals });
/** Rows of one flow: [fromT, toT, kbps] runs of seconds. */
const rowsOf = (flow, ...runs) => runs.flatMap(([from, to, kbps]) => Array.from({ length: to - from + 1 },
  (_, i) => ({ t: from + i, flow, rateKbps: kbps })));
/** bottleneck.fwd's configured rate per second, as result.json's network.configured has it. */
const configuredRate = (durationS, rateAt) => Array.from({ length: durationS + 1 }, (_, t) => ({ t, link: 'bottleneck.fwd', rateKbps: rateAt(t) }));

test('a TCP flow joins a call and leaves: phases from the configured intervals, shares, utilisation, Jain, convergence', () => {
  const list = [{ series: [series('call:fwd', [[0, 40]]), series('tcp', [[10, 30]])] }];
  const rows = [
    ...rowsOf('call:fwd', [1, 10, 1000], [11, 15, 800], [16, 30, 500], [31, 40, 1000]),
    ...rowsOf('tcp', [11, 15, 200], [16, 30, 500]),
  ];
  // The capacity doubles at 20 s; second t counts the rate in force at t − 1.
  const configured = configuredRate(40, (t) => (t < 20 ? 1000 : 2000));
  const link = flowFairness({ list: /** @type {any} */ (list), rows }, configured, [0, 40]).links['bottleneck.fwd'];
  assert.deepEqual(link.flows, ['call:fwd', 'tcp']);
  assert.deepEqual(link.phases.map((p) => [p.fromS, p.toS, p.seconds, p.flows]),
    [[0, 10, 10, ['call:fwd']], [10, 30, 20, ['call:fwd', 'tcp']], [30, 40, 10, ['call:fwd']]]);
  const [alone, shared, after] = link.phases;
  assert.deepEqual([alone.meanKbps, alone.capacityKbps, alone.utilization, alone.jainIndex], [{ 'call:fwd': 1000 }, 1000, 1, null]);
  // 5 s at 800/200, then 15 s at 500/500: means 575 and 425; capacity 10 s at 1000 and 10 s at 2000.
  assert.deepEqual(shared.meanKbps, { 'call:fwd': 575, tcp: 425 });
  assert.equal(shared.capacityKbps, 1500);
  close(shared.shareOfCapacity['call:fwd'], 575 / 1500, 'share');
  close(shared.shareOfCapacity.tcp, 425 / 1500, 'share');
  assert.equal(shared.totalKbps, 1000);
  close(shared.utilization, 20_000 / 30_000, 'phase utilisation');
  close(shared.jainIndex, 1000 ** 2 / (2 * (575 ** 2 + 425 ** 2)), 'Jain on the means');
  assert.deepEqual([after.capacityKbps, after.utilization, after.shareOfCapacity], [2000, 0.5, { 'call:fwd': 0.5 }]);
  close(link.jainIndex, shared.jainIndex, 'the one shared phase');
  const jain800 = 1000 ** 2 / (2 * (800 ** 2 + 200 ** 2));
  assert.deepEqual(link.series.map(([t]) => t), Array.from({ length: 20 }, (_, i) => 11 + i), 'seconds with two flows');
  close(link.jainIndexPerSecond, (5 * jain800 + 15) / 20, 'per second');
  close(link.utilization, 40_000 / 60_000, 'utilisation over the window');
  // Jain < 0.9 for 11–15 s, 1 from 16 s on: second 16 covers (15, 16], 5 s after the join. After the leave one flow is left.
  assert.deepEqual(link.convergence, [
    { atS: 10, change: 'join', flow: 'tcp', convergenceS: 5 },
    { atS: 30, change: 'leave', flow: 'tcp', convergenceS: null },
  ]);
  // The warm-up cuts the first phases and the join inside it.
  const late = flowFairness({ list: /** @type {any} */ (list), rows }, configured, [12, 40]).links['bottleneck.fwd'];
  assert.deepEqual(late.phases.map((p) => [p.fromS, p.toS, p.seconds]), [[12, 30, 18], [30, 40, 10]]);
  assert.deepEqual(late.convergence.map((c) => c.atS), [30]);
});

test('missing rows of an active flow count as 0, seconds nobody measured are skipped, short TCP is background, times may be fractions', () => {
  // A sends during [0, 6.5): seconds 1–6 (second t is active when t − 0.5 is inside); B during [2.5, 10): seconds 3–10.
  const list = [{
    series: [
      series('A', [[0, 6.5]]), series('B', [[2.5, 10]]), series('S', [[0, 10]], { fair: false }),
      series('R', [[0, 10]], { links: ['bottleneck.back'] }),
    ],
  }];
  const rows = [
    ...rowsOf('A', [1, 1, 600], [3, 3, 600], [5, 6, 600]), // nothing in 2 (nobody measured) nor 4
    ...rowsOf('B', [4, 4, 300], [5, 6, 320], [7, 10, 300]), // nothing in 3: B got nothing through
    ...rowsOf('S', [5, 5, 300]),
    ...rowsOf('R', [1, 10, 100]),
  ];
  const { links } = flowFairness({ list: /** @type {any} */ (list), rows }, [], [0, 10]);
  assert.deepEqual(Object.keys(links), ['bottleneck.fwd'], 'a direction with one flow is not reported');
  const link = links['bottleneck.fwd'];
  assert.deepEqual(link.phases.map((p) => [p.fromS, p.toS, p.seconds, p.flows]), [[0, 2, 1, ['A']], [2, 6, 4, ['A', 'B']], [6, 10, 4, ['B']]]);
  const shared = link.phases[1];
  // Seconds 3–6: A 600, 0, 600, 600; B 0, 300, 320, 320; S 0, 0, 300, 0.
  assert.deepEqual(shared.meanKbps, { A: 450, B: 235, S: 75 });
  assert.equal(shared.totalKbps, (600 + 300 + 1220 + 920) / 4);
  assert.deepEqual([shared.capacityKbps, shared.utilization, shared.shareOfCapacity.A], [null, null, null], 'an unlimited link has no capacity');
  close(shared.jainIndex, 685 ** 2 / (2 * (450 ** 2 + 235 ** 2)), 'Jain over A and B only');
  const j = 920 ** 2 / (2 * (600 ** 2 + 320 ** 2));
  const six = (v) => Number(v.toFixed(6));
  assert.deepEqual(link.series.map(([t, v]) => [t, six(v)]), [[3, 0.5], [4, 0.5], [5, six(j)], [6, six(j)]]);
  // Jain >= 0.9 from second 5 to the phase's end (sooner than 10 s): (5 − 1) − 2.5.
  assert.deepEqual(link.convergence, [
    { atS: 2.5, change: 'join', flow: 'B', convergenceS: 1.5 },
    { atS: 6.5, change: 'leave', flow: 'A', convergenceS: null },
  ]);
  const both = flowFairness({ list: /** @type {any} */ ([...list, { series: [series('R2', [[0, 10]], { links: ['bottleneck.back'] })] }]), rows }, [], [0, 10]);
  assert.deepEqual(Object.keys(both.links), ['bottleneck.fwd', 'bottleneck.back'], 'two flows on the way back are reported too');
});

test("a second belongs to a flow when its midpoint is inside the flow's interval; the hold ends with the phase", () => {
  const fairnessOf = (list, rows) => flowFairness({ list: /** @type {any} */ (list), rows }, [], [0, 10]).links['bottleneck.fwd'];
  // [0.7, 3.2): the midpoints 1.5 and 2.5 of seconds 2 and 3 are inside, 0.5 and 3.5 are not.
  const brief = fairnessOf([{ series: [series('X', [[0.7, 3.2]]), series('Y', [[0, 5]])] }], [...rowsOf('X', [1, 5, 100]), ...rowsOf('Y', [1, 5, 100])]);
  assert.deepEqual(brief.phases.map((p) => [p.fromS, p.toS, p.flows.join('')]), [[0, 1, 'Y'], [1, 3, 'XY'], [3, 5, 'Y']]);
  // Y joins at 2 s and is even from second 4; Z joins at 5 s and takes ten times more. The hold of Y's join ends at 5 s.
  const list = [{ series: [series('X', [[0, 10]]), series('Y', [[2, 10]]), series('Z', [[5, 10]])] }];
  const rows = [...rowsOf('X', [1, 10, 100]), ...rowsOf('Y', [4, 10, 100]), ...rowsOf('Z', [6, 10, 1000])];
  assert.deepEqual(fairnessOf(list, rows).convergence, [
    { atS: 2, change: 'join', flow: 'Y', convergenceS: 1 },
    { atS: 5, change: 'join', flow: 'Z', convergenceS: null },
  ]);
});

test('convergence: the first second from which Jain stays >= 0.9 for 10 s, cut by the phase end; unmeasured seconds passed over', () => {
  assert.deepEqual(CONVERGENCE, { jainIndex: 0.9, holdS: 10 });
  const jain = (entries) => new Map(entries);
  const steadyFrom4 = jain([[1, 0.5], [2, 0.95], [3, 0.8], ...Array.from({ length: 27 }, (_, i) => [4 + i, 0.95])]);
  assert.equal(convergenceS(0, 1, 30, steadyFrom4), 3, 'a single good second (2) is not convergence');
  // A dip inside the 10 s hold restarts it: good at 4–8, bad at 9, good from 10.
  const dip = jain([...Array.from({ length: 30 }, (_, i) => [1 + i, 0.95]), [9, 0.7]].map(([t, v]) => [t, t < 4 ? 0.5 : v]));
  assert.equal(convergenceS(0, 1, 30, dip), 9);
  assert.equal(convergenceS(0, 1, 3, jain([[1, 0.5], [2, 0.5], [3, 0.95]])), 2, 'held to the phase end');
  assert.equal(convergenceS(0, 1, 5, jain([[1, 0.5], [3, 0.95], [5, 0.95]])), 2, 'seconds 2 and 4 unmeasured');
  assert.equal(convergenceS(0, 1, 5, jain([[1, 0.5], [2, 0.5]])), null);
  assert.equal(convergenceS(60.4, 61, 90, jain([[61, 1]])), 0, 'never negative');
  assert.equal(convergenceS(0, 1, 30, jain([[1, 0.7], [2, 0.7], [3, 0.5]]), { jainIndex: 0.6, holdS: 2 }), 0);
});

test('a paused media flow (RMCAT 5.8) leaves and rejoins on both directions; each change gets its convergence time', () => {
  const flows = normalizeFlows([{ name: 'media-2', kind: 'call' }, { name: 'media-3', kind: 'call', pauses: [{ atS: 40, durationS: 20 }] }],
    { file: 'x.json', durationS: 120, peers: 2, hasBottleneck: true, maxPeers: 32 });
  const list = flowList({ peers: 2, durationS: 120, flows, network: { bottleneck: { rateKbps: 3500 } } });
  const rows = ['call', 'media-2', 'media-3'].flatMap((f) => ['fwd', 'back'].flatMap((d) => (f === 'media-3'
    ? rowsOf(`${f}:${d}`, [1, 40, 1000], [61, 64, 100], [65, 120, 1000])
    : rowsOf(`${f}:${d}`, [1, 120, 1000]))));
  const { links } = flowFairness({ list, rows }, configuredRate(120, () => 3500), [10, 120]);
  for (const dir of ['fwd', 'back']) {
    const link = links[`bottleneck.${dir}`];
    assert.deepEqual(link.phases.map((p) => [p.fromS, p.toS, p.flows.length]), [[10, 40, 3], [40, 60, 2], [60, 120, 3]], dir);
    // Back at 60 s with 100 kbps for 4 s: Jain(1000, 1000, 100) = 2100² / (3 · 2 010 000) < 0.9, then 1.
    assert.deepEqual(link.convergence, [
      { atS: 40, change: 'leave', flow: `media-3:${dir}`, convergenceS: 0 },
      { atS: 60, change: 'join', flow: `media-3:${dir}`, convergenceS: 4 },
    ]);
  }
  close(links['bottleneck.fwd'].phases[2].jainIndex, jainOf([1000, 1000, (4 * 100 + 56 * 1000) / 60]), 'Jain on the means of 60–120 s');
  const configured = configuredRate(120, () => 3500);
  const figures = fairnessFigures({ timeline: [], routes: {}, configured, windowS: [10, 120], flows: { list, rows } });
  assert.equal(figures.convergenceS, 2, 'the mean over both links of 0 and 4 s');
  close(figures.jainIndex, links['bottleneck.fwd'].jainIndex, 'both links alike');
});

/** @param {number[]} xs */
function jainOf(xs) {
  return xs.reduce((a, b) => a + b, 0) ** 2 / (xs.length * xs.reduce((a, b) => a + b * b, 0));
}

test("the run's Jain figures come from the flows when the scenario has some on the bottleneck, else from shared routes", () => {
  const entry = (t, peer, remote, kbps) => ({ t, peer, remote, video: { recvKbps: kbps }, audio: { recvKbps: 0 } });
  const timeline = Array.from({ length: 10 }, (_, i) => [entry(i + 1, 'p1', 'p0', 300), entry(i + 1, 'p1', 'p2', 100)]).flat();
  const routes = { 'p0->p1': ['p0.up', 'bottleneck', 'p1.down'], 'p2->p1': ['p2.up', 'bottleneck', 'p1.down'] };
  const withoutFlows = fairnessFigures({ timeline, routes, configured: [], windowS: [0, 10] });
  assert.deepEqual([withoutFlows.fairness, withoutFlows.jainIndex, withoutFlows.convergenceS], [null, 0.8, null]);
  close(withoutFlows.jainIndexPerSecond, 0.8, 'per second over the routes');
  const list = [{ series: [series('call:fwd', [[0, 10]]), series('tcp', [[0, 10]])] }];
  const rows = [...rowsOf('call:fwd', [1, 10, 500]), ...rowsOf('tcp', [1, 10, 500])];
  const flows = { list: /** @type {any} */ (list), rows };
  const withFlows = fairnessFigures({ timeline, routes, configured: [], windowS: [0, 10], flows });
  assert.deepEqual([withFlows.jainIndex, withFlows.jainIndexPerSecond, Object.keys(withFlows.fairness.links)], [1, 1, ['bottleneck.fwd']]);
  // A data flow without a bottleneck: no link is reported, so the figures stay those of the shared routes.
  const bulk = /** @type {import('../../orchestrator/lib/cross/flows.js').FlowListEntry[]} */ ([{ series: [series('bulk', [[0, 10]], { links: ['p0.up'] })] }]);
  const offLink = fairnessFigures({ timeline, routes, configured: [], windowS: [0, 10], flows: { list: bulk, rows: [] } });
  assert.deepEqual([offLink.fairness, offLink.jainIndex], [{ links: {} }, 0.8]);
  const summary = summarize({ timeline, warmupS: 0, durationS: 10, setupMs: {}, configured: [], routes: {}, flows });
  assert.deepEqual([summary.jainIndex, summary.convergenceS, Object.keys(summary.fairness.links)], [1, null, ['bottleneck.fwd']]);
});

test('buildResult: result.flows has the list and every rate per second (pages and the run), summary.fairness from them', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'flows-result-'));
  const file = path.join(dir, 'tcp-cross.json');
  writeFileSync(file, JSON.stringify({
    name: 'tcp-cross', description: 'fixture', durationS: 30, warmupS: 0,
    network: { bottleneck: { rateKbps: 2000 } }, flows: [{ name: 'tcp', kind: 'tcp', startS: 10 }, { name: 'bulk', kind: 'data', startS: 20 }],
  }));
  const scenario = loadScenario(file);
  const samples = [];
  for (let t = 1; t <= 31; t += 1) {
    const video = t <= 10 ? 1900 : 960;
    const data = t > 20 ? { data: { recvKbps: 0 } } : {};
    samples.push({ t, peer: 'p1', remote: 'p0', intervalS: 1, video: { recvKbps: video }, audio: { recvKbps: 40 }, ...data });
    samples.push({ t, peer: 'p0', remote: 'p1', intervalS: 1, video: { recvKbps: 1000 }, audio: { recvKbps: 40 } });
  }
  const flowRows = Array.from({ length: 21 }, (_, i) => ({ t: 11 + i, flow: 'tcp', rateKbps: 1000, source: 'iperf3', rttMs: 100 }));
  const result = buildResult({
    status: 'passed', errors: [], scenario, environment: /** @type {any} */ ({ harnessVersion: 'test' }), samples, events: [],
    network: { emulator: 'relay', truth: [], commands: [], scheduleEvents: [] },
    clock: { startedAtEpochMs: 0, mediaStartEpochMs: 1000 }, peers: ['p0', 'p1'], flowRows,
    // The relay's tunnel truth, stamped on the wall clock: second 12 of the media clock, and one after the run.
    flowTruth: [12, 45].map((t) => ({ epochMs: 1000 + t * 1000, flow: 'tcp', direction: 'forward', packetsIn: 90, bytesIn: 135_000, packetsOut: 84, bytesOut: 126_000 })),
  });
  assert.deepEqual(result.flows.truth, [
    { t: 12, flow: 'tcp', direction: 'forward', packetsIn: 90, bytesIn: 135_000, packetsOut: 84, bytesOut: 126_000, rateKbps: 1008 },
  ], 'the wire\'s view on the media clock, within the run');
  assert.deepEqual(result.scenario.flows.map((f) => f.name), ['tcp', 'bulk']);
  assert.deepEqual(result.flows.list.map((f) => [f.name, f.links]), [
    ['call', ['p0.up', 'bottleneck.fwd', 'p1.down', 'p1.up', 'bottleneck.back', 'p0.down']],
    ['tcp', ['bottleneck.fwd']], ['bulk', ['p0.up', 'bottleneck.fwd', 'p1.down']],
  ]);
  assert.ok(result.flows.rows.length > 0, 'result.flows.rows: nothing to check');
  assert.ok(result.flows.rows.every((row) => row.t <= 30), 'rows end with the run');
  assert.deepEqual(result.flows.rows.filter((row) => row.t === 21), [
    { t: 21, flow: 'bulk', rateKbps: 0, source: 'datachannel' },
    { t: 21, flow: 'call:back', rateKbps: 1040, source: 'getStats' },
    { t: 21, flow: 'call:fwd', rateKbps: 1000, source: 'getStats' },
    { t: 21, flow: 'tcp', rateKbps: 1000, source: 'iperf3', rttMs: 100 },
  ]);
  const link = result.summary.fairness?.links['bottleneck.fwd'];
  assert.deepEqual(link.phases.map((p) => [p.fromS, p.toS, p.flows]), [[0, 10, ['call:fwd']], [10, 20, ['call:fwd', 'tcp']], [20, 30, ['call:fwd', 'tcp', 'bulk']]]);
  assert.equal(link.phases[1].jainIndex, 1);
  close(link.phases[2].jainIndex, 2000 ** 2 / (3 * 2 * 1000 ** 2), 'the starved data flow');
  assert.equal(result.summary.jainIndex, link.jainIndex);
  assert.deepEqual(link.convergence, [
    { atS: 10, change: 'join', flow: 'tcp', convergenceS: 0 },
    { atS: 20, change: 'join', flow: 'bulk', convergenceS: null },
  ]);
  assert.deepEqual(buildResult({
    status: 'passed', errors: [], scenario: loadScenario('unconstrained', { durationS: 5, warmupS: 1 }), environment: /** @type {any} */ ({}),
    samples: [], events: [], network: { emulator: 'relay', truth: [], commands: [], scheduleEvents: [] },
    clock: { startedAtEpochMs: 0, mediaStartEpochMs: 1000 }, peers: [],
  }).flows, { list: [], rows: [], truth: [] }, 'no flows: an empty section');
});
