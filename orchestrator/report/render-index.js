// results/index.html: every run, filterable by scenario, status, browser and emulator. Pure.

import { renderPage } from './page.js';
import { runStatistics } from './summary-table.js';
import { escapeHtml, isFiniteNumber, formatClock, formatNumber, formatPercent, statusBadge } from './format.js';

/**
 * @typedef {{scenario: string, status: string, browser: string, emulator: string, startedAt: string|null,
 *   durationS: number|null, recordedS: number|null, peers: number|null, videoRecvKbps: number|null, rttMs: number|null,
 *   lossPct: number|null, utilization: number|null, errors: number, error: string|null, href: string, hasReport: boolean}} IndexEntry
 */

/**
 * One index row from a normalized result.
 * @param {import('./result-file.js').ReportResult} r normalized result
 * @param {{href: string, hasReport: boolean}} where href: the run directory relative to the index
 * @returns {IndexEntry}
 */
export function indexEntry(r, { href, hasReport }) {
  const stats = runStatistics(r);
  const util = r.summary?.utilization?.overall;
  return {
    scenario: r.scenario.name,
    status: r.status,
    // Major versions; a mixed run's are ' + '-joined like its names (run/environment.js).
    browser: [r.environment.browser.name, r.environment.browser.version?.split(' + ').map((v) => v.split('.')[0]).join(' + ')]
      .filter(Boolean).join(' ') || 'unknown',
    emulator: r.network.emulator ?? r.environment.emulator ?? 'unknown',
    startedAt: r.environment.startedAt ?? null,
    durationS: isFiniteNumber(r.scenario.durationS) ? r.scenario.durationS : null,
    recordedS: r.timeline.length ? r.timeline.reduce((m, e) => Math.max(m, e.t), -Infinity) : null,
    peers: isFiniteNumber(r.scenario.peers) ? r.scenario.peers : Object.keys(stats.peers).length || null,
    videoRecvKbps: stats.overall['video.recvKbps']?.mean ?? null,
    rttMs: stats.overall.rttMs?.mean ?? null,
    lossPct: stats.overall.lossPct?.mean ?? null,
    utilization: isFiniteNumber(util) ? util : null,
    errors: r.errors.length,
    error: r.errors[0]?.message ?? null,
    href,
    hasReport,
  };
}

/**
 * A row for a result.json that could not be read.
 * @param {string} message @param {{href: string, hasReport: boolean}} where @returns {IndexEntry}
 */
export function unreadableEntry(message, { href, hasReport }) {
  const scenario = decodeURIComponent(href.split('/').slice(-2, -1)[0] ?? href) || 'unknown';
  return { scenario, status: 'unreadable', browser: 'unknown', emulator: 'unknown', startedAt: null, durationS: null, recordedS: null, peers: null, videoRecvKbps: null, rttMs: null, lossPct: null, utilization: null, errors: 1, error: message, href, hasReport };
}

/** @param {IndexEntry[]} entries @param {keyof IndexEntry} field */
function options(entries, field) {
  return [...new Set(entries.map((e) => String(e[field])))].sort().map((v) => `<option value="${escapeHtml(v)}">${escapeHtml(v)}</option>`).join('');
}

/**
 * @param {IndexEntry[]} entries
 * @param {{root?: string, generatedAt?: string}} [options]
 * @returns {string} the index HTML
 */
export function renderIndex(entries, { root = 'results', generatedAt = new Date().toISOString() } = {}) {
  const sorted = [...entries].sort((a, b) => String(b.startedAt ?? '').localeCompare(String(a.startedAt ?? '')) || a.href.localeCompare(b.href));
  const filters = [['scenario', 'Scenario'], ['status', 'Status'], ['browser', 'Browser'], ['emulator', 'Emulator']]
    .map(([f, label]) => `<label>${label}<select data-filter="${f}"><option value="">all</option>${options(sorted, /** @type {keyof IndexEntry} */ (f))}</select></label>`).join('');
  const rows = sorted.map((e) => {
    const link = e.hasReport ? `<a href="${escapeHtml(e.href)}/report.html">report</a>` : '<span class="note" title="run: webrtc-testbed report &lt;run-dir&gt;">no report</span>';
    const recorded = e.recordedS !== null && e.durationS !== null && e.recordedS < e.durationS - 2 ? ` <span class="note">(${formatClock(e.recordedS)} recorded)</span>` : '';
    return `<tr data-scenario="${escapeHtml(e.scenario)}" data-status="${escapeHtml(e.status)}" data-browser="${escapeHtml(e.browser)}" data-emulator="${escapeHtml(e.emulator)}">
<td>${escapeHtml(e.startedAt ? e.startedAt.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '—')}</td><td><b>${escapeHtml(e.scenario)}</b></td><td>${statusBadge(e.status)}</td><td>${escapeHtml(e.browser)}</td><td>${escapeHtml(e.emulator)}</td>
<td class="num">${formatClock(e.durationS)}${recorded}</td><td class="num">${e.peers ?? '—'}</td><td class="num">${formatNumber(e.videoRecvKbps, 0)}</td><td class="num">${formatNumber(e.rttMs, 1)}</td><td class="num">${formatNumber(e.lossPct, 2)}</td><td class="num">${formatPercent(e.utilization)}</td>
<td class="err">${e.error ? `<span class="note" title="${escapeHtml(e.error)}">${escapeHtml(e.error.slice(0, 80))}${e.errors > 1 ? ` (+${e.errors - 1})` : ''}</span>` : ''}</td><td>${link} · <a href="${escapeHtml(e.href)}/result.json">json</a></td></tr>`;
  });
  const body = `<main class="index"><p class="kicker">WebRTC test bed</p><h1>Results</h1>
<p class="description">Every run under <code>${escapeHtml(root)}</code>. Generated ${escapeHtml(generatedAt)}.</p>
<div class="filters">${filters}<label>Search<input type="search" data-filter="text" placeholder="scenario, error, path"></label><span class="count" id="run-count">${sorted.length} runs</span></div>
<table class="summary runs"><thead><tr><th>Started (UTC)</th><th>Scenario</th><th>Status</th><th>Browser</th><th>Emulator</th><th class="num">Duration</th><th class="num">Peers</th><th class="num">Video kbps</th><th class="num">RTT ms</th><th class="num">Loss %</th><th class="num">Util.</th><th>Error</th><th></th></tr></thead>
<tbody>${rows.join('\n') || '<tr><td colspan="13" class="empty">No runs yet: results/&lt;scenario&gt;/&lt;timestamp&gt;/result.json appear here.</td></tr>'}</tbody></table>
<p class="caption">Video kbps, RTT and loss: mean over peers of the per-peer means in the measurement window.</p></main>`;
  return renderPage({ title: `Results · ${sorted.length} runs`, body, script: 'runs-filter' });
}
