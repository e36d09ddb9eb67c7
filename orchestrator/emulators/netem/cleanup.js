/**
 * Finds and removes what crashed netem runs left: `wtb-*` namespaces (with their veths, ifbs, qdiscs and the
 * nft tables inside them), the root end of control veths (`wtb<id>c`), and processes still inside. Each run
 * records its orchestrator's PID in an owner file (lib/system/owners.js), so a clean-up without a run id leaves live runs alone.
 */
import { ownerAlive, releaseOwner, startTicks } from '../../lib/system/owners.js';
import { NAME_PREFIX, NAMESPACE_PREFIX } from './topology.js';
import { shortRunId } from '../../lib/system/run-id.js';

/** @typedef {import('../command-runner.js').RunCommand} RunCommand */
/** @typedef {{netns: string[], rootLinks: string[], pids: number[], liveRuns: string[]}} Leftovers */

/** Capability probes name their scratch namespace after their process (capabilities.js): wtb-probe-<pid>. */
const PROBE_ID = /^probe-(\d+)$/;

/** @param {string} id @returns {boolean} whether run `id`'s orchestrator (or the probe `probe-<pid>`, which has no owner file) runs */
const runAlive = (id) => {
  const probe = PROBE_ID.exec(id);
  return probe ? startTicks(Number(probe[1])) !== null : ownerAlive(id);
};

const QUIET = { allowFailure: true, record: false };
const CONTROL_LINK = new RegExp(`^${NAME_PREFIX}([a-z0-9]{1,8})c$`);

/**
 * The short run id in a namespace name wtb-<id>-<name> (probe-<pid> for wtb-probe-<pid>), or null for namespaces
 * not ours. @param {string} name
 */
const idOfNetns = (name) => {
  if (!name.startsWith(NAMESPACE_PREFIX)) return null;
  const rest = name.slice(NAMESPACE_PREFIX.length);
  return PROBE_ID.test(rest) ? rest : rest.split('-')[0];
};
/** @param {string} name */
const idOfLink = (name) => CONTROL_LINK.exec(name)?.[1] ?? null;

/** @param {RunCommand} run @returns {Promise<string[]>} network namespace names */
export async function listNamespaces(run) {
  return (await run(['ip', 'netns', 'list'], QUIET)).stdout.split('\n').map((line) => line.split(' ')[0]).filter(Boolean);
}

/** @param {RunCommand} run @returns {Promise<string[]>} interface names in the root namespace (without @peer) */
export async function listRootLinks(run) {
  return [...(await run(['ip', '-o', 'link', 'show'], QUIET)).stdout.matchAll(/^\d+: ([^:@\s]+)/gm)].map((m) => m[1]);
}

/**
 * @param {RunCommand} run @param {{runId?: string}} [options]  runId: only that run's objects, live or not;
 *   without it, every run whose orchestrator is no longer alive (live ones are listed in liveRuns)
 * @returns {Promise<Leftovers>}
 */
export async function findLeftovers(run, { runId } = {}) {
  const only = runId === undefined ? null : shortRunId(runId);
  const ids = new Set();
  const netnsAll = (await listNamespaces(run)).filter((name) => idOfNetns(name) !== null);
  const linksAll = (await listRootLinks(run)).filter((name) => idOfLink(name) !== null);
  for (const id of [...netnsAll.map(idOfNetns), ...linksAll.map(idOfLink)]) ids.add(id);
  const liveRuns = only === null ? [...ids].filter(runAlive).sort() : [];
  /** @param {string|null} id  null: not ours (filtered out above) */
  const mine = (id) => id !== null && (only === null ? !liveRuns.includes(id) : id === only);

  const netns = netnsAll.filter((name) => mine(idOfNetns(name)));
  const rootLinks = linksAll.filter((name) => mine(idOfLink(name)));
  const pids = [];
  for (const name of netns) {
    pids.push(...(await run(['ip', 'netns', 'pids', name], QUIET)).stdout.split('\n').filter(Boolean).map(Number));
  }
  return { netns, rootLinks, pids, liveRuns };
}

/**
 * Removes every leftover; returns what it found.
 * @param {RunCommand} run @param {{runId?: string, dryRun?: boolean}} [options]
 * @returns {Promise<Leftovers>}
 */
export async function removeLeftovers(run, { runId, dryRun = false } = {}) {
  const found = await findLeftovers(run, { runId });
  if (dryRun) return found;
  for (const pid of found.pids) {
    try { process.kill(pid, 'SIGKILL'); } catch { /* exited meanwhile */ }
  }
  for (const name of found.rootLinks) await run(['ip', 'link', 'del', 'dev', name], { allowFailure: true });
  for (const name of found.netns) await run(['ip', 'netns', 'del', name], { allowFailure: true });
  for (const id of new Set(found.netns.map(idOfNetns))) if (id !== null) releaseOwner(id);
  return found;
}
