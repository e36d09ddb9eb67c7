// The node-relay backend: --grid's peers shaped on their own machines, by the relay each grid-node runs
// (control-server.js). A peer's uplink is shaped on its node's relay and its downlink on its node's relay; a packet
// between nodes crosses the sender's relay, then the receiver's (routes.js). Janus stays on the orchestrator's host,
// gathering on the address the nodes reach it at (sfuAddress, --grid-listen): a peer and Janus meet on that peer's
// node relay, which carries the peer's uplink and downlink. An SFU room's load participants run on the orchestrator's
// host too; each one's links are carried by the relay of a measured peer's node (load<i> on p<i mod peers>'s), so its
// media to Janus crosses that node and back, shaped there. Its contract: ../contract.js.
import { randomBytes } from 'node:crypto';
import { InputError } from '../../lib/system/errors.js';
import { SFU_NODE, isLoadNode } from '../../lib/network/topology.js';
import { parseCandidate, withAddress } from '../candidates.js';
import { openNodeRelay } from './client.js';
import { pathSummary } from './path-probe.js';
import { relayPeer, splitRoutes } from './routes.js';

/** Path probes per ordered pair of nodes: PROBE_COUNT datagrams PROBE_INTERVAL_MS apart. */
const PROBE_COUNT = 20;
const PROBE_INTERVAL_MS = 10;

/** @typedef {import('../contract.js').RemotePeers} RemotePeers */

/**
 * A peer's node, which must advertise its relay; a load participant's is the node of the measured peer it is lent to.
 * @param {Required<RemotePeers>} grid @param {string[]} peers  the measured peers @param {string} name
 */
export function relayNode(grid, peers, name) {
  const peer = isLoadNode(name) ? peers[Number(name.slice('load'.length)) % peers.length] : name;
  const node = grid.nodeOf(peer);
  if (!node?.relay) {
    throw new InputError(`--emulator node-relay: ${peer}'s grid-node ${node?.label ?? '(none)'} advertises no relay (wtb:relay); `
      + 'start it with this project\'s grid-node and --host <its IPv4 address>');
  }
  return /** @type {{ label: string, address: string, relay: string }} */ (node);
}

/** @param {string[]} names @param {Record<string, any>} all  any: the links' parameters as compiled, passed on */
const subset = (names, all) => Object.fromEntries(names.filter((name) => name in all).map((name) => [name, all[name]]));

/**
 * Steers a candidate through the relays: a peer's to another peer through its node's relay (and the other's, across
 * nodes); between a peer and Janus through that peer's node relay only, on both sides of the pair.
 * @param {{ sfuAddress: string|undefined, nodeOf: (peer: string) => { label: string, address: string },
 *   relayOf: (peer: string) => Promise<import('./client.js').NodeRelayClient> }} options  relayOf: the relay of the peer's node
 * @returns {import('../contract.js').Emulator['rewriteCandidate']}
 */
export function candidateRewriter({ sfuAddress, nodeOf, relayOf }) {
  return async ({ from, to, candidate }) => {
    const parsed = parseCandidate(candidate.candidate);
    const [fromPeer, toPeer] = [relayPeer(from, to), relayPeer(to, from)];
    const [fromNode, toNode] = [nodeOf(fromPeer), nodeOf(toPeer)];
    // Only a host candidate on its machine's address is steered through the relays; a loopback one is that machine's own.
    // The SFU and the load participants run on this host.
    const ownAddress = from === SFU_NODE || isLoadNode(from) ? sfuAddress : fromNode.address;
    if (!parsed || parsed.transport !== 'udp' || parsed.type !== 'host' || parsed.address !== ownAddress) return null;
    const { address } = parsed;
    const sending = await relayOf(fromPeer);
    const port = await sending.register({ peer: from, remotePeer: to, address, port: parsed.port, bindAddress: fromNode.address });
    if (fromNode.label === toNode.label) return { ...candidate, candidate: withAddress(candidate.candidate, fromNode.address, port) };
    // The receiver's relay sees the sender's relay socket as the sender's candidate.
    const receiving = await relayOf(toPeer);
    const relayed = { peer: from, remotePeer: to, address: fromNode.address, port };
    const remotePort = await receiving.register({ ...relayed, bindAddress: toNode.address });
    return { ...candidate, candidate: withAddress(candidate.candidate, toNode.address, remotePort) };
  };
}

/**
 * The relays are opened once the peers' sessions exist (their nodes are known then), at the first candidate; the
 * links given before are kept and applied when each opens.
 * @param {import('../contract.js').EmulatorOptions} options  sfuAddress: where Janus gathers, in an SFU call
 */
