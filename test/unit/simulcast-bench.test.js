// bench/simulcast-figures.js: the arithmetic of bench/simulcast.js on hand-made results: processes split into
// browsers and the rest, what was sent per layer (simulcast and one encoding), the ratio to one encoding at the same
// video, a room's verdict (each way it is limited) and the largest room carried.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { largestCarried, processCpu, ratiosToOneEncoding, roomVerdict, sentLayers } from '../../bench/simulcast-figures.js';

test('processCpu: browsers by name, the SFU and relay apart, a process without a mean is null', () => {
  const summary = {
    p0: { cpuPct: { mean: 40 } }, p1: { cpuPct: { mean: 42.5 } }, janus: { cpuPct: { mean: 8 } }, relay: { cpuPct: { mean: null } },
  };
  const cpu = processCpu(summary);
  assert.deepEqual(cpu, { browsers: { p0: 40, p1: 42.5 }, others: { janus: 8, relay: null } });
});

test('sentLayers: simulcast rows per rid over the window, highest first; one encoding from the SFU connections', () => {
  const row = (t, rid, heightPx, kbps) => ({ t, peer: 'p0', rid, widthPx: heightPx * (16 / 9), heightPx, fps: 30, kbps });
  const sent = [row(1, 'h', 180, 10), row(2, 'h', 180, 150), row(3, 'h', 180, 160), row(4, 'h', 180, 170), row(2, 'f', 360, 700), row(3, 'f', 360, 720), row(4, 'f', 360, 9999)];
  assert.deepEqual(sentLayers({ layers: { sent }, timeline: [] }, [1, 3]), [
    { rid: 'f', widthPx: 640, heightPx: 360, fps: 30, kbps: 710 }, { rid: 'h', widthPx: 320, heightPx: 180, fps: 30, kbps: 155 },
  ]);
  const entry = (t, remote, sendKbps) => ({ t, peer: 'p0', remote, video: { sendKbps, sentWidth: 960, sentHeight: 540, sentFps: 30 } });
  const timeline = [entry(1, 'sfu', 100), entry(2, 'sfu', 1900), entry(3, 'sfu', 2100), entry(3, 'p1', 5)];
  assert.deepEqual(sentLayers({ layers: null, timeline }, [1, 3]), [{ rid: null, widthPx: 960, heightPx: 540, fps: 30, kbps: 2000 }]);
  assert.deepEqual(sentLayers({ layers: null, timeline: [entry(5, 'sfu', 100)] }, [1, 3]), []);
});

test('ratiosToOneEncoding: each call over one encoding at its own video; none without that baseline', () => {
  const calls = [
    { video: '720p30', encodings: 1, browserCpuPct: 40 }, { video: '720p30', encodings: 3, browserCpuPct: 70 },
    { video: '360p30', encodings: 2, browserCpuPct: 30 },
  ];
  assert.deepEqual(ratiosToOneEncoding(calls).map((call) => call.ratio), [1, 1.75, null]);
});

/** A 3-party result at 30 fps received, every verdict clean; `change` edits it. */
function room(change = (result) => result) {
  const timeline = [1, 2, 3, 4, 5].flatMap((t) => [
    { t, peer: 'p0', remote: 'sfu', video: { recvFps: null } },
    { t, peer: 'p0', remote: 'p1', video: { recvFps: t === 1 ? 2 : 30 } },
  ]);
  return change({
    status: 'passed', timeline, environment: { media: { fps: 30 } },
    summary: { cpuLimitation: { byPeer: { p0: 0, p1: 0.1 }, harness: { peers: { p0: { limited: false } } } } },
    resources: { hostSaturation: { saturated: false, share: 0.05 } },
  });
}

test('roomVerdict: carried when clean; limited by a failed run, a CPU-limited peer (either verdict), a saturated host or a low frame rate', () => {
  assert.deepEqual(roomVerdict(room(), 1), { carried: true, outcome: 'carried', reasons: [], recvFps: 30, capturedFps: null, limitedPeers: [] });
  // livekit-client captures at 20 fps: 18 received of 20 captured is carried, 18 of the source's 30 would not be.
  const at = (capturedFps) => (r) => ({ ...r, timeline: r.timeline.map((e) => ({ ...e, video: e.remote === 'sfu' ? { capturedFps } : { recvFps: 18 } })) });
  const at20 = at(20);
  assert.deepEqual(roomVerdict(room(at20), 1), { carried: true, outcome: 'carried', reasons: [], recvFps: 18, capturedFps: 20, limitedPeers: [] });
  assert.deepEqual(roomVerdict(room(at(27.97)), 1).reasons, ['received 18.0 fps of 28 captured']);
  // A failed run without a CPU verdict or a saturated host was not measured: failed, not limited.
  assert.deepEqual(roomVerdict(room((r) => ({ ...r, status: 'failed' })), 1).reasons, ['run failed']);
  assert.equal(roomVerdict(room((r) => ({ ...r, status: 'failed' })), 1).outcome, 'failed');
  const failedSaturated = room((r) => ({ ...r, status: 'failed', resources: { hostSaturation: { saturated: true, share: 0.5 } } }));
  assert.equal(roomVerdict(failedSaturated, 1).outcome, 'limited');
  const browserCpu = room((r) => ({ ...r, summary: { cpuLimitation: { byPeer: { p1: 0.5 } } } }));
  assert.deepEqual(roomVerdict(browserCpu, 1).reasons, ['CPU-limited: p1']);
  assert.equal(roomVerdict(browserCpu, 1).outcome, 'limited');
  const harnessCpu = room((r) => ({ ...r, summary: { cpuLimitation: { byPeer: {}, harness: { peers: { p2: { limited: true } } } } } }));
  assert.deepEqual(roomVerdict(harnessCpu, 1).limitedPeers, ['p2']);
  const saturated = room((r) => ({ ...r, resources: { hostSaturation: { saturated: true, share: 0.56 } } }));
  assert.deepEqual(roomVerdict(saturated, 1).reasons, ['host saturated in 56 % of seconds']);
  const slow = room((r) => ({ ...r, timeline: r.timeline.map((e) => (e.remote === 'p1' ? { ...e, video: { recvFps: 15.255 } } : e)) }));
  assert.deepEqual(roomVerdict(slow, 1).reasons, ['received 15.3 fps of 30 captured']);
  assert.equal(roomVerdict(slow, 1).outcome, 'limited');
  assert.deepEqual(roomVerdict(room((r) => ({ ...r, timeline: [] })), 1).reasons, ['received no fps of 30 captured']);
});

test('largestCarried: the last room carried from the smallest up, not one after a limited room', () => {
  assert.equal(largestCarried([{ peers: 2, carried: true }, { peers: 3, carried: true }, { peers: 4, carried: false }]), 3);
  assert.equal(largestCarried([{ peers: 3, carried: false }, { peers: 2, carried: true }, { peers: 4, carried: true }]), 2);
  assert.equal(largestCarried([{ peers: 2, carried: false }]), null);
  assert.equal(largestCarried([]), null);
});
