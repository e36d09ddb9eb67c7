/**
 * The ip / tc / nft / ethtool command lines (argv arrays) that build, reconfigure and remove a netem run's
 * topology (see topology.js). Pure: no I/O, so the same lines feed the emulator, export-script and the tests.
 */
import { InputError } from '../../lib/system/errors.js';
import { queueLimitBytes } from '../../lib/network/link-model.js';

/** @typedef {import('../../lib/network/link-model.js').LinkParams} LinkParams */
/** @typedef {import('./topology.js').TopologyPlan} TopologyPlan */
/** @typedef {import('./topology.js').Stage} Stage */
/** @typedef {string[]} Argv */

/** htb's ceiling for links without a rate: far above what a call on veths can reach. */
export const UNLIMITED_RATE_KBPS = 10_000_000;
/** bfifo limit for links without a rate (no queue can build there; this only bounds memory). */
export const UNLIMITED_QUEUE_BYTES = 4_000_000;
/** One full frame plus slack: htb's burst/quantum floor, so low rates still pass MTU-sized packets. */
export const MIN_BURST_BYTES = 1600;
/** netem's own packet limit; the modelled drop-tail queue is the bfifo below it. */
export const NETEM_LIMIT_PACKETS = 100_000;
/**
 * A rate on netem makes each packet's send time max(previous, now + delay), so jitter never reorders
 * (RFC 8868 style). 1 Gbit/s adds ~10 µs per packet and never binds below the htb rate.
 */
export const NETEM_ORDER_RATE = '1gbit';
/** tc counts the 14-byte Ethernet header; the link model charges IP length (payload + UDP_IPV4_OVERHEAD_BYTES). */
export const ETHERNET_HEADER_BYTES = 14;
/** nft loss resolution: numgen draws from 0..LOSS_SCALE-1 (0.01 %). */
export const LOSS_SCALE = 10_000;

const OFFLOADS = ['tso', 'off', 'gso', 'off', 'gro', 'off'];
/** The qdisc kinds the commands below create. */
const QDISC_KINDS = ['htb', 'netem', 'bfifo', 'clsact'];

/** @param {number} value */
const num = (value) => String(Number(value.toFixed(3)));

/** @param {TopologyPlan} plan @param {...string} args */
const tcR = (plan, ...args) => ['tc', '-n', plan.routerNetns, ...args];
/** @param {string} netns @param {...string} args */
const inNetns = (netns, ...args) => ['ip', 'netns', 'exec', netns, ...args];

/**
 * htb rate/ceil/burst/quantum arguments for a link rate.
 * @param {number|null} rateKbps
 * @returns {Argv}
 */
export function htbArgs(rateKbps) {
  const kbps = rateKbps ?? UNLIMITED_RATE_KBPS;
  const rate = `${Math.round(kbps * 1000)}bit`;
  // 1 ms worth of bytes keeps timer load low at high rates; the floor lets one frame through at low rates.
  const burst = String(Math.max(MIN_BURST_BYTES, Math.ceil(kbps / 8)));
  return ['htb', 'rate', rate, 'ceil', rate, 'burst', burst, 'cburst', burst, 'quantum', String(MIN_BURST_BYTES)];
}

/**
 * Gilbert-Elliott parameters for netem `loss gemodel p r 1-h 1-k`: every packet in the bad state is lost,
 * none in the good one, mean burst length = 1/r, and p chosen so the long-run loss is lossPct.
 * @param {number} lossPct @param {number} lossBurst @param {string} where  names the link in errors
 * @returns {{pPct: number, rPct: number}}
 */
export function gilbertElliott(lossPct, lossBurst, where) {
  const loss = lossPct / 100;
  const r = 1 / lossBurst;
  const p = loss >= 1 ? 1 : (loss * r) / (1 - loss);
  if (p > 1) {
    throw new InputError(`${where}: lossPct ${lossPct} with lossBurst ${lossBurst} cannot be reached by a Gilbert-Elliott chain (needs a good→bad probability above 1); raise lossBurst to at least ${num(loss / (1 - loss))} or lower lossPct`);
  }
  return { pPct: Number((p * 100).toFixed(4)), rPct: Number((r * 100).toFixed(4)) };
}

/**
 * netem arguments restating delay, jitter, loss (and the order-keeping rate).
 * @param {LinkParams} params @param {string} link
 * @returns {Argv}
 */
