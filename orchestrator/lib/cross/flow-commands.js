// What the orchestrator tells the pages, and when, to run a scenario's browser-side flows (extra calls and data
// channels): a pure timeline on the media clock that run/run.js arms as timers. Kernel flows (tcp, udp) are not
// the pages' business. Reads `scenario.flows` as lib/cross/flows.js normalises them (times scaled, defaults filled).

import { MAIN_CALL_DEFAULTS } from './flows.js';
import { flowPeers } from './flow-list.js';

/** The flow kinds the pages carry. */
export const BROWSER_FLOW_KINDS = Object.freeze(['call', 'data']);

/**
 * @typedef {import('./flows.js').Flow} Flow
 * @typedef {{ atS: number, peer: string, command: import('../../../signaling/messages.js').Command }} TimedCommand
 */

/**
 * The two peers of each extra call (lib/cross/flows.js flowPeers), in file order from p(N). `left` is the one with the
 * even index (even peers sit left of the bottleneck), which sends in a forward call and offers in every call; with
 * an odd N that is the second of the pair.
 * @param {{ peers: number, flows?: Flow[] }} scenario
 * @returns {Map<string, { left: string, right: string }>} by flow name
 */
function extraCallPeers({ peers, flows = [] }) {
  return new Map(Object.entries(flowPeers({ peers, flows }))
    .map(([name, pair]) => [name, 'sender' in pair ? { left: pair.sender, right: pair.receiver } : { left: pair.a, right: pair.b }]));
}

/**
 * The main call's directions that start held (scenario `mainCall`): every direction until its `startS`, and p1 -> p0
 * all along in a forward-only call. Pages start with these senders inactive (URL `hold`), so no media leaves before
 * the orchestrator resumes them; RTCP still flows.
 * @param {{ peers: number, mainCall?: import('./flows.js').MainCall }} scenario
 * @returns {Array<{ peer: string, remote: string, resumeAtS: number|null }>}
 */
export function mainCallHolds({ peers, mainCall = MAIN_CALL_DEFAULTS }) {
  const main = Array.from({ length: peers }, (_, i) => `p${i}`);
  return main.flatMap((peer) => main.filter((remote) => remote !== peer).flatMap((remote) => {
    if (mainCall.direction === 'forward' && peer === 'p1') return [{ peer, remote, resumeAtS: /** @type {number|null} */ (null) }];
    return mainCall.startS > 0 ? [{ peer, remote, resumeAtS: mainCall.startS }] : [];
  }));
}

/**
 * Every command for the pages, sorted by time (stable: at one time, in the order they must arrive; a call's
 * answerer learns the direction before the offerer's offer can reach it). A command at or after the run's end is
 * left out: the end of the call closes everything.
 * @param {{ peers: number, durationS: number, flows?: Flow[], mainCall?: import('./flows.js').MainCall }} scenario
 * @returns {TimedCommand[]}
 */
export function browserFlowTimeline(scenario) {
  const pairs = extraCallPeers(scenario);
  /** @type {TimedCommand[]} */
  const timeline = mainCallHolds(scenario).filter(({ resumeAtS }) => resumeAtS !== null)
    .map(({ peer, remote, resumeAtS }) => at(/** @type {number} */ (resumeAtS), peer, { type: 'resume', remote }));
  for (const flow of scenario.flows ?? []) {
    if (flow.kind === 'call') timeline.push(...callCommands(flow, /** @type {{ left: string, right: string }} */ (pairs.get(flow.name))));
    if (flow.kind === 'data') timeline.push(...dataCommands(flow));
  }
  return timeline.filter(({ atS }) => atS < scenario.durationS).sort((a, b) => a.atS - b.atS);
}

/**
 * @param {number} atS @param {string} peer @param {import('../../../signaling/messages.js').Command} command
 * @returns {TimedCommand}
 */
const at = (atS, peer, command) => ({ atS, peer, command });

/** @param {Flow} flow @param {{ left: string, right: string }} pair @returns {TimedCommand[]} */
function callCommands(flow, { left, right }) {
  const direction = flow.direction === 'forward' ? 'forward' : 'both';
  const senders = direction === 'forward' ? [[left, right]] : [[left, right], [right, left]];
  return [
    at(flow.startS, right, { type: 'call', remote: left, direction, role: 'answerer' }),
    at(flow.startS, left, { type: 'call', remote: right, direction, role: 'offerer' }),
    ...(flow.pauses ?? []).flatMap(({ atS, durationS }) => senders.flatMap(([peer, remote]) => [
      at(atS, peer, { type: 'pause', remote }),
      // A pause that lasts to the hang-up needs no resume.
      ...(atS + durationS < flow.stopS ? [at(atS + durationS, peer, { type: 'resume', remote })] : []),
    ])),
    at(flow.stopS, left, { type: 'hang-up', remote: right }),
    at(flow.stopS, right, { type: 'hang-up', remote: left }),
  ];
}

/** @param {Flow} flow @returns {TimedCommand[]} */
function dataCommands({ name, startS, stopS, from = 'p0', to = 'p1' }) {
  return [
    at(startS, from, { type: 'data-start', remote: to, flow: name }),
    at(stopS, from, { type: 'data-stop', remote: to, flow: name }),
  ];
}
