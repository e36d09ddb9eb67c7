// The evidence a reproduction record keeps of the host's hand in its figures (host-evidence.js) and the graded verdict
// computed from it (host-bound.js): 0 where measured and none, null where not measured; a figure host-limited only
// when its bound exceeds its spread.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cpuEvidence, hostEvidenceOf, relayEvidence } from '../../orchestrator/lib/scenario/reproductions/host-evidence.js';
import { cpuShareOf, delayBoundMs, gradeFigure, gradePhrase, latenessOf } from '../../orchestrator/lib/scenario/reproductions/host-bound.js';

/** A native relay's load row for second t. @param {number} t @param {number} lateMaxMs @param {object} [extra] */
const loadRow = (t, lateMaxMs, extra = {}) => ({ t, behind: lateMaxMs > 1, lateP99Ms: lateMaxMs, lateMaxMs, packetPath: 'native', ...extra });

/** A 2-peer result: 10 s warm-up, 40 s call; its relay late in seconds 5 (warm-up), 9 (in the report lag), 20, 21 and 30. */
function syntheticResult() {
  const emulatorLoad = Array.from({ length: 40 }, (_, i) => loadRow(i + 1, 0.4, { timerWakeMaxMs: 0.1, offCpuMaxMs: 0.2 }));
  emulatorLoad[4] = loadRow(5, 50);
  emulatorLoad[8] = loadRow(9, 3);
  emulatorLoad[19] = loadRow(20, 7, { timerWakeMaxMs: 6.8, offCpuMaxMs: 0 });
  emulatorLoad[20] = loadRow(21, 1.5);
  emulatorLoad[29] = loadRow(30, 12);
  // p0 is throttled by the scenario; p1's encoder says cpu in seconds 11-19 of its 30 in the window, and the harness adds 40.
  const timeline = Array.from({ length: 40 }, (_, i) => i + 1).flatMap((t) => [
    { t, peer: 'p0', video: { qualityLimitationReason: 'cpu' } },
    { t, peer: 'p1', video: { qualityLimitationReason: t > 10 && t < 20 ? 'cpu' : 'none' } },
  ]);
  return {
    scenario: { warmupS: 10, durationS: 40, devices: { p0: { cpuThrottlingRate: 4 } } },
    network: { emulatorLoad }, timeline,
    summary: { cpuLimitation: { harness: { peers: { p1: { judgedS: 30, seconds: [15, 40] } } } } },
    resources: { hostSaturation: { share: 0.1 } },
  };
}

test('a run\'s evidence: late seconds in the window and its report lag, with their lateness, stalls and CPU seconds per peer', () => {
  const evidence = hostEvidenceOf(syntheticResult());
  assert.deepEqual(evidence?.relay, {
    windowS: [10, 40], measuredS: 32, lateS: 4, lateMaxMs: 12,
    lateByMs: [{ upToMs: 2, seconds: 1 }, { upToMs: 4, seconds: 1 }, { upToMs: 8, seconds: 1 }, { upToMs: 16, seconds: 1 }],
    behindS: 4, hostStallS: 1,
  }, 'second 5 lies before the lag, 9 within it; second 20 is the host\'s stall');
  assert.deepEqual(evidence?.cpu, {
    peers: { p0: { limitedS: 30, measuredS: 30, byDesign: true }, p1: { limitedS: 10, measuredS: 30, byDesign: false } },
    saturatedShare: 0.1,
  });
});

test('0 where measured and none found, null where not measured', () => {
  const quiet = { scenario: { warmupS: 0, durationS: 3 }, network: { emulatorLoad: [1, 2, 3].map((t) => loadRow(t, 0.3)) },
    timeline: [{ t: 1, peer: 'p0', video: { qualityLimitationReason: 'none' } }] };
  assert.deepEqual(relayEvidence(quiet, [0, 3]),
    { windowS: [0, 3], measuredS: 3, lateS: 0, lateMaxMs: 0, lateByMs: [], behindS: 0, hostStallS: null },
    'a relay without stall fields measured lateness, not stalls');
  assert.deepEqual(cpuEvidence(quiet, [0, 3]), { peers: { p0: { limitedS: 0, measuredS: 1, byDesign: false } }, saturatedShare: null });
  assert.deepEqual(hostEvidenceOf({ scenario: { warmupS: 0, durationS: 3 }, network: { emulator: 'netem' } }), { relay: null, cpu: null },
    'a kernel emulator and no encoder verdicts: not measured');
  assert.equal(hostEvidenceOf({ scenario: { durationS: 3 } }), null, 'no measurement window');
  assert.equal(hostEvidenceOf('not a result'), null);
});

/** A passed run with evidence: lateS seconds late by lateMs each over 300 s, p1 CPU-limited in limitedS of 300. */
function run(repetition, { lateS = 0, lateMs = 0, limitedS = 0 } = {}) {
  const upToMs = lateS ? 2 ** Math.ceil(Math.log2(lateMs)) : 0;
  return {
    repetition,
    hostEvidence: {
      relay: { windowS: /** @type {[number, number]} */ ([0, 300]), measuredS: 302, lateS, lateMaxMs: lateMs,
        lateByMs: lateS ? [{ upToMs, seconds: lateS }] : [], behindS: lateS, hostStallS: null },
      cpu: {
        peers: { p0: { limitedS: 300, measuredS: 300, byDesign: true }, p1: { limitedS, measuredS: 300, byDesign: false } },
        saturatedShare: null,
      },
    },
  };
}

