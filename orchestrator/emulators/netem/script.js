/**
 * The netem backend as standalone shell scripts for `export-script`: a scenario's whole schedule (set-up,
 * timed changes with sleeps, teardown via trap), or the bare topology netem-scripts/setup-namespaces.sh builds.
 * Pure: returns the script text.
 */
import { InputError } from '../../lib/system/errors.js';
import { MAX_PEERS } from '../../lib/input/limits.js';
import { expectNumber } from '../../lib/input/validate.js';
import { compileNetwork, groupScheduleEvents } from '../../lib/network/schedule.js';
import { renderScheduleScript, renderSetupScript, shellJoin, shellQuote } from '../script.js';
import { unmetRequirements } from './capabilities.js';
import { linkCommands, setupCommands, teardownCommands } from './commands.js';
import { chooseAddressBlock, namespaceNodes, planTopology } from './topology.js';
import { profileSetupCommands } from './profiles.js';
import { PROFILE_TABLE } from '../../lib/network/nat-profile.js';
import { SFU_NODE } from '../../lib/network/topology.js';
import { shortRunId } from '../../lib/system/run-id.js';

/** @typedef {import('../../lib/network/schedule.js').CompiledNetwork} CompiledNetwork */

/** The run id scripts use unless given one. */
export const SCRIPT_RUN_ID = 'script';

/** @param {string} runId */
export const defaultBlock = (runId) => chooseAddressBlock(shortRunId(runId), new Set());

/**
 * The netem backend's script for a compiled network.
 * @param {CompiledNetwork} compiled
 * @param {{scenario: string, durationS: number, peers: string[], netem?: boolean, runId?: string, block?: number,
 *   peerNetwork?: import('../../lib/network/nat-profile.js').PeerNetworks, middleNode?: boolean}} options
 *   netem: the target kernel has sch_netem (default); without it loss goes to nftables and delay is refused;
 *   runId names the namespaces (wtb-<id>-…); block: addresses from 10.201.<block>.0/24; peerNetwork: the peers' NAT and
 *   firewall rules (the run's, emulators/netem/profiles.js); middleNode: the namespace a TURN server runs in
 * @returns {string}
 */
export function netemScript(compiled, {
  scenario, durationS, peers, netem = true, runId = SCRIPT_RUN_ID, block = defaultBlock(runId), peerNetwork = {}, middleNode = false,
}) {
  const caps = { netns: true, htb: true, ifb: true, nftables: true, netem, reasons: [] };
  const missing = unmetRequirements(compiled, caps);
  if (missing.length > 0) throw new InputError(`export-script ${scenario} --no-sch-netem: ${missing.join('; ')}`);
  const nodes = namespaceNodes(peers, compiled.routes, middleNode);
  const plan = planTopology({ runId, peers: nodes, links: Object.keys(compiled.links), block });
  const middle = middleNode ? plan.peers.find((peer) => peer.name === SFU_NODE) : undefined;
  const everything = {
    netns: new Set([plan.routerNetns, ...plan.peers.map((peer) => peer.netns)]),
    rootLinks: new Set([plan.control.rootIf]),
    nftTables: new Set(netem ? [] : [plan.nftTable]),
  };
  const steps = groupScheduleEvents(compiled.events).map(({ atS, events }) => ({
    atS,
    events,
    lines: events.flatMap((event) => {
      const stage = plan.stages.find((s) => s.link === event.link);
      // The plan has a stage for every link of the compiled network, which is all its schedule changes.
      if (!stage) throw new Error(`netem script: the schedule changes link ${event.link}, which the plan lacks; report this as a bug`);
      return linkCommands(plan, stage, event.params, { netem, verb: 'change' });
    }).map(shellJoin),
  }));
  return renderScheduleScript({
    title: `webrtc-testbed scenario ${shellQuote(scenario)}: Linux namespaces + htb/bfifo + ${netem ? 'netem' : 'nftables loss'}`,
    notes: [
      `Peers: ${plan.peers.map((peer) => `${shellQuote(peer.name)} in netns ${shellQuote(peer.netns)} at ${shellQuote(peer.address)}`).join(', ')}.`,
      `Start each browser with: ip netns exec <netns> chromium …; signaling must listen on ${shellQuote(plan.control.rootAddress)} (root namespace).`,
      'Topology and stages: netem-scripts/README.md.',
      ...(Object.keys(peerNetwork).length ? [`Network profiles (nftables table ip ${PROFILE_TABLE} in each profiled peer's namespace): ${Object.entries(peerNetwork)
        .map(([peer, { nat, firewall }]) => `${shellQuote(peer)} ${[nat && `${nat} NAT`, firewall].filter(Boolean).join(' + ')}`).join(', ')}.`] : []),
      ...(middle ? [`No TURN server is started: run one (e.g. coturn) with: ip netns exec ${shellQuote(middle.netns)} turnserver … listening on ${shellQuote(middle.address)}.`] : []),
    ],
    setup: [...setupCommands(plan, compiled.links, { netem }), ...profileSetupCommands(plan, peerNetwork)].map(shellJoin),
    steps,
    durationS,
    teardown: teardownCommands(plan, everything).map(shellJoin),
  });
}

