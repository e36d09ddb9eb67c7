/**
 * dummynet command generation for the same link model and schedule, as J16 ran it (listings 7.3/7.4):
 * pipes configured with `bw …Kbit/s delay …ms plr … queue …`, changes by reconfiguring a pipe. Pure: the
 * commands are shell lines, run by the dummynet emulator (`sh -c`) or written out by export-script.
 *
 * FreeBSD (ipfw): one pipe per link direction. With net.inet.ip.fw.one_pass=0 a packet leaving a pipe goes on
 *   to the next rule, so rules in route order (uplinks, bottleneck, downlinks), all on `out`, make every
 *   route ["pi.up", ("bottleneck.fwd" | "bottleneck.back"), "pj.down"] exact, on a gateway and on loopback alike:
 *   bottleneck.fwd matches the left peers' addresses to the right ones' (lib/network/topology.js peerSide), .back the reverse.
 * macOS (dnctl + pf): pf hands a packet to one dummynet pipe per pass, so each route (pi -> pj) gets one pipe
 *   with the route's end-to-end conditions (link-model pathConditions) and the queue of its slowest link:
 *   exact when at most one link of a route limits the rate (the 2-peer scenarios), approximate otherwise.
 */
import { InputError } from '../../lib/system/errors.js';
import { pathConditions, queueLimitBytes } from '../../lib/network/link-model.js';
import { BOTTLENECK_LINKS, peerSide } from '../../lib/network/topology.js';
import { shellJoin } from '../script.js';

/** @typedef {import('../../lib/network/link-model.js').LinkParams} LinkParams */

export const PLATFORMS = ['freebsd', 'macos'];
export const PIPE_BASE = 1000;
export const RULE_BASE = 10000;
/** ipfw rule set holding the harness's rules, removed as a whole. */
export const IPFW_SET = 7;
export const PF_ANCHOR = 'wtb';
/** dummynet's defaults: 100 slots and 1 MB per queue; larger queues need the sysctls raised. */
export const DEFAULT_SLOT_LIMIT = 100;
export const DEFAULT_BYTE_LIMIT = 1024 * 1024;
/** Queue for links without a rate (none builds; dummynet needs a size). */
const UNLIMITED_QUEUE_SLOTS = 50;

const SYSCTL_PREFIX = { freebsd: 'net.inet.ip.dummynet', macos: 'net.inet.ip.dummynet' };

/**
 * @typedef {object} DummynetPlan
 * @property {'freebsd'|'macos'} platform
 * @property {Record<string, string>} addresses  peer -> IPv4 address
 * @property {{pipe: number, link?: string, route?: string[], from?: string, to?: string}[]} pipes
 *   freebsd: one per link; macos: one per route with its endpoints
 */

/** @param {number} value */
const num = (value) => String(Number(value.toFixed(4)));

/** Where a link sits in every route: uplinks 0, the bottleneck 1, downlinks 2. @param {string} link */
export const stageRank = (link) => (link.endsWith('.up') ? 0 : link in BOTTLENECK_LINKS ? 1 : 2);

/**
 * The queue clause: slots for queuePackets, Kbytes for queueMs (at the current rate).
 * @param {LinkParams} params @returns {{clause: string[], slots: number|null, bytes: number|null}}
 */
export function queueClause(params) {
  if (params.rateKbps === null) return { clause: ['queue', String(UNLIMITED_QUEUE_SLOTS)], slots: UNLIMITED_QUEUE_SLOTS, bytes: null };
  if (params.queuePackets !== null) return { clause: ['queue', String(params.queuePackets)], slots: params.queuePackets, bytes: null };
  const kbytes = Math.max(1, Math.round(/** @type {number} */ (queueLimitBytes(params)) / 1024));
  return { clause: ['queue', `${kbytes}Kbytes`], slots: null, bytes: kbytes * 1024 };
}

/**
 * `bw … delay … plr … queue …` restating every parameter. dummynet has no jitter and no bursty loss.
 * @param {LinkParams} params @param {string} where  names the link in errors
 * @returns {string[]}
 */
export function pipeConfigArgs(params, where) {
  if (params.jitterMs > 0) {
    throw new InputError(`${where}: jitterMs ${params.jitterMs}: dummynet has no jitter; use --emulator netem or --emulator relay`);
  }
  if (params.lossBurst !== null && params.lossPct > 0) {
    throw new InputError(`${where}: lossBurst ${params.lossBurst}: dummynet's plr drops independently; use --emulator netem or --emulator relay`);
  }
  // bw 0 is dummynet's "no limit"; delay is whole milliseconds.
  const bw = params.rateKbps === null ? '0' : `${num(params.rateKbps)}Kbit/s`;
  return ['bw', bw, 'delay', String(Math.round(params.oneWayDelayMs)), 'plr', num(params.lossPct / 100), ...queueClause(params).clause];
}

