import { test } from 'node:test';
import assert from 'node:assert/strict';
import { configuredRtt, rampWindows, rttTracking } from '../helpers/rtt-tracking.js';

// A round trip that ramps 0 → 600 ms over 10–25 s, holds until 40 s, falls back to 0 by 55 s, holds to 60 s.
const rttAt = (t) => (t <= 10 ? 0 : t <= 25 ? 40 * (t - 10) : t <= 40 ? 600 : t <= 55 ? 600 - 40 * (t - 40) : 0);
// network.configured samples it once a second, as result.json does.
const configured = Array.from({ length: 61 }, (_, t) => ({ t, rttMs: rttAt(t) }));
const windows = [
  { fromS: 10, toS: 25, label: 'up' }, { fromS: 25, toS: 40, label: 'hold' }, { fromS: 40, toS: 55, label: 'down' },
];
/** One sample a second, as a peer's timeline has them. */
const measure = (rttMs) => Array.from({ length: 60 }, (_, i) => ({ t: i + 1, intervalS: 1, rttMs: rttMs(i + 1) }));
const check = (measured, options = {}) => rttTracking({ measured, configured, windows, fromS: 5, ...options });
const verdicts = (result) => Object.fromEntries(result.windows.map((w) => [w.label, w.verdict]));

test('an RTT that follows the configured one a second and a half late, plus a few ms of its own, passes', () => {
  const result = check(measure((t) => rttAt(t - 1.5) + 3));
  assert.ok(result.ok, result.summary);
  assert.deepEqual(verdicts(result), { up: 'pass', hold: 'pass', down: 'pass' });
  assert.deepEqual(result.windows.map((w) => w.samples), [15, 15, 15]);
});

test('lagged but correct: 3 s behind passes with the default lag allowance, and fails without one', () => {
  const lagged = measure((t) => rttAt(t - 3));
  assert.ok(check(lagged).ok, check(lagged).summary);
  const strict = check(lagged, { lagS: 0 });
  assert.equal(strict.ok, false);
  assert.deepEqual(verdicts(strict), { up: 'fail', hold: 'pass', down: 'fail' });
});

test('the ramp not applied: a flat RTT fails on the ramps, at the base RTT or at the hold value', () => {
  const atBase = check(measure(() => 4));
  assert.equal(atBase.ok, false);
  assert.deepEqual(verdicts(atBase), { up: 'fail', hold: 'fail', down: 'fail' });
  const atHold = check(measure(() => 600));
  assert.equal(atHold.ok, false);
  assert.deepEqual(verdicts(atHold), { up: 'fail', hold: 'pass', down: 'fail' });
  assert.match(atHold.summary, /up \(10–25 s\): fail, \d+\/15 within \[t=11: 600 ms vs 0–40 ms/);
});

test('a ramp applied far too late, or early, fails on the ramps', () => {
  for (const shiftS of [-7, 3]) {
    const result = check(measure((t) => rttAt(t + shiftS)));
    assert.equal(result.ok, false, `shifted ${shiftS} s`);
    assert.deepEqual([verdicts(result).up, verdicts(result).down], ['fail', 'fail'], `shifted ${shiftS} s`);
  }
});

test('a single outlier per window is tolerated; missing RTTs count as misses', () => {
  const outliers = new Set([12, 30, 45]);
  assert.ok(check(measure((t) => (outliers.has(t) ? 2000 : rttAt(t - 1)))).ok);
  const gaps = check(measure((t) => (t % 2 ? null : rttAt(t - 1))));
  assert.equal(gaps.ok, false);
  assert.match(gaps.summary, /t=11: no RTT ms/);
});

test('windows too short to judge are skipped, and a check with nothing judged fails', () => {
  const measured = measure((t) => rttAt(t - 1));
  const result = check(measured, { windows: [...windows, { fromS: 0, toS: 7, label: 'warm-up' }] });
  assert.equal(result.windows.at(-1).verdict, 'skipped');
  assert.ok(result.ok);
  const nothing = check(measured, { windows: [{ fromS: 0, toS: 7, label: 'warm-up' }] });
  assert.equal(nothing.ok, false);
  assert.match(nothing.summary, /no window had 4 samples after 5 s/);
});

test('configuredRtt sums both routes\' one-way delays, link values in force at each sampled second', () => {
  const row = (t, link, oneWayDelayMs) => ({
    t, link, rateKbps: null, queuePackets: 50, queueMs: null, oneWayDelayMs, jitterMs: 0, lossPct: 0, lossBurst: null,
  });
  const network = {
    routes: { 'p0->p1': ['p0.up', 'bottleneck', 'p1.down'], 'p1->p0': ['p1.up', 'bottleneck', 'p0.down'] },
    configured: [
      ...['p0.up', 'p0.down', 'p1.up', 'p1.down'].map((link) => row(0, link, 5)), row(0, 'bottleneck', 10),
      ...['p0.up', 'p0.down', 'p1.down'].map((link) => row(1, link, 5)), row(1, 'p1.up', 45), row(1, 'bottleneck', 10),
    ],
  };
  assert.deepEqual(configuredRtt(network, 'p0', 'p1'), [{ t: 0, rttMs: 40 }, { t: 1, rttMs: 80 }]);
  assert.throws(() => configuredRtt(network, 'p0', 'p2'), /no route between p0 and p2/);
});

test('rampWindows: each ramp on the field, in run seconds', () => {
  const scenario = {
    timeScale: 0.25,
    network: {
      schedule: [
        { at: 0, ramp: { field: 'oneWayDelayMs', durationS: 60 } },
        { at: 60, set: {} },
        { at: 120, ramp: { field: 'rateKbps', durationS: 20 } },
        { at: 180, ramp: { field: 'oneWayDelayMs', durationS: 60 } },
      ],
    },
  };
  assert.deepEqual(rampWindows(scenario, 'oneWayDelayMs'), [
    { fromS: 0, toS: 15, label: 'schedule[0] ramp', scheduleIndex: 0 }, { fromS: 45, toS: 60, label: 'schedule[3] ramp', scheduleIndex: 3 },
  ]);
  assert.deepEqual(rampWindows({ timeScale: 1, network: {} }, 'oneWayDelayMs'), []);
});
