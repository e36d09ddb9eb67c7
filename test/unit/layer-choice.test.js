// The harness's layer choice for an SFU that does not choose by bandwidth (lib/media/layer-choice.js): down at once to
// what arrived when the downlink is congested, up one rung after a clean hold, a failed probe doubling the hold.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LAYER_POLICY, chooseLayers, initialState, ladder } from '../../orchestrator/lib/media/layer-choice.js';

const LADDERS = { p0: ladder(3, 1), p1: ladder(3, 1) };
/** Chromium's 720p simulcast rates, lowest layer first. */
const SENT = [150, 500, 1700];
/** @param {string} feed @param {number|null} recvKbps @param {number} [lossPct] */
const reading = (feed, recvKbps, lossPct = 0) => ({ feed, recvKbps, lossPct, layerKbps: SENT });

/**
 * Runs seconds of readings through the choice: per second, what arrives of each feed given the rungs chosen and a
 * downlink of capKbps (shared, what does not fit is lost).
 * @param {number[]} capsKbps  one per second
 */
function simulate(capsKbps) {
  let state = initialState(LADDERS);
  const log = [];
  capsKbps.forEach((capKbps, index) => {
    const wanted = Object.fromEntries(Object.keys(LADDERS).map((feed) => [feed, SENT[LADDERS[feed][state.rungs[feed]].spatial]]));
    const total = Object.values(wanted).reduce((a, b) => a + b, 0);
    const share = Math.min(1, capKbps / total);
    const lossPct = share < 1 ? 100 * (1 - share) : 0;
    const readings = Object.keys(LADDERS).map((feed) => reading(feed, wanted[feed] * share, lossPct));
    const result = chooseLayers(state, LADDERS, readings, { atS: index + 1 });
    state = result.state;
    log.push({ atS: index + 1, rungs: { ...state.rungs }, switches: result.switches });
  });
  return log;
}

test('a ladder: the lowest spatial layer\'s temporal layers, then each higher spatial layer at full rate', () => {
  assert.deepEqual(ladder(3, 3), [{ spatial: 0, temporal: 0 }, { spatial: 0, temporal: 1 }, { spatial: 0, temporal: 2 },
    { spatial: 1, temporal: 2 }, { spatial: 2, temporal: 2 }]);
  assert.deepEqual(initialState({ a: ladder(2, 3) }).rungs, { a: 3 });
});

test('an open downlink stays on the top layer of every feed', () => {
  const log = simulate(Array(20).fill(10_000));
  assert.equal(log.length, 20);
  assert.ok(log.every((second) => second.switches.length === 0 && second.rungs.p0 === 2 && second.rungs.p1 === 2));
});

test('a capped downlink moves down at once to what arrived, with the cause; back up when the cap lifts', () => {
  const log = simulate([...Array(5).fill(10_000), ...Array(10).fill(1200), ...Array(10).fill(350), ...Array(30).fill(10_000)]);
  const at = (s) => log[s - 1];
  assert.deepEqual(at(5).rungs, { p0: 2, p1: 2 });
  // 1200 kbps: both 1700 kbps layers do not fit; what arrived (1200 × 0.9) carries 500 + 500.
  assert.deepEqual(at(6).rungs, { p0: 1, p1: 1 });
  assert.match(at(6).switches[0].cause, /^loss 64\.7 % > 5 %$/);
  assert.equal(at(6).switches[0].budgetKbps, 1080);
  assert.deepEqual(at(6).switches[0].from, { spatial: 2, temporal: 0 });
  // Probes up fail against the cap, and the hold doubles.
  const probes = log.slice(5, 15).flatMap((s) => s.switches).filter((s) => /probing up/.test(s.cause));
  assert.ok(probes.length >= 1 && probes.length <= 4, `${probes.length} probes in 10 s under the cap`);
  const failed = log.slice(5, 15).flatMap((s) => s.switches).map((s) => /probe up at \d+ s failed; next probe after (\d+) s/.exec(s.cause)?.[1]).filter(Boolean);
  assert.deepEqual([...new Set(failed)].map(Number), [4, 6], 'each failed probe doubles the hold, up to its ceiling');
  // 350 kbps: the lowest layers (150 + 150).
  assert.deepEqual(at(17).rungs, { p0: 0, p1: 0 });
  // Lifted at 26 s: back to the top within the holds (one feed a rung at a time).
  const top = log.findIndex((second, i) => i >= 25 && second.rungs.p0 === 2 && second.rungs.p1 === 2) + 1;
  assert.ok(top > 26 && top <= 26 + LAYER_POLICY.maxHoldS + 2 * LAYER_POLICY.climbHoldS, `back on top at ${top} s`);
  assert.deepEqual(log.at(-1).rungs, { p0: 2, p1: 2 });
});

test('less arriving than the layers carry is congestion too; a layer the publisher does not send is never asked for', () => {
  const first = chooseLayers(initialState(LADDERS), LADDERS, [reading('p0', 400), reading('p1', 400)], { atS: 1 });
  assert.deepEqual(first.switches, [], 'one second of deficit may be a publisher\'s hiccup');
  const deficit = chooseLayers(first.state, LADDERS, [reading('p0', 400), reading('p1', 400)], { atS: 2 });
  assert.match(deficit.switches[0].cause, /^received 800 kbps < 75 % of the 3400 kbps its layers carry \(2 s in a row\)$/);
  assert.deepEqual(deficit.state.rungs, { p0: 0, p1: 1 });
  // A 360p source sends two of three layers: a probe goes no higher than the middle one.
  let twoLayers = { ...initialState(LADDERS), rungs: { p0: 0, p1: 1 } };
  const sent = [150, 600, 0];
  for (let s = 1; s <= 20; s += 1) {
    twoLayers = chooseLayers(twoLayers, LADDERS, ['p0', 'p1'].map((feed) => ({ feed, recvKbps: 600, lossPct: 0, layerKbps: sent })), { atS: s }).state;
  }
  assert.deepEqual(twoLayers.rungs, { p0: 1, p1: 1 });
});

test('a second in which nothing arrived from any feed is a stall, not a downlink signal', () => {
  let state = initialState(LADDERS);
  for (let s = 1; s <= 5; s += 1) state = chooseLayers(state, LADDERS, [reading('p0', 0), reading('p1', 0)], { atS: s }).state;
  assert.deepEqual(state.rungs, { p0: 2, p1: 2 });
});

test('temporal layers: the lowest spatial layer loses frame rate before nothing is left to drop', () => {
  const ladders = { p0: ladder(2, 3) };
  const state = { ...initialState(ladders), rungs: { p0: 2 } };
  const { state: after, switches } = chooseLayers(state, ladders, [{ feed: 'p0', recvKbps: 70, lossPct: 30, layerKbps: [150, 500] }], { atS: 1 });
  assert.deepEqual(switches[0].to, { spatial: 0, temporal: 0 });
  assert.equal(after.rungs.p0, 0);
});
