// bench/multiparty.js --load's arithmetic (pure): the load-participant counts a room grows through, the measured
// browsers' worst CPU-limited share, and what each process of the room cost (each browser, the SFU, the load
// participants summed and per participant, the relay). Whether a room was carried is simulcast-figures.js roomVerdict.
import { MAX_LOAD_PARTICIPANTS } from '../orchestrator/lib/input/limits.js';

/** The room sizes the bench grows through by default: 2 measured browsers and up to 23 load participants (25 parties). */
export const DEFAULT_LOAD_SIZES = '0,4,8,13,18,23';

/**
 * A --sizes flag: load participants per room, comma-separated; each once, ascending.
 * @param {string} text @param {string} [flag]
 * @returns {number[]}
 */
export function parseLoadSizes(text, flag = '--sizes') {
  const parts = text.split(',').map((part) => part.trim());
  const bad = parts.find((part) => !/^\d+$/.test(part) || Number(part) > MAX_LOAD_PARTICIPANTS);
  if (bad !== undefined) {
    throw new RangeError(`${flag}: '${bad}' is not a count of load participants from 0 to ${MAX_LOAD_PARTICIPANTS}; `
      + `give a comma-separated list such as ${DEFAULT_LOAD_SIZES}`);
  }
  return [...new Set(parts.map(Number))].sort((a, b) => a - b);
}

/**
 * The largest share of its measured seconds any browser was CPU-limited, by its encoder's reason (`cpu`) or the
 * harness's own verdict (summary.cpuLimitation); null when none was judged.
 * @param {{ byPeer?: Record<string, number>, harness?: { peers?: Record<string, { share?: number|null }> } }|null|undefined} cpuLimitation
 */
export function worstCpuLimitedShare(cpuLimitation) {
  const shares = [
    ...Object.values(cpuLimitation?.byPeer ?? {}),
    ...Object.values(cpuLimitation?.harness?.peers ?? {}).map((peer) => peer?.share),
  ].filter((share) => typeof share === 'number').filter(Number.isFinite);
  return shares.length ? Math.max(...shares) : null;
}

/** @typedef {{ cpuPct: { mean?: number|null }, peakRssMb?: number }} ProcessSummary  result.resources.summary's entry */
/** @typedef {{ cpuPct: number|null, peakRssMb: number|null }} ProcessCost  mean CPU (% of one core) and peak memory */

/** @param {ProcessSummary|undefined} process @returns {ProcessCost} */
const costOf = (process) => {
  const mean = process?.cpuPct?.mean;
  const rss = process?.peakRssMb;
  return { cpuPct: typeof mean === 'number' ? mean : null, peakRssMb: typeof rss === 'number' ? rss : null };
};

/**
 * What each process of a load-participant room cost over the measurement window. The load participants: the sum over
 * those sampled and its share per sampled participant (`sampled` below `participants` when one was not sampled).
 * @param {Record<string, ProcessSummary>} summary  result.resources.summary
 * @param {{ browsers: string[], sfu: string, relay: string, load: string[] }} names  the peers, the SFU's and the
 *   emulator's process names (as the run tracks them), the load participants (result.load.participants)
 */
export function roomCosts(summary, { browsers, sfu, relay, load }) {
  const sampled = load.map((name) => costOf(summary[name])).filter((cost) => cost.cpuPct !== null);
  /** @param {'cpuPct'|'peakRssMb'} field */
  const sum = (field) => (sampled.length ? sampled.reduce((total, cost) => total + (cost[field] ?? 0), 0) : null);
  const cpuPct = sum('cpuPct');
  const peakRssMb = sum('peakRssMb');
  return {
    browsers: Object.fromEntries(browsers.map((name) => [name, costOf(summary[name])])),
    sfu: costOf(summary[sfu]),
    relay: costOf(summary[relay]),
    load: {
      participants: load.length, sampled: sampled.length, cpuPct, peakRssMb,
      cpuPctEach: cpuPct === null ? null : cpuPct / sampled.length, peakRssMbEach: peakRssMb === null ? null : peakRssMb / sampled.length,
    },
  };
}
