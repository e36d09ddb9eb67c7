// Runs of one scenario overlaid: per-peer charts with one line per run, and a table of each
// run's averages with the mean over runs (as J16 averages 5 runs) next to the reference. Runs of different video
// codecs (codec-vp8, codec-vp9, … or --codec) also get a table with one column per codec (codec-table.js), runs through
// different SFUs a section setting them side by side per subscriber (sfu-comparison.js). Pure.

import { relative, dirname, join } from 'node:path';
import { InputError } from '../lib/system/errors.js';
import { RUN_METRIC_PATHS, headlinePaths, metricsOfList } from '../lib/result/metric-catalogue.js';
import { referenceValue } from '../lib/scenario/reference.js';
import { normalizeResult } from './result-file.js';
import { describe } from '../lib/stats/statistics.js';
import { peerSeconds, combineRemotes } from './timeline.js';
import { timeSpan, warmupOf } from './series.js';
import { PALETTE, withGaps, configuredSeries } from './chart-series.js';
import { configuredPath } from './network.js';
import { runStatistics, buildDerived } from './summary-table.js';
import { renderPage } from './page.js';
import { renderChartSections } from './render-run.js';
import { codecOf, renderCodecTable } from './codec-table.js';
import { compareSfus, differInSfu, sfuRunFigures } from './sfu-comparison.js';
import { renderSfuSection } from './render-sfu-comparison.js';
import { escapeHtml, formatClock, formatDifference, formatMeanSd, formatNumber, metricInfo, statusBadge } from './format.js';

/** @typedef {import('./result-file.js').ReportResult} ReportResult */

/** Per-peer panels of the comparison: the catalogue's `compare` metrics, path and chart title (the axis shows the unit). */
const COMPARE_PANELS = metricsOfList('compare').flatMap((metric) => (metric.compare ? [[metric.path, metric.compare.title]] : []));
const TABLE_ROWS = headlinePaths('table');

/** @param {ReportResult} r normalized @param {number} i @param {boolean} byCodec label it with its codec */
function runLabel(r, i, byCodec) {
  const at = r.environment.startedAt ? r.environment.startedAt.slice(0, 16).replace('T', ' ') : 'unknown start';
  return `${byCodec ? `${codecOf(r)} · ` : ''}run ${i + 1} · ${at}`;
}

/**
 * Runs of different scenarios compare only as a codec comparison: one network for all, each run's codec known, and as
 * many codecs as scenarios (codec-vp8 and codec-vp9, not two VP8 scenarios).
 * @param {ReportResult[]} results normalized
 */
const isCodecComparison = (results) => results.every((r) => codecOf(r) !== null)
  && new Set(results.map((r) => JSON.stringify(r.scenario.network ?? null))).size === 1
  && new Set(results.map(codecOf)).size === new Set(results.map((r) => r.scenario.name)).size;

/**
 * @param {Array<{result: object, sourcePath: string}>} runs at least two, all of one scenario
 * @param {{baseDir?: string}} [options] baseDir: directory of the page, for relative links to the runs
 * @returns {string} the comparison HTML
 */
