// On a grid-node: the memory of the run's browser processes from this machine's /proc, for the node relay's
// processMemory request. Only the Selenium node's descendants are answered (lib/devices/process-memory.js pidsUnder).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { checkPidList, MAX_ANCESTORS, parseSmapsRollup, pidsUnder } from '../../lib/devices/process-memory.js';
import { parseStat, parseStatusRssKb } from '../../lib/devices/proc-stat.js';

// Synchronous: a few dozen small /proc files, cheaper than as many promises, on the control server's loop only.
/** @param {string} file @returns {string|null} null: gone or unreadable */
const readOrNull = (file) => {
  try { return readFileSync(file, 'utf8'); } catch { return null; }
};

/** @param {string} procDir @param {number} pid */
const readStat = (procDir, pid) => {
  const text = readOrNull(path.join(procDir, String(pid), 'stat'));
  try { return text === null ? null : parseStat(text); } catch { return null; }
};

/**
 * One process's Rss and Pss (smaps_rollup; VmRSS without Pss where that is unreadable), or null when it is gone or was
 * replaced by another process since its parents were read (its start time changed).
 * @param {string} procDir @param {{ pid: number, startTimeTicks: number }} process
 * @returns {import('../../lib/devices/process-memory.js').ProcessMemory|null}
 */
function readOne(procDir, { pid, startTimeTicks }) {
  const rollup = readOrNull(path.join(procDir, String(pid), 'smaps_rollup'));
  const parsed = rollup === null ? null : parseSmapsRollup(rollup);
  const status = parsed ? null : readOrNull(path.join(procDir, String(pid), 'status'));
  if (!parsed && status === null) return null;
  if (readStat(procDir, pid)?.startTimeTicks !== startTimeTicks) return null;
  return parsed ? { pid, ...parsed } : { pid, rssKb: parseStatusRssKb(/** @type {string} */ (status)), pssKb: null };
}

/**
 * The memory of those of `pids` under `rootPid` (the Selenium node's java) now; the others are left out. Each pid's
 * parents are read up to the root (or MAX_ANCESTORS of them), each once.
 * @param {{ pids: unknown, rootPid: number, procDir?: string }} request  pids: as the request gave them, checked here
 */
export function readProcessMemory({ pids, rootPid, procDir = '/proc' }) {
  const requested = checkPidList(pids);
  /** @type {Map<number, import('../../lib/devices/proc-stat.js').ProcStat>} */
  const stats = new Map();
  for (const pid of requested) {
    let at = pid;
    for (let step = 0; step <= MAX_ANCESTORS && at > 1 && at !== rootPid && !stats.has(at); step++) {
      const stat = readStat(procDir, at);
      if (!stat) break;
      stats.set(at, stat);
      at = stat.ppid;
    }
  }
  const ppidOf = new Map([...stats].map(([pid, { ppid }]) => [pid, ppid]));
  return pidsUnder(requested, ppidOf, rootPid)
    .map((pid) => readOne(procDir, /** @type {import('../../lib/devices/proc-stat.js').ProcStat} */ (stats.get(pid))))
    .filter((memory) => memory !== null);
}
