/**
 * The dummynet backend's commands at run time (macOS dnctl + pf, FreeBSD ipfw). Pure: shell lines, run by
 * dummynet/index.js. export-script's rules (commands.js) match peer addresses; at run time they match UDP ports:
 *
 * - Chromium gathers no candidate on a loopback interface or a 127/8 address (net::GetNetworkList skips
 *   IFF_LOOPBACK interfaces and loopback addresses); --allow-loopback-in-peer-connection adds one synthetic network
 *   holding 127.0.0.1 alone. No flag (--force-webrtc-ip-handling-policy only narrows to the default route), policy
 *   or RTCPeerConnection setting picks another address, so per-peer lo0 aliases (127.0.0.2, …) would carry nothing.
 * - Rewriting a candidate's address to such an alias, keeping its port, would not route through pipes either: the
 *   socket is bound to 127.0.0.1:port, so a packet to 127.0.0.2:port finds no socket (port unreachable), and the
 *   peer's own packets still leave from 127.0.0.1, where rules on the alias never see them.
 * - The port does tell peers apart: each RTCPeerConnection binds its own UDP socket on 127.0.0.1 and talks to its one
 *   remote only. Before the signaling server passes on peer A's candidate 127.0.0.1:P for B, rules send every UDP
 *   packet from 127.0.0.1:P through the pipes of route A->B. (A connectivity check A sends before its own candidate
 *   reached the server goes unshaped; media starts after ICE and DTLS.)
 * - Chromium also gathers on the machine's other interfaces, and a socket there could reach 127.0.0.1:P and carry
 *   media around the pipes. A rule drops UDP to 127.0.0.1:P from any other address, so the only pair ICE can
 *   complete is the two registered loopback sockets.
 */
import { shellJoin } from '../script.js';
import {
  IPFW_SET, PF_ANCHOR, RULE_BASE, dummynetChange, dummynetTeardown, limitLines, stageRank,
} from './commands.js';

/** @typedef {import('./commands.js').DummynetPlan} DummynetPlan */
/** @typedef {import('../../lib/network/link-model.js').LinkParams} LinkParams */
/** @typedef {{from: string, to: string, port: number}} Registration  peer `from`'s loopback socket for remote `to` */

/** The one address Chromium's loopback candidates have. */
export const RUNTIME_ADDRESS = '127.0.0.1';
/**
 * macOS's /etc/pf.conf evaluates every anchor below com.apple: rules there take effect without reloading the main
 * ruleset, which would drop the anchors system services added to it.
 */
export const PF_RUNTIME_ANCHOR = `com.apple/${PF_ANCHOR}`;
/** ipfw rule numbers: drop rules below the pipes, the pipe rules of each stage in route order (ipfw chains by number). */
const DROP_RULE_BASE = RULE_BASE - 1000;
const RULES_PER_STAGE = 1000;
export const MAX_REGISTRATIONS = RULES_PER_STAGE - 1;

/**
 * Set-up: queue limits and every pipe at its t = 0 params; no rule yet (they come with the candidates).
 * @param {DummynetPlan} plan @param {Record<string, LinkParams>} links compiled.links
 * @param {Record<string, LinkParams>[]} [laterStates] states after each schedule event (for the queue limits)
 * @returns {string[]}
 */
export function runtimeSetup(plan, links, laterStates = []) {
  const freebsd = plan.platform === 'freebsd' ? [shellJoin(['kldload', '-n', 'dummynet']), shellJoin(['sysctl', 'net.inet.ip.fw.one_pass=0'])] : [];
  return [...limitLines(plan, [links, ...laterStates]), ...freebsd, ...dummynetChange(plan, links, Object.keys(links))];
}

/**
 * The rules to run once `registrations` gained its last entry. FreeBSD: that socket's drop rule and one pipe rule
 * per link of its route, numbered so ipfw passes them in route order. macOS: the whole anchor, reloaded (pf hands a
 * packet to one pipe: the route's).
 * @param {DummynetPlan} plan @param {Record<string, string[]>} routes compiled.routes, "p0->p1": links in order
 * @param {Registration[]} registrations every socket registered so far, at most MAX_REGISTRATIONS
 * @returns {string[]}
 */
export function runtimeRules(plan, routes, registrations) {
  if (plan.platform === 'freebsd') {
    const index = registrations.length;
    const { from, to, port } = registrations[index - 1];
    /** @param {string} link */
    const pipeOf = (link) => /** @type {{pipe: number}} */ (plan.pipes.find((pipe) => pipe.link === link)).pipe;
    /** @param {number} number @param {...string} rule */
    const add = (number, ...rule) => shellJoin(['ipfw', '-q', 'add', String(number), 'set', String(IPFW_SET), ...rule]);
    return [
      add(DROP_RULE_BASE + index, 'deny', 'udp', 'from', 'not', RUNTIME_ADDRESS, 'to', RUNTIME_ADDRESS, String(port)),
      ...routes[`${from}->${to}`].map((link) => add(RULE_BASE + stageRank(link) * RULES_PER_STAGE + index,
        'pipe', String(pipeOf(link)), 'udp', 'from', RUNTIME_ADDRESS, String(port), 'to', RUNTIME_ADDRESS, 'out')),
    ];
  }
  const rules = registrations.flatMap(({ from, to, port }) => {
    const pipe = /** @type {{pipe: number}} */ (plan.pipes.find((p) => p.from === from && p.to === to)).pipe;
    return [
      `dummynet out quick inet proto udp from ${RUNTIME_ADDRESS} port ${port} to ${RUNTIME_ADDRESS} pipe ${pipe}`,
      `block drop quick inet proto udp from ! ${RUNTIME_ADDRESS} to ${RUNTIME_ADDRESS} port ${port}`,
    ];
  });
  return [`${shellJoin(['printf', '%s\\n', ...rules])} | ${shellJoin(['pfctl', '-q', '-a', PF_RUNTIME_ANCHOR, '-f', '-'])}`];
}

/**
 * Teardown of everything runtimeSetup and runtimeRules made (pf's enable reference is released by its token).
 * @param {DummynetPlan} plan
 * @returns {string[]}
 */
export function runtimeTeardown(plan) {
  if (plan.platform === 'freebsd') return dummynetTeardown(plan);
  return [
    shellJoin(['pfctl', '-q', '-a', PF_RUNTIME_ANCHOR, '-F', 'all']),
    ...plan.pipes.map((pipe) => shellJoin(['dnctl', 'pipe', String(pipe.pipe), 'delete'])),
  ];
}
