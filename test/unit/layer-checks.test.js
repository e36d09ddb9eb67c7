// The simulcast/SVC checks of result.json's `layers` (lib/result/layer-checks.js, lib/result/layers.js), each shown
// to pass on a good call and to fail on the call that breaks it: a layer disabled, a lower layer out-bitrating a higher
// one, a capped subscriber that does not move, an open-link subscriber off its top layer.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkFollowsCap, checkLayerOrder, checkLayersSent, checkStaysOnTop } from '../../orchestrator/lib/result/layer-checks.js';
import { downlinkChanges, layerOfHeight, layersSection } from '../../orchestrator/lib/result/layers.js';
import { normalizePublish } from '../../orchestrator/lib/media/publish.js';

const SIZES = [{ layer: 0, rid: 'q', widthPx: 320, heightPx: 180 }, { layer: 1, rid: 'h', widthPx: 640, heightPx: 360 }, { layer: 2, rid: 'f', widthPx: 1280, heightPx: 720 }];
const RATES = [150, 500, 1700];

/** A publisher's rows over seconds 1..n; `change` edits one encoding of one second. @param {number} n */
function sentRows(n, change = (row) => row) {
  return Array.from({ length: n }, (_, i) => SIZES.map((size) => change({
    t: i + 1, peer: 'p0', rid: size.rid, layer: size.layer, widthPx: size.widthPx, heightPx: size.heightPx, fps: 30, kbps: RATES[size.layer], active: true,
  }))).flat();
}

test('layersSent passes when every layer is sent at its resolution, and catches a disabled layer or a wrong size', () => {
  assert.equal(checkLayersSent('p0', SIZES, sentRows(20), 20).passed, true);
  const disabled = checkLayersSent('p0', SIZES, sentRows(20, (row) => (row.rid === 'q' ? { ...row, kbps: 0, active: false, widthPx: null, heightPx: null } : row)), 20);
  assert.equal(disabled.passed, false);
  assert.match(disabled.detail, /layer 0 \(rid q\) at 320×180 in 0 of 20 s \(sent: nothing\)/);
  const scaled = checkLayersSent('p0', SIZES, sentRows(20, (row) => (row.rid === 'f' ? { ...row, widthPx: 960, heightPx: 540 } : row)), 20);
  assert.match(scaled.detail, /layer 2 \(rid f\) at 1280×720 in 0 of 20 s \(sent: 960×540\)/);
});

test('lowerLayersBelowHigher passes on rising medians, counts inverted seconds, and catches a lower layer out-bitrating', () => {
  const good = checkLayerOrder('p0', SIZES, sentRows(20, (row) => (row.t === 3 && row.rid === 'q' ? { ...row, kbps: 2000 } : row)));
  assert.equal(good.passed, true);
  assert.equal(good.invertedSeconds, 1);
  const bad = checkLayerOrder('p0', SIZES, sentRows(20, (row) => (row.rid === 'h' ? { ...row, kbps: 100 } : row)));
  assert.equal(bad.passed, false);
  assert.match(bad.detail, /^a lower layer out-bitrated a higher one: median kbps per layer 0: 150, 1: 100, 2: 1700$/);
});

/** Received rows of p2 from p0 and p1, its layer per second from `layerAt`. @param {number} n @param {(t: number) => number} layerAt */
const receivedRows = (n, layerAt) => Array.from({ length: n }, (_, i) => ['p0', 'p1'].map((feed) => ({
  t: i + 1, peer: 'p2', feed, layer: layerAt(i + 1), widthPx: null, heightPx: null, fps: 30, kbps: 100,
}))).flat();
const CHANGES = [{ atS: 0, rateKbps: 2500 }, { atS: 10, rateKbps: 500 }, { atS: 20, rateKbps: 150 }, { atS: 30, rateKbps: 2500 }];