/**
 * The netem topology with every link unconstrained, left standing (no schedule, no teardown): what
 * netem-scripts/setup-namespaces.sh runs. Shape links afterwards with `tc … change` (netem-scripts/README.md).
 * @param {{runId: string, peers: number, block: number, bottleneck?: boolean, netem?: boolean}} options
 *   runId: [a-z0-9]{1,8}, used as is in the names; netem: the kernel has sch_netem (else loss on nftables)
 * @returns {string}
 */
export function netemTopologyScript({ runId, peers, block, bottleneck = false, netem = true }) {
  const compiled = compileNetwork({ file: 'export-script --topology-only', peers, network: bottleneck ? { bottleneck: {} } : {} });
  const peerNames = Array.from({ length: peers }, (_, i) => `p${i}`);
  const plan = planTopology({ runId, peers: peerNames, links: Object.keys(compiled.links), block });
  return renderSetupScript({
    title: `webrtc-testbed netem topology ${shellQuote(plan.id)}: ${peers} peers${bottleneck ? ' and a bottleneck (bottleneck.fwd, bottleneck.back)' : ''}, every link unconstrained, loss on ${netem ? 'netem' : 'nftables'}`,
    notes: [
      'The commands the netem emulator runs at set-up (orchestrator/emulators/netem/commands.js). Run as root.',
      'Shape a link with `tc … change` (netem-scripts/README.md); remove everything with netem-scripts/teardown.sh.',
    ],
    setup: setupCommands(plan, compiled.links, { netem }).map(shellJoin),
    // echo's argument as a whole is quoted
    done: `ready: peers in ${plan.peers.map((peer) => `${peer.netns} at ${peer.address}`).join(', ')}; signaling reachable at ${plan.control.rootAddress}; remove with teardown.sh ${plan.id}`,
  });
}

/** Run ids used as they are in namespace and interface names (IFNAMSIZ leaves 8 characters). */
const RUN_ID = /^[a-z0-9]{1,8}$/;

/**
 * The naming flags (--run-id, --block), checked.
 * @param {import('../contract.js').ScriptFlags} flags
 * @returns {{runId: string, block: number}}
 */
function namesOf({ runId = SCRIPT_RUN_ID, block }) {
  if (!RUN_ID.test(runId)) throw new InputError(`--run-id ${JSON.stringify(runId)}: must be 1-8 characters of a-z and 0-9 (it goes into interface names)`);
  return { runId, block: block === undefined ? defaultBlock(runId) : expectNumber(block, '--block', { min: 0, max: 255, integer: true }) };
}

/** @type {NonNullable<import('../contract.js').EmulatorBackend['exportScript']>} */
export const exportNetemScript = (compiled, request, flags) => netemScript(compiled, {
  ...request, ...namesOf(flags), netem: flags.schNetem,
});

/** @type {NonNullable<import('../contract.js').EmulatorBackend['exportTopology']>} */
export function exportNetemTopology(flags) {
  const peers = expectNumber(flags.peers ?? 2, '--peers', { min: 1, max: MAX_PEERS, integer: true });
  return netemTopologyScript({ ...namesOf(flags), peers, bottleneck: flags.bottleneck ?? false, netem: flags.schNetem });
}