export function netemArgs(params, link) {
  const loss = params.lossBurst !== null && params.lossPct > 0
    ? (({ pPct, rPct }) => ['gemodel', `${pPct}%`, `${rPct}%`, '100%', '0%'])(gilbertElliott(params.lossPct, params.lossBurst, link))
    : ['random', `${num(params.lossPct)}%`];
  return ['netem', 'limit', String(NETEM_LIMIT_PACKETS), 'delay', `${num(params.oneWayDelayMs)}ms`, `${num(params.jitterMs)}ms`,
    'rate', NETEM_ORDER_RATE, 'loss', ...loss];
}

/** @param {LinkParams} params */
export function fifoLimitBytes(params) {
  return queueLimitBytes(params) ?? UNLIMITED_QUEUE_BYTES;
}

/**
 * The nft rule body dropping lossPct % at random (without sch_netem), counting into counterName.
 * @param {number} lossPct @param {string} counterName
 * @returns {Argv}
 */
export function nftLossRule(lossPct, counterName) {
  // A named counter survives the flush that replaces the rule, so truth() deltas stay cumulative.
  return ['numgen', 'random', 'mod', String(LOSS_SCALE), '<', String(Math.round((lossPct * LOSS_SCALE) / 100)), 'counter', 'name', counterName, 'drop'];
}

/**
 * Sets one link's parameters; verb "add" at set-up, "change" afterwards (restating every parameter, so a
 * change never depends on what was there before).
 * @param {TopologyPlan} plan @param {Stage} stage @param {LinkParams} params
 * @param {{netem: boolean, verb: 'add'|'change'}} options  netem: sch_netem is available
 * @returns {Argv[]}
 */
export function linkCommands(plan, stage, params, { netem, verb }) {
  const { device, classId, netemHandle, fifoHandle } = stage;
  const fifo = ['bfifo', 'limit', String(fifoLimitBytes(params))];
  const commands = [tcR(plan, 'class', verb, 'dev', device, 'parent', '1:', 'classid', classId, ...htbArgs(params.rateKbps))];
  if (netem) {
    commands.push(tcR(plan, 'qdisc', verb, 'dev', device, 'parent', classId, 'handle', netemHandle, ...netemArgs(params, stage.link)));
    commands.push(tcR(plan, 'qdisc', verb, 'dev', device, 'parent', `${netemHandle}1`, 'handle', fifoHandle, ...fifo));
  } else {
    commands.push(tcR(plan, 'qdisc', verb, 'dev', device, 'parent', classId, 'handle', fifoHandle, ...fifo));
    // One nft invocation is one transaction: the link is never briefly without its rule.
    commands.push(inNetns(plan.routerNetns, 'nft', 'flush', 'chain', 'inet', plan.nftTable, stage.nftChain, ';',
      'add', 'rule', 'inet', plan.nftTable, stage.nftChain, ...nftLossRule(params.lossPct, stage.nftChain)));
  }
  return commands;
}

/**
 * Builds the whole topology and sets every link's initial parameters.
 * @param {TopologyPlan} plan @param {Record<string, LinkParams>} links  compiled.links
 * @param {{netem: boolean}} options
 * @returns {Argv[]}
 */
export function setupCommands(plan, links, { netem }) {
  const commands = [...namespaceCommands(plan), ...hairpinCommands(plan), ...shapingCommands(plan, { netem })];
  for (const stage of plan.stages) {
    const params = links[stage.link];
    commands.push(...linkCommands(plan, stage, params, { netem, verb: 'add' }));
    commands.push(tcR(plan, 'filter', 'add', 'dev', stage.device, 'parent', '1:', 'protocol', 'ip', 'prio', '1', 'u32', 'match', ...stage.match, 'flowid', stage.classId));
  }
  return commands;
}

/**
 * The router's and every node's namespace, their veths and routes, and the control veth from the root namespace.
 * @param {TopologyPlan} plan @returns {Argv[]}
 */
