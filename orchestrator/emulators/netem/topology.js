/**
 * Names and addresses of one netem run's namespaces, veths and shaping stages. Pure: no I/O.
 *
 * Topology (docs in netem-scripts/README.md): one namespace per peer and one router namespace
 * `wtb-<id>-r`; peer pi's `eth0` is veth-paired with the router's `pi`. The router also has `ctl`,
 * veth-paired with `wtb<id>c` in the root namespace, which carries signaling unshaped.
 *
 * Peers on the left of the bottleneck (p0, p2, …; lib/network/topology.js peerSide) get addresses in one /26, those on
 * the right in the next, so a side is one address range. Every peer-to-peer packet is forwarded twice inside the
 * router, through a veth pair `hp0`/`hp1` looped back into the router itself (policy routing: packets from a peer
 * port to a peer go out `hp0`), and crosses the shaping stages of its route in order:
 *   pi.up            root htb on `hp0`, one class per source peer
 *   bottleneck.fwd   ifb `ifb-bn`, class for left -> right: clsact egress on a right peer's `pj` redirects
 *                    traffic from the left there
 *   bottleneck.back  the same ifb, class for right -> left, fed from the left peers' ports
 *   pj.down          root htb on `pj` itself, one class for traffic to pj
 * so every route ["pi.up", ("bottleneck.fwd" | "bottleneck.back"), "pj.down"] is exact for any number of peers;
 * traffic between peers on one side never reaches the ifb. Every stage sits after
 * IP forwarding, where the kernel has detached the packet from its sending socket: a queue in the router never
 * pushes back on the sender (a UDP sender would otherwise block instead of seeing drops).
 */
import { createHash } from 'node:crypto';
import { shortRunId } from '../../lib/system/run-id.js';
import { HarnessError, InputError } from '../../lib/system/errors.js';
import { MAX_PEERS } from '../../lib/input/limits.js';
import { BOTTLENECK_LINKS, SFU_NODE, isLoadNode, peerSide } from '../../lib/network/topology.js';

/** Every namespace, root link and nft table of the netem backend starts with this (see `cleanup`). */
export const NAME_PREFIX = 'wtb';
export const NAMESPACE_PREFIX = `${NAME_PREFIX}-`;
/** Peer and router addresses come from 10.201.<block>.0/24, one /24 per run. */
export const ADDRESS_SECOND_OCTET = 201;
/** Fixed, locally administered MACs of the router's loop (each run has its own namespace). */
const HAIRPIN_MACS = ['02:77:74:62:00:01', '02:77:74:62:00:02'];
const HAIRPIN_TABLE = 100;
/** Both directions of the bottleneck are classes of this one ifb. */
const BOTTLENECK_IFB = 'ifb-bn';
/** A /26 of /30s. */
const PEERS_PER_SIDE = 16;

/**
 * The /24 block for a run: a hash of the id, moved on past blocks already used in the root namespace.
 * @param {string} id  a shortRunId
 * @param {Set<number>} usedBlocks  third octets of 10.201.x.y addresses/routes present in the root namespace
 * @returns {number}
 */
export function chooseAddressBlock(id, usedBlocks) {
  const start = createHash('sha1').update(id).digest()[0];
  for (let step = 0; step < 256; step++) {
    const block = (start + step) % 256;
    if (!usedBlocks.has(block)) return block;
  }
  throw new HarnessError(`netem: every 10.${ADDRESS_SECOND_OCTET}.x.0/24 block is in use in the root namespace; run \`webrtc-testbed cleanup\` to remove crashed runs`);
}

/**
 * The nodes that get a namespace: the peers, and in an SFU call the SFU node (Janus runs in it), which the compiled
 * routes name, or asked for (middleNode: a run's TURN server runs in it), then the SFU room's load participants whose
 * routes the network keeps (their links shaped: each runs in a namespace of its own beside the SFU's). The SFU node is
 * planned like a peer on its side of the bottleneck, with no links of its own: a packet from pi to it crosses pi.up
 * (and the bottleneck between the sides), one from it to pj crosses pj.down, exactly lib/network/schedule.js's SFU
 * routes; so a packet relayed through it from pi to pj crosses the mesh route pi->pj's stages, in order.
 * @param {string[]} peers @param {Record<string, string[]>} [routes]  compiled.routes
 * @param {boolean} [middleNode]
 * @returns {string[]}
 */
export function namespaceNodes(peers, routes = {}, middleNode = false) {
  const sources = Object.keys(routes).filter((route) => route.endsWith(`->${SFU_NODE}`)).map((route) => route.split('->')[0]);
  const loads = sources.filter(isLoadNode);
  return middleNode || sources.length ? [...peers, SFU_NODE, ...loads] : peers;
}

/**
 * @typedef {object} PeerPlan
 * @property {string} name        p0, p1, …, or the SFU node (lib/network/topology.js SFU_NODE)
 * @property {'left'|'right'} side  of the bottleneck
 * @property {string} netns       wtb-<id>-p0
 * @property {string} peerIf      the peer's interface inside its namespace
 * @property {string} routerIf    the router's interface toward this peer
 * @property {string} address     the peer's address
 * @property {string} routerAddress
 */

/**
 * @typedef {object} Stage  where one link direction is shaped
 * @property {string} link        p0.up, p1.down, bottleneck.fwd
 * @property {string} device      router interface whose root htb carries the class
 * @property {string} classId     htb class, e.g. 1:3
 * @property {string} netemHandle leaf netem qdisc (used when sch_netem exists), e.g. 103:
 * @property {string} fifoHandle  bfifo queue, e.g. 203:
 * @property {string[]} match     u32 selectors of the class filter
 * @property {string} nftChain    chain holding the nft loss rule (used without sch_netem)
 * @property {string[]} nftMatch  nft selector (forward hook) that jumps to that chain: the first pass for
 *   uplinks, the second (from hp1) for the bottleneck and downlinks, so loss always precedes the link's queue
 */

