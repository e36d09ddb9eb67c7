// The real path between two grid-nodes, as their relays' probes saw it before the call (pure): configured delays are
// added on top of it.
import { median } from '../../lib/stats/statistics.js';

/**
 * @param {{ from: string, to: string, sent: number, rttMs: number[] }} probe
 * @returns {import('../contract.js').PathProbe}
 */
export function pathSummary({ from, to, sent, rttMs }) {
  const round = (/** @type {number} */ ms) => Number(ms.toFixed(3));
  return {
    from, to, probes: sent, received: rttMs.length,
    rttMsMin: rttMs.length ? round(Math.min(...rttMs)) : null,
    rttMsMedian: rttMs.length ? round(/** @type {number} */ (median(rttMs))) : null,
    lossPct: sent ? Number((100 * (1 - rttMs.length / sent)).toFixed(2)) : null,
  };
}
