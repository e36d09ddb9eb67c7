/**
 * Standalone shell scripts of a whole schedule (set-up, timed changes with sleeps, teardown via trap), like
 * J16's listings 7.3/7.4, for `export-script`. Pure: returns the script text.
 */
import { InputError } from '../../lib/errors.js';
import { unmetRequirements } from './capabilities.js';
import { linkCommands, setupCommands, teardownCommands } from './commands.js';
import { shellJoin } from './runner.js';
import { chooseAddressBlock, planTopology } from './topology.js';

/** @typedef {import('../../lib/schedule.js').CompiledNetwork} CompiledNetwork */
/** @typedef {{atS: number, lines: string[], causes: string[]}} ScriptStep */

/**
 * Schedule events grouped by time, each group applied at once.
 * @param {CompiledNetwork} compiled
 * @returns {{atS: number, events: CompiledNetwork['events']}[]}
 */
export function groupEvents(compiled) {
  const groups = [];
  for (const event of compiled.events) {
    const last = groups.at(-1);
    if (last && last.atS === event.atS) last.events.push(event);
    else groups.push({ atS: event.atS, events: [event] });
  }
  return groups;
}

/** @param {number} seconds */
const formatSeconds = (seconds) => String(Number(seconds.toFixed(3)));

/**
 * @param {{title: string, notes: string[], setup: string[], steps: ScriptStep[], durationS: number, teardown: string[]}} script
 * @returns {string}
 */
export function renderScheduleScript({ title, notes, setup, steps, durationS, teardown }) {
  const out = [
    '#!/bin/sh',
    `# ${title}`,
    ...notes.map((note) => `# ${note}`),
    '# Run as root. Ctrl-C (or any failing command) tears everything down.',
    '# Sleeps are relative, so the time the commands take accumulates as drift over long schedules.',
    'set -u',
    '',
    'teardown() {',
    '  trap - EXIT INT TERM',
    ...teardown.map((line) => `  ${line} 2>/dev/null || true`),
    '}',
    '',
    '# Leftovers of an earlier run of this script would make set-up fail.',
    'teardown',
    "trap teardown EXIT",
    "trap 'exit 130' INT TERM",
    'set -e',
    '',
    ...setup,
    '',
    `echo "network ready: t=0, schedule runs ${formatSeconds(durationS)} s"`,
  ];
  let nowS = 0;
  for (const step of steps) {
    out.push('', `# t=${formatSeconds(step.atS)} s: ${step.causes.join('; ')}`);
    if (step.atS > nowS) out.push(`sleep ${formatSeconds(step.atS - nowS)}`);
    out.push(...step.lines);
    nowS = step.atS;
  }
  out.push('', '# until the end of the scenario');
  if (durationS > nowS) out.push(`sleep ${formatSeconds(durationS - nowS)}`);
  out.push('');
  return out.join('\n');
}

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
  const steps = groupEvents(compiled).map(({ atS, events }) => ({
    atS,
    causes: [...new Set(events.map((event) => `${event.link} ← ${event.cause}`))],
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
