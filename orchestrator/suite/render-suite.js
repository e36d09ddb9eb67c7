// The suite page (report.html in the suite directory): per scenario, the runs with links to their reports,
// the assertions, and each compared metric as dot strips of the baseline's and this suite's runs with their
// medians. Pure; self-contained (inline SVG, no Chart.js).
import { percentile } from '../lib/stats/statistics.js';
import { headlinePaths, metricByPath } from '../lib/result/metric-catalogue.js';
import { renderPage } from '../report/page.js';
import { escapeHtml, formatNumber, metricInfo, statusBadge } from '../report/format.js';
import { renderSfuSection } from '../report/render-sfu-comparison.js';

/** The per-run values listed beside each run. */
const RUN_COLUMNS = headlinePaths('overview');
const STRIP = { width: 320, height: 44, pad: 10, baselineY: 14, currentY: 32 };
/** @type {Partial<Record<import('./summary.js').Outcome, string>>} */
const OUTCOME_STATUS = { passed: 'passed', failed: 'failed', crashed: 'failed', 'environment-error': 'failed', aborted: 'aborted' };
const STYLE = `<style>
.verdict { font-weight: 600; } .verdict-regression, .fail { color: var(--bad); } .verdict-improvement, .pass { color: var(--good); }
.verdict-inconclusive, .warn-text { color: var(--warn); } svg.strip { display: block; } svg.strip .base { fill: #888; fill-opacity: .65; }
svg.strip .cur { fill: #1f77b4; fill-opacity: .8; } table.summary td.text { text-align: left; } svg.strip .med { stroke-width: 2.5; } svg.strip .axis { stroke: #ccc; }
</style>`;

/** @param {number|null|undefined} v */
const pct = (v) => (v === null || v === undefined ? '—' : `${v > 0 ? '+' : ''}${formatNumber(v * 100, 1)} %`);

/** @param {number[]} values @returns {(v: number) => number} value -> x in the strip */
function scaleFor(values) {
  let lo = Math.min(...values);
  let hi = Math.max(...values);
  if (lo === hi) { lo -= Math.abs(lo) * 0.05 || 1; hi += Math.abs(hi) * 0.05 || 1; }
  const span = STRIP.width - 2 * STRIP.pad;
  return (v) => STRIP.pad + ((v - lo) / (hi - lo)) * span;
}

/**
 * One metric as two rows of dots (baseline grey above, current blue below) with median ticks. Current dots
 * link to their run's report.
 * @param {{ values: number[], median: number|null }|null} baseline
 * @param {{ value: number, href: string|null, label: string }[]} current
 * @param {number|null} currentMedian
 * @param {string} metric
 */
export function renderDotStrip(baseline, current, currentMedian, metric) {
  const all = [...(baseline?.values ?? []), ...current.map((c) => c.value)];
  if (!all.length) return '<span class="note">no values</span>';
  const x = scaleFor(all);
  const { unit } = metricInfo(metric);
  /** @param {string} cls @param {number} v @param {number} y @param {string} label */
  const dot = (cls, v, y, label) => `<circle class="${cls}" cx="${x(v).toFixed(1)}" cy="${y}" r="4"><title>${escapeHtml(`${label}: ${formatNumber(v)} ${unit}`)}</title></circle>`;
  /** @param {number|null|undefined} v @param {number} y @param {string} color */
  const tick = (v, y, color) => (v === null || v === undefined ? '' : `<line class="med" x1="${x(v).toFixed(1)}" x2="${x(v).toFixed(1)}" y1="${y - 8}" y2="${y + 8}" stroke="${color}"><title>median ${escapeHtml(formatNumber(v))} ${escapeHtml(unit)}</title></line>`);
  const parts = [
    `<line class="axis" x1="${STRIP.pad}" x2="${STRIP.width - STRIP.pad}" y1="${STRIP.height / 2}" y2="${STRIP.height / 2}"/>`,
    ...(baseline?.values ?? []).map((v, i) => dot('base', v, STRIP.baselineY, `baseline run ${i + 1}`)),
    tick(baseline?.median, STRIP.baselineY, '#444'),
    ...current.map((c) => (c.href ? `<a href="${escapeHtml(c.href)}">${dot('cur', c.value, STRIP.currentY, c.label)}</a>` : dot('cur', c.value, STRIP.currentY, c.label))),
    tick(currentMedian, STRIP.currentY, '#0b3d66'),
  ];
  return `<svg class="strip" width="${STRIP.width}" height="${STRIP.height}" viewBox="0 0 ${STRIP.width} ${STRIP.height}" role="img" aria-label="${escapeHtml(`${metric}: baseline (top) and current runs (bottom)`)}">${parts.join('')}</svg>`;
}

