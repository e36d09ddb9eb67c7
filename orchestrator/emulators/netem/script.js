/**
 * The netem backend's schedule as a standalone shell script (set-up, timed changes with sleeps, teardown via
 * trap), for `export-script`. Pure: returns the script text.
 */
import { InputError } from '../../lib/errors.js';
import { groupScheduleEvents } from '../../lib/schedule.js';
import { renderScheduleScript, shellJoin } from '../script.js';
import { unmetRequirements } from './capabilities.js';
import { linkCommands, setupCommands, teardownCommands } from './commands.js';
import { chooseAddressBlock, planTopology } from './topology.js';

/** @typedef {import('../../lib/schedule.js').CompiledNetwork} CompiledNetwork */

/**
 * The netem backend's script for a compiled network.
 * @param {CompiledNetwork} compiled
 * @param {{scenario: string, durationS: number, peers: string[], netem?: boolean, runId?: string}} options
 *   netem: the target kernel has sch_netem (default); without it loss goes to nftables and delay is refused
 * @returns {string}
 */
export function netemScript(compiled, { scenario, durationS, peers, netem = true, runId = 'script' }) {
  const caps = { netns: true, htb: true, ifb: true, nftables: true, netem, reasons: [] };
  const missing = unmetRequirements(compiled, caps);
  if (missing.length > 0) throw new InputError(`export-script ${scenario} --no-sch-netem: ${missing.join('; ')}`);
  const plan = planTopology({ runId, peers, links: Object.keys(compiled.links), block: chooseAddressBlock(runId, new Set()) });
  const everything = {
    netns: new Set([plan.routerNetns, ...plan.peers.map((peer) => peer.netns)]),
    rootLinks: new Set([plan.control.rootIf]),
    nftTables: new Set(netem ? [] : [plan.nftTable]),
  };
  const steps = groupScheduleEvents(compiled.events).map(({ atS, events }) => ({
    atS,
    events,
    lines: events.flatMap((event) => linkCommands(plan, plan.stages.find((s) => s.link === event.link), event.params, { netem, verb: 'change' })).map(shellJoin),
  }));
  return renderScheduleScript({
    title: `webrtc-testbed scenario ${scenario}: Linux namespaces + htb/bfifo + ${netem ? 'netem' : 'nftables loss'}`,
    notes: [
      `Peers: ${plan.peers.map((peer) => `${peer.name} in netns ${peer.netns} at ${peer.address}`).join(', ')}.`,
      `Start each browser with: ip netns exec <netns> chromium …; signaling must listen on ${plan.control.rootAddress} (root namespace).`,
      'Topology and stages: netem-scripts/README.md.',
    ],
    setup: setupCommands(plan, compiled.links, { netem }).map(shellJoin),
    steps,
    durationS,
    teardown: teardownCommands(plan, everything).map(shellJoin),
  });
}
