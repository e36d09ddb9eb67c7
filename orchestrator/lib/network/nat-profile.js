// A peer's access network (pure): the scenario's `peerNetwork` field (a NAT and a firewall per peer), the nftables
// rules that build it inside the peer's own namespace, and whether the candidate pair ICE selected is one the profiles
// allow. The rules run in orchestrator/emulators/netem/profiles.js.
import { InputError } from '../system/errors.js';
import { describeValue, expectObject, isOneOf } from '../input/validate.js';

/**
 * How the peer's NAT maps and filters (RFC 4787): full-cone, one mapping per internal port, open to anyone; port-
 * restricted, one mapping per internal port, open to the addresses and ports it sent to; symmetric, a new mapping per
 * destination.
 */
export const NAT_TYPES = /** @type {const} */ (['full-cone', 'port-restricted', 'symmetric']);
/** udp-blocked: no UDP in or out; tcp-443-only: only TCP to port 443 (and its replies). */
export const FIREWALLS = /** @type {const} */ (['udp-blocked', 'tcp-443-only']);
/** The private address behind a NAT (on an interface of the peer's namespace alone, each its own LAN). */
export const PRIVATE_ADDRESS = '192.168.77.2';
/** The nftables table (family ip: nat hooks) the profile's rules live in, inside the peer's namespace. */
export const PROFILE_TABLE = 'wtb_profile';
/** The interface holding PRIVATE_ADDRESS: one end of a veth pair whose both ends stay in the peer's namespace (a veth,
 * not a dummy: netem needs veths anyway, and kernels without the dummy module exist). */
export const LAN_INTERFACE = 'lan0';
/** The port a tcp-443-only firewall lets out: the TURN server listens there for its TCP or TLS transport. */
export const OPEN_TCP_PORT = 443;

/**
 * @typedef {{ nat: typeof NAT_TYPES[number]|null, firewall: typeof FIREWALLS[number]|null }} PeerNetwork
 * @typedef {Record<string, PeerNetwork>} PeerNetworks  peer → its profile; peers not named are on the open network
 */

/**
 * The scenario's `peerNetwork`: `{ "p0": { "nat": "symmetric", "firewall": "udp-blocked" } }`, for the main call's peers.
 * In a mesh call a firewall leaves a peer only the scenario's TURN server over TCP or TLS. In an SFU call (no TURN server)
 * udp-blocked leaves it the SFU's ICE-TCP, which the SFU must declare (sfu/index.js checkSfuSupport), and tcp-443-only
 * nothing: the SFU listens on ports of its own.
 * @param {unknown} value @param {{ file: string, peers: number, topology: string, turn: { transport: string }|null }} where
 * @returns {PeerNetworks}
 */
export function validatePeerNetwork(value, { file, peers, topology, turn }) {
  if (value === undefined || value === null) return {};
  const names = Array.from({ length: peers }, (_, i) => `p${i}`);
  const field = expectObject(value, `${file}: peerNetwork`, names, { what: 'an object of peer names to {nat, firewall}, e.g. {"p0": {"nat": "symmetric"}}' });
  /** @type {PeerNetworks} */
  const profiles = {};
  for (const [peer, raw] of Object.entries(field)) {
    const entry = expectObject(raw, `${file}: peerNetwork.${peer}`, ['nat', 'firewall']);
    const nat = optionalOneOf(NAT_TYPES, entry.nat, `${file}: peerNetwork.${peer}.nat`, 'a NAT type');
    const firewall = optionalOneOf(FIREWALLS, entry.firewall, `${file}: peerNetwork.${peer}.firewall`, 'a firewall');
    if (nat === null && firewall === null) throw new InputError(`${file}: peerNetwork.${peer}: give nat (${NAT_TYPES.join(', ')}) or firewall (${FIREWALLS.join(', ')}), or remove ${peer}`);
    if (firewall === 'tcp-443-only' && topology === 'sfu') {
      throw new InputError(`${file}: peerNetwork.${peer}.firewall: tcp-443-only leaves ${peer} no path to the SFU, which listens on ports of its own (an SFU call has no TURN server on 443); use "udp-blocked" (ICE over TCP) or topology mesh with "turn"`);
    }
    if (firewall !== null && topology !== 'sfu' && turn?.transport !== 'tcp' && turn?.transport !== 'tls') {
      throw new InputError(`${file}: peerNetwork.${peer}.firewall: ${firewall} leaves ${peer} no UDP, so its only path is a TURN server over TCP or TLS: add "turn": {"transport": "tcp"} (or "tls")`);
    }
    profiles[peer] = { nat, firewall };
  }
  return profiles;
}

