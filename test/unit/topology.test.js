import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FLOWING_KBPS, peerSeconds, peerTotals } from '../../orchestrator/lib/topology.js';

/** One timeline entry of `peer` about `remote`. */
const entry = (t, peer, remote, { sent = 0, received = 0, fps = 30, audio = 30 } = {}) => ({
  t, peer, remote, video: { sendKbps: sent, recvKbps: received, recvFps: received ? fps : 0 }, audio: { sendKbps: audio, recvKbps: audio },
});

test('a mesh peer sums its connections: two streams out, two in', () => {
  const timeline = [
    entry(1, 'p0', 'p1', { sent: 800, received: 700 }), entry(1, 'p0', 'p2', { sent: 600, received: 150 }),
    entry(1.002, 'p1', 'p0', { sent: 700, received: 800 }),
  ];
  const rows = peerSeconds(timeline);
  assert.deepEqual(rows.map((r) => [r.t, r.peer]), [[1, 'p0'], [1, 'p1']]);
  assert.deepEqual(rows[0], { t: 1, peer: 'p0', uplinkKbps: 800 + 600 + 60, downlinkKbps: 700 + 150 + 60, videoStreamsSent: 2, videoStreamsReceived: 2 });
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
