// One interface over the network emulators. Each returns:
//   { name, signalingHost, rewriteCandidate?, launchSpec?(peer), apply(links, atS?), events, traceSteps, startMedia?(epochMs),
//     truth(), commands, close(), closeNow?() }
// truth() rows carry epochMs, the wall-clock end of the second they cover. Each registers its closer through
// options.registerCleanup before it builds anything, so an interrupt half way through set-up removes what was built.

import { EnvironmentError, InputError } from '../lib/errors.js';
import { SFU_NODE } from '../lib/topology.js';
import { steppedNetwork } from '../lib/trace.js';
import { firstIpv4Address, parseCandidate, withAddress } from './candidates.js';
import { createDummynetEmulator } from './dummynet/index.js';
import { netemCapabilities, unmetRequirements } from './netem/capabilities.js';
import { createNetemEmulator } from './netem/index.js';
import { startRelayProcess } from './relay/client.js';

/** Tearing down a netem topology is dozens of commands: more than a browser's closer needs. */
const TEARDOWN_TIMEOUT_MS = 60_000;

/**
 * @callback RegisterCleanup  lib/shutdown.js onCleanup: registers a closer and returns its early release
 * @param {string} name
 * @param {() => Promise<unknown>} close
 * @param {{ timeoutMs?: number, closeNow?: () => void }} [options]
 * @returns {() => Promise<void>}
 */
/** Without a registry the caller closes the emulator itself; a failed set-up still removes what it built. */
const closeOnly = (/** @type {string} */ _name, /** @type {() => Promise<unknown>} */ close) => async () => { await close(); };

export const EMULATORS = ['relay', 'netem', 'dummynet', 'auto'];

/**
 * The userspace relay: media is steered through it by rewriting each peer's loopback UDP host candidate (and the
 * SFU's, on its own address); every other candidate is dropped, so nothing can bypass the emulated links. The SFU
 * sees the pages' candidates on its own address, as on a LAN (its ICE pairs no remote loopback candidate with it).
 * Firefox gathers no loopback candidate (not even with media.peerconnection.ice.loopback): a Firefox peer's
 * candidates on the host's first non-loopback IPv4 address are relayed too, and it sees the relay there.
 * @param {{ compiled: import('../lib/schedule.js').CompiledNetwork, registerCleanup?: RegisterCleanup, sfuAddress?: string,
 *   hostAddressPeers?: string[] }} options
 *   sfuAddress: the one address Janus gathers on (it gathers none on loopback); hostAddressPeers: peers whose
 *   browser gathers no loopback candidate
 */
async function createRelayEmulator({ compiled, registerCleanup = closeOnly, sfuAddress, hostAddressPeers = [] }) {
  const relayedAddresses = ['127.0.0.1', ...(sfuAddress ? [sfuAddress] : [])];
  const hostAddress = hostAddressPeers.length ? sfuAddress ?? firstIpv4Address() : null;
  if (hostAddressPeers.length && !hostAddress) {
    throw new EnvironmentError(`${hostAddressPeers.join(', ')} run Firefox, which gathers no loopback ICE candidate, and this host has no non-loopback IPv4 address for the relay to meet it on; run on a host with a network interface up`);
  }
  /** @param {string} peer @param {string} address */
  const relayed = (peer, address) => relayedAddresses.includes(address) || (hostAddressPeers.includes(peer) && address === hostAddress);
  /** @type {ReturnType<typeof startRelayProcess>|null} */
  let starting = null;
  // Registered before the process starts; a relay that never started has nothing to close.
  const release = registerCleanup('relay emulator', async () => starting?.then((started) => started.close(), () => {}));
  // The relay process raises itself to real-time priority (relay/priority.js): it is the measuring instrument.
  starting = startRelayProcess();
  const relay = await starting.catch(async (error) => { await release().catch(() => {}); throw error; });
  // Truth rows count seconds from the relay's start; anchoring them to the wall clock lets the run put them on its media clock.
  const originEpochMs = Date.now();
  await relay.configure({ links: compiled.links, routes: compiled.routes, traces: compiled.traces })
    .catch(async (error) => { await release(); throw error; });
  /** @type {number|null} */
  let mediaStartEpochMs = null;
  return {
    name: 'relay',
    pid: relay.pid,
    signalingHost: '127.0.0.1',
    commands: [],
    async rewriteCandidate({ from, to, candidate }) {
      const parsed = parseCandidate(candidate.candidate);
      if (!parsed || parsed.transport !== 'udp' || parsed.type !== 'host' || !relayed(from, parsed.address)) return null;
      const bindAddress = (to === SFU_NODE && sfuAddress) || (hostAddressPeers.includes(to) && hostAddress) || '127.0.0.1';
      const port = await relay.register({ peer: from, remotePeer: to, address: parsed.address, port: parsed.port, bindAddress });
      return { ...candidate, candidate: withAddress(candidate.candidate, bindAddress, port) };
    },
    // A link that switches to a trace at atS starts it then, on the media clock (as network.configured shows it).
    apply: (links, atS) => relay.configure({
      links, ...(mediaStartEpochMs !== null && atS !== undefined ? { traceOriginEpochMs: mediaStartEpochMs + atS * 1000 } : {}),
    }),
    // Traces replay packet by packet here; they start with the media, like the schedule.
    events: compiled.events,
    traceSteps: null,
    async startMedia(epochMs) {
      mediaStartEpochMs = epochMs;
      await relay.restartTraces(epochMs);
    },
    truth: async () => (await relay.truth()).map(({ t, ...row }) => ({ epochMs: originEpochMs + t * 1000, ...row })),
    // Kernel flows (orchestrator/cross/) open their tunnels on this relay; tunnelTruth is their per-flow truth.
    relay,
    tunnelTruth: async () => (await relay.tunnelTruth()).map(({ t, ...row }) => ({ epochMs: originEpochMs + t * 1000, ...row })),
    close: () => relay.close(),
  };
}