/**
 * @typedef {object} TopologyPlan
 * @property {string} id
 * @property {string} routerNetns
 * @property {PeerPlan[]} peers
 * @property {{rootIf: string, routerIf: string, rootAddress: string, routerAddress: string}} control
 * @property {string} peerRange   CIDR holding every peer address, routed from the root via the router
 * @property {{left: string, right: string}} sideRanges  CIDRs holding the addresses of each side's peers
 * @property {{outIf: string, inIf: string, outMac: string, inMac: string}} hairpin  the router's loop for the second pass
 * @property {number} hairpinTable  policy-routing table sending peer-to-peer packets into the loop
 * @property {string} bottleneckIfb
 * @property {string} nftTable    table in the router namespace (family inet)
 * @property {Stage[]} stages     one per link of the compiled network
 */

/**
 * @param {{runId: string, peers: string[], links: string[], block: number}} options
 *   links: the compiled network's link names; block: from chooseAddressBlock
 * @returns {TopologyPlan}
 */
export function planTopology({ runId, peers, links, block }) {
  const id = shortRunId(runId);
  if (peers.length < 1 || peers.length > MAX_PEERS) {
    throw new HarnessError(`netem: needs 1 to ${MAX_PEERS} peers, got ${peers.length}`);
  }
  const net = `10.${ADDRESS_SECOND_OCTET}.${block}`;
  // Peers live in the upper half of the /24, one /30 each, so one /25 selects "between peers"; the left side's
  // /26 comes first, so one /26 selects a side.
  const sideBase = { left: 128, right: 192 };
  const onSide = { left: 0, right: 0 };
  const peerPlans = peers.map((name) => {
    const side = peerSide(name);
    const slot = onSide[side]++;
    if (slot >= PEERS_PER_SIDE) {
      const onThatSide = peers.filter((peer) => peerSide(peer) === side);
      const fewer = side === 'right' ? ' (the SFU and its load participants sit on the right with p1, p3, …); give the scenario fewer load '
        + 'participants or peers' : '; give the scenario fewer peers';
      throw new InputError(`netem: at most ${PEERS_PER_SIDE} nodes on the ${side} of the bottleneck (one /26), got ${onThatSide.length}: `
        + `${onThatSide.join(', ')}${fewer}, or use --emulator relay`);
    }
    const base = sideBase[side] + 4 * slot;
    return {
      name, side, netns: `${NAMESPACE_PREFIX}${id}-${name}`, peerIf: 'eth0', routerIf: name, address: `${net}.${base + 2}`, routerAddress: `${net}.${base + 1}`,
    };
  });
  const peerRange = `${net}.128/25`;
  const sideRanges = { left: `${net}.128/26`, right: `${net}.192/26` };
  const byName = new Map(peerPlans.map((peer) => [peer.name, peer]));
  const hairpin = { outIf: 'hp0', inIf: 'hp1', outMac: HAIRPIN_MACS[0], inMac: HAIRPIN_MACS[1] };
  const stages = links.map((link, index) => {
    const n = index + 1;
    const handles = { classId: `1:${n.toString(16)}`, netemHandle: `${(0x100 + n).toString(16)}:`, fifoHandle: `${(0x200 + n).toString(16)}:` };
    const nftChain = link.replace(/\W/g, '_');
    if (link in BOTTLENECK_LINKS) {
      const [from, to] = [sideRanges[BOTTLENECK_LINKS[link].from], sideRanges[BOTTLENECK_LINKS[link].to]];
      return {
        link, device: BOTTLENECK_IFB, ...handles, match: ['ip', 'src', from, 'match', 'ip', 'dst', to],
        nftChain, nftMatch: ['iifname', hairpin.inIf, 'ip', 'saddr', from, 'ip', 'daddr', to],
      };
    }
    const [peerName, direction] = link.split('.');
    const peer = byName.get(peerName);
    if (!peer || !['up', 'down'].includes(direction)) {
      throw new HarnessError(`netem: link '${link}' is not <peer>.up, <peer>.down, ${Object.keys(BOTTLENECK_LINKS).join(' or ')} for peers ${peers.join(', ')}`);
    }
    if (direction === 'up') {
      return { link, device: hairpin.outIf, ...handles, match: ['ip', 'src', `${peer.address}/32`, 'match', 'ip', 'dst', peerRange], nftChain, nftMatch: ['iifname', peer.routerIf, 'ip', 'daddr', peerRange] };
    }
    return { link, device: peer.routerIf, ...handles, match: ['ip', 'src', peerRange, 'match', 'ip', 'dst', `${peer.address}/32`], nftChain, nftMatch: ['iifname', hairpin.inIf, 'oifname', peer.routerIf] };
  });
  return {
    id,
    routerNetns: `${NAMESPACE_PREFIX}${id}-r`,
    peers: peerPlans,
    control: { rootIf: `${NAME_PREFIX}${id}c`, routerIf: 'ctl', rootAddress: `${net}.1`, routerAddress: `${net}.2` },
    peerRange,
    sideRanges,
    hairpin,
    hairpinTable: HAIRPIN_TABLE,
    bottleneckIfb: BOTTLENECK_IFB,
    nftTable: `${NAME_PREFIX}_${id}`,
    stages,
  };
}