test('followsDownlinkCap times each move down after a cap and back up after the lift, and fails a subscriber that stays', () => {
  const follows = checkFollowsCap('p2', receivedRows(45, (t) => (t < 12 ? 2 : t < 34 ? 0 : 2)), CHANGES, 45);
  assert.equal(follows.passed, true, follows.detail);
  assert.deepEqual(follows.moves.map((m) => [m.direction, m.afterS]), [['down', 2], ['down', null], ['up', 4]]);
  assert.match(follows.detail, /^down at 10 s \(500 kbps\): after 2 s; down at 20 s \(150 kbps\): no move; up at 30 s \(2500 kbps\): after 4 s$/);
  const stays = checkFollowsCap('p2', receivedRows(45, () => 2), CHANGES, 45);
  assert.equal(stays.passed, false);
  assert.match(stays.detail, /expected a move down after 10 s, down after 20 s, up after 30 s$/);
  const neverBack = checkFollowsCap('p2', receivedRows(45, (t) => (t < 12 ? 2 : t < 34 ? 0 : 1)), CHANGES, 45);
  assert.equal(neverBack.passed, false, 'back up means the layers of before the first cap');
  // Feeds frozen in the seconds before the lift (no layer) are below every layer: the move back to the top counts.
  const frozen = receivedRows(45, (t) => (t < 12 ? 2 : t < 34 ? 0 : 2))
    .map((row) => (row.t >= 27 && row.t <= 30 ? { ...row, layer: null } : row));
  const afterFreeze = checkFollowsCap('p2', frozen, CHANGES, 45);
  assert.equal(afterFreeze.passed, true, afterFreeze.detail);
  assert.deepEqual(afterFreeze.moves.at(-1), { atS: 30, rateKbps: 2500, direction: 'up', fromLevel: null, targetLevel: 4, reachedAtS: 34, afterS: 4 });
});

test('followsDownlinkCap measures a move from the seconds since the previous change: frozen through a cap, any layer after the lift is up', () => {
  // As in a CI run: a probe up just before the 150 kbps cap (level 2 at 19 s), then every feed frozen until after the lift.
  const layerAt = (t) => (t < 12 ? 2 : t === 19 ? 2 : t < 21 ? 0 : t < 31 ? null : t < 35 ? 0 : 2);
  const follows = checkFollowsCap('p2', receivedRows(45, layerAt), CHANGES, 45);
  assert.equal(follows.passed, true, follows.detail);
  assert.deepEqual(follows.moves.at(-1), { atS: 30, rateKbps: 2500, direction: 'up', fromLevel: null, targetLevel: 4, reachedAtS: 35, afterS: 5 });
  // As in another CI run: a probe up as the 150 kbps cap came (top layers at 21–22 s), taken back at 23 s, frozen, the
  // lowest layer in the second of the lift: the move up is measured from that second, not from the probe.
  const probed = (t) => (t < 12 ? 2 : t < 21 ? 0 : t < 23 ? 2 : t < 30 ? null : t < 35 ? 0 : 2);
  const afterProbe = checkFollowsCap('p2', receivedRows(45, probed), CHANGES, 45);
  assert.equal(afterProbe.passed, true, afterProbe.detail);
  assert.deepEqual(afterProbe.moves.at(-1), { atS: 30, rateKbps: 2500, direction: 'up', fromLevel: 0, targetLevel: 4, reachedAtS: 35, afterS: 5 });
  // As in a third CI run: a probe up in the last second before the lift (top layers at 29 s): already at the top when
  // the cap lifts, measured from the settled seconds before it, and up since.
  const probedLast = (t) => (t < 12 ? 2 : t < 29 ? 0 : 2);
  const probeAtLift = checkFollowsCap('p2', receivedRows(45, probedLast), CHANGES, 45);
  assert.equal(probeAtLift.passed, true, probeAtLift.detail);
  assert.deepEqual(probeAtLift.moves.at(-1), { atS: 30, rateKbps: 2500, direction: 'up', fromLevel: 0, targetLevel: 4, reachedAtS: 31, afterS: 1 });
  // As in a fourth CI run (sfu-simulcast-3 on a fresh clone, 2026-11-30): a probe up as the 150 kbps cap came (21 s),
  // taken back at 22 s, every feed frozen from then to the lift at 27.5 s, the lowest layers from 28 s, the top from 35 s.
  const lift = [...CHANGES.slice(0, 3), { atS: 27.5, rateKbps: 2500 }];
  const frozenAtLift = checkFollowsCap('p2', receivedRows(40, (t) => (t < 12 ? 2 : t < 21 ? 0 : t < 22 ? 2 : t < 28 ? null : t < 35 ? 0 : 2)), lift, 40);
  assert.equal(frozenAtLift.passed, true, frozenAtLift.detail);
  assert.deepEqual(frozenAtLift.moves.at(-1), { atS: 27.5, rateKbps: 2500, direction: 'up', fromLevel: null, targetLevel: 4, reachedAtS: 35, afterS: 7.5 });
  // Still frozen after the lift: no move up.
  const stuck = checkFollowsCap('p2', receivedRows(45, (t) => (t < 12 ? 2 : t < 21 ? 0 : null)), CHANGES, 45);
  assert.equal(stuck.passed, false);
  assert.match(stuck.detail, /expected a move up after 30 s$/);
  // Nothing received before the first cap: the check cannot pass on caps alone.
  const empty = checkFollowsCap('p2', receivedRows(45, () => null), CHANGES.slice(0, 3), 45);
  assert.equal(empty.passed, false);
  assert.match(empty.detail, /no layer received before the first change at 10 s/);
  // On the lowest layers before the first cap (a publisher sending one layer): no move is possible, and none passes.
  const lowest = checkFollowsCap('p2', receivedRows(45, () => 0), CHANGES, 45);
  assert.equal(lowest.passed, false);
  assert.match(lowest.detail, /on the lowest layers before the first change at 10 s: nothing to follow/);
});

