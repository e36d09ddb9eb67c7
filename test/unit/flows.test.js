import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { InputError } from '../../orchestrator/lib/system/errors.js';
import { activeIntervals, normalizeFlows, normalizeMainCall, shortTcpBursts } from '../../orchestrator/lib/cross/flows.js';
import { flowList, flowPeers, flowsOnLink, pageFlowRows } from '../../orchestrator/lib/cross/flow-list.js';
import { loadScenario } from '../../orchestrator/lib/scenario/scenario-file.js';
import { MAX_FLOWS, MAX_IPERF3_SERVERS, MAX_SHORT_TCP_BURSTS } from '../../orchestrator/lib/input/limits.js';

const CONTEXT = { file: 'x.json', durationS: 700, timeScale: 1, peers: 2, topology: 'mesh', hasBottleneck: true, maxPeers: 32 };
/** The contract's example, every kind once. */
const EXAMPLE = [
  { name: 'call-2', kind: 'call', startS: 60, stopS: 240 },
  { name: 'media-2', kind: 'call', direction: 'forward', startS: 20 },
  { name: 'media-3', kind: 'call', pauses: [{ atS: 40, durationS: 20 }] },
  { name: 'tcp', kind: 'tcp', startS: 60, stopS: 660 },
  { name: 'short', kind: 'tcp-short', startS: 0, stopS: 300, count: 10, idleMeanS: 10, minBytes: 30000, maxBytes: 50000, seed: 1 },
  { name: 'cbr', kind: 'udp', rateKbps: 500, startS: 30, stopS: 90 },
  { name: 'bulk', kind: 'data', startS: 10, from: 'p0', to: 'p1' },
];

/** @param {unknown} flows @param {object} [context] */
const rejects = (flows, pattern, context = {}) => assert.throws(() => normalizeFlows(flows, { ...CONTEXT, ...context }),
  (error) => error instanceof InputError && error.exitCode === 2 && pattern.test(error.message) && error.message.startsWith('x.json: flows'),
  String(pattern));

test('flows are normalised with their defaults, every time scaled by the time scale', () => {
  assert.deepEqual(normalizeFlows(undefined, CONTEXT), []);
  const flows = normalizeFlows(EXAMPLE, { ...CONTEXT, timeScale: 0.5 });
  assert.deepEqual(flows, [
    { name: 'call-2', kind: 'call', startS: 30, stopS: 120, direction: 'both', pauses: [] },
    { name: 'media-2', kind: 'call', startS: 10, stopS: 350, direction: 'forward', pauses: [] },
    { name: 'media-3', kind: 'call', startS: 0, stopS: 350, direction: 'both', pauses: [{ atS: 20, durationS: 10 }] },
    { name: 'tcp', kind: 'tcp', startS: 30, stopS: 330, direction: 'forward' },
    { name: 'short', kind: 'tcp-short', startS: 0, stopS: 150, direction: 'forward', count: 10, idleMeanS: 5, minBytes: 30000, maxBytes: 50000, seed: 1 },
    { name: 'cbr', kind: 'udp', startS: 15, stopS: 45, direction: 'forward', rateKbps: 500 },
    { name: 'bulk', kind: 'data', startS: 5, stopS: 350, from: 'p0', to: 'p1' },
  ]);
  // RFC 8867 §5.7's values are a short-TCP flow's defaults; a data flow goes p0 -> p1 unless told.
  const [short, data] = normalizeFlows([{ name: 's', kind: 'tcp-short', direction: 'backward' }, { name: 'd', kind: 'data' }], CONTEXT);
  assert.deepEqual([short.idleMeanS, short.minBytes, short.maxBytes, short.seed, short.count, short.direction], [10, 30000, 50000, 1, MAX_SHORT_TCP_BURSTS, 'backward']);
  assert.deepEqual([data.from, data.to, data.startS, data.stopS], ['p0', 'p1', 0, 700]);
});

