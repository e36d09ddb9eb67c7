import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nodeRelayBackend } from '../../orchestrator/emulators/node-relay/index.js';
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