test('openLinkOnTop passes a subscriber on the top layers and fails one that is not', () => {
  const offering = (/** @type {(t: number) => number|null} */ sentTopAt) => ({ p0: { top: 2, sentTopAt }, p1: { top: 2, sentTopAt } });
  assert.equal(checkStaysOnTop('p0', receivedRows(20, () => 2), offering(() => 2), 20).passed, true);
  const low = checkStaysOnTop('p0', receivedRows(20, (t) => (t > 10 ? 1 : 2)), offering(() => 2), 20);
  assert.equal(low.passed, false);
  assert.match(low.detail, /p0 on layer 2 in 10 of 20 s; p1 on layer 2 in 10 of 20 s$/);
  // Unknown sent layers: judged against the top.
  assert.equal(checkStaysOnTop('p0', receivedRows(20, (t) => (t > 10 ? 1 : 2)), offering(() => null), 20).passed, false);
});

test('openLinkOnTop judges a subscriber against what its publisher sent: a publisher that adapted down is not the subscriber\'s fault', () => {
  // The publisher sent layer 1 from second 5 on; the subscriber received layer 1 from second 6 (a second later).
  const sentTopAt = (/** @type {number} */ t) => (t >= 5 ? 1 : 2);
  const rows = receivedRows(20, (t) => (t >= 6 ? 1 : 2));
  const adapted = checkStaysOnTop('p0', rows, { p0: { top: 2, sentTopAt }, p1: { top: 2, sentTopAt } }, 20);
  assert.equal(adapted.passed, true, adapted.detail);
  assert.match(adapted.detail, /judged against what was sent: p0 sent below its top layer in 16 s; p1 sent below its top layer in 16 s\)$/);
  // Below what was sent is still short: the publisher sent layer 1, the subscriber got layer 0.
  const starved = checkStaysOnTop('p0', receivedRows(20, (t) => (t >= 6 ? 0 : 2)), { p0: { top: 2, sentTopAt }, p1: { top: 2, sentTopAt } }, 20);
  assert.equal(starved.passed, false);
  assert.match(starved.detail, /^on an open downlink, not on the top layer: p0 on layer 2 in 5 of 20 s/);
});

