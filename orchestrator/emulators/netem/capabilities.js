/**
 * What this kernel offers the netem backend, probed once in a scratch namespace, and whether a compiled
 * network can run on it. The check runs before any browser starts.
 */
import { EnvironmentError } from '../../lib/system/errors.js';
import { BOTTLENECK_LINKS } from '../../lib/network/topology.js';
import { NAMESPACE_PREFIX } from './topology.js';
import { createCommandRunner } from '../command-runner.js';

/** @typedef {Pick<import('../../lib/network/schedule.js').CompiledNetwork, 'links'|'events'>} CompiledNetwork  what the checks read */
/** @typedef {import('../command-runner.js').CommandResult} CommandResult */
/**
 * @typedef {object} NetemCapabilities
 * @property {boolean} netns     network namespaces + veth (and root)
 * @property {boolean} htb       htb + bfifo qdiscs
 * @property {boolean} netem     sch_netem (delay, jitter, loss models)
 * @property {boolean} nftables  nft with numgen (random loss without sch_netem)
 * @property {boolean} ifb       ifb devices + clsact redirects (the bottleneck stages)
 * @property {string[]} reasons  why each missing one is missing
 */

const RELAY_HINT = 'or run it with `--emulator relay` (the userspace relay needs no kernel support)';

/** @type {Promise<NetemCapabilities>|null} */
let cached = null;

/**
 * Probes once per process (the kernel does not change under us).
 * @param {{run?: import('../command-runner.js').RunCommand, fresh?: boolean}} [options]
 * @returns {Promise<NetemCapabilities>}
 */
export function netemCapabilities({ run, fresh = false } = {}) {
  if (!cached || fresh || run) cached = probe(run ?? createCommandRunner().run);
  return cached;
}

/**
 * @param {import('../command-runner.js').RunCommand} run
 * @returns {Promise<NetemCapabilities>}
 */
async function probe(run) {
  /** @type {NetemCapabilities} */
  const caps = { netns: false, htb: false, netem: false, nftables: false, ifb: false, reasons: [] };
  if (process.getuid?.() !== 0) {
    caps.reasons.push(`network namespaces and tc need root (running as uid ${process.getuid?.()}); run as root ${RELAY_HINT}`);
    return caps;
  }
  const netns = `${NAMESPACE_PREFIX}probe-${process.pid}`;
  const quiet = { allowFailure: true, record: false };
  /** @param {...string} args */
  const tc = (...args) => run(['tc', '-n', netns, ...args], quiet);
  /** The first line of a failed step's error. @param {CommandResult|undefined} result */
  const firstLine = (result) => result?.stderr.split('\n').find(Boolean) ?? 'failed';
  /**
   * Runs `next` only after a step that succeeded; else the failed step stands for it.
   * @param {CommandResult} done @param {() => Promise<CommandResult>} next
   */
  const then = async (done, next) => (done.ok ? next() : done);
  try {
    const made = await run(['ip', 'netns', 'add', netns], quiet);
    const veth = await then(made, () => run(['ip', '-n', netns, 'link', 'add', 'name', 'va', 'type', 'veth', 'peer', 'name', 'vb'], quiet));
    if (!veth.ok) {
      caps.reasons.push(`network namespaces/veth unavailable (ip: ${firstLine(veth)}); install iproute2 and check CONFIG_NET_NS/CONFIG_VETH, ${RELAY_HINT}`);
      return caps;
    }
    caps.netns = true;
    const htb = await tc('qdisc', 'add', 'dev', 'va', 'root', 'handle', '1:', 'htb', 'default', '0');
    const cls = await then(htb, () => tc('class', 'add', 'dev', 'va', 'parent', '1:', 'classid', '1:1', 'htb', 'rate', '1mbit'));
    const fifo = await then(cls, () => tc('qdisc', 'add', 'dev', 'va', 'parent', '1:1', 'handle', '2:', 'bfifo', 'limit', '10000'));
    caps.htb = fifo.ok;
    if (!caps.htb) caps.reasons.push(`htb/bfifo qdiscs unavailable (tc: ${firstLine(fifo)}); load sch_htb and sch_fifo`);
    const netem = await tc('qdisc', 'add', 'dev', 'vb', 'root', 'netem', 'delay', '1ms');
    caps.netem = netem.ok;
    if (!netem.ok) caps.reasons.push(`sch_netem kernel module missing (tc: ${firstLine(netem)}); \`modprobe sch_netem\` or use a kernel built with CONFIG_NET_SCH_NETEM`);
    const ifb = await run(['ip', '-n', netns, 'link', 'add', 'name', 'ifb-probe', 'type', 'ifb'], quiet);
    const clsact = await then(ifb, () => tc('qdisc', 'add', 'dev', 'va', 'clsact'));
    caps.ifb = clsact.ok;
    if (!caps.ifb) caps.reasons.push(`ifb devices or the clsact qdisc unavailable (${firstLine(clsact)}); load ifb and sch_ingress`);
    /** @param {...string} args */
    const nft = (...args) => run(['ip', 'netns', 'exec', netns, 'nft', ...args], quiet);
    const table = await nft('add', 'table', 'inet', 'probe');
    const chain = await then(table, () => nft('add', 'chain', 'inet', 'probe', 'c'));
    const rule = await then(chain, () => nft('add', 'rule', 'inet', 'probe', 'c', 'numgen', 'random', 'mod', '10000', '<', '1', 'counter', 'drop'));
    caps.nftables = rule.ok;
    if (!caps.nftables) caps.reasons.push(`nftables with numgen unavailable (nft: ${firstLine(rule)}); \`apt-get install -y nftables\` and load nf_tables`);
    return caps;
  } finally {
    await run(['ip', 'netns', 'del', netns], quiet);
  }
}