export function renderCompareReport(runs, { baseDir } = {}) {
  const rs = runs.map((run) => ({ ...run, r: normalizeResult(run.result) }));
  const names = [...new Set(rs.map((x) => x.r.scenario.name))];
  if (names.length > 1 && !isCodecComparison(rs.map((x) => x.r))) {
    throw new InputError(`compare overlays runs of one scenario, or of one network with different codecs (codec-vp8, codec-vp9, …), but these are of ${names.join(', ')}: ${rs.map((x) => `${x.sourcePath} (${x.r.scenario.name})`).join(', ')}. Pass run directories of the same scenario.`);
  }
  const byCodec = new Set(rs.map((x) => codecOf(x.r))).size > 1;
  /** @param {ReportResult} r @param {number} i */
  const label = (r, i) => runLabel(r, i, byCodec);
  const spans = rs.map((x) => timeSpan(x.r));
  const span = { startS: Math.min(...spans.map((s) => s.startS)), endS: Math.max(...spans.map((s) => s.endS)) };
  const peers = [...new Set(rs.flatMap((x) => x.r.timeline.map((e) => e.peer)))].sort();
  const first = rs[0].r;

  const sections = peers.map((peer) => {
    const remotes = [...new Set(first.timeline.filter((e) => e.peer === peer).map((e) => e.remote))];
    const inbound = remotes.length === 1 && remotes[0] ? configuredPath(first.network, remotes[0], peer, span) : null;
    /** @type {Record<string, import('./network.js').StepSeries|null|undefined>} */
    const configured = { 'video.recvKbps': inbound?.capacityKbps, rttMs: inbound?.rttMs, lossPct: inbound?.lossPct };
    const panels = COMPARE_PANELS.map(([path, title]) => {
      const series = rs.map((x, i) => {
        /** @type {Array<[number, number|null]>} */
        const points = [...peerSeconds(x.r.timeline, peer)].map(([s, entries]) => [s, combineRemotes(entries, path)]);
        return { label: label(x.r, i), color: PALETTE[i % PALETTE.length], width: 1.5, ...withGaps(points) };
      }).filter((s) => s.y.some((v) => v !== null));
      const cfg = configuredSeries(configured[path] ?? null, 'configured (run 1)');
      const id = `cmp-${peer}-${path}`.replace(/[^A-Za-z0-9_-]/g, '_');
      return { id, title, yLabel: metricInfo(path).unit, series: cfg && series.length ? [...series, cfg] : series };
    }).filter((p) => p.series.length);
    return { id: `peer-${peer}`.replace(/[^A-Za-z0-9_-]/g, '_'), title: `Peer ${peer}`, subtitle: `${rs.length} runs overlaid`, panels };
  }).filter((s) => s.panels.length);

  const charts = { xMinS: span.startS, xMaxS: span.endS, warmupS: warmupOf(first), markers: [], sections };
  const body = `<main class="report"><header class="report-header"><p class="kicker">WebRTC test bed · comparison</p>
<h1>${escapeHtml(names.join(' · '))} <small class="note">${rs.length} runs</small></h1>
${first.scenario.description ? `<p class="description">${escapeHtml(first.scenario.description)}</p>` : ''}
<ol class="runs-list">${rs.map((x, i) => {
    const report = join(dirname(x.sourcePath), 'report.html');
    const href = baseDir ? relative(baseDir, report).split('\\').join('/') : report;
    return `<li><span class="swatch" style="color:${PALETTE[i % PALETTE.length]}">■</span> ${escapeHtml(label(x.r, i))} ${statusBadge(x.r.status)} · ${escapeHtml(x.r.environment.browser.name ?? '')} ${escapeHtml(x.r.environment.browser.version ?? '')} · ${escapeHtml(x.r.network.emulator ?? x.r.environment.emulator ?? '')} · <a href="${escapeHtml(href)}">report</a> <span class="note">${escapeHtml(x.sourcePath)}</span>${x.r.errors.length ? ` <span class="note">${x.r.errors.length} error(s): ${escapeHtml(x.r.errors[0].message ?? '')}</span>` : ''}</li>`;
  }).join('')}</ol></header>
${differInSfu(rs.map((x) => x.result)) ? renderSfuSection([compareSfus(rs.map((x, i) => sfuRunFigures(x.result, { label: label(x.r, i) })))]) : ''}
${byCodec ? `<section class="block" id="codecs"><h2>Codecs side by side</h2>${renderCodecTable(rs.map((x) => x.r))}</section>` : ''}
<section class="block" id="summary"><h2>Averages per run</h2>${renderCompareTable(rs.map((x) => x.r), names.length === 1)}</section>
<div class="zoombar" id="zoombar"><span>Time <b id="zoom-range">${formatClock(span.startS)}–${formatClock(span.endS)}</b></span><button type="button" id="zoom-reset">Reset zoom</button><span class="hint">drag across a chart to zoom · shift-drag to pan · ctrl- or shift-wheel to zoom · double-click to reset</span></div>
${renderChartSections(charts)}</main>`;
  return renderPage({ title: `Compare · ${names.join(' · ')} · ${rs.length} runs`, body, data: charts, script: 'dashboard' });
}

/** @param {ReportResult[]} results normalized @param {boolean} oneScenario its reference is every run's (codecs: in their own table) */
function renderCompareTable(results, oneScenario) {
  const stats = results.map((r) => runStatistics(r).overall);
  const derived = results.map((r) => buildDerived(r));
  const ref = oneScenario ? results[0].scenario.reference : null;
  const head = ['Metric', ...results.map((_, i) => `Run ${i + 1}`), 'Mean of runs', ...(ref ? ['Reference', 'Δ vs reference'] : [])];
  /**
   * @param {string} key a catalogue path @param {Array<number|null>} values per run, in the metric's unit
   * @param {string[]} perRun cells
   */
  const line = (key, values, perRun) => {
    const info = metricInfo(key);
    const scale = info.scale ?? 1;
    const reference = referenceValue(ref, key);
    const across = describe(values.map((v) => (v === null ? null : v * scale)));
    if (across.n === 0 && reference === null) return '';
    const refMean = reference === null ? null : reference.mean * scale;
    const refCells = ref ? `<td class="ref">${formatNumber(refMean, info.decimals)}</td><td class="diff">${formatDifference(across.mean, refMean, info.decimals)}</td>` : '';
    return `<tr data-metric="${escapeHtml(key)}"><th scope="row">${escapeHtml(info.label)} ${info.unit ? `<span class="unit">(${escapeHtml(info.unit)})</span>` : ''}</th>${perRun.map((c) => `<td>${c}</td>`).join('')}<td class="avg">${formatMeanSd(across, info.decimals)}</td>${refCells}</tr>`;
  };
  const rows = TABLE_ROWS.map((key) => line(key, stats.map((s) => s[key]?.mean ?? null),
    stats.map((s) => formatMeanSd(s[key], metricInfo(key).decimals))));
  for (const key of RUN_METRIC_PATHS) {
    // The value each run is compared with: over the reference's changes when it gives some (derived.js).
    const values = derived.map((d) => d.figures.find((f) => f.path === key)?.compared ?? null);
    const info = metricInfo(key);
    rows.push(line(key, values, values.map((v) => formatNumber(v === null ? null : v * (info.scale ?? 1), info.decimals))));
  }
  const caption = `Per run: mean ± sd over its measurement window, averaged over peers; per-run figures as in the run report. Mean of runs: mean ± sd of the run means (${results.length} runs).` +
    (ref ? ` Reference: ${escapeHtml(ref.source ?? 'published result')}.` : oneScenario ? ' No published reference for this scenario.' : ' References: per codec, above.');
  return `<table class="summary"><thead><tr>${head.map((h) => `<th scope="col">${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table><p class="caption">${caption}</p>`;
}