test('layers: from the timeline and the events to publishers, received layers, switches, downlinks and checks', () => {
  const publish = { p0: normalizePublish({ simulcast: 3 }, 'w'), p1: normalizePublish({ simulcast: 3 }, 'w') };
  const media = { p0: { width: 1280, height: 720 }, p1: { width: 1280, height: 720 }, p2: { width: 1280, height: 720 } };
  const encodings = SIZES.map((size) => ({
    rid: size.rid, widthPx: size.widthPx, heightPx: size.heightPx, fps: 30, kbps: RATES[size.layer], active: true,
  }));
  const timeline = Array.from({ length: 20 }, (_, i) => i + 1).flatMap((t) => [
    { t, peer: 'p0', remote: 'sfu', video: {}, encodings }, { t, peer: 'p1', remote: 'sfu', video: {}, encodings },
    { t, peer: 'p0', remote: 'p1', video: { recvWidth: 1280, recvHeight: 720, recvFps: 30, recvKbps: 1700 } },
    { t, peer: 'p1', remote: 'p0', video: { recvWidth: 1280, recvHeight: 720, recvFps: 30, recvKbps: 1700 } },
    { t, peer: 'p2', remote: 'p0', video: { recvWidth: 640, recvHeight: 352, recvFps: 30, recvKbps: 500 } },
  ]);
  const compiled = { links: { 'p2.down': { rateKbps: 2500 } }, events: [{ atS: 8, link: 'p2.down', params: { rateKbps: 500 }, cause: 'x' }], routes: {}, traces: {}, traceStepMs: 100 };
  const events = [{ type: 'layer-switch', atS: 9.2, decidedAtS: 8, peer: 'p2', feed: 'p0', from: { spatial: 2, temporal: 2 }, to: { spatial: 1, temporal: 2 }, cause: 'loss', budgetKbps: 400 }];
  const section = layersSection({ publish, media, timeline, events, compiled: /** @type {any} */ (compiled), peers: ['p0', 'p1', 'p2'], warmupS: 2, durationS: 20 });
  assert.ok(section);
  assert.deepEqual(Object.keys(section.publishers), ['p0', 'p1']);
  assert.deepEqual(section.publishers.p0.layers.map((l) => l.heightPx), [180, 360, 720]);
  assert.equal(section.received.find((row) => row.peer === 'p2')?.layer, 1, 'a 352-line picture is the 360p layer');
  assert.deepEqual(section.switches.map((s) => [s.atS, s.cause]), [[9.2, 'loss']]);
  assert.deepEqual(section.downlinks.p2, [{ atS: 0, rateKbps: 2500 }, { atS: 8, rateKbps: 500 }]);
  assert.deepEqual(section.checks.map((c) => `${c.check} ${c.peer} ${c.passed}`), [
    'layersSent p0 true', 'lowerLayersBelowHigher p0 true', 'layersSent p1 true', 'lowerLayersBelowHigher p1 true',
    'openLinkOnTop p0 true', 'openLinkOnTop p1 true', 'followsDownlinkCap p2 false']);
  assert.equal(section.passed, false);
  assert.equal(layersSection({ publish: {}, media, timeline, events, compiled: /** @type {any} */ (compiled), peers: ['p0'], warmupS: 2, durationS: 20 }), null);
  assert.equal(layerOfHeight(section.publishers.p0.layers, null), null);
  // A frozen feed (no frame decoded in the second) is on no layer, whatever the size of its last frame.
  const frozenTimeline = timeline.map((entry) => (entry.peer === 'p2' && entry.t > 15
    ? { ...entry, video: { ...entry.video, recvFps: 0, recvKbps: 30 } } : entry));
  const frozenSection = layersSection({
    publish, media, timeline: frozenTimeline, events, compiled: /** @type {any} */ (compiled), peers: ['p0', 'p1', 'p2'], warmupS: 2, durationS: 20,
  });
  assert.deepEqual(frozenSection?.received.filter((row) => row.peer === 'p2').map((row) => row.layer), [...Array(15).fill(1), ...Array(5).fill(null)]);
  assert.deepEqual(downlinkChanges('p0', /** @type {any} */ (compiled), 20), [{ atS: 0, rateKbps: null }]);
  // A call shortened to end before the cap (or at it) has no change to follow: judged as the open link it was.
  assert.deepEqual(downlinkChanges('p2', /** @type {any} */ (compiled), 8), [{ atS: 0, rateKbps: 2500 }]);
  const shortened = layersSection({
    publish, media, timeline: timeline.filter((entry) => entry.t <= 8), events: [], compiled: /** @type {any} */ (compiled),
    peers: ['p0', 'p1', 'p2'], warmupS: 2, durationS: 8,
  });
  assert.equal(shortened?.checks.some((c) => c.check === 'followsDownlinkCap'), false, JSON.stringify(shortened?.checks));
});
