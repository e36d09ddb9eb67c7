/**
 * The Linux kernel backend: peers in network namespaces behind a router namespace whose htb/bfifo (+ netem,
 * or nftables loss when sch_netem is missing) shape each link direction. Topology: topology.js.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { HarnessError } from '../../lib/system/errors.js';
import { assertCanRun, netemCapabilities } from './capabilities.js';
import { startGuardian } from '../../lib/system/guardian-protocol.js';
import { ownerFile, recordOwner, releaseOwner } from '../../lib/system/owners.js';
import { listNamespaces, listRootLinks } from './cleanup.js';
import { linkCommands, setupCommands, teardownCommands } from './commands.js';
import { createCommandRunner, killRunningCommands } from '../command-runner.js';
import { SFU_NODE } from '../../lib/network/topology.js';
import { ADDRESS_SECOND_OCTET, chooseAddressBlock, namespaceNodes, planTopology } from './topology.js';
import { linkTruth } from './truth.js';
import { forwardIntoNamespace } from './bidi-forward.js';
import { profileSetupCommands } from './profiles.js';
import { freeSlot, handoverCommands } from './handover.js';
import { shortRunId } from '../../lib/system/run-id.js';

/** Runs a command (the browser) inside a namespace: WTB_NETNS, WTB_BROWSER, then the browser's arguments. */
export const NETNS_EXEC_SCRIPT = fileURLToPath(new URL('../../../netem-scripts/netns-exec.sh', import.meta.url));
/** The same for Firefox, tied to the orchestrator's life by setpriv --pdeathsig. */
export const NETNS_FIREFOX_SCRIPT = fileURLToPath(new URL('../../../netem-scripts/netns-firefox.sh', import.meta.url));
const GUARDIAN_PATH = fileURLToPath(new URL('./guardian.js', import.meta.url));

/** @typedef {import('../../lib/network/link-model.js').LinkParams} LinkParams */
/** @typedef {import('../command-runner.js').RunCommand} RunCommand */
/** @typedef {import('./topology.js').TopologyPlan} TopologyPlan */

/**
 * What of a run's topology exists now (namespaces, root links, nft tables in its router namespace).
 * @param {RunCommand} run @param {string} routerNetns
 */
async function inspectExisting(run, routerNetns) {
  const netns = new Set(await listNamespaces(run));
  const rootLinks = new Set(await listRootLinks(run));
  const nftTables = new Set();
  if (netns.has(routerNetns)) {
    const tables = await run(['ip', 'netns', 'exec', routerNetns, 'nft', 'list', 'tables'], { allowFailure: true, record: false });
    for (const m of tables.stdout.matchAll(/^table inet (\S+)/gm)) nftTables.add(m[1]);
  }
  return { netns, rootLinks, nftTables };
}

/**
 * Third octets of 10.201.x.y addresses and routes already in the root namespace.
 * @param {RunCommand} run
 */
async function usedAddressBlocks(run) {
  const quiet = { allowFailure: true, record: false };
  const text = (await run(['ip', '-4', '-o', 'addr', 'show'], quiet)).stdout + (await run(['ip', '-4', 'route', 'show'], quiet)).stdout;
  return new Set([...text.matchAll(new RegExp(`\\b10\\.${ADDRESS_SECOND_OCTET}\\.(\\d+)\\.`, 'g'))].map((m) => Number(m[1])));
}

/**
 * @param {{peers: string[], compiled: import('../../lib/network/schedule.js').CompiledNetwork, runId: string,
 *   log?: (message: string) => void, clock?: () => number, browserPath?: string,
 *   capabilities?: import('./capabilities.js').NetemCapabilities, guardianLog?: string, middleNode?: boolean,
 *   peerNetwork?: import('../../lib/network/nat-profile.js').PeerNetworks}} options
 *   clock: seconds for each command's atS (the orchestrator's media clock); browserPath: the browser
 *   launchSpec wraps; capabilities: skips the probe (tests pretend sch_netem is missing or present); guardianLog: where
 *   the guardian logs what it removes after a killed orchestrator (default: beside the run's owner file); middleNode: a
 *   namespace for a server between the peers (TURN) in a mesh call too; peerNetwork: the peers' NATs and firewalls
 *   (profiles.js), built in their namespaces after the topology
 */
