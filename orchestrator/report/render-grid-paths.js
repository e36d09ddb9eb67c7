// The run report's line on --grid's probed paths (pure): what the node relays measured between the machines before the
// call, which the configured delays come on top of. A result is rendered whatever it holds (old or hand-edited).
import { escapeHtml, formatNumber } from './format.js';

/** @param {{ environment?: { grid?: { emulation?: string, paths?: unknown }|null } }} r @returns {string} HTML, or '' */
export function renderGridPaths(r) {
  const paths = Array.isArray(r.environment?.grid?.paths) ? r.environment.grid.paths : [];
  if (!paths.length) return '';
  const rows = paths.slice(0, 50).map((p) => `<li><b>${escapeHtml(String(p?.from))} → ${escapeHtml(String(p?.to))}</b>: RTT min `
    + `${formatNumber(p?.rttMsMin, 2)} ms, median ${formatNumber(p?.rttMsMedian, 2)} ms, loss ${formatNumber(p?.lossPct, 1)} % `
    + `(${formatNumber(p?.received, 0)} of ${formatNumber(p?.probes, 0)} probes)</li>`).join('');
  return `<p>Grid: ${escapeHtml(String(r.environment?.grid?.emulation ?? ''))}. The real paths between the nodes, probed relay to relay `
    + `before the call; the configured delays are added on top of them:</p><ul class="routes">${rows}</ul>`;
}