/**
 * @template {string} T
 * @param {readonly T[]} list @param {unknown} value @param {string} path @param {string} what
 * @returns {T|null} null when absent
 */
function optionalOneOf(list, value, path, what) {
  if (value === undefined || value === null) return null;
  if (isOneOf(list, value)) return value;
  throw new InputError(`${path}: ${describeValue(value)} is not ${what}: use one of ${list.join(', ')}`);
}

/** @param {PeerNetworks} profiles @returns {string[]} the peers whose firewall blocks UDP, who reach an SFU only over ICE-TCP */
export const udpBlockedPeers = (profiles) => Object.keys(profiles).filter((peer) => profiles[peer].firewall === 'udp-blocked');

/** @param {PeerNetworks} profiles @returns {boolean} whether any profile uses port 443 only (the TURN server listens there) */
export const needsPort443 = (profiles) => Object.values(profiles).some((p) => p.firewall === 'tcp-443-only');

/**
 * The commands (argv) that put a peer behind its profile, inside its namespace: behind a NAT its browser's sockets are
 * on PRIVATE_ADDRESS (the default route's source), translated to its namespace's own address on the way out; packets
 * to or from that own address that were not translated are dropped, so a host candidate on it leads nowhere. The
 * firewall filters both directions. Every rule lives in the namespace, so it goes with it.
 * @param {PeerNetwork} profile
 * @param {{ netns: string, peerIf: string, address: string, routerAddress: string, controlAddress: string }} peer
 *   address: its namespace's (the NAT's public) address; controlAddress: the harness's page and signaling server
 * @returns {string[][]}
 */
export function profileCommands(profile, { netns, peerIf, address, routerAddress, controlAddress }) {
  /** @param {...string} args */
  const nft = (...args) => ['ip', 'netns', 'exec', netns, 'nft', ...args];
  /** @param {string} chain @param {...string} rule */
  const rule = (chain, ...rule) => nft('add', 'rule', 'ip', PROFILE_TABLE, chain, ...rule);
  /** @param {string} name @param {string} type @param {string} hook @param {string} priority @param {string} policy */
  const chain = (name, type, hook, priority, policy) => nft('add', 'chain', 'ip', PROFILE_TABLE, name,
    '{', 'type', type, 'hook', hook, 'priority', priority, ';', ...(type === 'filter' ? ['policy', policy, ';'] : []), '}');
  const closed = profile.firewall === 'tcp-443-only';
  const commands = [
    nft('add', 'table', 'ip', PROFILE_TABLE),
    chain('output', 'filter', 'output', '0', closed ? 'drop' : 'accept'),
    chain('input', 'filter', 'input', '0', closed ? 'drop' : 'accept'),
    rule('output', 'oifname', 'lo', 'accept'),
    rule('input', 'iifname', 'lo', 'accept'),
  ];
  if (profile.nat) commands.push(...natCommands(profile.nat, { netns, peerIf, address, routerAddress }, chain, rule));
  if (profile.firewall === 'udp-blocked') commands.push(rule('output', 'meta', 'l4proto', 'udp', 'drop'), rule('input', 'meta', 'l4proto', 'udp', 'drop'));
  if (closed) {
    // The harness's own page and signaling server stays reachable (a real page would come over 443 too).
    commands.push(rule('output', 'ip', 'daddr', controlAddress, 'meta', 'l4proto', 'tcp', 'accept'),
      rule('output', 'tcp', 'dport', String(OPEN_TCP_PORT), 'accept'),
      rule('input', 'ct', 'state', 'established,related', 'accept'));
  }
  return commands;
}

/**
 * The NAT: the private address and the default route through it, the translation, and the drop of untranslated
 * traffic on the public address.
 * @param {NonNullable<PeerNetwork['nat']>} nat
 * @param {{ netns: string, peerIf: string, address: string, routerAddress: string }} peer
 * @param {(name: string, type: string, hook: string, priority: string, policy: string) => string[]} chain
 * @param {(chain: string, ...rule: string[]) => string[]} rule
 * @returns {string[][]}
 */