function namespaceCommands(plan) {
  const R = plan.routerNetns;
  const commands = [
    ['ip', 'netns', 'add', R],
    ['ip', '-n', R, 'link', 'set', 'dev', 'lo', 'up'],
    // rp_filter would drop the second pass: its source (a peer) is not routed via hp1.
    inNetns(R, 'sysctl', '-qw', 'net.ipv4.ip_forward=1', 'net.ipv4.conf.all.rp_filter=0', 'net.ipv4.conf.default.rp_filter=0'),
  ];
  for (const peer of plan.peers) {
    commands.push(
      ['ip', 'netns', 'add', peer.netns],
      // IPv4 only: an IPv6 address finishing duplicate address detection a second after its veth is up is a network
      // change to a browser starting there, which fails its in-flight page loads (net::ERR_NETWORK_CHANGED).
      inNetns(peer.netns, 'sysctl', '-qw', 'net.ipv6.conf.all.disable_ipv6=1', 'net.ipv6.conf.default.disable_ipv6=1'),
      ['ip', '-n', peer.netns, 'link', 'set', 'dev', 'lo', 'up'],
      ['ip', 'link', 'add', 'name', peer.peerIf, 'netns', peer.netns, 'type', 'veth', 'peer', 'name', peer.routerIf, 'netns', R],
      ['ip', '-n', peer.netns, 'addr', 'add', `${peer.address}/30`, 'dev', peer.peerIf],
      ['ip', '-n', R, 'addr', 'add', `${peer.routerAddress}/30`, 'dev', peer.routerIf],
      inNetns(peer.netns, 'ethtool', '-K', peer.peerIf, ...OFFLOADS),
      inNetns(R, 'ethtool', '-K', peer.routerIf, ...OFFLOADS),
      ['ip', '-n', peer.netns, 'link', 'set', 'dev', peer.peerIf, 'up'],
      ['ip', '-n', R, 'link', 'set', 'dev', peer.routerIf, 'up'],
      ['ip', '-n', peer.netns, 'route', 'add', 'default', 'via', peer.routerAddress],
    );
  }
  const { control } = plan;
  commands.push(
    ['ip', 'link', 'add', 'name', control.rootIf, 'type', 'veth', 'peer', 'name', control.routerIf, 'netns', R],
    ['ip', 'addr', 'add', `${control.rootAddress}/30`, 'dev', control.rootIf],
    ['ip', '-n', R, 'addr', 'add', `${control.routerAddress}/30`, 'dev', control.routerIf],
    ['ethtool', '-K', control.rootIf, ...OFFLOADS],
    inNetns(R, 'ethtool', '-K', control.routerIf, ...OFFLOADS),
    ['ip', 'link', 'set', 'dev', control.rootIf, 'up'],
    ['ip', '-n', R, 'link', 'set', 'dev', control.routerIf, 'up'],
    // The root namespace reaches the peers (signaling replies) through the router, unshaped.
    ['ip', 'route', 'add', plan.peerRange, 'via', control.routerAddress, 'dev', control.rootIf],
  );
  return commands;
}

/**
 * The router's hairpin loop, which sends every packet between two peers through the router a second time (so it
 * crosses both peers' stages).
 * @param {TopologyPlan} plan @returns {Argv[]}
 */
function hairpinCommands(plan) {
  const R = plan.routerNetns;
  /** @type {Argv[]} */
  const commands = [];
  const { hairpin } = plan;
  commands.push(
    ['ip', '-n', R, 'link', 'add', 'name', hairpin.outIf, 'address', hairpin.outMac, 'type', 'veth', 'peer', 'name', hairpin.inIf, 'address', hairpin.inMac],
    inNetns(R, 'ethtool', '-K', hairpin.outIf, ...OFFLOADS),
    inNetns(R, 'ethtool', '-K', hairpin.inIf, ...OFFLOADS),
    ['ip', '-n', R, 'link', 'set', 'dev', hairpin.outIf, 'up'],
    ['ip', '-n', R, 'link', 'set', 'dev', hairpin.inIf, 'up'],
    // No gateway can sit on the loop (its address would be local), so each peer resolves statically to hp1.
    ['ip', '-n', R, 'route', 'add', plan.peerRange, 'dev', hairpin.outIf, 'table', String(plan.hairpinTable)],
  );
  for (const peer of plan.peers) {
    commands.push(
      ['ip', '-n', R, 'neigh', 'replace', peer.address, 'lladdr', hairpin.inMac, 'dev', hairpin.outIf, 'nud', 'permanent'],
      ['ip', '-n', R, 'rule', 'add', 'iif', peer.routerIf, 'to', plan.peerRange, 'lookup', String(plan.hairpinTable), 'priority', '100'],
    );
  }
  return commands;
}

/**
 * The shaping devices: the bottleneck's ifb and its redirects, every stage device's htb root, and without sch_netem
 * the nftables loss chains.
 * @param {TopologyPlan} plan @param {{netem: boolean}} options @returns {Argv[]}
 */
