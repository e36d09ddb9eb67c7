/**
 * Linux /proc text to per-process CPU and memory (pure): parse /proc/<pid>/stat and /proc/<pid>/status, build
 * process trees from parent pids, and compute CPU % of one core between two readings.
 */

/**
 * @typedef {object} ProcStat
 * @property {number} pid
 * @property {string} comm
 * @property {string} state
 * @property {number} ppid
 * @property {number} cpuTicks        utime + stime, in clock ticks (USER_HZ)
 * @property {number} startTimeTicks  since boot; tells a reused pid from the process that had it before
 *
 * @typedef {ProcStat & {rssKb: number}} ProcInfo
 * @typedef {{atMs: number, processes: Map<number, ProcInfo>}} ProcReading  one reading of every process
 */

/**
 * Parses /proc/<pid>/stat (proc(5)). The command name is in parentheses and may itself hold spaces and
 * parentheses, so fields are counted from the last ')'.
 * @param {string} text
 * @returns {ProcStat}
 */
export function parseStat(text) {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 1 || close < open) throw new Error(`not a /proc/<pid>/stat line: ${JSON.stringify(text.slice(0, 80))}`);
  const rest = text.slice(close + 2).trim().split(/\s+/);
  // rest[0] is field 3 (state) of proc(5): ppid is field 4, utime 14, stime 15, starttime 22.
  const field = (/** @type {number} */ n) => {
    const value = Number(rest[n - 3]);
    if (!Number.isInteger(value)) throw new Error(`/proc/<pid>/stat field ${n} is not an integer: ${JSON.stringify(text.slice(0, 120))}`);
    return value;
  };
  return {
    pid: Number(text.slice(0, open).trim()),
    comm: text.slice(open + 1, close),
    state: rest[0],
    ppid: field(4),
    cpuTicks: field(14) + field(15),
    startTimeTicks: field(22),
  };
}

/**
 * VmRSS from /proc/<pid>/status, in kB; 0 for kernel threads and zombies, which have none.
 * @param {string} text
 */
export function parseStatusRssKb(text) {
  const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(text);
  return match ? Number(match[1]) : 0;
}

/**
 * The pids of a process and all its descendants present in a reading (empty when the root is gone).
 * @param {Iterable<{pid: number, ppid: number}>} processes
 * @param {number} rootPid
 * @returns {number[]}
 */
export function processTree(processes, rootPid) {
  /** @type {Map<number, number[]>} */
  const children = new Map();
  let rootPresent = false;
  for (const { pid, ppid } of processes) {
    if (pid === rootPid) rootPresent = true;
    const siblings = children.get(ppid) ?? [];
    children.set(ppid, siblings);
    siblings.push(pid);
  }
  if (!rootPresent) return [];
  const tree = [rootPid];
  for (let i = 0; i < tree.length; i++) tree.push(...(children.get(tree[i]) ?? []).filter((pid) => pid !== tree[i]));
  return tree;
}

/**
 * CPU used by a set of processes between two readings, in % of one core (200 = two cores busy).
 * A process born in between counts with all its ticks (all spent since the earlier reading); one that died in
 * between is lost (its ticks go to its parent's cutime only once reaped, and then all at once).
 * @param {ProcReading} before
 * @param {ProcReading} after
 * @param {number[]} pids  the processes in `after` to count
 * @param {number} ticksPerS  USER_HZ (`getconf CLK_TCK`, 100 on Linux)
 * @returns {number|null} null when no time passed
 */
export function cpuPercent(before, after, pids, ticksPerS) {
  const elapsedS = (after.atMs - before.atMs) / 1000;
  if (!(elapsedS > 0)) return null;
  let ticks = 0;
  for (const pid of pids) {
    const now = after.processes.get(pid);
    if (!now) continue;
    const then = before.processes.get(pid);
    const same = then && then.startTimeTicks === now.startTimeTicks;
    ticks += now.cpuTicks - (same ? then.cpuTicks : 0);
  }
  return (ticks / ticksPerS / elapsedS) * 100;
}

/**
 * Resident memory of a set of processes, in MB. Shared pages (Chromium's shared memory, libraries) count once
 * per process, so a tree's sum overstates what it holds alone.
 * @param {ProcReading} reading
 * @param {number[]} pids
 */
export function rssMb(reading, pids) {
  return pids.reduce((sum, pid) => sum + (reading.processes.get(pid)?.rssKb ?? 0), 0) / 1024;
}