export function createNetemEmulator({
  peers, compiled, runId, log = () => {}, clock, browserPath = '/usr/bin/chromium', capabilities, guardianLog, middleNode = false, peerNetwork = {},
}) {
  const { run, begin, commands } = createCommandRunner({ clock });
  /** @type {Array<Awaited<ReturnType<typeof forwardIntoNamespace>>>} Firefox peers' WebDriver BiDi ports */
  const forwarders = [];
  const linkNames = Object.keys(compiled.links);
  const nodes = namespaceNodes(peers, compiled.routes, middleNode);
  // Names do not depend on the address block, so teardown can use them before set-up has chosen one.
  let plan = planTopology({ runId, peers: nodes, links: linkNames, block: 0 });
  let netem = false;
  let closing = false;
  /** @type {Promise<void>|null} */
  let settingUp = null;
  /** @type {Map<string, import('./truth.js').Counters>} */
  const lastCounters = new Map();
  /** @type {Map<string, string[]>} each link's commands of its last apply: what is in force (set-up used `add`) */
  const lastApplied = new Map();
  /** @type {import('../../lib/system/guardian-protocol.js').Guardian|null} removes the topology if the orchestrator is killed */
  let guardian = null;
  /** @type {Parameters<typeof handOver>[1]} what a handover reads and changes of the run (handOver) */
  const moves = { plan: () => plan, replan: (next) => { plan = next; }, left: [], log };

  /** The run no longer owns its id: nothing of it is left for `cleanup` or the guardian. */
  const release = () => { releaseOwner(plan.id); guardian?.finish(); guardian = null; };

  const teardown = () => removeTopology(run, plan).then(release);

  async function build() {
    const caps = capabilities ?? await netemCapabilities();
    await assertCanRun(compiled, caps);
    netem = caps.netem;
    // Re-running set-up for the same id replaces what a previous (crashed) set-up left.
    await teardown();
    recordOwner(plan.id);
    guardian = startGuardian(GUARDIAN_PATH, [plan.id, guardianLog ?? `${ownerFile(plan.id)}.guardian.log`, ownerFile(plan.id)]);
    const block = chooseAddressBlock(shortRunId(runId), await usedAddressBlocks(run));
    plan = planTopology({ runId, peers: nodes, links: linkNames, block });
    const commands = [...setupCommands(plan, compiled.links, { netem }), ...profileSetupCommands(plan, peerNetwork)];
    await runSetup(run, commands, plan, () => closing);
    lastCounters.clear();
    lastApplied.clear();
    log(`netem: ${nodes.length} namespaces (${nodes.join(', ')}) behind ${plan.routerNetns}, ${netem ? 'netem' : 'nftables'} for loss, signaling on ${plan.control.rootAddress}`);
  }

  return {
    name: 'netem',
    commands,
    /** The topology's names and addresses (after setup). */
    get plan() { return plan; },
    /** The root namespace's end of the control veth: bind the signaling server here (or to 0.0.0.0). */
    get signalingHost() { return plan.control.rootAddress; },
    /** Builds the topology; idempotent for one run id. Throws EnvironmentError before anything starts. */
    async setup() {
      settingUp = build();
      await settingUp;
    },
    /**
     * Reconfigures links (full normalized params each), restating every parameter.
     * @param {Record<string, LinkParams>} linksParams
     */
    async apply(linksParams) {
      for (const [link, params] of Object.entries(linksParams)) {
        const stage = plan.stages.find((s) => s.link === link);
        if (!stage) throw new HarnessError(`netem: apply: unknown link '${link}'; this run has ${linkNames.join(', ')}`);
        const commands = linkCommands(plan, stage, params, { netem, verb: 'change' });
        // A trace's rate steps change only the htb rate, ten times a second: restating the unchanged qdisc and nft rule
        // would triple the tc work and the steps' lateness.
        for (const argv of changedCommands(commands, lastApplied.get(link) ?? [])) await run(argv);
        lastApplied.set(link, commands.map((argv) => argv.join(' ')));
      }
    },
    /** Per-link counters since the previous call: result.json network.truth rows (with epochMs). */
    async truth() {
      return linkTruth({ run, plan, netem, last: lastCounters, epochMs: Date.now() });
    },
    /**
     * How puppeteer launches a peer's browser inside its namespace: Chromium over its pipe (`pipe: true`), Firefox
     * with its WebDriver BiDi port forwarded from the root namespace (bidi-forward.js).
     * @param {string} peer @param {string} [browser] @param {'chromium'|'firefox'} [kind]
     * @returns {Promise<{ executablePath: string, args: string[], env: Record<string, string> }>}
     */
    async launchSpec(peer, browser = browserPath, kind = 'chromium') {
      return netnsLaunchSpec({ netns: peerPlanOf(plan, peer).netns, browser, kind, begin, forwarders });
    },
    /** Moves a peer to a new address, its old one's media path dead (handOver); addressOf then answers the new one. */
    handover: (/** @type {string} */ peer) => handOver(run, moves, peer),
    /** @param {string} peer  a peer or the SFU node */
    addressOf(peer) {
      return peerPlanOf(plan, peer).address;
    },
    /** Where a node's own process runs (a load participant's, after setup): its namespace. @param {string} node */
    hostOf: (node) => ({ netns: peerPlanOf(plan, node).netns, address: peerPlanOf(plan, node).address }),
    /**
     * Where the SFU runs in an SFU call (after setup): its own namespace, whose address carries both its media and
     * its HTTP APIs (the root namespace reaches it through the router, unshaped, like signaling); null otherwise.
     * @returns {{ netns: string, address: string }|null}
     */
    get sfuHost() {
      const sfu = plan.peers.find((p) => p.name === SFU_NODE);
      return sfu ? { netns: sfu.netns, address: sfu.address } : null;
    },
    /** Removes everything of this run, also mid-set-up (SIGINT); safe to call more than once. */
    async close() {
      closing = true;
      await settingUp?.catch(() => {});
      await Promise.all(forwarders.map((forwarder) => forwarder.close()));
      await teardown();
    },
    /** A forced exit's teardown: synchronous, no waiting for set-up (removeTopologyNow). */
    closeNow() {
      killRunningCommands();
      for (const forwarder of forwarders) forwarder.closeNow();
      removeTopologyNow(plan);
      release();
    },
  };
}

