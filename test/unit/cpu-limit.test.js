import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  CPU_LIMITED_SHARE, HARNESS_THRESHOLDS, HOST_STALL_SLACK_MS, cpuLimitation, cpuLimitedPeers,
  emulatorBehind, emulatorBehindWarning, harnessCpuLimitation, harnessCpuReason,
} from '../../orchestrator/lib/devices/cpu-limit.js';
import { hostSaturation } from '../../orchestrator/lib/devices/cpu-limit.js';
import { constrainedPeers } from '../../orchestrator/lib/devices/devices.js';

const entry = (t, peer, reason) => ({ t, peer, remote: 'x', video: { qualityLimitationReason: reason } });

test('the share of CPU-limited seconds over the window marks a starved host', () => {
  const timeline = [
    entry(1, 'p0', 'cpu'), // warm-up: not counted
    entry(2, 'p0', 'cpu'), entry(3, 'p0', 'none'), entry(4, 'p0', 'bandwidth'), entry(5, 'p0', 'cpu'),
    entry(2, 'p1', 'none'), entry(3, 'p1', 'none'), entry(4, 'p1', null), { t: 5, peer: 'p1', video: null },
  ];
  const result = cpuLimitation(timeline, [1, 5]);
  assert.deepEqual(result.byPeer, { p0: 0.5, p1: 0 });
  assert.equal(result.share, 2 / 6);
  assert.equal(result.limited, true);
  assert.deepEqual(result.seconds, [2, 5]);
  assert.deepEqual(result.peers, {
    p0: { limitedS: 2, episodes: [{ fromS: 1, toS: 2 }, { fromS: 4, toS: 5 }] }, p1: { limitedS: 0, episodes: [] },
  });
});

test('per peer: consecutive CPU-limited seconds form one span, counted once however many connections said so', () => {
  const timeline = [3, 4, 5, 9].flatMap((t) => [entry(t, 'p1', 'cpu'), { ...entry(t, 'p1', 'cpu'), remote: 'y' }])
    .concat([entry(6, 'p1', 'none'), entry(7, 'p1', 'bandwidth')]);
  assert.deepEqual(cpuLimitation(timeline, [0, 10]).peers.p1, { limitedS: 4, episodes: [{ fromS: 2, toS: 5 }, { fromS: 8, toS: 9 }] });
});

test('at or under the threshold, or without sending encoders, nothing is flagged', () => {
  const timeline = Array.from({ length: 10 }, (_, i) => entry(i + 1, 'p0', i < 10 * CPU_LIMITED_SHARE ? 'cpu' : 'none'));
  assert.equal(cpuLimitation(timeline, [0, 10]).limited, false);
  assert.deepEqual(cpuLimitation([], [0, 10]), {
    share: null, byPeer: {}, limited: false, thresholdShare: CPU_LIMITED_SHARE, seconds: [], peers: {},
  });
});

test('a host whose call processes keep nearly every core busy is saturated, whatever the encoders say', () => {
  const rows = (perSecond) => perSecond.flatMap((pct, i) => [{ t: i + 1, cpuPct: pct / 2 }, { t: i + 1.002, cpuPct: pct / 2 }]);
  const busy = hostSaturation(rows([190, 185, 120, 195, 60]), 2);
  assert.deepEqual(busy, { share: 3 / 5, saturated: true, thresholdPct: 180, cores: 2 });
  assert.equal(hostSaturation(rows([179, 100]), 2).saturated, false);
  assert.deepEqual(hostSaturation(rows([400]), undefined), { share: null, saturated: false, thresholdPct: null, cores: null });
});