/**
 * Which links, at any time of the schedule, use a feature.
 * @param {CompiledNetwork} compiled @param {(params: import('../../lib/network/link-model.js').LinkParams) => boolean} uses
 * @returns {string[]}
 */
function linksUsing(compiled, uses) {
  const names = new Set();
  for (const [link, params] of Object.entries(compiled.links)) if (uses(params)) names.add(link);
  for (const event of compiled.events) if (uses(event.params)) names.add(event.link);
  return [...names];
}

/**
 * Why the netem backend cannot run this network here; empty when it can. Pure.
 * @param {CompiledNetwork} compiled @param {NetemCapabilities} caps
 * @returns {string[]}
 */
export function unmetRequirements(compiled, caps) {
  const missing = [];
  const hasBottleneck = Object.keys(compiled.links).some((link) => link in BOTTLENECK_LINKS);
  /** @type {Array<['netns'|'htb'|'ifb', string]>} */
  const needed = [['netns', 'network namespaces'], ['htb', 'htb/bfifo']];
  if (hasBottleneck) needed.push(['ifb', 'ifb/clsact']);
  const base = needed.filter(([key]) => !caps[key]);
  if (base.length > 0) {
    missing.push(`the netem backend needs ${base.map(([, what]) => what).join(', ')}: ${caps.reasons.join('; ')}`);
    return missing;
  }
  if (!caps.netem) {
    const delayed = linksUsing(compiled, (p) => p.oneWayDelayMs > 0 || p.jitterMs > 0);
    if (delayed.length > 0) {
      missing.push(`delay/jitter on ${delayed.join(', ')} needs the sch_netem kernel module, which is missing: load it with \`modprobe sch_netem\` (a kernel with CONFIG_NET_SCH_NETEM), ${RELAY_HINT}`);
    }
    const bursty = linksUsing(compiled, (p) => p.lossBurst !== null && p.lossPct > 0);
    if (bursty.length > 0) {
      missing.push(`bursty loss (lossBurst) on ${bursty.join(', ')} needs sch_netem's Gilbert-Elliott model (nftables only drops independently): \`modprobe sch_netem\`, ${RELAY_HINT}`);
    }
    if (!caps.nftables) {
      missing.push(`without sch_netem, loss (and its drop counters) runs on nftables with numgen, which does not work here either: \`apt-get install -y nftables\` or \`modprobe sch_netem\`, ${RELAY_HINT}`);
    }
  }
  return missing;
}

/**
 * Throws EnvironmentError when the network cannot run on this kernel.
 * @param {CompiledNetwork} compiled @param {NetemCapabilities} [caps]  probed when absent
 */
export async function assertCanRun(compiled, caps) {
  const missing = unmetRequirements(compiled, caps ?? await netemCapabilities());
  if (missing.length > 0) throw new EnvironmentError(`--emulator netem: ${missing.join('; ')}`);
}