test('RTT with 3 of 300 s late by ≤ 8 ms moves by at most 2 × 3 × 24 / 300 ms: within a 0.4 ms spread, not host-limited', () => {
  const late = /** @type {NonNullable<ReturnType<typeof latenessOf>>} */ (latenessOf(run(1, { lateS: 3, lateMs: 8 })));
  assert.equal(delayBoundMs('rttMs', late), 0.48);
  assert.equal(delayBoundMs('bottleneck.queueDelayMs', late), 0.24);
  assert.equal(delayBoundMs('lossPct', late), null, 'loss is no delay');
  const grade = gradeFigure('rttMs', { median: 4, q1: 3.8, q3: 4.4, n: 3 }, [run(1), run(2, { lateS: 3, lateMs: 8 }), run(3)]);
  assert.equal(grade?.bound, 0.48);
  assert.ok(Math.abs(/** @type {number} */ (grade?.spread) - 0.6) < 1e-9);
  assert.equal(grade?.hostLimited, false);
  assert.equal(gradePhrase(/** @type {any} */ (grade)), 'run 2: 3 of 302 s late by ≤ 8.0 ms, effect ≤ 0.5 ms ≤ spread 0.6 ms');
});

test('RTT with 30 of 300 s late by ≤ 100 ms exceeds its spread: host-limited; the bound never exceeds 2 × the latest datagram', () => {
  const grade = gradeFigure('rttMs', { median: 206, q1: 205, q3: 207, n: 3 }, [run(1), run(2, { lateS: 30, lateMs: 100 }), run(3)]);
  assert.equal(grade?.bound, 2 * 3 * 30 * 100 / 300);
  assert.equal(grade?.spread, 0.05 * 206, 'an IQR narrower than 5 % of the median gives way to it');
  assert.equal(grade?.hostLimited, true);
  assert.match(gradePhrase(/** @type {any} */ (grade)), /^run 2: 30 of 302 s late by ≤ 100 ms, effect ≤ 60 ms > spread 10 ms: \*\*host-limited\*\*$/);
  const late = /** @type {NonNullable<ReturnType<typeof latenessOf>>} */ (latenessOf(run(1, { lateS: 290, lateMs: 100 })));
  assert.equal(delayBoundMs('rttMs', late), 200);
});

test('video figures: the CPU-limited share of a peer the scenario does not constrain, against the relative spread', () => {
  assert.deepEqual(cpuShareOf(run(1, { limitedS: 273 })), { share: 0.91, who: 'p1 CPU-limited' }, 'p0, throttled on purpose, does not count');
  const limited = gradeFigure('video.recvFps', { median: 20, q1: 19, q3: 21, n: 3 }, [run(1, { limitedS: 273 }), run(2), run(3)]);
  assert.equal(limited?.hostLimited, true);
  assert.equal(gradePhrase(/** @type {any} */ (limited)), 'run 1: p1 CPU-limited in 91 % of seconds, share 91 % > spread 10 %: **host-limited**');
  const few = gradeFigure('video.recvKbps', { median: 2000, q1: 1990, q3: 2010, n: 3 }, [run(1, { limitedS: 9 })]);
  assert.deepEqual([few?.bound, few?.hostLimited], [0.03, false], '3 % of seconds is within a 5 % spread');
  assert.equal(gradeFigure('lossPct', { median: 1, q1: 1, q3: 1, n: 1 }, [run(1, { limitedS: 300 })]), null, 'loss is not graded');
});

test('older records: not measured without evidence, ≈ from the relay\'s fell-behind seconds where recorded', () => {
  const behindSeconds = { seconds: 3, measuredSeconds: 300, lateMaxMs: 10, hostStallSeconds: null };
  const old = { repetition: 1, hostLimited: true, behindSeconds };
  const cpu = gradeFigure('video.recvKbps', { median: 1, q1: 1, q3: 1, n: 1 }, [old]);
  assert.deepEqual([cpu?.bound, cpu?.hostLimited, gradePhrase(/** @type {any} */ (cpu))], [null, false, 'CPU-limited seconds not measured']);
  const rtt = gradeFigure('rttMs', { median: 100, q1: 100, q3: 100, n: 1 }, [old]);
  assert.deepEqual([rtt?.bound, rtt?.approximate, rtt?.hostLimited], [0.6, true, false]);
  const quiet = gradeFigure('rttMs', { median: 4, q1: 4, q3: 4, n: 1 }, [{ repetition: 1, emulator: 'relay (native)', emulatorBehind: false }]);
  assert.equal(gradePhrase(/** @type {any} */ (quiet)), 'no second fell behind (older record)');
  const unknown = gradeFigure('rttMs', { median: 4, q1: 4, q3: 4, n: 1 }, [{ repetition: 1, emulator: 'relay', emulatorBehind: false }]);
  assert.equal(unknown?.bound, null, 'a relay without its packet path may not have measured itself');
});