function shapingCommands(plan, { netem }) {
  const R = plan.routerNetns;
  /** @type {Argv[]} */
  const commands = [];
  const hasBottleneck = plan.stages.some((stage) => stage.device === plan.bottleneckIfb);
  if (hasBottleneck) {
    commands.push(['ip', '-n', R, 'link', 'add', 'name', plan.bottleneckIfb, 'type', 'ifb'], ['ip', '-n', R, 'link', 'set', 'dev', plan.bottleneckIfb, 'up']);
  }
  // default 0: unclassified packets (signaling, ARP) bypass the shaping classes.
  const devices = [...new Set(plan.stages.map((stage) => stage.device))];
  for (const device of devices) {
    commands.push(tcR(plan, 'qdisc', 'add', 'dev', device, 'root', 'handle', '1:', 'stab', 'overhead', String(-ETHERNET_HEADER_BYTES), 'htb', 'default', '0'));
  }
  if (hasBottleneck) {
    // Only traffic from the other side crosses the bottleneck; the ifb's classes tell the two directions apart.
    for (const peer of plan.peers) {
      const fromOtherSide = ['u32', 'match', 'ip', 'src', plan.sideRanges[peer.side === 'left' ? 'right' : 'left'], 'match', 'ip', 'dst', plan.sideRanges[peer.side]];
      commands.push(
        tcR(plan, 'qdisc', 'add', 'dev', peer.routerIf, 'clsact'),
        tcR(plan, 'filter', 'add', 'dev', peer.routerIf, 'egress', 'protocol', 'ip', 'prio', '1', ...fromOtherSide, 'action', 'mirred', 'egress', 'redirect', 'dev', plan.bottleneckIfb),
      );
    }
  }
  if (!netem) {
    commands.push(
      inNetns(R, 'nft', 'add', 'table', 'inet', plan.nftTable),
      inNetns(R, 'nft', 'add', 'chain', 'inet', plan.nftTable, 'forward', '{', 'type', 'filter', 'hook', 'forward', 'priority', '0', ';', 'policy', 'accept', ';', '}'),
    );
    for (const stage of plan.stages) {
      commands.push(
        inNetns(R, 'nft', 'add', 'counter', 'inet', plan.nftTable, stage.nftChain),
        inNetns(R, 'nft', 'add', 'chain', 'inet', plan.nftTable, stage.nftChain),
        inNetns(R, 'nft', 'add', 'rule', 'inet', plan.nftTable, 'forward', ...stage.nftMatch, 'jump', stage.nftChain),
      );
    }
  }
  return commands;
}

/** The handle and parent the kernel gives a clsact qdisc (it takes neither). */
const CLSACT = { handle: 'ffff:', parent: 'parent ffff:fff1' };

/**
 * The qdiscs a list of commands leaves on each router device, one line per qdisc as `tc qdisc show` prints it
 * (kind, handle, `root` or `parent X`, and a bfifo's limit in bytes), sorted. Which qdiscs exist depends on
 * the capabilities (sch_netem or not, a bottleneck or not), so the tests compare this, not a fixed list, with
 * what the kernel shows. Pure.
 * @param {Argv[]} commands  e.g. setupCommands(…) followed by linkCommands(…, {verb: 'change'})
 * @returns {Record<string, string[]>} device → qdisc lines
 */
export function qdiscLayout(commands) {
  /** @type {Map<string, Map<string, string>>} device → handle → line (a change restates the qdisc) */
  const devices = new Map();
  for (const argv of commands) {
    const at = argv.indexOf('qdisc');
    if (argv[0] !== 'tc' || at === -1 || argv[at + 2] !== 'dev') continue;
    const device = argv[at + 3];
    const args = argv.slice(at + 4);
    /** @param {string} name */
    const option = (name) => args[args.indexOf(name) + 1];
    const kind = args.find((word) => QDISC_KINDS.includes(word));
    const { handle, parent } = kind === 'clsact' ? CLSACT
      : { handle: option('handle'), parent: args.includes('root') ? 'root' : `parent ${option('parent')}` };
    const limit = kind === 'bfifo' ? ` limit ${option('limit')}` : '';
    const qdiscs = devices.get(device) ?? new Map();
    devices.set(device, qdiscs);
    qdiscs.set(handle, `${kind} ${handle} ${parent}${limit}`);
  }
  return Object.fromEntries([...devices].map(([device, qdiscs]) => [device, [...qdiscs.values()].sort()]));
}

/**
 * Removes what exists of a run: the nft table, the root end of the control veth, every namespace (which takes
 * their veths, ifbs and qdiscs with them).
 * @param {TopologyPlan} plan
 * @param {{netns: Set<string>, rootLinks: Set<string>, nftTables: Set<string>}} existing  what is there now
 * @returns {Argv[]}
 */
export function teardownCommands(plan, existing) {
  const commands = [];
  if (existing.nftTables.has(plan.nftTable)) commands.push(inNetns(plan.routerNetns, 'nft', 'delete', 'table', 'inet', plan.nftTable));
  if (existing.rootLinks.has(plan.control.rootIf)) commands.push(['ip', 'link', 'del', 'dev', plan.control.rootIf]);
  for (const netns of [...plan.peers.map((peer) => peer.netns), plan.routerNetns]) {
    if (existing.netns.has(netns)) commands.push(['ip', 'netns', 'del', netns]);
  }
  return commands;
}