test('every wrong flow is an InputError naming the file, flows[i].field, what is allowed and what to do', () => {
  rejects({ name: 'x' }, /flows: must be an array/);
  rejects([{ name: 'x', kind: 'video' }], /flows\[0\]\.kind: must be one of call, tcp, tcp-short, udp, data, got "video"/);
  rejects([{ name: 'x', kind: 'tcp', rateKbps: 500 }], /flows\[0\]: unknown field 'rateKbps'; allowed: name, kind, startS, stopS, direction, windowBytes$/);
  rejects([{ name: 'x', kind: 'udp', rateKbps: 500, windowBytes: 8192 }], /flows\[0\]: unknown field 'windowBytes'/);
  for (const windowBytes of [1024, 17 * 1024 * 1024, 8192.5, '8k']) {
    rejects([{ name: 'x', kind: 'tcp', windowBytes }], /flows\[0\]\.windowBytes: must be an integer from 2048 to 16777216/);
  }
  rejects([{ name: 'a b', kind: 'tcp' }], /flows\[0\]\.name: must be 1 to 32 letters, digits/);
  rejects([{ kind: 'tcp' }], /flows\[0\]\.name: must be a name/);
  rejects([{ name: 'x'.repeat(33), kind: 'tcp' }], /flows\[0\]\.name/);
  for (const name of ['p3', 'sfu', 'call']) rejects([{ name, kind: 'tcp' }], /flows\[0\]\.name: '.*' is reserved .*choose another name/);
  rejects([{ name: 'a', kind: 'tcp' }, { name: 'a', kind: 'udp', rateKbps: 100 }], /flows\[1\]\.name: 'a' is already the name of flows\[0\]/);
  rejects([{ name: 'a', kind: 'tcp', startS: 100, stopS: 100 }], /flows\[0\]: startS \(100 s\) must be before stopS \(100 s\)/);
  rejects([{ name: 'a', kind: 'tcp', startS: 701 }], /flows\[0\]\.startS: must be a number from 0 to 700, got 701/);
  rejects([{ name: 'a', kind: 'tcp', stopS: 800 }], /flows\[0\]\.stopS: must be a number > 0 and <= 700/);
  rejects([{ name: 'a', kind: 'tcp' }], /flows\[0\]: a "tcp" flow crosses the bottleneck.*add network\.bottleneck/, { hasBottleneck: false });
  rejects([{ name: 'a', kind: 'tcp', direction: 'both' }], /flows\[0\]\.direction: must be one of forward, backward, got "both"/);
  rejects([{ name: 'a', kind: 'call', direction: 'backward' }], /flows\[0\]\.direction: must be one of both, forward/);
  rejects([{ name: 'a', kind: 'udp' }], /flows\[0\]\.rateKbps: must be a number from 8 to 10000000, got nothing/);
  rejects([{ name: 'a', kind: 'tcp-short', minBytes: 5000, maxBytes: 4000 }], /flows\[0\]: maxBytes \(4000\) is below minBytes \(5000\)/);
  rejects([{ name: 'a', kind: 'tcp-short', count: 1.5 }], /flows\[0\]\.count: must be an integer from 1 to 1000,/);
  rejects([{ name: 'a', kind: 'tcp-short', idleMeanS: 0 }], /flows\[0\]\.idleMeanS: must be a number > 0/);
  rejects([{ name: 'a', kind: 'call', startS: 10, pauses: [{ atS: 5, durationS: 2 }] }], /flows\[0\]\.pauses\[0\]\.atS: must be a number from 10 to 700/);
  rejects([{ name: 'a', kind: 'call', stopS: 50, pauses: [{ atS: 40, durationS: 20 }] }], /flows\[0\]\.pauses\[0\]: the pause ends at 60 s, after the flow stops \(50 s\)/);
  rejects([{ name: 'a', kind: 'call', pauses: [{ atS: 40, durationS: 20 }, { atS: 50, durationS: 5 }] }],
    /flows\[0\]\.pauses\[1\]: starts at 50 s, not after the previous pause ends \(60 s\)/);
  rejects([{ name: 'a', kind: 'call', pauses: [{ atS: 40, duration: 20 }] }], /flows\[0\]\.pauses\[0\]: unknown field 'duration'/);
  rejects([{ name: 'a', kind: 'data', from: 'p2' }], /flows\[0\]\.from: must be a peer of the main call, one of p0, p1, got "p2"/);
  rejects([{ name: 'a', kind: 'data', from: 'p1', to: 'p1' }], /flows\[0\]: from and to are both p1/);
  rejects([{ name: 'a', kind: 'data' }, { name: 'b', kind: 'data', startS: 5 }], /flows\[1\]: flows\[0\] already sends data from p0 to p1/);
  rejects(Array.from({ length: 16 }, (_, i) => ({ name: `c${i}`, kind: 'call' })), /make 34 peers; at most 32/);
  rejects([{ name: 'a', kind: 'data' }], /flows: need topology "mesh"/, { topology: 'sfu' });
  assert.equal(normalizeFlows([{ name: 't', kind: 'tcp', windowBytes: 16384 }], CONTEXT)[0].windowBytes, 16384, 'a valid window is kept');
  // Data flows need no bottleneck; a reverse data flow on the same connection is another direction.
  assert.equal(normalizeFlows([{ name: 'a', kind: 'data' }, { name: 'b', kind: 'data', from: 'p1', to: 'p0' }], { ...CONTEXT, hasBottleneck: false }).length, 2);
});

