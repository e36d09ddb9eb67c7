import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLayerController, deliverableKbps } from '../../orchestrator/run/layer-controller.js';

/** @type {import('../../orchestrator/lib/media/publish.js').Publish} */
const SIMULCAST = {
  kind: 'simulcast', codec: { name: 'vp8', mimeType: 'video/VP8', scalabilityMode: null, profile: null }, spatialLayers: 2, temporalLayers: 3,
  sendEncodings: [{ rid: 'f', scaleResolutionDownBy: 1 }, { rid: 'h', scaleResolutionDownBy: 2 }],
};

/**
 * p0 subscribes to p1; p1 sends `sentKbps[t]` on its top layer (a tenth of it on the lowest), p0 receives `recvKbps[t]`.
 * @param {number[]} sentKbps @param {number[]} recvKbps
 */
function run(sentKbps, recvKbps) {
  /** @type {any[]} */
  const samples = [];
  /** @type {any[]} */
  const events = [];
  const controller = createLayerController({
    publish: { p1: SIMULCAST }, peers: ['p0', 'p1'], samples, selectLayer: async () => {}, record: (event) => events.push(event), warn: () => {},
  });
  for (const [index, kbps] of sentKbps.entries()) {
    const t = index + 1;
    samples.push({ t, peer: 'p1', remote: 'sfu', encodings: [{ rid: 'h', kbps: kbps / 10 }, { rid: 'f', kbps }] });
    samples.push({ t, peer: 'p0', remote: 'p1', video: { recvKbps: recvKbps[index], lossPct: 0 } });
    controller.tick();
  }
  return events;
}

test('what a layer could have delivered is the lower of its second and the one before; unknown stays unknown', () => {
  assert.deepEqual(deliverableKbps([100, 600], [50, 300]), [50, 300]);
  assert.deepEqual(deliverableKbps([100, 200], [150, 300]), [100, 200]);
  assert.deepEqual(deliverableKbps([100, null], [null, 300]), [100, null]);
  assert.deepEqual(deliverableKbps([100, 600], []), [100, 600]);
});

test('a ramping publisher read a second late by its subscriber is no congestion; a steady deficit is', () => {
  // A CI run: the publisher doubled its rate each second while the subscriber's seconds read the one before.
  const ramp = [150, 310, 620, 620, 620, 620, 620, 620];
  const late = [80, 150, 325, 620, 610, 615, 620, 620];
  assert.deepEqual(run(ramp, late), []);
  const steady = run(ramp, [80, 150, 300, 300, 300, 300, 300, 300]);
  assert.ok(steady.length > 0, 'a subscriber receiving half of a steady rate switches down');
  assert.equal(steady[0].to.spatial, 0, JSON.stringify(steady));
  assert.match(steady[0].cause, /^received 3\d\d kbps < 75 %/);
});

test('loss every subscriber of a feed sees is upstream of the SFU and moves nobody; loss on one downlink moves that subscriber', () => {
  /** @type {any[]} */
  const samples = [];
  /** @type {any[]} */
  const events = [];
  const publish = { p0: SIMULCAST, p1: SIMULCAST, p2: SIMULCAST };
  const controller = createLayerController({ publish, peers: ['p0', 'p1', 'p2'], samples, selectLayer: async () => {}, record: (event) => events.push(event), warn: () => {} });
  // A CI run at 27 s: p2's starved sender lost half its few packets before the SFU, at both its subscribers.
  const lossOf = (/** @type {number} */ t, /** @type {string} */ peer, /** @type {string} */ feed) => {
    if (t >= 3 && t <= 4 && feed === 'p2') return 50;
    if (t >= 6 && peer === 'p2') return 30;
    return 0;
  };
  for (let t = 1; t <= 9; t += 1) {
    for (const feed of ['p0', 'p1', 'p2']) samples.push({ t, peer: feed, remote: 'sfu', encodings: [{ rid: 'h', kbps: 60 }, { rid: 'f', kbps: 600 }] });
    for (const peer of ['p0', 'p1', 'p2']) {
      for (const feed of ['p0', 'p1', 'p2'].filter((other) => other !== peer)) {
        samples.push({ t, peer, remote: feed, video: { recvKbps: 650, lossPct: lossOf(t, peer, feed) } });
      }
    }
    controller.tick();
  }
  assert.ok(events.length > 0, 'p2\'s own downlink loss moves it');
  assert.deepEqual([...new Set(events.map((event) => event.peer))], ['p2'], JSON.stringify(events));
  assert.ok(events.every((event) => event.decidedAtS >= 6 && /^loss 30\.0 %/.test(event.cause)), JSON.stringify(events));
});
