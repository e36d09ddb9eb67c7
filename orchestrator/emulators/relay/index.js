// The relay backend: a userspace UDP relay process (relay.js) that every media packet crosses, so it runs anywhere
// without root and replays traces packet by packet. Its contract: ../contract.js.
import { EnvironmentError } from '../../lib/system/errors.js';
import { SFU_NODE } from '../../lib/network/topology.js';
import { firstIpv4Address, parseCandidate, withAddress } from '../candidates.js';
import { startRelayProcess } from './client.js';
import { createRelayProbePath } from './probe-path.js';
import { priorityCommand } from '../priority.js';
import { shellJoin } from '../script.js';

/** Without a registry the caller closes the emulator itself. */
const closeOnly = (/** @type {string} */ _name, /** @type {() => Promise<unknown>} */ close) => async () => { await close(); };

/**
 * The relay process ran chrt on itself at start (priority.js); the run logs it like any other system command.
 * @param {Awaited<ReturnType<typeof startRelayProcess>>} relay @param {(() => number)|undefined} clock
 * @returns {Promise<import('../command-runner.js').CommandRecord>}
 */
async function priorityRecord(relay, clock) {
  const { priority } = await relay.stats();
  const record = { atS: Number((clock?.() ?? 0).toFixed(3)), cmd: shellJoin(priorityCommand(relay.pid)), ok: priority === 'realtime' };
  return priority === 'realtime' ? record : { ...record, stderr: `not permitted here: the relay runs at ${priority} priority` };
}

/**
 * The userspace relay: media is steered through it by rewriting each peer's loopback UDP host candidate (and the
 * SFU's, on its own address); every other candidate is dropped, so nothing can bypass the emulated links. The SFU
 * sees the pages' candidates on its own address, as on a LAN (its ICE pairs no remote loopback candidate with it).
 * Firefox gathers no loopback candidate (not even with media.peerconnection.ice.loopback): a Firefox peer's
 * candidates on the host's first non-loopback IPv4 address are relayed too, and it sees the relay there.
 * @param {import('../contract.js').EmulatorOptions} options
 *   sfuAddress: the one address Janus gathers on (it gathers none on loopback); hostAddressPeers: peers whose
 *   browser gathers no loopback candidate; remotePeers: peers on other machines, whose only relayed candidates are
 *   those on their machine's address (a loopback candidate there is that machine's own)
 */
async function createRelayEmulator({ compiled, registerCleanup = closeOnly, sfuAddress, hostAddressPeers = [], remotePeers, clock }) {
  const relayedAddresses = ['127.0.0.1', ...(sfuAddress ? [sfuAddress] : [])];
  const hostAddress = hostAddressPeers.length ? sfuAddress ?? firstIpv4Address() : null;
  if (hostAddressPeers.length && !hostAddress) {
    throw new EnvironmentError(`${hostAddressPeers.join(', ')} run Firefox, which gathers no loopback ICE candidate, and this host has no non-loopback IPv4 address for the relay to meet it on; run on a host with a network interface up`);
  }
  /** @param {string} peer @param {string} address */
  const relayed = (peer, address) => {
    const remote = remotePeers?.nodeOf(peer)?.address;
    if (remote) return address === remote;
    return relayedAddresses.includes(address) || (hostAddressPeers.includes(peer) && address === hostAddress);
  };
  /** @type {ReturnType<typeof startRelayProcess>|null} */
  let starting = null;
  // Registered before the process starts; a relay that never started has nothing to close.
  const release = registerCleanup('relay emulator', async () => starting?.then((started) => started.close(), () => {}));
  // The relay process raises itself to real-time priority (emulators/priority.js): it is the measuring instrument.
  starting = startRelayProcess();
  const relay = await starting.catch(async (error) => { await release().catch(() => {}); throw error; });
  // Truth rows count seconds from the relay's start; anchoring them to the wall clock lets the run put them on its media clock.
  const originEpochMs = Date.now();
  await relay.configure({ links: compiled.links, routes: compiled.routes, traces: compiled.traces })
    .catch(async (error) => { await release(); throw error; });
  /** @type {number|null} */
  let mediaStartEpochMs = null;
  /** @type {import('../contract.js').Emulator} */
  const emulator = {
    name: 'relay',
    pid: relay.pid,
    signalingHost: '127.0.0.1',
    commands: [await priorityRecord(relay, clock)],
    async rewriteCandidate({ from, to, candidate }) {
      const parsed = parseCandidate(candidate.candidate);
      if (!parsed || parsed.transport !== 'udp' || parsed.type !== 'host' || !relayed(from, parsed.address)) return null;
      const bindAddress = (to === SFU_NODE && sfuAddress) || (remotePeers?.nodeOf(to) && remotePeers.bindAddress)
        || (hostAddressPeers.includes(to) && hostAddress) || '127.0.0.1';
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
    load: async () => (await relay.loadTruth()).map(({
      t, lateMsP99, lateMsMax, wakeMsP99, wakeMsMax, timerWakeMsMax, offCpuMsMax, ...row
    }) => ({
      epochMs: originEpochMs + t * 1000, ...row, lateP99Ms: lateMsP99, lateMaxMs: lateMsMax,
      wakeP99Ms: wakeMsP99, wakeMaxMs: wakeMsMax, timerWakeMaxMs: timerWakeMsMax, offCpuMaxMs: offCpuMsMax,
    })),
    // Kernel flows (orchestrator/cross/) open their tunnels on this relay; their truth is per flow.
    tunnels: {
      registerTunnel: relay.registerTunnel,
      truth: async () => (await relay.tunnelTruth()).map(({ t, ...row }) => ({ epochMs: originEpochMs + t * 1000, ...row })),
    },
    close: () => relay.close(),
  };
  return emulator;
}

/**
 * A probe path through a fresh relay for `calibrate`; its tunnels let kernel TCP cross the same queues.
 * @returns {Promise<import('../contract.js').ProbeSession>}
 */
async function openRelayProbePath() {
  const relay = await startRelayProcess();
  try {
    const path = await createRelayProbePath(relay);
    return { path, stats: relay.stats, close: async () => { await path.close(); await relay.close(); }, tunnels: relay };
  } catch (error) {
    await relay.close();
    throw error;
  }
}

/** @type {import('../contract.js').EmulatorBackend} */
export const relayBackend = {
  name: 'relay',
  summary: 'userspace UDP relay (default): any host, no root; traces replayed packet by packet; kernel flows through its tunnels',
  supports: {
    sfu: true, directSfu: true, kernelFlows: true, firefox: true, traceReplay: true, turn: false, peerNetwork: false, handover: false,
    loadParticipantLinks: true,
  },
  why: {
    turn: "which carries only the candidates the harness rewrites: a TURN server's relayed media would bypass its links, unshaped",
    peerNetwork: "which forwards the rewritten candidates in userspace: a NAT or firewall needs the peer's own kernel path",
    handover: 'which carries every peer on 127.0.0.1: there is no address of its own for a peer to leave',
  },
  // It carries every scenario but a TURN server's on any host: `auto` ends with it.
  auto: { fallback: true, fits: 'the userspace relay runs anywhere' },
  unavailable: async () => null,
  create: createRelayEmulator,
  openProbePath: openRelayProbePath,
};
