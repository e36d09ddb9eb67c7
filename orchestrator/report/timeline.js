// Small numeric helpers for the report over timeline entries. Pure. Descriptive statistics and
// Jain's index themselves come from lib/stats/statistics.js, the summary from lib/result/run-summary.js.
import { valueAt } from '../lib/result/run-summary.js';
import { finiteOrNull } from '../lib/stats/statistics.js';

/** @param {Array<unknown>} values @returns {number[]} the finite numbers among values */
export function finite(values) {
  return /** @type {number[]} */ (values.filter((v) => typeof v === 'number' && Number.isFinite(v)));
}

/** @param {Array<unknown>} values @returns {number|null} mean of the finite values */
export function mean(values) {
  const xs = finite(values);
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null;
}

/**
 * The number at a dotted path of a timeline entry ("video.recvKbps"), or null.
 * @param {object} entry @param {string} path @returns {number|null}
 */
export function metricAt(entry, path) {
  return finiteOrNull(valueAt(entry, path));
}

/**
 * One value per second from a peer's entries of that second (one per remote), for charts of a
 * peer as a whole: rates (…Kbps) are summed, so a mesh peer shows its total rate as in J16 §8-3;
 * everything else is averaged.
 * @param {object[]} entries @param {string} path @returns {number|null}
 */
export function combineRemotes(entries, path) {
  const vs = finite(entries.map((e) => metricAt(e, path)));
  if (!vs.length) return null;
  const sum = vs.reduce((a, b) => a + b, 0);
  return path.endsWith('Kbps') ? sum : sum / vs.length;
}

/**
 * A peer's timeline entries grouped by second (rounded t), in time order.
 * @template {{peer?: unknown, t?: unknown}} T
 * @param {T[]} timeline @param {string} peer
 * @returns {Map<number, T[]>}
 */
export function peerSeconds(timeline, peer) {
  /** @type {Map<number, T[]>} */
  const seconds = new Map();
  for (const e of timeline) {
    if (!e || e.peer !== peer || typeof e.t !== 'number' || !Number.isFinite(e.t)) continue;
    const s = Math.round(e.t);
    const entries = seconds.get(s) ?? [];
    entries.push(e);
    seconds.set(s, entries);
  }
  return new Map([...seconds].sort(([a], [b]) => a - b));
}
