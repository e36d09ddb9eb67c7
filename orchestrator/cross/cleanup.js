/**
 * Finds and removes what kernel flows of dead runs left: `wtbx-*` namespaces and the processes inside. The guardian
 * (guardian.js) normally removes them within a second of the orchestrator's death; this sweep, run by `cleanup`,
 * covers a guardian that died too. Each run records its orchestrator as the owner of `wtbx-<id>` (lib/system/owners.js), so
 * runs in progress are left alone unless named.
 */
import { ownerAlive, releaseOwner } from '../lib/system/owners.js';

import { NAMESPACE_PREFIX } from './kernel-flow-plan.js';
import { shortRunId } from '../lib/system/run-id.js';

/** @typedef {import('../emulators/command-runner.js').RunCommand} RunCommand */

const QUIET = { allowFailure: true, record: false };
/** @param {string} name */
const idOf = (name) => name.slice(NAMESPACE_PREFIX.length).split('-')[0];

/**
 * @param {RunCommand} run @param {{runId?: string, dryRun?: boolean}} [options]
 *   runId: only that run's namespaces, live or not; without it, every run whose orchestrator is gone
 * @returns {Promise<{netns: string[], pids: number[], liveRuns: string[]}>}
 */
export async function removeKernelFlowLeftovers(run, { runId, dryRun = false } = {}) {
  const only = runId === undefined ? null : shortRunId(runId);
  const all = (await run(['ip', 'netns', 'list'], QUIET)).stdout.split('\n').map((line) => line.split(' ')[0])
    .filter((name) => name.startsWith(NAMESPACE_PREFIX));
  const ids = [...new Set(all.map(idOf))];
  const liveRuns = only === null ? ids.filter((id) => ownerAlive(`${NAMESPACE_PREFIX}${id}`)).sort() : [];
  const netns = all.filter((name) => (only === null ? !liveRuns.includes(idOf(name)) : idOf(name) === only));
  const pids = [];
  for (const name of netns) pids.push(...(await run(['ip', 'netns', 'pids', name], QUIET)).stdout.split('\n').filter(Boolean).map(Number));
  if (dryRun) return { netns, pids, liveRuns };
  for (const pid of pids) {
    try { process.kill(pid, 'SIGKILL'); } catch { /* exited meanwhile */ }
  }
  for (const name of netns) await run(['ip', 'netns', 'del', name], { allowFailure: true });
  for (const id of new Set(netns.map(idOf))) releaseOwner(`${NAMESPACE_PREFIX}${id}`);
  return { netns, pids, liveRuns };
}
