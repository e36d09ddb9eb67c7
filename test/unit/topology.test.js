import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  FLOWING_KBPS, bottleneckBetween, meanPeerUplinkKbps, peerSeconds, peerSide, peerTotals, ratiosToTwoParty,
} from '../../orchestrator/lib/network/topology.js';

/** One timeline entry of `peer` about `remote`. */
const entry = (t, peer, remote, { sent = 0, received = 0, fps = 30, audio = 30, intervalS = undefined } = {}) => ({
  t, peer, remote, ...(intervalS === undefined ? {} : { intervalS }),
  video: { sendKbps: sent, recvKbps: received, recvFps: received ? fps : 0 }, audio: { sendKbps: audio, recvKbps: audio },
});

test('peerSide: even peers left, odd peers, the SFU and its load participants right; bottleneckBetween: the direction crossed, or none', () => {
  assert.deepEqual(['p0', 'p1', 'p2', 'p13', 'sfu', 'load0', 'load12'].map(peerSide), ['left', 'right', 'left', 'right', 'right', 'right', 'right']);
  assert.throws(() => peerSide('x1'), /'x1' is neither p<i>, 'sfu' nor load<i>/);
  assert.throws(() => peerSide('loadx'), /'loadx' is neither/);
  assert.equal(bottleneckBetween('load0', 'sfu'), null);
  assert.deepEqual([['p0', 'p1'], ['p3', 'p0'], ['p0', 'p2'], ['p1', 'sfu'], ['p2', 'sfu'], ['sfu', 'p4']].map(([a, b]) => bottleneckBetween(a, b)),
    ['bottleneck.fwd', 'bottleneck.back', null, null, 'bottleneck.fwd', 'bottleneck.back']);
});

test('a mesh peer sums its connections: two streams out, two in', () => {
  const timeline = [
    entry(1, 'p0', 'p1', { sent: 800, received: 700 }), entry(1, 'p0', 'p2', { sent: 600, received: 150 }),
    entry(1.002, 'p1', 'p0', { sent: 700, received: 800 }),
  ];
  const rows = peerSeconds(timeline);
  assert.deepEqual(rows.map((r) => [r.t, r.peer]), [[1, 'p0'], [1, 'p1']]);
  assert.deepEqual(rows[0], { t: 1, peer: 'p0', uplinkKbps: 800 + 600 + 60, downlinkKbps: 700 + 150 + 60, videoStreamsSent: 2, videoStreamsReceived: 2, intervalS: null });
});

test('a stream below the flowing rate, or received without frames, does not count', () => {
  const [row] = peerSeconds([
    entry(3, 'p0', 'p1', { sent: FLOWING_KBPS - 1, received: 500, fps: 0 }),
    { t: 3, peer: 'p0', remote: 'p2', video: { sendKbps: null, recvKbps: 'x' }, audio: null },
  ]);
  assert.equal(row.videoStreamsSent, 0);
  assert.equal(row.videoStreamsReceived, 0);
  assert.equal(row.uplinkKbps, FLOWING_KBPS - 1 + 30);
});

test('totals average the window and give the downlink/uplink ratio', () => {
  const seconds = peerSeconds([
    entry(1, 'p0', 'p1', { sent: 1000, received: 2000, audio: 0 }), // warm-up: left out
    entry(2, 'p0', 'p1', { sent: 500, received: 1000, audio: 0 }),
    entry(3, 'p0', 'p1', { sent: 500, received: 1000, audio: 0 }),
    entry(2, 'p1', 'p0', { sent: 0, received: 0, audio: 0 }),
  ]);
  const totals = peerTotals(seconds, [1, 3]);
  assert.deepEqual(Object.keys(totals), ['p0', 'p1']);
  assert.equal(totals.p0.uplinkKbps, 500);
  assert.equal(totals.p0.downlinkToUplink, 2);
  assert.equal(totals.p0.n, 2);
  assert.equal(totals.p1.downlinkToUplink, null);
});

test('totals weigh each sample by the time it covers: bytes over time, however irregular the sampling', () => {
  // A starved page: a 4 s sample, then three queued ones 0.1 s apart carrying bursts (sfu-4 at 720p30 on 2 cores).
  const samples = [[2, 4, 250, 1000], [3, 0.1, 2000, 6000], [4, 0.1, 2000, 6000], [5, 0.1, 2000, 6000], [6, 0.7, 1000, 2000]];
  const seconds = peerSeconds(samples.flatMap(([t, intervalS, sent, received]) => [
    entry(t, 'p0', 'p1', { sent, received: received / 2, audio: 0, intervalS }),
    entry(t, 'p0', 'p2', { sent: 0, received: received / 2, audio: 0, intervalS: intervalS - 0.001 }),
  ]));
  assert.deepEqual(seconds.map((row) => row.intervalS), [4, 0.1, 0.1, 0.1, 0.7]);
  const totals = peerTotals(seconds, [1, 6]).p0;
  const coveredS = 4 + 3 * 0.1 + 0.7;
  assert.ok(Math.abs(totals.uplinkKbps - (250 * 4 + 3 * 2000 * 0.1 + 1000 * 0.7) / coveredS) < 1e-9, String(totals.uplinkKbps));
  assert.ok(Math.abs(totals.downlinkKbps - (1000 * 4 + 3 * 6000 * 0.1 + 2000 * 0.7) / coveredS) < 1e-9, String(totals.downlinkKbps));
  // The plain mean over samples would give the bursts the weight of a second each: 1450 kbps up instead of 450.
  assert.ok(totals.uplinkKbps < 500, String(totals.uplinkKbps));
  assert.equal(totals.n, 5);
  // One sample without an interval (a result from before it was recorded): plain means, as before.
  const untimed = peerTotals(peerSeconds([entry(2, 'p0', 'p1', { sent: 100, audio: 0, intervalS: 9 }), entry(3, 'p0', 'p1', { sent: 300, audio: 0 })]), [1, 3]);
  assert.equal(untimed.p0.uplinkKbps, 200);
});

test('per-peer rate vs the 2-party call of the same group (J16 ×2.03 / ×2.77)', () => {
  const run = (scenario, peers, uplinkKbps, group = 'mesh') => ({ scenario, group, peers, uplinkKbps });
  const rows = ratiosToTwoParty([
    run('mesh-2', 2, 1000), run('mesh-2', 2, 1200), run('mesh-3', 3, 2200), run('mesh-4', 4, 3000), run('mesh-4', 4, null),
    run('queue-size-1', 2, 500, 'queue-size'), run('lonely-3', 3, 900, 'no-two-party'), run('ungrouped', 3, 1, null),
  ]);
  assert.deepEqual(rows.map((r) => [r.scenario, r.twoPartyKbps, r.ratio, r.runs]), [['mesh-3', 1100, 2, 1], ['mesh-4', 1100, 3000 / 1100, 1]]);
  assert.equal(meanPeerUplinkKbps({ summary: { peerTotals: { p0: { uplinkKbps: 100 }, p1: { uplinkKbps: 300 } } } }), 200);
  assert.equal(meanPeerUplinkKbps({ summary: null }), null);
});
