// The netem backend as the emulator contract (../contract.js) sees it: peers in network namespaces behind a router
// whose tc stages shape every link (index.js), root only, Linux only.
import { SFU_NODE } from '../../lib/network/topology.js';
import { findExecutable } from '../../lib/system/paths.js';
import { parseCandidate } from '../candidates.js';
import { createSteppedEmulator } from '../kernel-backend.js';
import { openNetemProbePath } from './calibrate.js';
import { netemCapabilities, unmetRequirements } from './capabilities.js';
import { removeLeftovers } from './cleanup.js';
import { createNetemEmulator } from './index.js';
import { exportNetemScript, exportNetemTopology } from './script.js';

/**
 * netem shapes by address: only a peer's UDP candidates on its own namespace's address are passed on, so media takes
 * the shaped path; and relay candidates on the middle node's (a run's TURN server, reached across the peers' links).
 * The SFU's TCP candidates pass too (ICE-TCP, for a peer whose firewall blocks UDP): TCP crosses the same shaped links.
 * @param {import('../contract.js').EmulatorOptions} options
 * @returns {Promise<import('../contract.js').Emulator>}
 */
async function createNamespaceEmulator(options) {
  const emulator = /** @type {import('../contract.js').Emulator & { addressOf: (peer: string) => string }} */ (
    await createSteppedEmulator(createNetemEmulator, options));
  emulator.rewriteCandidate = async ({ from, candidate }) => {
    const parsed = parseCandidate(candidate.candidate);
    const own = parsed?.address === emulator.addressOf(from) || (parsed?.type === 'relay' && parsed.address === emulator.sfuHost?.address);
    const transport = parsed?.transport === 'udp' || (parsed?.transport === 'tcp' && from === SFU_NODE);
    return transport && own ? candidate : null;
  };
  return emulator;
}

/** @type {import('../contract.js').EmulatorBackend} */
export const netemBackend = {
  name: 'netem',
  summary: 'Linux namespaces, htb/bfifo (+ sch_netem, or nftables loss without it); root only; traces as rate steps',
  supports: {
    sfu: true, directSfu: true, kernelFlows: false, firefox: true, traceReplay: false, turn: true, peerNetwork: true, handover: true,
    // Each load participant runs in a namespace of its own beside the SFU's (the emulator's hostOf).
    loadParticipantLinks: true,
  },
  why: {
    kernelFlows: "which crosses the emulated bottleneck through the relay's tunnels only",
  },
  // The kernel's own qdiscs: `auto` takes them where this host can run the network on them.
  auto: {
    fits: 'namespaces and tc can run this network',
    unmet: async (compiled) => unmetRequirements(compiled, await netemCapabilities()),
  },
  async unavailable() {
    if (process.platform !== 'linux') return `netem needs Linux (this is ${process.platform})`;
    const caps = await netemCapabilities();
    return caps.netns && caps.htb ? null : caps.reasons.join('; ');
  },
  // In a namespace Firefox's WebDriver BiDi port is reached through socat (bidi-forward.js).
  preflight: ({ firefoxPeers }) => (firefoxPeers.length && !findExecutable('socat', process.env.PATH ?? '')
    ? ['--emulator netem: Firefox peers in network namespaces need socat; install it with `npm run setup` (apt-get install socat), or use --emulator relay']
    : []),
  create: createNamespaceEmulator,
  openProbePath: openNetemProbePath,
  removeLeftovers,
  exportScript: exportNetemScript,
  exportTopology: exportNetemTopology,
};