/**
 * Sets up a kernel emulator with its closer registered first, removing whatever it made if set-up fails half-way.
 * @param {any} emulator @param {RegisterCleanup} [registerCleanup]
 */
async function setUp(emulator, registerCleanup = closeOnly) {
  const release = registerCleanup(`${emulator.name} emulator`, () => emulator.close(), { timeoutMs: TEARDOWN_TIMEOUT_MS, closeNow: emulator.closeNow });
  try {
    await emulator.setup();
  } catch (error) {
    await release();
    throw error;
  }
  return emulator;
}

/**
 * netem shapes by address: only a peer's UDP candidates on its own namespace's address are passed on, so media takes
 * the shaped path. (dummynet shapes by port and brings its own rewriteCandidate.)
 * @param {any} emulator with addressOf(peer)
 */
function passOwnAddressOnly(emulator) {
  emulator.rewriteCandidate = async ({ from, candidate }) => {
    const parsed = parseCandidate(candidate.candidate);
    return parsed?.transport === 'udp' && parsed.address === emulator.addressOf(from) ? candidate : null;
  };
  return emulator;
}

/**
 * A backend that sets rates replays a trace as rate steps: it is built and scheduled with the stepped network, and
 * carries the steps' comparison with the trace (events, traceSteps) for the run.
 * @param {(options: any) => any} create @param {any} options
 */
async function createSteppedEmulator(create, options) {
  const { compiled, traceSteps } = steppedNetwork(options.compiled, options.durationS ?? 0);
  const emulator = await setUp(create({ ...options, compiled }), options.registerCleanup);
  return Object.assign(emulator, { events: compiled.events, traceSteps });
}

/** netem in namespaces. */
const createNamespaceEmulator = async (options) => passOwnAddressOnly(await createSteppedEmulator(createNetemEmulator, options));

/**
 * @param {string} name one of EMULATORS; `auto` picks netem when this kernel can run the scenario's network, else relay
 * @param {{ compiled: any, durationS?: number, peers: string[], runId: string, browserPath?: string, clock?: () => number,
 *   log?: (line: string) => void, registerCleanup?: RegisterCleanup, sfuAddress?: string, hostAddressPeers?: string[],
 *   guardianLog?: string }} options
 *   durationS: the run's, how far a trace is turned into rate steps (netem, dummynet); hostAddressPeers: relay only;
 *   guardianLog: netem's guardian's log (what it removed after a killed orchestrator)
 * @returns {Promise<object>} the emulator, with `choice` saying why when `auto` chose it; `events`, the schedule it
 *   applies (with a trace's rate steps where it cannot replay one) and `traceSteps`, their comparison with the traces
 */
export async function createEmulator(name, options) {
  switch (name) {
    case 'relay': return createRelayEmulator(options);
    case 'netem': return createNamespaceEmulator(options);
    case 'dummynet': return createSteppedEmulator(createDummynetEmulator, options);
    case 'auto': {
      const unmet = unmetRequirements(options.compiled, await netemCapabilities());
      const emulator = unmet.length === 0 ? await createNamespaceEmulator(options) : await createRelayEmulator(options);
      emulator.choice = unmet.length === 0 ? 'auto: netem (namespaces and tc can run this network)' : `auto: relay, because ${unmet.join('; ')}`;
      return emulator;
    }
    default: throw new InputError(`--emulator ${name}: unknown emulator; use one of ${EMULATORS.join(', ')}`);
  }
}
