// The trend dashboard (pure HTML): every scenario's newest verdict with a sparkline, the drift warnings, and per
// scenario and metric the nightly median with its IQR band drawn by assets/trends.js from the embedded data
// (history/trends.js buildTrends). Self-contained like every report: Chart.js and the data inline.
import { escapeHtml } from './format.js';
import { renderPage } from './page.js';

const SPARK_WIDTH = 160;
const SPARK_HEIGHT = 28;

/**
 * The dashboard's data, as history/trends.js buildTrends makes it from the results store; assets/trends.js reads it
 * from the page. Nights are indexed oldest first.
 * @typedef {{ x: number[], med: number[], q1: Array<number|null>, q3: Array<number|null>, n: number[],
 *   reference: number|null, regressions: number[],
 *   drift: (import('../lib/stats/drift.js').Drift & { fromNight: number, text: string })|null }} TrendSeries  one
 *   scenario's metric, per night: x the nights' indexes
 * @typedef {{ night: number, verdict: 'regression'|'failed'|'passed' }} TrendVerdict  a scenario's newest night and what it said
 * @typedef {{ nights: Array<{ t: string, outcome: string, browser: string|null, commit: string|null, report: string|null }>,
 *   browserChanges: Array<{ night: number, from: string, to: string }>,
 *   metrics: Array<{ path: string, label: string, unit: string, worseWhen: 'lower'|'higher', scale: number }>,
 *   scenarios: Array<{ name: string, latest: TrendVerdict|null, series: Record<string, TrendSeries> }>,
 *   drifts: Array<{ scenario: string, metric: string, worse: boolean, text: string }>,
 *   drift: { nights: number, thresholdPct: number } }} Trends
 */

/**
 * An inline SVG polyline of the nightly medians (no script needed for the overview).
 * @param {{ x: number[], med: number[] }|undefined} series @param {number} nightCount
 */
function sparkline(series, nightCount) {
  if (!series?.med.length) return '<span class="note">no data</span>';
  const low = Math.min(...series.med);
  const high = Math.max(...series.med);
  const span = high - low || 1;
  /** @param {number} night */
  const xOf = (night) => ((night / Math.max(1, nightCount - 1)) * SPARK_WIDTH).toFixed(1);
  /** @param {number} value */
  const yOf = (value) => (SPARK_HEIGHT - 2 - ((value - low) / span) * (SPARK_HEIGHT - 4)).toFixed(1);
  const points = series.x.map((night, i) => `${xOf(night)},${yOf(series.med[i])}`).join(' ');
  return `<svg class="sparkline" width="${SPARK_WIDTH}" height="${SPARK_HEIGHT}" viewBox="0 0 ${SPARK_WIDTH} ${SPARK_HEIGHT}" role="img" aria-label="nightly medians"><polyline fill="none" stroke="#1f77b4" stroke-width="1.2" points="${points}"/></svg>`;
}

/**
 * A stored report link as the page may follow it: http(s) or relative, else null (a shared store may hold
 * `javascript:`). Resolved as a browser resolves it (tabs and newlines dropped, case folded), so no spelling slips
 * through. assets/trends.js checks again where it navigates: the page script cannot import this.
 * @param {unknown} link
 * @returns {string|null}
 */
export function safeLink(link) {
  if (typeof link !== 'string' || !link) return null;
  try {
    return ['http:', 'https:'].includes(new URL(link, 'http://relative.invalid/').protocol) ? link : null;
  } catch {
    return null;
  }
}

/**
 * @param {Trends} stored
 * @param {{ store: string, generatedAt?: string }} options store: where the data came from (shown)
 */
export function renderTrendsPage(stored, { store, generatedAt = new Date().toISOString() }) {
  // Unsafe links go before anything is drawn: out of the overview's hrefs and out of the page's embedded data.
  const trends = { ...stored, nights: stored.nights.map((night) => ({ ...night, report: safeLink(night.report) })) };
  const first = trends.metrics[0];
  /** @param {Trends['scenarios'][number]['latest']} latest */
  const verdictCell = (latest) => (latest
    ? `<span class="status status-${latest.verdict === 'passed' ? 'passed' : 'failed'}">${escapeHtml(latest.verdict)}</span> ${escapeHtml(trends.nights[latest.night].t.slice(0, 10))}`
    : '—');
  const rows = trends.scenarios.map((scenario) => {
    const drifted = trends.drifts.filter((drift) => drift.scenario === scenario.name);
    const link = scenario.latest && trends.nights[scenario.latest.night].report;
    return `<tr data-scenario="${escapeHtml(scenario.name)}">
<td><a href="#${encodeURIComponent(scenario.name)}">${escapeHtml(scenario.name)}</a></td>
<td>${verdictCell(scenario.latest)}${link ? ` <a href="${escapeHtml(link)}">report</a>` : ''}</td>
<td>${sparkline(scenario.series[first?.path], trends.nights.length)}</td>
<td>${drifted.map((drift) => `<span class="drift${drift.worse ? ' drift-worse' : ''}" title="${escapeHtml(drift.text)}">${escapeHtml(drift.metric)}</span>`).join(' ')}</td>
</tr>`;
  }).join('\n');
  const driftList = trends.drifts.length
    ? `<ul class="drifts">${trends.drifts.map((drift) => `<li class="${drift.worse ? 'drift-worse' : ''}">${escapeHtml(drift.text)}</li>`).join('')}</ul>`
    : `<p>No metric moved more than ${trends.drift.thresholdPct} % between the last ${trends.drift.nights} nights and the ${trends.drift.nights} before.</p>`;
  const changes = trends.browserChanges.map((change) => `<li>${escapeHtml(trends.nights[change.night].t.slice(0, 10))}: ${escapeHtml(change.from)} → ${escapeHtml(change.to)}</li>`).join('');
  const [firstNight, lastNight] = [trends.nights[0], trends.nights.at(-1)];
  const body = `<h1>Nightly trends</h1>
<p class="note">${trends.nights.length} nights from ${escapeHtml(store)}${firstNight && lastNight ? `, ${escapeHtml(firstNight.t.slice(0, 10))} to ${escapeHtml(lastNight.t.slice(0, 10))}` : ''}; generated ${escapeHtml(generatedAt)}.</p>
<h2>Drift</h2>
${driftList}
${changes ? `<h2>Browser changes</h2><ul class="browser-changes">${changes}</ul>` : ''}
<h2>Scenarios</h2>
<table class="trend-overview"><thead><tr><th>scenario</th><th>newest night</th><th>${escapeHtml(first ? `${first.label} (${first.unit})` : '')}</th><th>drift</th></tr></thead>
<tbody>
${rows}
</tbody></table>
<h2 id="scenario-title">Scenario</h2>
<p><label>Scenario <select id="scenario-select">${trends.scenarios.map((s) => `<option>${escapeHtml(s.name)}</option>`).join('')}</select></label>
<span class="note">Line: the nightly median of the runs' medians; band: their IQR; dashed grey: the published reference; red triangles: the gate's regressions; purple lines: browser changes; orange: a drift window. Click a point to open that night's report.</span></p>
<div id="trend-charts"></div>`;
  return renderPage({ title: 'Nightly trends', body, data: trends, script: 'trends', generatedBy: 'webrtc-testbed history report' });
}
