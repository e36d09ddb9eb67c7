// followsDownlinkTrace (lib/result/layer-checks.js): a subscriber behind a capacity trace receives higher layers while the
// trace is high than while it is low; and result.json's layers section gives it to a subscriber whose downlink is on a trace.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MIN_TRACE_CAPACITY_RATIO, MIN_TRACE_PART_S, TRACE_LAG_S, checkFollowsTrace } from '../../orchestrator/lib/result/layer-checks.js';
import { downlinkTraceCapacity, layersSection } from '../../orchestrator/lib/result/layers.js';
import { normalizePublish } from '../../orchestrator/lib/media/publish.js';
import { compileNetwork } from '../../orchestrator/lib/network/schedule.js';

/** p2's rows from p0 and p1, each feed on `layerAt(t)` (null: frozen). @param {number} n @param {(t: number) => number|null} layerAt */
const receivedRows = (n, layerAt) => Array.from({ length: n }, (_, i) => ['p0', 'p1'].map((feed) => ({
  t: i + 1, peer: 'p2', feed, layer: layerAt(i + 1), widthPx: null, heightPx: null, fps: 30, kbps: 100,
}))).flat();
/** A sawtooth of 20 s: 150 rising to 2500 kbps, then back. @param {number} t */
const sawtoothKbps = (t) => 150 + ((2500 - 150) * (t % 20)) / 19;
/** The trace's capacity per second 0 … n. @param {number} n @param {(t: number) => number} kbpsAt */
const capacity = (n, kbpsAt) => Array.from({ length: n + 1 }, (_, t) => ({ t, rateKbps: kbpsAt(t) }));
/** Top layer (1) while the capacity of the last 3 s carried both feeds' top layers, else the lowest. @param {number} t */
const follower = (t) => (sawtoothKbps(t - 2) > 1300 && sawtoothKbps(t - 3) > 1300 ? 1 : 0);

test('followsDownlinkTrace passes a subscriber whose layers rise and fall with the trace, with each half\'s capacity and level', () => {
  const check = checkFollowsTrace('p2', receivedRows(60, follower), capacity(60, sawtoothKbps));
  assert.equal(check.passed, true, check.detail);
  assert.equal(check.check, 'followsDownlinkTrace');
  assert.equal(check.lagS, TRACE_LAG_S);
  assert.ok(check.high.meanLevel > 1.5 && check.low.meanLevel < 0.5, check.detail);
  assert.equal(check.high.seconds, check.low.seconds, 'a third each');
  assert.ok(check.high.meanCapacityKbps > 1800 && check.low.meanCapacityKbps < 900, check.detail);
  assert.match(check.detail, /^trace high \d+ s \(\d+ kbps on average\): mean level [\d.]+; low \d+ s \(\d+ kbps on average\): mean level [\d.]+; higher layers while the trace was high \(gap [\d.]+, at least 0\.5\)$/);
});

test('followsDownlinkTrace fails a subscriber that stays on one layer, one that moves against the trace, and a trace with nothing to follow', () => {
  const stays = checkFollowsTrace('p2', receivedRows(60, () => 1), capacity(60, sawtoothKbps));
  assert.equal(stays.passed, false);
  assert.match(stays.detail, /; not higher layers while the trace was high \(gap 0, at least 0\.5\)$/);
  const against = checkFollowsTrace('p2', receivedRows(60, (t) => 1 - follower(t)), capacity(60, sawtoothKbps));
  assert.equal(against.passed, false);
  assert.ok(against.levelGap < 0, against.detail);
  const flat = checkFollowsTrace('p2', receivedRows(60, follower), capacity(60, () => 1000));
  assert.equal(flat.passed, false);
  assert.match(flat.detail, new RegExp(`; the trace did not vary in the window \\(under ${MIN_TRACE_PART_S} s a third, or high under ${MIN_TRACE_CAPACITY_RATIO}× low\\)`));
  // A trace that varies too little: 1000 and 1400 kbps alternating, a subscriber moving with it.
  const slight = checkFollowsTrace('p2', receivedRows(60, (t) => (Math.floor((t - 3) / 10) % 2)), capacity(60, (t) => (Math.floor(t / 10) % 2 ? 1400 : 1000)));
  assert.equal(slight.passed, false, slight.detail);
  // Frozen feeds are no layer: a subscriber that received nothing has nothing to compare.
  const frozen = checkFollowsTrace('p2', receivedRows(60, () => null), capacity(60, sawtoothKbps));
  assert.equal(frozen.passed, false);
  assert.match(frozen.detail, /^trace high 0 s; low 0 s; the trace did not vary/);
});

test('layers: a subscriber whose downlink is on a trace gets followsDownlinkTrace, read from the trace\'s capacity per second', () => {
  const network = { peers: { p2: { downlink: { trace: 'synthetic:sawtooth-150-2500-20' } } } };
  const compiled = compileNetwork({ peers: 3, topology: 'sfu', durationS: 60, network });
  const trace = downlinkTraceCapacity('p2', compiled, 60);
  assert.ok(trace);
  assert.equal(trace.length, 61);
  const kbpsAt = (/** @type {number} */ t) => /** @type {number} */ (trace[t].rateKbps);
  const near = (/** @type {number} */ t, /** @type {number} */ kbps) => Math.abs(kbpsAt(t) - kbps) < 20;
  assert.ok(near(0, 150) && near(19, 2500) && near(20, 150), JSON.stringify(trace.slice(0, 21)));
  assert.equal(downlinkTraceCapacity('p0', compiled, 60), null, 'an open downlink has no trace');
  const publish = { p0: normalizePublish({ simulcast: 2 }, 'w'), p1: normalizePublish({ simulcast: 2 }, 'w') };
  const media = { p0: { width: 640, height: 360 }, p1: { width: 640, height: 360 }, p2: { width: 640, height: 360 } };
  const heightAt = (/** @type {number} */ t) => (follower(t) ? 360 : 180);
  const timeline = Array.from({ length: 60 }, (_, i) => i + 1).flatMap((t) => [
    { t, peer: 'p0', remote: 'p1', video: { recvHeight: 360, recvFps: 30 } }, { t, peer: 'p1', remote: 'p0', video: { recvHeight: 360, recvFps: 30 } },
    { t, peer: 'p2', remote: 'p0', video: { recvHeight: heightAt(t), recvFps: 30 } }, { t, peer: 'p2', remote: 'p1', video: { recvHeight: heightAt(t), recvFps: 30 } },
  ]);
  const section = layersSection({ publish, media, timeline, events: [], compiled, peers: ['p0', 'p1', 'p2'], warmupS: 6, durationS: 60 });
  const checks = section?.checks.filter((c) => !c.check.startsWith('layersSent') && c.check !== 'lowerLayersBelowHigher');
  assert.deepEqual(checks?.map((c) => `${c.check} ${c.peer} ${c.passed}`), ['openLinkOnTop p0 true', 'openLinkOnTop p1 true', 'followsDownlinkTrace p2 true']);
  // The same subscriber on its top layer throughout: the trace check catches it.
  const still = timeline.map((entry) => (entry.peer === 'p2' ? { ...entry, video: { recvHeight: 360, recvFps: 30 } } : entry));
  const stillSection = layersSection({ publish, media, timeline: still, events: [], compiled, peers: ['p0', 'p1', 'p2'], warmupS: 6, durationS: 60 });
  assert.equal(stillSection?.checks.find((c) => c.peer === 'p2')?.passed, false);
});
