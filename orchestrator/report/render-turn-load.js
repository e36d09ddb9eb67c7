// The run report's TURN server load (pure): result.json `resources.turn` (lib/devices/turn-load.js), coturn's
// allocations, the traffic on its link and its CPU and memory over the measured window, and its busiest second.
import { escapeHtml, formatNumber } from './format.js';
import { isRecord } from '../lib/input/validate.js';

/** @typedef {import('../lib/devices/turn-load.js').TurnLoadSection} TurnLoadSection */

/** result.json's `resources.turn` when it has one (this harness wrote it: only its shape is checked). @param {unknown} result */
function turnOfResult(result) {
  const resources = isRecord(result) ? result.resources : null;
  const turn = isRecord(resources) ? resources.turn : null;
  if (!isRecord(turn) || !Array.isArray(turn.rows)) return null;
  return /** @type {TurnLoadSection} */ (/** @type {unknown} */ (turn));
}

/**
 * @param {unknown} result a result.json
 * @returns {string} '' when the run had no TURN server
 */
export function renderTurnLoad(result) {
  const turn = turnOfResult(result);
  if (!turn) return '';
  if (!turn.summary) return `<section id="turn-load" class="block"><h2>TURN server load</h2><p>Not measured: ${escapeHtml(turn.unavailable ?? 'no rows')}.</p></section>`;
  const busiest = turn.rows.reduce((top, row) => ((row.cpuPct ?? -1) > (top?.cpuPct ?? -1) ? row : top), turn.rows[0]);
  const { summary } = turn;
  const { maxAllocations, inKbpsMean, outKbpsMean, cpuPctMean, peakRssMb } = summary;
  const cells = [maxAllocations, inKbpsMean, outKbpsMean, cpuPctMean, peakRssMb, busiest?.cpuPct ?? null]
    .map((value, i) => `<td>${formatNumber(value, i === 3 || i === 5 ? 1 : 0)}</td>`).join('');
  const head = ['Allocations (max)', 'From the peers (kbps, mean)', 'To the peers (kbps, mean)', 'CPU (% of a core, mean)', 'Memory (MB, peak)',
    'CPU in its busiest second (%)'];
  return `<section id="turn-load" class="block"><h2>TURN server load</h2>
<table class="summary turn-load"><thead><tr>${head.map((h) => `<th scope="col">${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody><tr>${cells}</tr></tbody></table>
<p class="caption">coturn's process and namespace read from /proc once a second after the warm-up (${turn.rows.length} seconds in result.json
<code>resources.turn.rows</code>): allocations are its relayed UDP ports open; traffic is its link's bytes, IP headers and TURN framing included.</p>
</section>`;
}
