/**
 * The dummynet schedule as a standalone shell script (J16 listings 7.3/7.4 style). Pure.
 */
import { InputError } from '../../lib/system/errors.js';
import { groupScheduleEvents } from '../../lib/network/schedule.js';
import { renderScheduleScript, shellQuote } from '../script.js';
import { dummynetChange, dummynetSetup, dummynetTeardown, planDummynet } from './commands.js';

/** @typedef {import('../../lib/network/schedule.js').CompiledNetwork} CompiledNetwork */
/** @typedef {import('../../lib/network/link-model.js').LinkParams} LinkParams */

/**
 * Every link's params after each group of schedule events.
 * @param {CompiledNetwork} compiled
 * @returns {{atS: number, events: CompiledNetwork['events'], state: Record<string, LinkParams>}[]}
 */
export function scheduleStates(compiled) {
  let state = { ...compiled.links };
  return groupScheduleEvents(compiled.events).map(({ atS, events }) => {
    state = { ...state, ...Object.fromEntries(events.map((event) => [event.link, event.params])) };
    return { atS, events, state };
  });
}

/**
 * @param {CompiledNetwork} compiled
 * @param {{scenario: string, durationS: number, peers: string[], platform: string, addresses: Record<string, string>}} options
 * @returns {string}
 */
export function dummynetScript(compiled, { scenario, durationS, peers, platform, addresses }) {
  const plan = planDummynet({ platform, peers, links: Object.keys(compiled.links), routes: compiled.routes, addresses });
  const states = scheduleStates(compiled);
  const steps = states.map(({ atS, events, state }) => ({
    atS,
    events,
    lines: dummynetChange(plan, state, events.map((event) => event.link)),
  }));
  const tools = platform === 'freebsd' ? 'ipfw + dummynet' : 'dnctl + pf (dummynet)';
  return renderScheduleScript({
    title: `webrtc-testbed scenario ${shellQuote(scenario)}: ${tools} on ${shellQuote(platform)}`,
    notes: [
      `Peers send from ${peers.map((peer) => `${shellQuote(peer)} ${shellQuote(addresses[peer])}`).join(', ')} (change with --address); rules match traffic between them, outbound.`,
      platform === 'freebsd'
        ? 'ipfw must already be enabled (loading it here could apply a default-deny policy); pipes are chained with one_pass=0.'
        : 'One pipe per direction of each peer pair, carrying the route\'s end-to-end conditions.',
    ],
    setup: dummynetSetup(plan, compiled.links, states.map(({ state }) => state)),
    steps,
    durationS,
    teardown: dummynetTeardown(plan),
  });
}

/**
 * @param {string[]} given  p0=10.0.0.1 …
 * @param {number} peers
 * @returns {Record<string, string>}
 */
export function parseAddresses(given, peers) {
  const addresses = Object.fromEntries(Array.from({ length: peers }, (_, i) => [`p${i}`, `10.0.0.${i + 1}`]));
  for (const entry of given) {
    const match = /^(p\d+)=(\d{1,3}(?:\.\d{1,3}){3})$/.exec(entry);
    if (!match || !(match[1] in addresses)) {
      throw new InputError(`--address ${entry}: expected <peer>=<IPv4 address> with peer one of ${Object.keys(addresses).join(', ')}, e.g. p0=192.168.1.10`);
    }
    addresses[match[1]] = match[2];
  }
  return addresses;
}

/** @type {NonNullable<import('../contract.js').EmulatorBackend['exportScript']>} */
export const exportDummynetScript = (compiled, request, flags) => dummynetScript(compiled, {
  ...request, platform: flags.platform ?? 'freebsd', addresses: parseAddresses(flags.address ?? [], request.peers.length),
});
