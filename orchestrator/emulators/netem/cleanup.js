/**
 * Finds and removes what crashed netem runs left: `wtb-*` namespaces (with their veths, ifbs, qdiscs and nft
 * tables), the root end of control veths (`wtb<id>c`), `wtb_*` nft tables, and processes still inside.
 */
import { NAME_PREFIX, NAMESPACE_PREFIX, shortRunId } from './topology.js';

/** @typedef {import('./runner.js').RunCommand} RunCommand */
/** @typedef {{netns: string[], rootLinks: string[], nftTables: string[], pids: number[]}} Leftovers */

const QUIET = { allowFailure: true, record: false };

/** @param {RunCommand} run @returns {Promise<string[]>} network namespace names */
export async function listNamespaces(run) {
  return (await run(['ip', 'netns', 'list'], QUIET)).stdout.split('\n').map((line) => line.split(' ')[0]).filter(Boolean);
}

/** @param {RunCommand} run @returns {Promise<string[]>} interface names in the root namespace (without @peer) */
export async function listRootLinks(run) {
  return [...(await run(['ip', '-o', 'link', 'show'], QUIET)).stdout.matchAll(/^\d+: ([^:@\s]+)/gm)].map((m) => m[1]);
}

/**
 * @param {RunCommand} run @param {{runId?: string}} [options]  runId: only that run's objects
 * @returns {Promise<Leftovers>}
 */
export async function findLeftovers(run, { runId } = {}) {
  const id = runId === undefined ? null : shortRunId(runId);
  const nsPrefix = id === null ? NAMESPACE_PREFIX : `${NAMESPACE_PREFIX}${id}-`;
  const linkPattern = new RegExp(`^${NAME_PREFIX}${id ?? '[a-z0-9]{1,8}'}c$`);
  const tablePattern = new RegExp(`^table inet (${NAME_PREFIX}_${id ?? '[a-z0-9]{1,8}'})$`, 'gm');

  const netns = (await listNamespaces(run)).filter((name) => name.startsWith(nsPrefix));
  const rootLinks = (await listRootLinks(run)).filter((name) => linkPattern.test(name));
  const nftTables = [...(await run(['nft', 'list', 'tables'], QUIET)).stdout.matchAll(tablePattern)].map((m) => m[1]);
  const pids = [];
  for (const name of netns) {
    pids.push(...(await run(['ip', 'netns', 'pids', name], QUIET)).stdout.split('\n').filter(Boolean).map(Number));
  }
  return { netns, rootLinks, nftTables, pids };
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
  for (const table of found.nftTables) await run(['nft', 'delete', 'table', 'inet', table], { allowFailure: true });
  for (const name of found.rootLinks) await run(['ip', 'link', 'del', 'dev', name], { allowFailure: true });
  for (const name of found.netns) await run(['ip', 'netns', 'del', name], { allowFailure: true });
  return found;
}