/** @param {import('./summary.js').SuiteSummary} summary @param {import('./summary.js').ScenarioSummary} scenario */
function renderRuns(summary, scenario) {
  const runs = summary.runs.filter((r) => r.scenario === scenario.name);
  const rows = runs.map((r) => `<tr><th scope="row">${r.repetition}</th><td>${statusBadge(r.status)}</td><td>${escapeHtml(r.startedAt?.replace('T', ' ').replace(/\.\d+Z$/, 'Z') ?? '—')}</td>`
    + RUN_COLUMNS.map((metric) => `<td>${formatNumber(r.values[metric], metricInfo(metric).decimals ?? undefined)}</td>`).join('')
    + `<td>${r.report ? `<a href="${escapeHtml(r.report)}">report</a>` : '<span class="note">no report</span>'} · <a href="${escapeHtml(r.dir)}/result.json">json</a></td>`
    + `<td class="note text">${escapeHtml(r.errors[0] ?? '')}</td></tr>`);
  const heads = RUN_COLUMNS.map((metric) => `<th>${escapeHtml(metricInfo(metric).label)} (${escapeHtml(metricInfo(metric).unit)})</th>`).join('');
  return `<table class="summary compact"><thead><tr><th>Run</th><th>Status</th><th>Started (UTC)</th>${heads}<th></th><th>Error</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

/** @param {import('./summary.js').ScenarioSummary} scenario */
function renderAssertions(scenario) {
  if (!scenario.assertions.length) return '<p class="note">No assertions for this scenario.</p>';
  const rows = scenario.assertions.map((a) => {
    const result = a.passed === null ? '<span class="note">off</span>' : a.passed ? '<span class="pass">holds</span>'
      : `<span class="${a.level === 'error' ? 'fail' : 'warn-text'}">${a.level === 'error' ? 'fails' : 'warning'}</span>`;
    return `<tr><td>${escapeHtml(a.level)}</td><td class="mono text">${escapeHtml(a.check)}</td><td>${a.value === null ? 'no data' : formatNumber(a.value)}</td><td>${a.n}</td><td>${result}</td><td class="note text">${escapeHtml(a.why ?? '')}</td></tr>`;
  });
  return `<table class="summary compact"><thead><tr><th>Level</th><th>Check</th><th>Value</th><th>n</th><th>Result</th><th>Why</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

/** @param {import('./summary.js').SuiteSummary} summary @param {import('./summary.js').ScenarioSummary} scenario */
function renderMetrics(summary, scenario) {
  const passed = summary.runs.filter((r) => r.scenario === scenario.name && r.status === 'passed');
  const comparisons = new Map(scenario.regressions.map((c) => [c.metric, c]));
  const rows = summary.regression.metrics.map((metric) => {
    const c = comparisons.get(metric);
    const current = passed.filter((r) => Number.isFinite(r.values[metric])).map((r) => ({ value: r.values[metric], href: r.report, label: `run ${r.repetition}` }));
    // An opt-in metric no run measured (baseline.js compareScenario left it out): no row.
    if (!c && !current.length && metricByPath(metric)?.optIn) return '';
    const currentMedian = percentile(current.map((v) => v.value).sort((a, b) => a - b), 50);
    const info = metricInfo(metric);
    const verdict = c ? `<span class="verdict verdict-${c.verdict}" title="${escapeHtml(c.reason)}">${escapeHtml(c.verdict)}</span>` : '—';
    return `<tr><th scope="row">${escapeHtml(info.label)} <span class="unit">(${escapeHtml(metric)}${info.unit ? `, ${escapeHtml(info.unit)}` : ''}; worse when ${escapeHtml(c?.worseWhen ?? '—')})</span></th>`
      + `<td>${renderDotStrip(c?.baseline ?? null, current, currentMedian, metric)}</td>`
      + `<td>${formatNumber(c?.baseline.median)}</td><td>${formatNumber(currentMedian)}</td><td>${pct(c?.relativeChange)}</td>`
      + `<td>${c?.pValue === null || !c ? '—' : escapeHtml(c.pValue.toPrecision(2))}</td><td>${formatNumber(c?.cliffsDelta, 2)}</td><td>${verdict}</td></tr>`;
  });
  return `<table class="summary compact"><thead><tr><th>Metric</th><th>Runs (grey: baseline, blue: this suite; ticks: medians)</th><th>Baseline median</th><th>Median</th><th>Change</th><th>p</th><th>Cliff's δ</th><th>Verdict</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

/**
 * @param {{ id: string, citation: string, title: string, file: string }[]} reproductions
 */
function renderReproductionLinks(reproductions) {
  if (!reproductions.length) return '';
  const items = reproductions.map((r) => `<li><a href="${escapeHtml(r.file)}">${escapeHtml(r.citation)}: ${escapeHtml(r.title)}</a> <span class="mono note">${escapeHtml(r.id)}</span></li>`);
  return `<section class="block" id="reproductions"><h2>Reproduction</h2><p class="note">The published tables these runs reproduce: our median and IQR beside each published value, the deviation and its known causes.</p><ul>${items.join('')}</ul></section>`;
}

/**
 * @param {import('./summary.js').SuiteSummary} summary a suite summary
 * @param {{ reproductions?: { id: string, citation: string, title: string, file: string }[],
 *   sfuComparisons?: import('../report/sfu-comparison.js').SfuComparison[] }} [options]
 *   the reproduction pages written beside it, the scenarios it ran through several SFUs (suite-dir.js)
 * @returns {string} the suite page HTML
 */
export function renderSuitePage(summary, { reproductions = [], sfuComparisons = [] } = {}) {
  const { suite, counts, regression } = summary;
  /** @type {Partial<import('./summary.js').SummaryEnvironment>} */
  const env = summary.environment ?? {};
  const meta = [
    ['Started', summary.startedAt], ['Ended', summary.endedAt],
    ['Runs', `${counts.passedRuns} of ${counts.runs} passed`],
    ['Shard', summary.shard ? `${summary.shard.index}/${summary.shard.count}` : summary.mergedFrom ? `merged from ${summary.mergedFrom.length}` : 'all'],
    ['Browser', env.browser], ['Emulator', env.emulator ?? suite.emulator], ['Media', env.video ?? suite.video],
    ['Host', [env.os, env.cpus && `${env.cpus} CPUs`, env.node && `node ${env.node}`].filter(Boolean).join(' · ')],
    ['Baseline', summary.baseline ? `${summary.baseline.file} (suite ${summary.baseline.suite}, ${summary.baseline.createdAt ?? 'undated'})` : 'none'],
    ['Assertions', summary.assertionsFile ?? 'none'],
  ];
  const problems = [...summary.problems, ...(summary.notRun.length ? [`Not run: ${summary.notRun.join(', ')}`] : [])];
  const sections = summary.scenarios.map((s) => `<section class="block" id="scenario-${escapeHtml(s.name)}"><h2>${escapeHtml(s.name)} <small>${s.passedRuns}/${s.runs} runs passed</small></h2>
<h3>Runs</h3>${renderRuns(summary, s)}
<h3>Assertions</h3>${renderAssertions(s)}
<h3>Per-run values${summary.baseline ? ' against the baseline' : ''}</h3>${renderMetrics(summary, s)}</section>`);
  const rule = `Per-run value: the run's summary.overall[metric].median over its measurement window. A regression needs all three: two-sided Mann-Whitney U p &lt; ${regression.alpha}, Cliff's |δ| ≥ ${regression.minEffectSize} and a median change ≥ ${formatNumber(regression.minRelativeChange * 100, 1)} %, the last two in the worse direction; fewer than 5 runs a side is inconclusive.`;
  const body = `${STYLE}<main class="report"><header class="report-header"><p class="kicker">WebRTC test bed · suite</p>
<h1>${escapeHtml(suite.name)} ${statusBadge(OUTCOME_STATUS[summary.outcome] ?? summary.outcome)} <small class="note">${escapeHtml(summary.outcome)} · exit ${summary.exitCode}</small></h1>
<p class="description">${escapeHtml(suite.description)}</p>
<dl class="meta">${meta.map(([k, v]) => `<div><dt>${k}</dt><dd>${escapeHtml(v ?? '—')}</dd></div>`).join('')}</dl></header>
${problems.length ? `<section class="problems ${summary.outcome === 'passed' ? 'warn' : 'bad'}"><h2>Problems</h2><ul>${problems.map((p) => `<li>${escapeHtml(p)}</li>`).join('')}</ul></section>` : ''}
${summary.warnings?.length ? `<section class="problems warn" id="warnings"><h2>Warnings <small class="note">(not failures)</small></h2><ul>${summary.warnings.map((w) => `<li>${escapeHtml(w)}</li>`).join('')}</ul></section>` : ''}
${renderReproductionLinks(reproductions)}
${renderSfuSection(sfuComparisons, { titled: true })}
${sections.join('\n') || '<p class="empty">No runs.</p>'}
<p class="caption">${rule}</p></main>`;
  return renderPage({ title: `Suite ${suite.name} · ${summary.outcome}`, body, script: null, generatedBy: 'webrtc-testbed suite' });
}