test('active intervals leave out the pauses', () => {
  assert.deepEqual(activeIntervals({ startS: 0, stopS: 120 }), [[0, 120]]);
  const pauses = [{ atS: 40, durationS: 20 }, { atS: 90, durationS: 30 }];
  assert.deepEqual(activeIntervals({ startS: 0, stopS: 120, pauses }), [[0, 40], [60, 90]]);
  assert.deepEqual(activeIntervals({ startS: 10, stopS: 120, pauses: [{ atS: 10, durationS: 5 }] }), [[15, 120]], 'a flow may start paused');
});

test('short TCP bursts: seeded, the first at startS, exponential idle times of the given mean, sizes uniform in the range', () => {
  const flow = { name: 'short', startS: 5, stopS: 100_000, count: 4000, idleMeanS: 10, minBytes: 30_000, maxBytes: 50_000, seed: 1 };
  const bursts = shortTcpBursts(flow);
  assert.deepEqual(shortTcpBursts(flow), bursts, 'the same seed gives the same bursts');
  assert.notDeepEqual(shortTcpBursts({ ...flow, seed: 2 }), bursts);
  assert.notDeepEqual(shortTcpBursts({ ...flow, name: 'other' }), bursts, 'two flows with one seed differ');
  assert.equal(bursts.length, 4000, 'count bounds them');
  assert.equal(bursts[0].atS, 5);
  const gaps = bursts.slice(1).map((b, i) => b.atS - bursts[i].atS);
  const mean = gaps.reduce((a, b) => a + b, 0) / gaps.length;
  const sd = Math.sqrt(gaps.reduce((a, b) => a + (b - mean) ** 2, 0) / gaps.length);
  // An exponential distribution's sd equals its mean; with 4000 draws both land within 5 % of 10 s.
  assert.ok(Math.abs(mean - 10) < 0.5 && Math.abs(sd - 10) < 0.5, `mean ${mean}, sd ${sd}`);
  assert.ok(bursts.every((b) => Number.isInteger(b.bytes) && b.bytes >= 30_000 && b.bytes <= 50_000));
  const sizes = bursts.map((b) => b.bytes);
  assert.ok(Math.min(...sizes) < 30_500 && Math.max(...sizes) > 49_500, 'both ends of the range are reached');
  // The window bounds them too: with a mean idle of 10 s, 60 s hold a handful, every one before stopS.
  const few = shortTcpBursts({ ...flow, stopS: 65 });
  assert.ok(few.length >= 2 && few.length < 20 && few.every((b) => b.atS >= 5 && b.atS < 65), JSON.stringify(few));
  assert.deepEqual(shortTcpBursts({ ...flow, minBytes: 7, maxBytes: 7, count: 3 }).map((b) => b.bytes), [7, 7, 7]);
});

