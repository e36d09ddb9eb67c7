import assert from 'node:assert/strict';
import { test } from 'node:test';
import { candidateRewriter, nodeRelayBackend, relayNode } from '../../orchestrator/emulators/node-relay/index.js';
import { InputError } from '../../orchestrator/lib/system/errors.js';

test('node-relay with an SFU on a loopback --grid-listen is refused before anything opens, naming --grid-listen', async () => {
  const remotePeers = { bindAddress: '127.0.0.1', registrationSecret: 'secret', nodeOf: () => undefined };
  const compiled = /** @type {any} */ ({ links: {}, routes: {}, traces: {}, events: [] });
  await assert.rejects(
    nodeRelayBackend.create({ compiled, peers: ['p0', 'p1'], runId: 'r', remotePeers, sfuAddress: '127.0.0.1' }),
    (error) => error instanceof InputError && /--grid-listen, here 127\.0\.0\.1, a loopback/.test(error.message),
  );
  assert.equal(nodeRelayBackend.supports.sfu, true);
});

test('a load participant on this host is steered through the relay of the node it is lent to (load<i> on p<i mod peers>\'s), both ways', async () => {
  const nodes = { p0: { label: 'n1', address: '10.9.0.2', relay: '10.9.0.2:7000' }, p1: { label: 'n2', address: '10.9.0.3', relay: '10.9.0.3:7000' } };
  const grid = { bindAddress: '10.9.0.1', registrationSecret: 's', nodeOf: (/** @type {string} */ peer) => nodes[peer] };
  const peers = ['p0', 'p1'];
  assert.equal(relayNode(grid, peers, 'load0').label, 'n1');
  assert.equal(relayNode(grid, peers, 'load3').label, 'n2');
  const registered = [];
  const relayOf = async (/** @type {string} */ name) => {
    const { label } = relayNode(grid, peers, name);
    const register = async (/** @type {object} */ c) => { registered.push({ label, ...c }); return 40_000 + registered.length; };
    return /** @type {any} */ ({ register });
  };
  const rewrite = candidateRewriter({ sfuAddress: '10.9.0.1', nodeOf: (name) => relayNode(grid, peers, name), relayOf });
  const candidate = (address, port) => ({ candidate: `candidate:1 1 udp 2130706431 ${address} ${port} typ host`, sdpMid: '0', sdpMLineIndex: 0 });
  const up = await rewrite({ from: 'load1', to: 'sfu', candidate: candidate('10.9.0.1', 5004) });
  assert.equal(up?.candidate, 'candidate:1 1 udp 2130706431 10.9.0.3 40001 typ host');
  const down = await rewrite({ from: 'sfu', to: 'load1', candidate: candidate('10.9.0.1', 20000) });
  assert.equal(down?.candidate, 'candidate:1 1 udp 2130706431 10.9.0.3 40002 typ host');
  assert.deepEqual(registered, [
    { label: 'n2', peer: 'load1', remotePeer: 'sfu', address: '10.9.0.1', port: 5004, bindAddress: '10.9.0.3' },
    { label: 'n2', peer: 'sfu', remotePeer: 'load1', address: '10.9.0.1', port: 20000, bindAddress: '10.9.0.3' },
  ]);
  // Its loopback candidate would reach Janus on this host directly, past the links: dropped.
  assert.equal(await rewrite({ from: 'load1', to: 'sfu', candidate: candidate('127.0.0.1', 5006) }), null);
  assert.equal(registered.length, 2);
});