/** @param {TopologyPlan} plan @returns {string[]} every namespace of the run, the router's last */
const namespacesOf = (plan) => [...plan.peers.map((peer) => peer.netns), plan.routerNetns];

/**
 * Kills what runs in the run's namespaces, then removes what of the topology exists.
 * @param {RunCommand} run @param {TopologyPlan} plan
 */
async function removeTopology(run, plan) {
  const quiet = { allowFailure: true, record: false };
  for (const netns of namespacesOf(plan)) {
    // Anything launched into the run's namespaces (a browser puppeteer failed to close) would outlive them.
    const pids = (await run(['ip', 'netns', 'pids', netns], quiet)).stdout.split('\n').filter(Boolean).map(Number);
    for (const pid of pids) {
      try { process.kill(pid, 'SIGKILL'); } catch { /* already gone */ }
    }
  }
  const existing = await inspectExisting(run, plan.routerNetns);
  for (const argv of teardownCommands(plan, existing)) await run(argv, { allowFailure: true });
}

/**
 * removeTopology for a forced exit: synchronous. Deleting the namespaces removes their veths, qdiscs and nft tables;
 * the control veth's root end is deleted by name, since set-up may not have moved its peer into the router namespace yet.
 * @param {TopologyPlan} plan
 */
function removeTopologyNow(plan) {
  for (const netns of namespacesOf(plan)) {
    const pids = spawnSync('ip', ['netns', 'pids', netns], { encoding: 'utf8', timeout: 2000 }).stdout ?? '';
    for (const pid of pids.split('\n').filter(Boolean)) {
      try { process.kill(Number(pid), 'SIGKILL'); } catch { /* already gone */ }
    }
    spawnSync('ip', ['netns', 'del', netns], { timeout: 2000, stdio: 'ignore' });
  }
  spawnSync('ip', ['link', 'del', 'dev', plan.control.rootIf], { timeout: 2000, stdio: 'ignore' });
}

