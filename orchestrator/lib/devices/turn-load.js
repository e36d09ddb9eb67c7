// The run's TURN server's load (pure): what coturn's process and its namespace show in /proc, once a second, made into
// rows (allocations, the bytes its link carried from and to the peers, its CPU and memory) and result.json's section.
// coturn's own counters (its CLI's `ps`) refresh only every few thousand packets, so they cannot give a second's rate;
// its namespace holds nothing but coturn (run/turn-server.js), so the namespace's interface counters are its traffic.
// The text is the kernel's, read bounded (run/turn-load-sampler.js) and parsed as untrusted: a line that does not parse
// is skipped, never trusted.
import { cpuPercent, rssMb } from './proc-stat.js';

/** At most this many lines of a /proc table are looked at (a namespace of one coturn has a handful). */
export const MAX_PROC_LINES = 4096;

/**
 * @typedef {object} TurnReading  one reading of coturn's process and namespace
 * @property {number} epochMs
 * @property {import('../devices/proc-stat.js').ProcReading} proc  its process (stat ticks and VmRSS)
 * @property {{ rxBytes: number, txBytes: number }|null} link  its namespace's interfaces but loopback, summed; null: unreadable
 * @property {number|null} allocations  UDP sockets bound in its relay port range; null: unreadable
 *
 * @typedef {object} TurnLoadRow
 * @property {number} epochMs     the end of the second it covers
 * @property {number|null} allocations  relayed transport addresses open (one per page connection's allocation)
 * @property {number|null} inKbps   bytes its namespace received from the peers (TURN framing and IP headers included)
 * @property {number|null} outKbps  bytes it sent to the peers
 * @property {number|null} cpuPct   % of one core over the second
 * @property {number} rssMb
 *
 * @typedef {{ rows: Array<Omit<TurnLoadRow, 'epochMs'> & { t: number }>, summary: TurnLoadSummary|null,
 *   unavailable: string|null }} TurnLoadSection
 * @typedef {{ maxAllocations: number|null, inKbpsMean: number|null, outKbpsMean: number|null, cpuPctMean: number|null,
 *   peakRssMb: number|null }} TurnLoadSummary
 */

/**
 * /proc/<pid>/net/dev: the received and sent bytes of every interface but loopback, summed (coturn relaying between two
 * of its own allocations sends to its own address, over loopback: counted once on the way in and once out).
 * @param {string} text
 * @returns {{ rxBytes: number, txBytes: number }|null} null: no interface line parsed
 */
export function parseNetDev(text) {
  let rxBytes = 0;
  let txBytes = 0;
  let seen = 0;
  for (const line of text.split('\n', MAX_PROC_LINES)) {
    const match = /^\s*([^\s:]{1,15}):\s*(.*)$/.exec(line);
    if (!match || match[1] === 'lo') continue;
    const fields = match[2].trim().split(/\s+/).map(Number);
    // proc(5): 8 receive counters, then 8 transmit; bytes first in each.
    if (fields.length < 16 || !fields.every(Number.isSafeInteger)) continue;
    rxBytes += fields[0];
    txBytes += fields[8];
    seen += 1;
  }
  return seen ? { rxBytes, txBytes } : null;
}

/**
 * /proc/<pid>/net/udp: how many sockets are bound to a port in [minPort, maxPort] (coturn's relayed transport addresses).
 * @param {string} text @param {{ minPort: number, maxPort: number, exclude?: number[] }} range  exclude: its listeners
 * @returns {number|null} null: not the table's header
 */
export function relaySocketCount(text, { minPort, maxPort, exclude = [] }) {
  const lines = text.split('\n', MAX_PROC_LINES);
  if (!/^\s*sl\s+local_address\s/.test(lines[0] ?? '')) return null;
  let count = 0;
  for (const line of lines.slice(1)) {
    const match = /^\s*\d+:\s+[0-9A-F]{8}:([0-9A-F]{4})\s/.exec(line);
    if (!match) continue;
    const port = Number.parseInt(match[1], 16);
    if (port >= minPort && port <= maxPort && !exclude.includes(port)) count += 1;
  }
  return count;
}

/**
 * One second's row from two readings of the same process (a restarted process has other start ticks: no row).
 * @param {TurnReading} before @param {TurnReading} after @param {number} ticksPerS
 * @returns {TurnLoadRow|null} null when no time passed or the process is not the same
 */
export function turnLoadRow(before, after, ticksPerS) {
  const elapsedS = (after.epochMs - before.epochMs) / 1000;
  const pids = [...after.proc.processes.keys()];
  const started = (/** @type {TurnReading} */ reading) => reading.proc.processes.get(pids[0])?.startTimeTicks;
  const same = pids.length === 1 && started(before) === started(after);
  if (!(elapsedS > 0) || !same) return null;
  /** @param {'rxBytes'|'txBytes'} field */
  const kbps = (field) => {
    const delta = after.link && before.link ? after.link[field] - before.link[field] : NaN;
    // A counter that went back (an interface gone) says nothing about the second.
    return delta >= 0 ? round1((delta * 8) / 1000 / elapsedS) : null;
  };
  const cpuPct = cpuPercent(before.proc, after.proc, pids, ticksPerS);
  return {
    epochMs: after.epochMs, allocations: after.allocations, inKbps: kbps('rxBytes'), outKbps: kbps('txBytes'),
    cpuPct: cpuPct === null ? null : round1(cpuPct), rssMb: round1(rssMb(after.proc, pids)),
  };
}

/**
 * result.json `resources.turn`: the rows on the media clock within the call, and their means over the measured window.
 * @param {{ rows: TurnLoadRow[], unavailable: string|null }} load
 * @param {number|null} mediaStartEpochMs  null: the call never started
 * @param {{ warmupS: number, durationS: number }} window
 * @returns {TurnLoadSection}
 */
export function turnLoadSection(load, mediaStartEpochMs, { warmupS, durationS }) {
  if (mediaStartEpochMs === null) return { rows: [], summary: null, unavailable: load.unavailable ?? 'not sampled: the call did not start' };
  const rows = load.rows
    .map(({ epochMs, ...row }) => ({ t: Number(((epochMs - mediaStartEpochMs) / 1000).toFixed(3)), ...row }))
    .filter((row) => row.t > 0 && row.t <= durationS);
  const measured = rows.filter((row) => row.t > warmupS);
  /** @param {(row: typeof rows[number]) => number|null} pick */
  const mean = (pick) => {
    const values = measured.map(pick).filter((value) => value !== null);
    return values.length ? round1(values.reduce((a, b) => a + b, 0) / values.length) : null;
  };
  /** @param {(row: typeof rows[number]) => number|null} pick */
  const max = (pick) => {
    const values = measured.map(pick).filter((value) => value !== null);
    return values.length ? Math.max(...values) : null;
  };
  const summary = measured.length ? {
    maxAllocations: max((row) => row.allocations), inKbpsMean: mean((row) => row.inKbps), outKbpsMean: mean((row) => row.outKbps),
    cpuPctMean: mean((row) => row.cpuPct), peakRssMb: max((row) => row.rssMb),
  } : null;
  return { rows, summary, unavailable: rows.length ? null : load.unavailable ?? 'no reading of coturn within the call' };
}

const round1 = (/** @type {number} */ value) => Math.round(value * 10) / 10;