/**
 * @param {{
 *   platform: string, peers: string[], links: string[], routes: Record<string, string[]>, addresses: Record<string, string>,
 * }} options
 * @returns {DummynetPlan}
 */
export function planDummynet({ platform, peers, links, routes, addresses }) {
  if (!PLATFORMS.includes(platform)) {
    throw new InputError(`--platform ${platform}: dummynet commands exist for ${PLATFORMS.join(' and ')}`);
  }
  for (const peer of peers) {
    if (!/^\d{1,3}(\.\d{1,3}){3}$/.test(addresses[peer] ?? '')) {
      throw new InputError(`--address ${peer}=…: needs the IPv4 address peer ${peer} sends from, got ${addresses[peer] ?? 'nothing'}`);
    }
  }
  if (platform === 'freebsd') {
    // Rule order is route order: every uplink, then the bottleneck, then every downlink.
    const ordered = [...links].sort((a, b) => stageRank(a) - stageRank(b));
    return { platform, addresses, pipes: ordered.map((link, i) => ({ pipe: PIPE_BASE + i + 1, link })) };
  }
  const pipes = Object.entries(routes).map(([name, route], i) => {
    const [from, to] = name.split('->');
    return { pipe: PIPE_BASE + i + 1, route, from, to };
  });
  return { platform: /** @type {'macos'} */ (platform), addresses, pipes };
}

/**
 * The params one pipe carries: its link's, or (macOS) its route's end to end, queued like its slowest link.
 * @param {DummynetPlan} plan @param {DummynetPlan['pipes'][number]} pipe @param {Record<string, LinkParams>} state
 * @returns {LinkParams}
 */
export function pipeParams(plan, pipe, state) {
  if (pipe.link) return state[pipe.link];
  const route = /** @type {string[]} */ (pipe.route);
  const end = pathConditions(state, route);
  const limiting = route.map((link) => state[link]).filter((p) => p.rateKbps !== null)
    .sort((a, b) => /** @type {number} */ (a.rateKbps) - /** @type {number} */ (b.rateKbps))[0];
  return {
    ...end,
    queuePackets: limiting?.queuePackets ?? null,
    queueMs: limiting?.queueMs ?? null,
    lossBurst: route.map((link) => state[link].lossBurst).find((burst) => burst !== null) ?? null,
    // dummynet runs a trace as rate steps (lib/network/trace-steps.js steppedNetwork): no pipe carries one.
    trace: null,
  };
}

/** @param {DummynetPlan} plan @param {DummynetPlan['pipes'][number]} pipe @param {Record<string, LinkParams>} state */
function configureLine(plan, pipe, state) {
  const tool = plan.platform === 'freebsd' ? 'ipfw' : 'dnctl';
  const where = pipe.link ?? `route ${pipe.from}->${pipe.to}`;
  return shellJoin([tool, 'pipe', String(pipe.pipe), 'config', ...pipeConfigArgs(pipeParams(plan, pipe, state), where)]);
}

/**
 * sysctls raising dummynet's queue limits when a pipe, at any time of the schedule, needs more.
 * @param {DummynetPlan} plan @param {Record<string, LinkParams>[]} states  every state the schedule passes through
 */
export function limitLines(plan, states) {
  let slots = 0;
  let bytes = 0;
  for (const state of states) {
    for (const pipe of plan.pipes) {
      const queue = queueClause(pipeParams(plan, pipe, state));
      slots = Math.max(slots, queue.slots ?? 0);
      bytes = Math.max(bytes, queue.bytes ?? 0);
    }
  }
  const prefix = SYSCTL_PREFIX[plan.platform];
  return [
    ...(slots > DEFAULT_SLOT_LIMIT ? [shellJoin(['sysctl', `${prefix}.pipe_slot_limit=${slots}`])] : []),
    ...(bytes > DEFAULT_BYTE_LIMIT ? [shellJoin(['sysctl', `${prefix}.pipe_byte_limit=${bytes}`])] : []),
  ];
}

