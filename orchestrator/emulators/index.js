// One interface over the network emulators. Each returns:
//   { name, signalingHost, rewriteCandidate?, launchSpec?(peer), apply(links), truth(), commands, close() }
// truth() rows carry epochMs, the wall-clock end of the second they cover.
import os from 'node:os';
import { InputError } from '../lib/errors.js';
import { parseCandidate, withAddress } from './candidates.js';
import { startRelayProcess } from './relay/client.js';

export const EMULATORS = ['relay'];
const RELAY_NICE = -10;

/**
 * The userspace relay: media is steered through it by rewriting each peer's loopback UDP host candidate; every
 * other candidate is dropped, so nothing can bypass the emulated links.
 * @param {{ compiled: { links: object, routes: object } }} options
 */
async function createRelayEmulator({ compiled }) {
  const relay = await startRelayProcess();
  // The relay is the measuring instrument: on a small machine it must preempt the browsers, or its packet
  // timers slip and the browsers see queueing that the configured link does not have. Needs root; best effort.
  try {
    os.setPriority(relay.pid, RELAY_NICE);
  } catch {
    // not permitted: the relay runs at normal priority
  }
  // Truth rows count seconds from the relay's start; anchoring them to the wall clock lets the run put them on its media clock.
  const originEpochMs = Date.now();
  await relay.configure({ links: compiled.links, routes: compiled.routes });
  return {
    name: 'relay',
    signalingHost: '127.0.0.1',
    commands: [],
    async rewriteCandidate({ from, to, candidate }) {
      const parsed = parseCandidate(candidate.candidate);
      if (!parsed || parsed.transport !== 'udp' || parsed.type !== 'host' || parsed.address !== '127.0.0.1') return null;
      const port = await relay.register({ peer: from, remotePeer: to, address: parsed.address, port: parsed.port });
      return { ...candidate, candidate: withAddress(candidate.candidate, '127.0.0.1', port) };
    },
    apply: (links) => relay.configure({ links }),
    truth: async () => (await relay.truth()).map(({ t, ...row }) => ({ epochMs: originEpochMs + t * 1000, ...row })),
    close: () => relay.close(),
  };
}

/**
 * @param {string} name relay (more backends: see issue 3)
 * @param {{ compiled: object, peers: string[], runId: string }} options
 */
export async function createEmulator(name, options) {
  if (name === 'relay') return createRelayEmulator(options);
  throw new InputError(`--emulator ${name}: unknown emulator; use one of ${EMULATORS.join(', ')}`);
}