test('extra calls take two peers each after the main call, the left one (even index) first or sending', () => {
  const flows = normalizeFlows(EXAMPLE, CONTEXT);
  assert.deepEqual(flowPeers({ peers: 2, flows }), {
    'call-2': { a: 'p2', b: 'p3' }, 'media-2': { sender: 'p4', receiver: 'p5' }, 'media-3': { a: 'p6', b: 'p7' },
  });
  // Three peers in the main call: the first extra pair is p3 (right) and p4 (left).
  assert.deepEqual(flowPeers({ peers: 3, flows: normalizeFlows([{ name: 'm', kind: 'call', direction: 'forward' }], { ...CONTEXT, peers: 3 }) }),
    { m: { sender: 'p4', receiver: 'p3' } });
});

test("the flows list: the main call first, each flow's links, measured series, peers and bursts", () => {
  const flows = normalizeFlows(EXAMPLE, CONTEXT);
  const list = flowList({ peers: 2, durationS: 700, flows, network: { bottleneck: { rateKbps: 2000 } } });
  assert.deepEqual(list.map((f) => [f.name, f.series.map((s) => s.name)]), [
    ['call', ['call:fwd', 'call:back']], ['call-2', ['call-2:fwd', 'call-2:back']], ['media-2', ['media-2:fwd']],
    ['media-3', ['media-3:fwd', 'media-3:back']], ['tcp', ['tcp']], ['short', ['short']], ['cbr', ['cbr']], ['bulk', ['bulk']],
  ]);
  const byName = Object.fromEntries(list.map((f) => [f.name, f]));
  assert.deepEqual(byName.call, {
    name: 'call', kind: 'call', main: true, startS: 0, stopS: 700, direction: 'both', pauses: [],
    links: ['p0.up', 'bottleneck.fwd', 'p1.down', 'p1.up', 'bottleneck.back', 'p0.down'],
    series: [
      { name: 'call:fwd', fair: true, links: ['p0.up', 'bottleneck.fwd', 'p1.down'], intervals: [[0, 700]], pairs: [['p0', 'p1']] },
      { name: 'call:back', fair: true, links: ['p1.up', 'bottleneck.back', 'p0.down'], intervals: [[0, 700]], pairs: [['p1', 'p0']] },
    ],
  });
  assert.deepEqual(byName['media-2'].series, [
    { name: 'media-2:fwd', fair: true, links: ['p4.up', 'bottleneck.fwd', 'p5.down'], intervals: [[20, 700]], pairs: [['p4', 'p5']] },
  ]);
  assert.deepEqual(byName['media-3'].series[1].intervals, [[0, 40], [60, 700]], 'a pause stops both directions');
  assert.deepEqual(byName.tcp.series, [{ name: 'tcp', fair: true, links: ['bottleneck.fwd'], intervals: [[60, 660]] }]);
  assert.equal(byName.short.series[0].fair, false, 'short TCP flows do not compete for a fair share');
  assert.equal(byName.short.bursts.length, 10);
  assert.deepEqual(byName.short.bursts, shortTcpBursts(/** @type {any} */ (byName.short)));
  assert.deepEqual(byName.bulk.links, ['p0.up', 'bottleneck.fwd', 'p1.down']);
  assert.equal(byName.bulk.peers, undefined);
  assert.deepEqual(flowsOnLink(list, 'bottleneck.back').map((s) => s.name), ['call:back', 'call-2:back', 'media-3:back']);
  assert.deepEqual(flowsOnLink(list, 'p0.up').map((s) => s.name), ['call:fwd', 'bulk']);
  assert.deepEqual(flowList({ peers: 2, durationS: 700, flows: [], network: {} }), [], 'no flows, no list');
});

