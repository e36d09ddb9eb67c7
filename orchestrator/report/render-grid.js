// The run report's Grid section (pure HTML), on a --grid run: where each peer's browser ran (node label and URI,
// cores, browser version), its node's clock offset to the orchestrator with its error, its CPU over the measurement
// window, its memory; and each node's CPU, saturation and memory (result.json environment.grid, resources.grid).
import { CPU_LIMITED_SHARE, SATURATED_CORES_SHARE } from '../lib/devices/cpu-limit.js';
import { escapeHtml, formatNumber, formatPercent, isFiniteNumber } from './format.js';
import { fieldOf } from '../lib/input/validate.js';

/** @param {unknown} reading  a node clock's start or end, of a result.json of any harness version @returns {string} */
const offsetText = (reading) => {
  const offsetMs = fieldOf(reading, 'offsetMs');
  const errorMs = fieldOf(reading, 'errorMs');
  return isFiniteNumber(offsetMs) ? `${formatNumber(offsetMs, 2)} ± ${formatNumber(isFiniteNumber(errorMs) ? errorMs : null, 2)}` : '—';
};

/**
 * A browser's memory cells: RSS median · peak and PSS median in MB from its node's /proc, else its page's peak heap, and
 * which of them with why.
 * @param {NonNullable<NonNullable<import('./result-file.js').ReportResult['resources']['grid']>['browsers']>[string]|undefined} browser
 *   of any harness version (before the nodes read memory: the page's heap only)
 * @returns {string}
 */
function memoryCells(browser) {
  if (browser?.memory?.source === 'proc') {
    return `<td>RSS ${formatNumber(browser.rssMb?.median ?? null, 0)} · peak ${formatNumber(browser.peakRssMb ?? null, 0)}, `
      + `PSS ${formatNumber(browser.pssMb?.median ?? null, 0)}</td><td>its processes on its node (/proc)</td>`;
  }
  const why = browser?.memory?.why ? `: ${escapeHtml(browser.memory.why)}` : '';
  return `<td>JS heap peak ${formatNumber(browser?.peakJsHeapMb ?? null, 1)}</td><td>its page's JS heap only${why}</td>`;
}

/**
 * @param {import('./result-file.js').ReportResult} r normalized result
 * @returns {string} '' on a run without --grid
 */
export function renderGridPlacement(r) {
  const grid = r.environment?.grid;
  if (!grid?.peers || typeof grid.peers !== 'object') return '';
  const clocks = grid.clocks ?? {};
  const resources = r.resources?.grid;
  const peers = Object.entries(grid.peers).sort(([a], [b]) => a.localeCompare(b));
  const head = ['Peer', 'Node', 'Node URI', 'Cores', 'Browser', 'Clock offset at start (ms)', 'at end (ms)', 'CPU (% of a core)', 'CPU p95', 'Memory (MB)', 'Memory source'];
  const rows = peers.map(([peer, placed]) => {
    /** @type {Partial<(typeof clocks)[string]>} */
    const clock = clocks[placed?.node] ?? {};
    const cpu = resources?.browsers?.[peer]?.cpuPct;
    return `<tr data-peer="${escapeHtml(peer)}"><th scope="row">${escapeHtml(peer)}</th><td>${escapeHtml(placed?.node ?? '—')}</td>`
      + `<td>${escapeHtml(placed?.uri ?? '—')}</td><td>${formatNumber(placed?.cores ?? null, 0)}</td><td>${escapeHtml(placed?.browserVersion ?? '—')}</td>`
      + `<td>${offsetText(clock.start)}</td><td>${offsetText(clock.end)}</td><td>${formatNumber(cpu?.mean ?? null, 0)}</td>`
      + `<td>${formatNumber(cpu?.p95 ?? null, 0)}</td>${memoryCells(resources?.browsers?.[peer])}</tr>`;
  });
  const nodeHead = ['Node', 'Peers', 'Cores', 'CPU of its browsers (median · p95, % of a core)', 'Seconds saturated', 'RSS of its browsers (MB, median · p95)'];
  const nodeRows = Object.entries(resources?.nodes ?? {}).map(([label, node]) => `<tr data-node="${escapeHtml(label)}"${node?.saturation?.saturated ? ' class="cpu-limited"' : ''}>`
    + `<th scope="row">${escapeHtml(label)}</th><td>${escapeHtml((node?.peers ?? []).join(', '))}</td><td>${formatNumber(node?.cores ?? null, 0)}</td>`
    + `<td>${formatNumber(node?.cpuPct?.median ?? null, 0)} · ${formatNumber(node?.cpuPct?.p95 ?? null, 0)}</td>`
    + `<td>${formatPercent(node?.saturation?.share ?? null)}${node?.saturation?.saturated ? ' (saturated)' : ''}</td>`
    + `<td>${formatNumber(node?.rssMb?.median ?? null, 0)} · ${formatNumber(node?.rssMb?.p95 ?? null, 0)}</td></tr>`);
  /** @param {string[]} columns @param {string[]} body */
  const table = (columns, body) => `<table class="summary grid"><thead><tr>${columns.map((h) => `<th scope="col">${escapeHtml(h)}</th>`).join('')}</tr></thead>`
    + `<tbody>${body.join('')}</tbody></table>`;
  return `<section id="grid-placement" class="block"><h2>Grid placement</h2>
${table(head, rows)}${nodeRows.length ? table(nodeHead, nodeRows) : ''}
<p class="caption">Each peer's browser was a session of the Selenium Grid at ${escapeHtml(grid.url ?? '—')} (network: ${escapeHtml(grid.emulation ?? '—')}).
Clock offset: the node's clock minus the orchestrator's, read over the DevTools protocol (${escapeHtml('performance.timeOrigin + performance.now()')} on
the peer's page, the round trip with the smallest delay of several, its midpoint), ± half that round trip; the viewers' frame times are moved onto the
orchestrator's clock by it before glass-to-glass is computed. CPU: all of the browser's processes (SystemInfo.getProcessInfo), over the measurement
window${resources?.unavailable ? ` (${escapeHtml(resources.unavailable)})` : ''}; a node is saturated, as the host is, when its browsers together use
at least ${formatPercent(SATURATED_CORES_SHARE)} of its cores in over ${formatPercent(CPU_LIMITED_SHARE)} of the measured seconds. Memory: all of the
browser's processes as its node's /proc has them (asked of the node's relay, --emulator node-relay): RSS counts a page shared between processes in each,
so it overstates; PSS splits it among them. Without a node relay only the page's JavaScript heap is known, not the browser's memory.</p></section>`;
}
