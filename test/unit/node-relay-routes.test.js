import assert from 'node:assert/strict';
import { test } from 'node:test';
import { relayPeer, splitRoutes } from '../../orchestrator/emulators/node-relay/routes.js';

const MESH_3 = {
  'p0->p1': ['p0.up', 'p1.down'], 'p0->p2': ['p0.up', 'p2.down'], 'p1->p0': ['p1.up', 'p0.down'],
  'p1->p2': ['p1.up', 'p2.down'], 'p2->p0': ['p2.up', 'p0.down'], 'p2->p1': ['p2.up', 'p1.down'],
};

test('a route between nodes: the sender\'s uplink on its node, the receiver\'s downlink on its; within one node, whole', () => {
  const shares = splitRoutes(MESH_3, (peer) => (peer === 'p2' ? 'b' : 'a'));
  assert.deepEqual(shares.a.routes, {
    'p0->p1': ['p0.up', 'p1.down'], 'p0->p2': ['p0.up'], 'p1->p0': ['p1.up', 'p0.down'], 'p1->p2': ['p1.up'], 'p2->p0': ['p0.down'], 'p2->p1': ['p1.down'],
  });
  assert.deepEqual(shares.b.routes, { 'p0->p2': ['p2.down'], 'p1->p2': ['p2.down'], 'p2->p0': ['p2.up'], 'p2->p1': ['p2.up'] });
  assert.deepEqual(shares.b.links.sort(), ['p2.down', 'p2.up']);
  assert.deepEqual(shares.a.links.sort(), ['p0.down', 'p0.up', 'p1.down', 'p1.up']);
});

test('a bottleneck between two nodes stays on the sender\'s node, before the receiver\'s downlink', () => {
  const shares = splitRoutes({ 'p0->p1': ['p0.up', 'bottleneck.fwd', 'p1.down'], 'p1->p0': ['p1.up', 'bottleneck.back', 'p0.down'] },
    (peer) => (peer === 'p0' ? 'a' : 'b'));
  assert.deepEqual(shares.a.routes, { 'p0->p1': ['p0.up', 'bottleneck.fwd'], 'p1->p0': ['p0.down'] });
  assert.deepEqual(shares.b.routes, { 'p0->p1': ['p1.down'], 'p1->p0': ['p1.up', 'bottleneck.back'] });
});

test('an SFU call on two nodes: each peer\'s uplink to Janus and downlink from it whole on the peer\'s own node', () => {
  const routes = {
    'p0->sfu': ['p0.up'], 'sfu->p0': ['p0.down'], 'p1->sfu': ['p1.up'], 'sfu->p1': ['p1.down'], 'p2->sfu': ['p2.up'], 'sfu->p2': ['p2.down'],
  };
  const shares = splitRoutes(routes, (peer) => ({ p0: 'a', p1: 'b', p2: 'a' })[peer] ?? assert.fail(`nodeOf(${peer}): Janus is on no node`));
  assert.deepEqual(shares.a.routes, { 'p0->sfu': ['p0.up'], 'sfu->p0': ['p0.down'], 'p2->sfu': ['p2.up'], 'sfu->p2': ['p2.down'] });
  assert.deepEqual(shares.b.routes, { 'p1->sfu': ['p1.up'], 'sfu->p1': ['p1.down'] });
  assert.deepEqual(shares.a.links.sort(), ['p0.down', 'p0.up', 'p2.down', 'p2.up']);
  assert.deepEqual(Object.keys(shares).sort(), ['a', 'b']);
});

test('an SFU call with a bottleneck: each peer\'s whole route to and from Janus, bottleneck included, on its node', () => {
  const shares = splitRoutes({ 'p0->sfu': ['p0.up', 'bottleneck.fwd'], 'sfu->p0': ['bottleneck.back', 'p0.down'], 'p1->sfu': ['p1.up'], 'sfu->p1': ['p1.down'] },
    (peer) => (peer === 'p0' ? 'a' : 'b'));
  assert.deepEqual(shares.a.routes, { 'p0->sfu': ['p0.up', 'bottleneck.fwd'], 'sfu->p0': ['bottleneck.back', 'p0.down'] });
  assert.deepEqual(shares.b.routes, { 'p1->sfu': ['p1.up'], 'sfu->p1': ['p1.down'] });
});

test('an SFU room\'s load participants: each one\'s links whole on the node it is lent to, none on another', () => {
  const routes = { 'p0->sfu': ['p0.up'], 'sfu->p0': ['p0.down'], 'load0->sfu': ['load0.up'], 'sfu->load0': ['load0.down'],
    'load1->sfu': ['load1.up'], 'sfu->load1': ['load1.down'] };
  const shares = splitRoutes(routes, (node) => ({ p0: 'a', load0: 'a', load1: 'b' })[node] ?? assert.fail(`nodeOf(${node})`));
  assert.deepEqual(shares.a.routes, { 'p0->sfu': ['p0.up'], 'sfu->p0': ['p0.down'], 'load0->sfu': ['load0.up'], 'sfu->load0': ['load0.down'] });
  assert.deepEqual(shares.b.routes, { 'load1->sfu': ['load1.up'], 'sfu->load1': ['load1.down'] });
  assert.equal(relayPeer('sfu', 'load1'), 'load1');
});

test('relayPeer: Janus\'s side of a pair is its peer\'s node, a peer\'s its own', () => {
  assert.equal(relayPeer('sfu', 'p1'), 'p1');
  assert.equal(relayPeer('p1', 'sfu'), 'p1');
  assert.equal(relayPeer('p0', 'p1'), 'p0');
});

test('hostile labels: nodes labelled constructor and toString get their own share, not a TypeError', () => {
  const shares = splitRoutes({ 'p0->p1': ['p0.up', 'bottleneck.fwd', 'p1.down'], 'p1->p0': ['p1.up', 'bottleneck.back', 'p0.down'] },
    (peer) => (peer === 'p0' ? 'constructor' : 'toString'));
  assert.deepEqual(Object.keys(shares).sort(), ['constructor', 'toString']);
  // A string key, so the checker reads the map's entry and not Object's own constructor.
  const label = /** @type {string} */ ('constructor');
  assert.deepEqual(shares[label].links, ['p0.up', 'bottleneck.fwd', 'p0.down']);
});
