/**
 * Finds and removes what crashed netem runs left: `wtb-*` namespaces (with their veths, ifbs, qdiscs and the
 * nft tables inside them), the root end of control veths (`wtb<id>c`), and processes still inside. Each run
 * records its orchestrator's PID in an owner file, so a clean-up without a run id leaves live runs alone.
 */
import { existsSync, lstatSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EnvironmentError } from '../../lib/errors.js';
import { NAME_PREFIX, NAMESPACE_PREFIX, shortRunId } from './topology.js';

/** @typedef {import('../runner.js').RunCommand} RunCommand */
/** @typedef {{netns: string[], rootLinks: string[], pids: number[], liveRuns: string[]}} Leftovers */

/**
 * One file per run id: `{ pid, startTicks }` of the orchestrator that built the topology. /run is writable by root
 * only and emptied at boot, like the namespaces the files describe; the temp directory where there is no /run.
 */
export const OWNER_DIR = existsSync('/run') ? '/run/webrtc-testbed-netem' : path.join(os.tmpdir(), 'webrtc-testbed-netem');
/** Capability probes name their scratch namespace after their process (capabilities.js): wtb-probe-<pid>. */
const PROBE_ID = /^probe-(\d+)$/;

/** A process's start time in clock ticks since boot (/proc/<pid>/stat field 22): tells a reused PID apart. */
function startTicks(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
  } catch {
    return null;
  }
}

/**
 * Records this process as the owner of run `id` (short id) before anything of it is built. Root writes here: a
 * directory someone else could write to could hold a symlink that turns the write onto any file.
 */
export function recordOwner(id, pid = process.pid) {
  mkdirSync(OWNER_DIR, { recursive: true, mode: 0o700 });
  const dir = lstatSync(OWNER_DIR);
  if (!dir.isDirectory() || dir.uid !== process.getuid?.() || (dir.mode & 0o022) !== 0) {
    throw new EnvironmentError(`netem: ${OWNER_DIR} is not a directory only this user can write; remove it and retry`);
  }
  writeFileSync(path.join(OWNER_DIR, id), JSON.stringify({ pid, startTicks: startTicks(pid) }), { mode: 0o600 });
}

/** @param {string} id */
export function releaseOwner(id) {
  rmSync(path.join(OWNER_DIR, id), { force: true });
}

/** Whether the orchestrator that built run `id` (or the probe `probe-<pid>`) is still running (no owner file: it is not). */
export function ownerAlive(id) {
  const probe = PROBE_ID.exec(id);
  if (probe) return startTicks(Number(probe[1])) !== null;
  let owner;
  try {
    owner = JSON.parse(readFileSync(path.join(OWNER_DIR, id), 'utf8'));
  } catch {
    return false;
  }
  return Number.isInteger(owner?.pid) && startTicks(owner.pid) !== null && startTicks(owner.pid) === owner.startTicks;
}

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
  const liveRuns = only === null ? [...ids].filter(ownerAlive).sort() : [];
  const mine = (id) => (only === null ? !liveRuns.includes(id) : id === only);

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
  for (const id of new Set(found.netns.map(idOfNetns))) releaseOwner(id);
  return found;
}
