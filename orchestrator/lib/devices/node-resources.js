// The resources of Grid nodes (pure): each browser's CPU from the DevTools protocol's per-process CPU times
// (SystemInfo.getProcessInfo, read from the orchestrator: a node may be another host, whose /proc it cannot read), its
// memory as its node read it (lib/devices/process-memory.js), and each node's saturation, judged as the host's is
// (hostSaturation) over its own cores and the browsers it runs.
import { describe } from '../stats/statistics.js';
import { hostSaturation } from './cpu-limit.js';

/**
 * @typedef {{ atMs: number, processes: Array<{ id: number, cpuTime: number }> }} CdpProcessReading  cpuTime: seconds
 *   since the process started (all its threads)
 * @typedef {{ t: number, peer: string, cpuPct: number, rssMb?: number|null, pssMb?: number|null, jsHeapMb: number|null,
 *   processCount: number }} BrowserRow
 *   one second of one browser: CPU in % of one core over all its processes; rssMb, pssMb: all its processes' resident
 *   and proportional memory on its node (null: not read); jsHeapMb: its page's JavaScript heap
 */

/**
 * A browser's CPU between two readings, in % of one core: each process's CPU time since the last reading (a process
 * new since then, all of its own; one gone since then is not counted, its last part lost).
 * @param {CdpProcessReading} previous @param {CdpProcessReading} current
 * @returns {number|null}  null when no time passed
 */
export function browserCpuPct(previous, current) {
  const elapsedS = (current.atMs - previous.atMs) / 1000;
  if (!(elapsedS > 0)) return null;
  const before = new Map(previous.processes.map((process) => [process.id, process.cpuTime]));
  const usedS = current.processes.reduce((sum, { id, cpuTime }) => sum + Math.max(0, cpuTime - (before.get(id) ?? 0)), 0);
  return Number(((100 * usedS) / elapsedS).toFixed(1));
}

/**
 * Where a browser's memory figures came from: its processes on its node's /proc, or only its page's JavaScript heap
 * (with why).
 * @param {BrowserRow[]} rows  the browser's in the window @param {string|null} why  why its node was not asked, or failed
 * @returns {{ source: 'proc'|'js-heap', why: string|null }}
 */
function memorySource(rows, why) {
  if (rows.some((row) => typeof row.rssMb === 'number')) return { source: 'proc', why: null };
  return { source: 'js-heap', why: why ?? 'no memory reading of its node in the measurement window' };
}

/** @param {Array<number|null|undefined>} values */
const peak = (values) => {
  const numbers = values.filter((value) => typeof value === 'number');
  return numbers.length ? Math.max(...numbers) : null;
};

/**
 * One browser over the window: CPU, whole memory (RSS and PSS, MB) where its node read it, else its page's heap.
 * @param {BrowserRow[]} mine @param {string} node @param {string|null} why
 */
function browserSummary(mine, node, why) {
  return {
    node,
    cpuPct: describe(mine.map((row) => row.cpuPct)),
    memory: memorySource(mine, why),
    rssMb: describe(mine.map((row) => row.rssMb)),
    peakRssMb: peak(mine.map((row) => row.rssMb)),
    pssMb: describe(mine.map((row) => row.pssMb)),
    peakJsHeapMb: peak(mine.map((row) => row.jsHeapMb)),
  };
}

/**
 * result.json `resources.grid`: the browsers' rows, per browser its CPU and memory (mean, p95…) and peak heap over the
 * window, and per node the sum of its browsers' CPU per second and whether that kept its cores saturated, and the sum
 * of their RSS in the seconds where every one of them has one.
 * @param {{ rows: BrowserRow[], nodeOfPeer: Record<string, string>, nodes: Record<string, { uri: string, cores: number|null }>,
 *   windowS: [number, number], unavailable: string|null, memory?: { unavailable: string|null, errors: Record<string, string> } }} input
 *   windowS: (from, to] on the media clock; memory: why no browser's memory was read on its node, and why a peer's failed
 */
export function nodeResources({ rows, nodeOfPeer, nodes, windowS: [fromS, toS], unavailable, memory }) {
  const inWindow = rows.filter((row) => row.t > fromS && row.t <= toS);
  const browsers = Object.fromEntries(Object.keys(nodeOfPeer).sort().map((peer) => [peer, browserSummary(
    inWindow.filter((row) => row.peer === peer), nodeOfPeer[peer], memory?.errors[peer] ?? memory?.unavailable ?? null,
  )]));
  const perNode = Object.fromEntries(Object.entries(nodes).sort(([a], [b]) => a.localeCompare(b)).map(([label, { uri, cores }]) => {
    const peers = Object.keys(nodeOfPeer).filter((peer) => nodeOfPeer[peer] === label).sort();
    const mine = inWindow.filter((row) => peers.includes(row.peer));
    /** @type {Map<number, BrowserRow[]>} */
    const bySecond = new Map();
    for (const row of mine) bySecond.set(Math.round(row.t), [...bySecond.get(Math.round(row.t)) ?? [], row]);
    const seconds = [...bySecond.values()];
    /** @param {BrowserRow[]} second @param {'cpuPct'|'rssMb'} field */
    const sum = (second, field) => second.reduce((total, row) => total + (row[field] ?? 0), 0);
    const whole = seconds.filter((second) => second.length === peers.length && second.every((row) => typeof row.rssMb === 'number'));
    return [label, {
      uri, cores, peers, cpuPct: describe(seconds.map((second) => sum(second, 'cpuPct'))), saturation: hostSaturation(mine, cores ?? 0),
      rssMb: describe(whole.map((second) => Number(sum(second, 'rssMb').toFixed(1)))),
    }];
  }));
  return { unavailable, rows, browsers, nodes: perNode };
}

/**
 * The end-of-run warning naming the saturated nodes (the host verdict's threshold and wording), or null.
 * @param {ReturnType<typeof nodeResources>|null|undefined} grid  result.resources.grid
 */
export function saturatedNodesWarning(grid) {
  const saturated = Object.entries(grid?.nodes ?? {}).filter(([, node]) => node.saturation.saturated);
  if (!saturated.length) return null;
  return `grid node${saturated.length > 1 ? 's' : ''} saturated: ${saturated.map(([label, { saturation, cores, peers }]) => `${label} (${peers.join(', ')}) `
    + `used at least ${saturation.thresholdPct} % of CPU (${cores} cores × 100 %) in ${Math.round(100 * (saturation.share ?? 0))} % of the measured seconds`).join('; ')}: `
    + 'frame rates and rates may show the machine, not the network; put fewer peers on it (--spread, placement) or give it more cores';
}