/** @param {DummynetPlan} plan @param {DummynetPlan['pipes'][number]} pipe */
function matchAddresses(plan, pipe) {
  const all = Object.values(plan.addresses).join(',');
  if (!pipe.link) return { from: plan.addresses[/** @type {string} */ (pipe.from)], to: plan.addresses[/** @type {string} */ (pipe.to)] };
  if (pipe.link in BOTTLENECK_LINKS) {
    /** @param {string} which  a side of the bottleneck */
    const side = (which) => Object.entries(plan.addresses).filter(([peer]) => peerSide(peer) === which).map(([, address]) => address).join(',');
    return { from: side(BOTTLENECK_LINKS[pipe.link].from), to: side(BOTTLENECK_LINKS[pipe.link].to) };
  }
  const [peer, direction] = pipe.link.split('.');
  return direction === 'up' ? { from: plan.addresses[peer], to: all } : { from: all, to: plan.addresses[peer] };
}

/**
 * Set-up: limits, pipes at their t = 0 params, the rules sending peer traffic through them.
 * @param {DummynetPlan} plan @param {Record<string, LinkParams>} links  compiled.links
 * @param {Record<string, LinkParams>[]} [laterStates]  states after each schedule event (for the queue limits)
 * @returns {string[]} shell lines
 */
export function dummynetSetup(plan, links, laterStates = []) {
  const lines = [...limitLines(plan, [links, ...laterStates])];
  if (plan.platform === 'freebsd') {
    lines.push(shellJoin(['kldload', '-n', 'dummynet']), shellJoin(['sysctl', 'net.inet.ip.fw.one_pass=0']));
  }
  lines.push(...plan.pipes.map((pipe) => configureLine(plan, pipe, links)));
  if (plan.platform === 'freebsd') {
    plan.pipes.forEach((pipe, i) => {
      const { from, to } = matchAddresses(plan, pipe);
      lines.push(shellJoin(['ipfw', '-q', 'add', String(RULE_BASE + i + 1), 'set', String(IPFW_SET), 'pipe', String(pipe.pipe), 'ip', 'from', from, 'to', to, 'out']));
    });
    return lines;
  }
  const rules = plan.pipes.map((pipe) => {
    const { from, to } = matchAddresses(plan, pipe);
    return `dummynet out quick inet from ${from} to ${to} pipe ${pipe.pipe}`;
  });
  // The main ruleset gains the anchor hooks; /etc/pf.conf is reloaded unchanged at teardown.
  /** @param {string[]} texts */
  const printLines = (texts) => shellJoin(['printf', '%s\\n', ...texts]);
  lines.push(
    `(${shellJoin(['cat', '/etc/pf.conf'])}; ${printLines([`dummynet-anchor "${PF_ANCHOR}"`, `anchor "${PF_ANCHOR}"`])}) | ${shellJoin(['pfctl', '-q', '-f', '-'])}`,
    `${printLines(rules)} | ${shellJoin(['pfctl', '-q', '-a', PF_ANCHOR, '-f', '-'])}`,
    `${shellJoin(['pfctl', '-q', '-e'])} 2>/dev/null || true`,
  );
  return lines;
}

/**
 * Reconfigures the pipes a change touches (restating every parameter).
 * @param {DummynetPlan} plan @param {Record<string, LinkParams>} state  every link's params after the change
 * @param {string[]} changedLinks
 * @returns {string[]}
 */
export function dummynetChange(plan, state, changedLinks) {
  return plan.pipes
    .filter((pipe) => (pipe.link
      ? changedLinks.includes(pipe.link)
      : /** @type {string[]} */ (pipe.route).some((link) => changedLinks.includes(link))))
    .map((pipe) => configureLine(plan, pipe, state));
}

/**
 * @param {DummynetPlan} plan
 * @returns {string[]}
 */
export function dummynetTeardown(plan) {
  if (plan.platform === 'freebsd') {
    return [
      ['ipfw', '-q', 'delete', 'set', String(IPFW_SET)],
      ...plan.pipes.map((pipe) => ['ipfw', '-q', 'pipe', String(pipe.pipe), 'delete']),
      // 1 is the system default; the harness does not record an earlier value.
      ['sysctl', 'net.inet.ip.fw.one_pass=1'],
    ].map(shellJoin);
  }
  return [
    ['pfctl', '-q', '-a', PF_ANCHOR, '-F', 'all'],
    ['pfctl', '-q', '-f', '/etc/pf.conf'],
    ...plan.pipes.map((pipe) => ['dnctl', 'pipe', String(pipe.pipe), 'delete']),
  ].map(shellJoin);
}