function natCommands(nat, { netns, peerIf, address, routerAddress }, chain, rule) {
  const commands = [
    ['ip', '-n', netns, 'link', 'add', 'name', LAN_INTERFACE, 'type', 'veth', 'peer', 'name', `${LAN_INTERFACE}p`],
    ['ip', '-n', netns, 'addr', 'add', `${PRIVATE_ADDRESS}/32`, 'dev', LAN_INTERFACE],
    // Both ends up, so the interface has carrier and the browser gathers on it.
    ['ip', '-n', netns, 'link', 'set', 'dev', `${LAN_INTERFACE}p`, 'up'],
    ['ip', '-n', netns, 'link', 'set', 'dev', LAN_INTERFACE, 'up'],
    // Unbound sockets (and the browser's default-route address) take the private address.
    ['ip', '-n', netns, 'route', 'replace', 'default', 'via', routerAddress, 'dev', peerIf, 'src', PRIVATE_ADDRESS],
    chain('postrouting', 'nat', 'postrouting', '100', 'accept'),
    // Output sees a packet before its translation, input after: what still carries the public address was never translated.
    rule('output', 'ip', 'saddr', address, 'drop'),
    rule('input', 'ip', 'daddr', address, 'drop'),
  ];
  // Linux conntrack keeps the source port when it is free and lets in only replies to a mapping's own destination:
  // port-restricted. fully-random: a new port for every destination (symmetric).
  const snat = ['oifname', peerIf, 'ip', 'saddr', PRIVATE_ADDRESS, 'snat', 'to', address];
  commands.push(rule('postrouting', ...snat, ...(nat === 'symmetric' ? ['fully-random'] : [])));
  if (nat === 'full-cone') {
    // A static 1:1 mapping: whoever sends to the public address and port reaches the private one.
    commands.push(chain('prerouting', 'nat', 'prerouting', '-100', 'accept'), rule('prerouting', 'iifname', peerIf, 'ip', 'daddr', address, 'dnat', 'to', PRIVATE_ADDRESS));
  }
  return commands;
}

/** A TURN server's relayed address, as RTCIceCandidateType names it. */
const RELAY_CANDIDATE = 'relay';

/**
 * @typedef {{ localType: string|null, localProtocol: string|null, relayProtocol: string|null, remoteType: string|null }} PairTypes
 */

/**
 * Why a selected pair is one the two ends' profiles forbid, or null when it is allowed: a firewalled end reaches the
 * TURN server over TCP or TLS (its UDP is gone), or with udp-blocked the other end straight over TCP (ICE-TCP to an
 * SFU), an end behind a NAT is never reached on a host candidate (its host address is private or dead), and two
 * symmetric NATs meet only through a relay.
 * @param {PairTypes} pair @param {PeerNetwork|undefined} local @param {PeerNetwork|undefined} remote
 * @returns {string|null}
 */
export function forbiddenBy(pair, local, remote) {
  const tcpRelay = pair.localType === RELAY_CANDIDATE && (pair.relayProtocol === 'tcp' || pair.relayProtocol === 'tls');
  // A relay's own candidate is UDP towards the other end whatever the leg to the TURN server runs over.
  const directTcp = pair.localType !== RELAY_CANDIDATE && pair.localProtocol === 'tcp';
  /** @param {PeerNetwork|undefined} end */
  const tcpPasses = (end) => end?.firewall === 'udp-blocked' && directTcp;
  if (local?.firewall && !tcpRelay && !tcpPasses(local)) {
    return `this end's firewall (${local.firewall}) leaves only ${local.firewall === 'udp-blocked' ? 'TCP (ICE-TCP) or ' : ''}a relay over TCP or TLS`;
  }
  if (remote?.firewall && pair.remoteType !== RELAY_CANDIDATE && !tcpPasses(remote)) {
    return `the remote end's firewall (${remote.firewall}) leaves it only ${remote.firewall === 'udp-blocked' ? 'TCP or ' : ''}its relay`;
  }
  if (local?.nat && pair.localType === 'host') return `this end is behind a ${local.nat} NAT: its host candidate is not reachable`;
  if (remote?.nat && pair.remoteType === 'host') return `the remote end is behind a ${remote.nat} NAT: its host candidate is not reachable`;
  if (local?.nat === 'symmetric' && remote?.nat === 'symmetric' && pair.localType !== RELAY_CANDIDATE && pair.remoteType !== RELAY_CANDIDATE) {
    return 'both ends are behind symmetric NATs: only a relay joins them';
  }
  return null;
}