test("the main call of three peers: call:fwd is every left peer's media to a right one; same-side pairs do not cross", () => {
  const flows = normalizeFlows([{ name: 'tcp', kind: 'tcp' }], { ...CONTEXT, peers: 3 });
  const [main] = flowList({ peers: 3, durationS: 700, flows, network: { bottleneck: {} } });
  assert.deepEqual(main.series.map((s) => [s.name, s.pairs]), [['call:fwd', [['p0', 'p1'], ['p2', 'p1']]], ['call:back', [['p1', 'p0'], ['p1', 'p2']]]]);
  assert.deepEqual(main.series[0].links, ['p0.up', 'bottleneck.fwd', 'p1.down', 'p2.up']);
});

test("rows from the pages: a call direction is its receivers' video + audio, summed over pairs; a data flow its data.recvKbps", () => {
  const flows = normalizeFlows([{ name: 'c2', kind: 'call', direction: 'forward' }, { name: 'bulk', kind: 'data', from: 'p1', to: 'p0' }], { ...CONTEXT, peers: 3 });
  const list = flowList({ peers: 3, durationS: 700, flows, network: { bottleneck: {} } });
  const sample = (t, peer, remote, videoKbps, extra = {}) => ({
    t, peer, remote, video: { recvKbps: videoKbps }, audio: { recvKbps: 40 }, ...extra,
  });
  const timeline = [
    sample(1.02, 'p1', 'p0', 500), sample(0.98, 'p1', 'p2', 300), // call:fwd = 540 + 340 in second 1
    sample(1, 'p0', 'p1', 700, { data: { recvKbps: 900, sentKbps: 0 } }), // call:back 740, and the data flow p1 -> p0
    sample(1, 'p2', 'p0', 200), // same side: in no series
    sample(1, 'p3', 'p4', 1000), // c2:fwd (p4 left sends to p3)
    { t: 2, peer: 'p1', remote: 'p0', video: { recvKbps: null }, audio: {} }, // nothing measured: no row
    { t: 2, peer: 'p0', remote: 'p1', data: { recvKbps: 800 } },
  ];
  assert.deepEqual(pageFlowRows(list, timeline), [
    { t: 1, flow: 'bulk', rateKbps: 900, source: 'datachannel' },
    { t: 1, flow: 'c2:fwd', rateKbps: 1040, source: 'getStats' },
    { t: 1, flow: 'call:back', rateKbps: 740, source: 'getStats' },
    { t: 1, flow: 'call:fwd', rateKbps: 880, source: 'getStats' },
    { t: 2, flow: 'bulk', rateKbps: 800, source: 'datachannel' },
  ]);
});

test('loadScenario: flows normalised and scaled, allPeers, links for the extra peers; kernel flows need a bottleneck', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'flows-'));
  const write = (name, body) => {
    const file = path.join(dir, `${name}.json`);
    writeFileSync(file, JSON.stringify({ name, description: 'flows fixture', durationS: 120, ...body }));
    return file;
  };
  const scenario = loadScenario(write('cross', {
    network: { bottleneck: { rateKbps: 2000 }, peers: { p3: { uplink: { oneWayDelayMs: 50 } } } },
    flows: [{ name: 'c2', kind: 'call', startS: 20, stopS: 100 }, { name: 'tcp', kind: 'tcp', startS: 40 }],
  }), { timeScale: 0.5 });
  assert.equal(scenario.peers, 2);
  assert.equal(scenario.allPeers, 4);
  assert.deepEqual(scenario.flows.map((f) => [f.name, f.startS, f.stopS]), [['c2', 10, 50], ['tcp', 20, 60]]);
  for (const link of ['p2.up', 'p2.down', 'p3.up', 'p3.down']) assert.ok(link in scenario.compiled.links, link);
  assert.equal(scenario.compiled.links['p3.up'].oneWayDelayMs, 50, 'an extra peer takes per-peer overrides');
  assert.deepEqual(loadScenario(write('plain', {})).flows, []);
  assert.equal(loadScenario(write('plain', {})).allPeers, 2);
  const noBottleneck = write('no-bottleneck', { flows: [{ name: 'tcp', kind: 'tcp' }] });
  assert.throws(() => loadScenario(noBottleneck), (error) => error instanceof InputError
    && error.message === `${noBottleneck}: flows[0]: a "tcp" flow crosses the bottleneck, and the scenario has none: add network.bottleneck (link parameters, docs/scenario-format.md)`);
  assert.throws(() => loadScenario(write('typo', { flow: [] })), /unknown field 'flow'; allowed: .*flows/);
});