/**
 * A link's commands that differ from the ones in force at the same place. Pure.
 * @param {string[][]} commands @param {string[]} previous  the last apply's, joined
 */
const changedCommands = (commands, previous) => commands.filter((argv, index) => argv.join(' ') !== previous[index]);

/**
 * Runs set-up's commands one by one; stops once the run is closing, so close() removes what was made.
 * @param {RunCommand} run @param {string[][]} commands @param {TopologyPlan} plan @param {() => boolean} closing
 */
async function runSetup(run, commands, plan, closing) {
  for (const argv of commands) {
    if (closing()) throw new HarnessError(`netem: set-up of ${plan.routerNetns} interrupted; everything it made is being removed`);
    await run(argv);
  }
}

/**
 * Moves a peer to a new address in a free /30 of its side, then kills its old one's media path (handover.js); the plan's
 * peer has the new address after it. The old addresses stay on the peers (their signaling sockets): `left` keeps them taken.
 * @param {RunCommand} run
 * @param {{ plan: () => TopologyPlan, replan: (plan: TopologyPlan) => void, left: string[], log: (message: string) => void }} state
 * @param {string} peer
 */
async function handOver(run, { plan, replan, left, log }, peer) {
  const current = plan();
  const before = peerPlanOf(current, peer);
  const next = freeSlot(current, before, new Set([...current.peers.flatMap((p) => [p.address, p.routerAddress]), ...left]));
  for (const argv of handoverCommands(current, before, next)) await run(argv);
  left.push(before.address, before.routerAddress);
  replan({ ...current, peers: current.peers.map((p) => (p === before ? { ...p, ...next } : p)) });
  log(`netem: ${peer} handed over from ${before.address} to ${next.address}`);
  return { fromAddress: before.address, toAddress: next.address };
}

/** A node's plan. @param {TopologyPlan} plan @param {string} peer  a peer or the SFU node */
function peerPlanOf(plan, peer) {
  const found = plan.peers.find((p) => p.name === peer);
  if (!found) throw new HarnessError(`netem: unknown peer '${peer}'; this run has ${plan.peers.map((p) => p.name).join(', ')}`);
  return found;
}

/**
 * How puppeteer launches a browser inside a namespace: Chromium over its pipe, Firefox with its WebDriver BiDi port
 * forwarded from the root namespace (held in forwarders, closed with the run).
 * @param {{ netns: string, browser: string, kind: string, begin: import('../command-runner.js').BeginCommand,
 *   forwarders: Array<Awaited<ReturnType<typeof forwardIntoNamespace>>> }} options
 */
async function netnsLaunchSpec({ netns, browser, kind, begin, forwarders }) {
  const env = { WTB_NETNS: netns, WTB_BROWSER: browser };
  if (kind !== 'firefox') return { executablePath: NETNS_EXEC_SCRIPT, args: [], env };
  const forwarder = await forwardIntoNamespace({ netns, begin });
  forwarders.push(forwarder);
  return { executablePath: NETNS_FIREFOX_SCRIPT, args: [`--remote-debugging-port=${forwarder.port}`], env };
}