test('an emulator that fell behind in some seconds of the call: how many, as spans, and the latest datagram', () => {
  const row = (t, behind, lateMaxMs = behind ? 4.2 : 0.3) => ({
    t, packetsIn: 900, packetsOut: 900, busyPct: 40, lateP99Ms: behind ? 2.1 : 0.2, lateMaxMs, behind,
  });
  // Relay seconds fall between the media clock's: each rounds to the nearest; set-up (t ≤ 0) and after the end do not count.
  const rows = [
    row(-1.6, true), row(0.4, false), row(1.4, true), row(2.4, true), row(3.4, false, null), row(4.4, false),
    row(5.4, true, 9.7), row(6.4, true),
  ];
  assert.deepEqual(emulatorBehind(rows, [0, 6]), {
    behind: true, seconds: 3, measuredSeconds: 6, spans: [{ fromS: 0, toS: 2 }, { fromS: 4, toS: 5 }], lateMaxMs: 9.7,
    hostStallSeconds: null,
  });
  const warning = emulatorBehindWarning(emulatorBehind(rows, [0, 6]), 'relay');
  assert.match(warning, /^the relay emulator fell behind its schedule in 3 of 6 s of the call \(0–2 s, 4–5 s; datagrams late at p99 beyond its limit \(relay: 1 ms native, 2 ms dgram\), the latest 9\.7 ms\)/);
  assert.match(warning, /network\.emulatorLoad/);
});

test('an emulator that kept up, or one that does not measure itself, is not flagged', () => {
  const kept = emulatorBehind([{ t: 1, behind: false, lateMaxMs: 0.4 }, { t: 2, behind: false, lateMaxMs: null }], [0, 2]);
  assert.deepEqual(kept, { behind: false, seconds: 0, measuredSeconds: 2, spans: [], lateMaxMs: 0.4, hostStallSeconds: null });
  assert.equal(emulatorBehindWarning(kept, 'relay'), null);
  assert.equal(emulatorBehind(null, [0, 2]), null);
  assert.equal(emulatorBehindWarning(null, 'netem'), null);
});

/** One sender second as the page records it. */
const sender = (t, peer, video, extra = {}) => ({
  t, peer, remote: peer === 'p0' ? 'p1' : 'p0', availableOutgoingKbps: 2500, audio: { sendKbps: 30 },
  video: { sendKbps: 600, capturedFps: 30, sentFps: 30, encodeMsPerFrame: 8, qualityLimitationReason: 'none', ...video }, ...extra,
});

test('a sender encoding at 90-313 ms a frame and sending 6 of 30 fps is CPU-limited although its browser says none', () => {
  const timeline = Array.from({ length: 10 }, (_, i) => [
    sender(i + 1, 'p0', {}),
    sender(i + 1, 'p1', { encodeMsPerFrame: 90 + i * 25, sentFps: 6 }),
  ]).flat();
  const { limited, peers } = harnessCpuLimitation(timeline, [0, 10]);
  assert.equal(limited, true);
  assert.deepEqual([peers.p1.limited, peers.p1.limitedS, peers.p1.judgedS, peers.p1.encodeS], [true, 10, 10, 10]);
  assert.deepEqual(peers.p1.episodes, [{ fromS: 0, toS: 10 }]);
  assert.deepEqual([peers.p0.limited, peers.p0.limitedS, peers.p0.share], [false, 0, 0]);
  // The browser's own reason says nothing here: the verdicts are separate.
  assert.equal(cpuLimitation(timeline, [0, 10]).limited, false);
  // Encode time within the frame interval, but frames dropped with the link idle: CPU-limited by frame rate.
  assert.equal(harnessCpuReason(sender(1, 'p1', { encodeMsPerFrame: 30, sentFps: 12 })), 'frameRate');
  assert.equal(harnessCpuReason(sender(1, 'p1', { encodeMsPerFrame: 34 })), 'encode');
});

test('a sender that drops frames because the link or its rate estimate is the limit is not called CPU-limited', () => {
  // The browser says bandwidth.
  assert.equal(harnessCpuReason(sender(1, 'p0', { sentFps: 8, qualityLimitationReason: 'bandwidth' })), null);
  // It says none, but sends at 95 % of its estimate of the available rate (a rate cap it has found).
  assert.equal(harnessCpuReason(sender(1, 'p0', { sentFps: 8, sendKbps: 220 }, { availableOutgoingKbps: 263 })), null);
  // 0.7 × captured is the line: 21 of 30 fps is not below it.
  assert.equal(harnessCpuReason(sender(1, 'p0', { sentFps: 21 })), null);
  assert.equal(HARNESS_THRESHOLDS.sentShareOfCaptured, 0.7);
});

