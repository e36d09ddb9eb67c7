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
