// A peer's handover on a netem topology (a schedule entry's `handover`, lib/network/handover.js), as a phone leaving
// Wi-Fi for cellular: the peer gets a new address in a free /30 of its side's range (the router's end, the hairpin's
// neighbour and the peer's shaping classes to match), its default route moves to it, then every packet between the old
// address and the other nodes is dropped in the router. The old address stays on the peer only for the harness's
// signaling socket (the control path, never shaped): its media path is dead, as the phone's Wi-Fi is. Everything is
// inside the run's namespaces, so it goes with them (cleanup, guardian). Pure: commands only.
import { HarnessError } from '../../lib/system/errors.js';

/** @typedef {import('./topology.js').TopologyPlan} TopologyPlan */
/** @typedef {import('./topology.js').PeerPlan} PeerPlan */

/** Each peer's /30 (topology.js): its router's end is base + 1, the peer base + 2. */
const SLOT_SIZE = 4;

/**
 * The nft table that kills left paths, in the router namespace (removed with it).
 * @param {TopologyPlan} plan
 */
export const handoverTable = (plan) => `${plan.nftTable}_handover`;

/**
 * A free /30 on the peer's side for its new address: the side's /26 from its top, past every address in use.
 * @param {TopologyPlan} plan @param {PeerPlan} peer @param {Set<string>} taken  every address a node has or had
 * @returns {{ address: string, routerAddress: string }}
 */
export function freeSlot(plan, peer, taken) {
  const [network, prefix] = plan.sideRanges[peer.side].split('/');
  const octets = network.split('.');
  const first = Number(octets[3]);
  const slots = 2 ** (32 - Number(prefix)) / SLOT_SIZE;
  for (let slot = slots - 1; slot >= 0; slot -= 1) {
    const at = (offset = 0) => [...octets.slice(0, 3), String(first + slot * SLOT_SIZE + offset)].join('.');
    if (!taken.has(at(2)) && !taken.has(at(1))) return { address: at(2), routerAddress: at(1) };
  }
  throw new HarnessError(`netem: no free address left on the ${peer.side} of the bottleneck for ${peer.name}'s handover; use fewer peers or handovers on that side`);
}

/**
 * The commands that move a peer to `next`: the new path first, then the old one's death, so the peer is never without
 * a path to move to (a phone's cellular is up before its Wi-Fi goes).
 * @param {TopologyPlan} plan @param {PeerPlan} peer  its plan before the move
 * @param {{ address: string, routerAddress: string }} next
 * @returns {string[][]}
 */
export function handoverCommands(plan, peer, next) {
  const R = plan.routerNetns;
  const stage = (/** @type {string} */ link) => {
    const found = plan.stages.find((s) => s.link === link);
    if (!found) throw new HarnessError(`netem: handover of ${peer.name}: this run has no link ${link}`);
    return found;
  };
  const [up, down] = [stage(`${peer.name}.up`), stage(`${peer.name}.down`)];
  /** @param {import('./topology.js').Stage} s @param {string[]} match */
  const classify = (s, match) => ['tc', '-n', R, 'filter', 'add', 'dev', s.device, 'parent', '1:', 'protocol', 'ip', 'prio', '1', 'u32', 'match', ...match, 'flowid', s.classId];
  const table = handoverTable(plan);
  return [
    ['ip', '-n', R, 'addr', 'add', `${next.routerAddress}/30`, 'dev', peer.routerIf],
    ['ip', '-n', R, 'neigh', 'replace', next.address, 'lladdr', plan.hairpin.inMac, 'dev', plan.hairpin.outIf, 'nud', 'permanent'],
    classify(up, ['ip', 'src', `${next.address}/32`, 'match', 'ip', 'dst', plan.peerRange]),
    classify(down, ['ip', 'src', plan.peerRange, 'match', 'ip', 'dst', `${next.address}/32`]),
    ['ip', '-n', peer.netns, 'addr', 'add', `${next.address}/30`, 'dev', peer.peerIf],
    ['ip', '-n', peer.netns, 'route', 'replace', 'default', 'via', next.routerAddress, 'src', next.address],
    // One nft run is one transaction: both directions of the old path die together.
    ['ip', 'netns', 'exec', R, 'nft', 'add', 'table', 'inet', table, ';',
      'add', 'chain', 'inet', table, 'forward', '{', 'type', 'filter', 'hook', 'forward', 'priority', '-10', ';', 'policy', 'accept', ';', '}', ';',
      'add', 'rule', 'inet', table, 'forward', 'ip', 'saddr', peer.address, 'ip', 'daddr', plan.peerRange, 'drop', ';',
      'add', 'rule', 'inet', table, 'forward', 'ip', 'saddr', plan.peerRange, 'ip', 'daddr', peer.address, 'drop'],
  ];
}
