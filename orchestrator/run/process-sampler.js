/**
 * Samples CPU and memory of named process trees (a browser with all its helpers, the relay, Janus) from /proc
 * once a second. Each row sums a root process and all its descendants at that moment.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { cpuPercent, parseStat, parseStatusRssKb, processTree, rssMb } from '../lib/devices/proc-stat.js';
import { readEvery } from './interval-reader.js';

/**
 * @typedef {object} ProcessRow
 * @property {number} epochMs       wall-clock time of the reading (the end of the interval cpuPct covers)
 * @property {string} process       the name it was tracked under: 'p0', 'relay', 'janus' …
 * @property {number} cpuPct        % of one core over the interval since the previous reading
 * @property {number} rssMb         resident memory summed over the tree (shared pages counted per process)
 * @property {number} processCount  processes in the tree
 *
 * @typedef {object} ProcessSampler
 * @property {(name: string, pid: number) => void} track  adds (or replaces) a named root; sampled from the next reading on
 * @property {ProcessRow[]} rows
 * @property {string|null} unavailable  why nothing is sampled (no /proc), else null
 * @property {() => Promise<ProcessRow[]>} stop  stops the timer after any reading in progress; returns the rows
 */

/**
 * @param {{intervalMs?: number, procDir?: string, onRow?: (row: ProcessRow) => void}} [options]
 * @returns {ProcessSampler}
 */
export function startProcessSampler({ intervalMs = 1_000, procDir = '/proc', onRow = () => {} } = {}) {
  /** @type {ProcessRow[]} */
  const rows = [];
  /** @type {Map<string, number>} */
  const roots = new Map();
  const track = (/** @type {string} */ name, /** @type {number} */ pid) => { roots.set(name, pid); };
  if (!existsSync(procDir)) {
    return { track, rows, unavailable: `${procDir} does not exist (not Linux): no per-process CPU and memory`, stop: async () => rows };
  }
  const ticksPerS = clockTicksPerSecond();
  /** @type {Map<string, import('../lib/devices/proc-stat.js').ProcReading>} */
  const previous = new Map();
  const reader = readEvery(async () => {
    if (roots.size === 0) return;
    await readTrees(procDir, roots).then((readings) => {
      for (const [name, reading] of readings) {
        const before = previous.get(name);
        previous.set(name, reading);
        const pids = [...reading.processes.keys()];
        const cpuPct = before && pids.length ? cpuPercent(before, reading, pids, ticksPerS) : null;
        if (cpuPct === null) continue;
        const row = {
          epochMs: reading.atMs, process: name, cpuPct: round1(cpuPct), rssMb: round1(rssMb(reading, pids)), processCount: pids.length,
        };
        rows.push(row);
        onRow(row);
      }
    }, () => {
      // /proc can be unreadable for a moment (a racing exit); the next reading tries again.
    });
  }, intervalMs);
  return {
    track,
    rows,
    unavailable: null,
    async stop() {
      await reader.stop();
      return rows;
    },
  };
}

/**
 * One reading per named root: the root's tree, each process with its stat and VmRSS.
 * @param {string} procDir
 * @param {Map<string, number>} roots
 * @returns {Promise<Map<string, import('../lib/devices/proc-stat.js').ProcReading>>}
 */
export async function readTrees(procDir, roots) {
  const pids = (await readdir(procDir)).filter((name) => /^\d+$/.test(name));
  const stats = (await Promise.all(pids.map((pid) => readFile(path.join(procDir, pid, 'stat'), 'utf8').then(parseStat, () => null))))
    .filter((stat) => stat !== null);
  const atMs = Date.now();
  const result = new Map();
  for (const [name, rootPid] of roots) {
    const tree = new Set(processTree(stats, rootPid));
    const members = stats.filter((stat) => tree.has(stat.pid));
    const rss = await Promise.all(members.map((stat) => readFile(path.join(procDir, String(stat.pid), 'status'), 'utf8').then(parseStatusRssKb, () => null)));
    /** @type {Map<number, import('../lib/devices/proc-stat.js').ProcInfo>} */
    const processes = new Map();
    // A process whose status is gone exited between the two reads: not counted, rather than counted with no memory.
    members.forEach((stat, i) => { if (rss[i] !== null) processes.set(stat.pid, { ...stat, rssKb: rss[i] }); });
    result.set(name, { atMs, processes });
  }
  return result;
}

/** USER_HZ; 100 on every Linux architecture in practice, asked once in case it is not. */
export function clockTicksPerSecond() {
  try {
    const value = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    return Number.isInteger(value) && value > 0 ? value : 100;
  } catch {
    return 100;
  }
}

const round1 = (/** @type {number} */ value) => Math.round(value * 10) / 10;