test('seconds without a captured frame rate (a browser without media-source frames) or not sending are not judged', () => {
  const timeline = [
    sender(1, 'p0', { capturedFps: null, encodeMsPerFrame: 200, sentFps: 3 }),
    sender(2, 'p0', { sendKbps: 0, encodeMsPerFrame: null, sentFps: 0 }),
  ];
  assert.equal(harnessCpuReason(timeline[0]), undefined);
  assert.deepEqual(harnessCpuLimitation(timeline, [0, 10]), { limited: false, thresholds: HARNESS_THRESHOLDS, peers: {} });
  // One limited second of ten is under the run's share: the peer is not marked, the second still is.
  const mostlyFine = Array.from({ length: 10 }, (_, i) => sender(i + 1, 'p0', i === 4 ? { encodeMsPerFrame: 120 } : {}));
  const { peers } = harnessCpuLimitation(mostlyFine, [0, 10]);
  assert.deepEqual([peers.p0.limited, peers.p0.seconds], [false, [5]]);
});

test('cpuLimitedPeers names the peers either verdict names; constrainedPeers the ones a scenario slows on purpose', () => {
  const harness = { peers: { p2: { limited: false }, p3: { limited: true } } };
  assert.deepEqual(cpuLimitedPeers({ byPeer: { p0: 0.1, p1: 0.9, p2: CPU_LIMITED_SHARE }, harness }), ['p1', 'p3']);
  assert.deepEqual(cpuLimitedPeers(null), []);
  // p0's device sets only its screen size: not a CPU constraint.
  const devices = /** @type {Parameters<typeof constrainedPeers>[0]} */ ({
    p0: { width: 640 }, p1: { cpuThrottlingRate: 4 }, p2: { cpuQuotaCores: 0.5 }, p3: { cpuCount: 1 }, p4: { cpuThrottlingRate: 1 },
  });
  assert.deepEqual([...constrainedPeers(devices)], ['p1', 'p2', 'p3']);
  assert.deepEqual([...constrainedPeers(undefined)], []);
});

test('a second the relay fell behind in because the host held it off the CPU as long is the host\'s stall, and the warning says so', () => {
  // (t, p99 of the datagrams' lateness, the timer's own lateness while idle, the longest time off the CPU in a busy turn):
  // 1 on time; 2 and 4 the timer woke 5.9 and 3.1 ms late (the datagrams within HOST_STALL_SLACK_MS of it); 3 the timer
  // was on time and the relay ran all its turns, so the lateness was its own work; 5 no timer fired and nothing says;
  // 6 busy when its datagrams were due and off the CPU 5.4 ms of a turn, its timer on time.
  const row = (t, lateP99Ms, timerWakeMaxMs, offCpuMaxMs = null) => ({
    t, behind: lateP99Ms > 1, lateP99Ms, lateMaxMs: lateP99Ms, timerWakeMaxMs, offCpuMaxMs,
  });
  const rows = [row(1, 0.3, 0.1), row(2, 6, 5.9), row(3, 4, 0.2, 0.3), row(4, 3.5, 3.1), row(5, 2, null), row(6, 5.7, 0.4, 5.4)];
  const behind = emulatorBehind(rows, [0, 6]);
  assert.equal(behind?.seconds, 5);
  assert.equal(behind?.hostStallSeconds, 3);
  assert.equal(HOST_STALL_SLACK_MS, 0.5);
  assert.match(String(emulatorBehindWarning(behind, 'relay')), /the latest 6 ms; in 3 of those seconds the host held it off the CPU as long \(other processes on its cores.*cyclictest/);
  const noStall = emulatorBehind([row(1, 4, 0.2, 3.4)], [0, 1]);
  assert.equal(noStall?.hostStallSeconds, 0);
  assert.doesNotMatch(String(emulatorBehindWarning(noStall, 'relay')), /held it off the CPU/);
  // Rows from before either measure (the dgram path, older results) say nothing of stalls.
  assert.equal(emulatorBehind([{ t: 1, behind: true, lateP99Ms: 4, lateMaxMs: 4 }], [0, 1])?.hostStallSeconds, null);
});
