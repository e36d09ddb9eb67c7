// On a grid-node: the memory of the run's browser processes from this machine's /proc, for the node relay's
// processMemory request. Only the Selenium node's descendants are answered (lib/devices/process-memory.js pidsUnder).
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { checkPidList, parseSmapsRollup, pidsUnder } from '../../lib/devices/process-memory.js';
import { parseStat, parseStatusRssKb } from '../../lib/devices/proc-stat.js';

/** @param {string} file @returns {Promise<string|null>} null: gone or unreadable */
const readOrNull = (file) => readFile(file, 'utf8').catch(() => null);

/** @param {string} procDir @param {number|string} pid */
const readStat = async (procDir, pid) => {
  const text = await readOrNull(path.join(procDir, String(pid), 'stat'));
  try { return text === null ? null : parseStat(text); } catch { return null; }
};

/**
 * One process's Rss and Pss (smaps_rollup; VmRSS without Pss where that is unreadable), or null when it is gone or was
 * replaced by another process since the tree was read (its start time changed).
 * @param {string} procDir @param {{ pid: number, startTimeTicks: number }} process
 * @returns {Promise<import('../../lib/devices/process-memory.js').ProcessMemory|null>}
 */
async function readOne(procDir, { pid, startTimeTicks }) {
  const rollup = await readOrNull(path.join(procDir, String(pid), 'smaps_rollup'));
  const parsed = rollup === null ? null : parseSmapsRollup(rollup);
  const status = parsed ? null : await readOrNull(path.join(procDir, String(pid), 'status'));
  if (!parsed && status === null) return null;
  const after = await readStat(procDir, pid);
  if (after?.startTimeTicks !== startTimeTicks) return null;
  return parsed ? { pid, ...parsed } : { pid, rssKb: parseStatusRssKb(/** @type {string} */ (status)), pssKb: null };
}

/**
 * The memory of those of `pids` under `rootPid` (the Selenium node's java) now; the others are left out.
 * @param {{ pids: unknown, rootPid: number, procDir?: string }} request  pids: as the request gave them, checked here
 */
export async function readProcessMemory({ pids, rootPid, procDir = '/proc' }) {
  const requested = checkPidList(pids);
  const names = (await readdir(procDir)).filter((name) => /^\d+$/.test(name));
  const stats = (await Promise.all(names.map((name) => readStat(procDir, name)))).filter((stat) => stat !== null);
  const byPid = new Map(stats.map((stat) => [stat.pid, stat]));
  const answered = await Promise.all(pidsUnder(requested, stats, rootPid)
    .map((pid) => readOne(procDir, /** @type {import('../../lib/devices/proc-stat.js').ProcStat} */ (byPid.get(pid)))));
  return answered.filter((memory) => memory !== null);
}