async function createNodeRelayEmulator({ compiled, peers, remotePeers, registerCleanup, sfuAddress }) {
  if (!remotePeers?.registrationSecret) {
    throw new InputError('--emulator node-relay shapes the links on the relays of a Selenium Grid\'s nodes: give --grid <url>');
  }
  if (sfuAddress?.startsWith('127.')) {
    throw new InputError(`--emulator node-relay with an SFU: the SFU meets the node relays on --grid-listen, here ${sfuAddress}, a loopback `
      + 'address it gathers no candidate on; give --grid-listen the address of this host that the grid-nodes reach');
  }
  const grid = /** @type {Required<RemotePeers>} */ (remotePeers);
  // The first bytes of the run's path probes, on every node: each node's echo answers the open run's only.
  const probeToken = randomBytes(16).toString('hex');
  let links = compiled.links;
  /** @type {number|null} */
  let mediaStartEpochMs = null;
  /**
   * @typedef {{ client: import('./client.js').NodeRelayClient, share: import('./routes.js').NodeShare, originEpochMs: number }} OpenRelay
   */
  /** @type {Map<string, Promise<OpenRelay>>} by node label */
  const relays = new Map();
  const nodeOf = (/** @type {string} */ peer) => relayNode(grid, peers, peer);
  const relayOf = (/** @type {string} */ peer) => {
    const node = nodeOf(peer);
    if (!relays.has(node.label)) {
      relays.set(node.label, (async () => {
        const share = splitRoutes(compiled.routes, (p) => nodeOf(p).label)[node.label];
        const { registrationSecret } = grid;
        const client = await openNodeRelay({ label: node.label, control: node.relay, registrationSecret, probeToken });
        const originEpochMs = Date.now();
        await client.configure({ links: subset(share.links, links), routes: share.routes, traces: compiled.traces });
        if (mediaStartEpochMs !== null) await client.restartTraces(mediaStartEpochMs);
        return { client, share, originEpochMs };
      })());
    }
    return /** @type {Promise<OpenRelay>} */ (relays.get(node.label));
  };
  /** The relays opened so far (one that failed to open failed the run already). @returns {Promise<OpenRelay[]>} */
  const opened = async () => (await Promise.all([...relays.values()].map((relay) => relay.catch(() => null))))
    .filter((relay) => relay !== null);
  const close = async () => {
    for (const relay of await opened()) await relay.client.close().catch(() => {});
  };
  const release = registerCleanup?.('node relays', close) ?? close;
  /** @type {import('../contract.js').Emulator} */
  const emulator = {
    name: 'node-relay',
    signalingHost: grid.bindAddress,
    commands: [],
    rewriteCandidate: candidateRewriter({ sfuAddress, nodeOf, relayOf: async (peer) => (await relayOf(peer)).client }),
    async apply(changed, atS) {
      links = { ...links, ...changed };
      const traceOrigin = mediaStartEpochMs !== null && atS !== undefined ? { traceOriginEpochMs: mediaStartEpochMs + atS * 1000 } : {};
      /** @param {OpenRelay} relay */
      const configure = ({ client, share }) => client.configure({ links: subset(share.links, changed), ...traceOrigin });
      await Promise.all((await opened()).map(configure));
    },
    // One after another, so that no probe shares the path with another.
    async probePaths() {
      const onePeerPerNode = new Map(peers.map((peer) => [nodeOf(peer).label, peer]));
      const nodes = await Promise.all([...onePeerPerNode.values()].map(relayOf));
      const paths = [];
      for (const { client: from } of nodes) {
        for (const { client: to } of nodes.filter(({ client }) => client !== from)) {
          const probe = { address: to.address, port: to.echoPort, count: PROBE_COUNT, intervalMs: PROBE_INTERVAL_MS };
          const { sent, rttMs } = await from.probe(probe);
          paths.push(pathSummary({ from: from.label, to: to.label, sent, rttMs }));
        }
      }
      return paths;
    },
    events: compiled.events,
    traceSteps: null,
    async startMedia(epochMs) {
      mediaStartEpochMs = epochMs;
      await Promise.all((await opened()).map(({ client }) => client.restartTraces(epochMs)));
    },
    processMemory: async (peer, pids) => (await relayOf(peer)).client.processMemory(pids),
    // Each row says which node's relay counted it; t counts from that relay's start, anchored to when it was opened.
    truth: async () => (await Promise.all((await opened()).map(async ({ client, originEpochMs }) => (await client.truth())
      .map(({ t, ...row }) => ({ epochMs: originEpochMs + t * 1000, node: client.label, ...row }))))).flat(),
    close: release,
  };
  return emulator;
}

/** @type {import('../contract.js').EmulatorBackend} */
export const nodeRelayBackend = {
  name: 'node-relay',
  summary: '--grid only: the relay every grid-node runs; each peer\'s uplink and downlink shaped on its own machine',
  supports: {
    sfu: true, directSfu: true, kernelFlows: false, firefox: false, traceReplay: true, turn: false, peerNetwork: false, handover: false,
    loadParticipantLinks: true,
  },
  gridNodes: true,
  why: {
    kernelFlows: 'which has no tunnels on the nodes yet',
    firefox: 'which runs Grid peers, and --grid runs Chromium only',
    turn: "which carries only the candidates the harness rewrites: a TURN server's relayed media would bypass its links, unshaped",
    peerNetwork: "which forwards the rewritten candidates in userspace: a NAT or firewall needs the peer's own kernel path",
    handover: "which relays each node's browsers from the node's one address: there is no address of a peer's own to leave",
  },
  unavailable: async () => 'it runs only with --grid, on the relays of the Grid\'s nodes',
  create: createNodeRelayEmulator,
};
