// What the hostile-signaling tests share: a signaling server whose every emitted value is kept, the check that it
// still serves, and the set-up of a run whose room the tests attack.
import assert from 'node:assert/strict';
import { after, afterEach, before } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createEmulator } from '../../orchestrator/emulators/index.js';
import { createPeerSecrets } from '../../orchestrator/lib/system/peer-secrets.js';
import { compileNetwork } from '../../orchestrator/lib/network/schedule.js';
import { startSignalingServer } from '../../signaling/server.js';
import { joinedClient, wsClient } from './signaling-clients.js';

/** A server whose every emitted value is kept, for the checks after each attack. */
export async function watchedServer(options = {}) {
  const server = await startSignalingServer(options);
  const seen = { stats: [], event: [], rejected: [], join: [], leave: [] };
  for (const name of Object.keys(seen)) server.events.on(name, (value) => seen[name].push(value));
  return { server, seen };
}

/** The server still takes a new pair of peers and relays between them. */
export async function assertServes(server, room = `check-${Math.random().toString(36).slice(2, 8)}`) {
  const a = await joinedClient(server.wsUrl, room, 'p0');
  const b = await joinedClient(server.wsUrl, room, 'p1');
  b.send({ type: 'offer', to: 'p0', sdp: 'v=0\r\n' });
  assert.equal((await a.next()).type, 'peer-joined');
  assert.deepEqual(await a.next(), { type: 'offer', from: 'p1', sdp: 'v=0\r\n' });
  a.socket.close();
  b.socket.close();
}

/** Waits until check() holds (the server handles a message after the client's send returns). */
export async function eventually(check, timeoutMs = 3000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms: ${check}`);
    await sleep(10);
  }
}

/**
 * The hooks of a block whose tests attack room run-1 of a watched server that checks candidates with the real relay
 * (its register throws InputError for a port out of range, and each registration holds a socket); returns the block's
 * state and its clients, closed after each test (also a failed one) so their names are free again.
 */
export function hostileRun() {
  const opened = [];
  const run = {
    // Set by the block's before(): the watched server, what it emitted, the relay.
    server: null, seen: null, relay: null,
    secrets: createPeerSecrets(['p0', 'p1']),
    /** Joins as peer with its own secret. @param {string} room @param {string} peer */
    join: async (room, peer) => {
      const client = await joinedClient(run.server.wsUrl, room, peer, run.secrets.get(peer));
      opened.push(client);
      return client;
    },
    /** A socket that has not joined. */
    connect: async () => { const client = await wsClient(run.server.wsUrl); opened.push(client); return client; },
  };
  afterEach(async () => {
    for (const client of opened.splice(0)) client.socket.close();
    await eventually(() => run.seen.join.length === run.seen.leave.length);
  });
  before(async () => {
    run.relay = await createEmulator('relay', {
      compiled: compileNetwork({ file: 'hostile-signaling', peers: 2, network: {} }), peers: ['p0', 'p1'], runId: 'hostile-signaling',
    });
    ({ server: run.server, seen: run.seen } = await watchedServer({ room: 'run-1', secrets: run.secrets, rewriteCandidate: run.relay.rewriteCandidate }));
  });
  after(async () => {
    await run.server.close();
    await run.relay.close();
  });
  return run;
}