test('mainCall: start and direction validated and scaled; a forward main call measures only call:fwd, from its start', () => {
  const context = { file: 'x.json', durationS: 100, timeScale: 0.5, peers: 2, topology: 'mesh' };
  assert.deepEqual(normalizeMainCall(undefined, context), { startS: 0, direction: 'both' });
  assert.deepEqual(normalizeMainCall({ startS: 5, direction: 'forward' }, context), { startS: 2.5, direction: 'forward' });
  assert.throws(() => normalizeMainCall({ startS: 100 }, context), /x\.json: mainCall\.startS: 100 s must be before/);
  assert.throws(() => normalizeMainCall({ direction: 'backward' }, context), /mainCall\.direction: must be "both" or "forward"/);
  assert.throws(() => normalizeMainCall({ direction: 'forward' }, { ...context, peers: 3 }), /needs a two-party mesh call/);
  assert.throws(() => normalizeMainCall({ startsS: 5 }, context), InputError);
  const flows = normalizeFlows([{ name: 'tcp', kind: 'tcp' }], { ...CONTEXT, durationS: 120 });
  const list = flowList({ peers: 2, durationS: 120, flows, network: { bottleneck: {} }, mainCall: { startS: 5, direction: 'forward' } });
  const main = list.find((flow) => flow.main);
  assert.deepEqual(main.series.map((series) => series.name), ['call:fwd']);
  assert.deepEqual(main.series[0].intervals, [[5, 120]]);
  assert.equal(main.startS, 5);
});

test('100 tcp-short flows over a day with the default count cannot plan a million iperf3 servers', () => {
  const day = { ...CONTEXT, durationS: 86_400 };
  const shortFlows = (n, extra = {}) => Array.from({ length: n }, (_, i) => ({ name: `s${i}`, kind: 'tcp-short', ...extra }));
  // The default count is the per-flow limit, so one default flow plans at most that many bursts.
  const [one] = normalizeFlows(shortFlows(1, { idleMeanS: 1 }), day);
  assert.equal(one.count, MAX_SHORT_TCP_BURSTS);
  assert.equal(shortTcpBursts(one).length, MAX_SHORT_TCP_BURSTS);
  rejects(shortFlows(100), new RegExp(`^x\\.json: flows: the kernel flows need \\d+ iperf3 servers .*flows\\[\\d+\\] 's\\d+' alone \\d+\\); at most ${MAX_IPERF3_SERVERS} .*lower a tcp-short flow's count`), day);
  rejects(shortFlows(1, { count: MAX_SHORT_TCP_BURSTS + 1 }), new RegExp(`flows\\[0\\]\\.count: must be an integer from 1 to ${MAX_SHORT_TCP_BURSTS}`), day);
  // Within the budget: 20 flows of 30 bursts.
  assert.equal(normalizeFlows(shortFlows(20, { count: 30 }), day).length, 20);
});

test('a scenario cannot list more flows than the limit', () => {
  const many = Array.from({ length: MAX_FLOWS + 1 }, (_, i) => ({ name: `d${i}`, kind: 'tcp' }));
  rejects(many, new RegExp(`^x\\.json: flows: ${MAX_FLOWS + 1} flows; at most ${MAX_FLOWS}`));
});
