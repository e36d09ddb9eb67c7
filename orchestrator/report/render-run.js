// The run report (report.html): header, errors, summary and derived-figure tables with the
// published reference, and the chart panels. Pure apart from the inlined assets (page.js).
import { basename } from 'node:path';
import { normalizeResult } from './result-file.js';
import { buildRunCharts } from './series.js';
import { buildSummaryTable, buildDerived } from './summary-table.js';
import { describeChange } from './derived.js';
import { STEADY } from '../lib/stats/steady-rate.js';
import { CONVERGENCE } from '../lib/cross/fairness.js';
import { LINK_FIELDS } from '../lib/network/link-model.js';
import { renderPage } from './page.js';
import { renderViewerSummary } from './render-viewer.js';
import { renderAudioSections } from './render-talk.js';
import { renderGridPlacement } from './render-grid.js';
import { layerTables } from './render-layers.js';
import { renderIcePaths } from './render-paths.js';
import { renderSetupByPath, renderSetupTable } from './render-setup.js';
import { renderLoad } from './render-load.js';
import { renderTurnLoad } from './render-turn-load.js';
import { escapeHtml, isFiniteNumber, formatClock, formatDifference, formatMeanSd, formatNumber, formatPercent, metricInfo, statusBadge } from './format.js';

/** @typedef {import('./result-file.js').ReportResult} ReportResult */
import { renderGridPaths } from './render-grid-paths.js';

/** @typedef {import('../lib/scenario/reference.js').ReferenceValue} RefStat */

/**
 * @param {object} result a parsed result.json (normalized or not)
 * @param {{sourcePath?: string}} [options] sourcePath: the result.json the page was made from
 * @returns {string} the report HTML
 */
export function renderRunReport(result, { sourcePath } = {}) {
  const r = normalizeResult(result);
  const charts = buildRunCharts(r);
  const summary = buildSummaryTable(r);
  const derived = buildDerived(r);
  const body = [
    renderHeader(r, sourcePath),
    renderProblems(r),
    renderToc(charts),
    `<section id="summary" class="block"><h2>Summary</h2>${renderSummaryTable(summary, r)}</section>`,
    `<section id="derived" class="block"><h2>Derived figures</h2>${renderDerived(derived, summary.peers, r)}</section>`,
    renderViewerSummary(r),
    renderAudioSections(result),
    renderIcePaths(result), renderTurnLoad(result), renderLoad(result),
    renderGridPlacement(r),
    renderZoomBar(charts),
    renderChartSections(charts, layerTables(r)),
    renderNetworkDetails(r),
    renderDefinitions(),
  ].join('\n');
  return renderPage({
    title: `${r.scenario.name} · ${r.status} · ${r.environment.startedAt ?? ''}`,
    body: `<main class="report">${body}</main>`,
    data: charts,
    script: 'dashboard',
    generatedBy: `webrtc-testbed ${r.environment.harnessVersion ?? ''}`.trim(),
  });
}

/** @param {ReportResult} r normalized result @param {string} [sourcePath] */
function renderHeader(r, sourcePath) {
  const env = r.environment;
  const media = env.media;
  // Peers the scenario gave their own preset (environment.media.peers), after the run's media.
  const ownMedia = Object.entries(media.peers && typeof media.peers === 'object' ? media.peers : {})
    .filter(([, own]) => own?.video !== media.video).map(([peer, own]) => `${peer}: ${own?.preset ?? own?.video}`);
  const meta = [
    ['Started', env.startedAt ? escapeHtml(env.startedAt.replace('T', ' ').replace(/\.\d+Z$/, 'Z')) : '—'],
    ['Duration', `${formatClock(r.scenario.durationS)}${Number.isFinite(r.scenario.nominalDurationS) && r.scenario.nominalDurationS !== r.scenario.durationS ? ` (nominal ${formatClock(r.scenario.nominalDurationS)}${r.scenario.timeScale && r.scenario.timeScale !== 1 ? `, time scale ${escapeHtml(r.scenario.timeScale)}` : ''})` : ''}`],
    ['Peers', escapeHtml(r.scenario.peers ?? '—')],
    ['Browser', escapeHtml([env.browser.name, env.browser.version].filter(Boolean).join(' ') || '—')],
    ['Emulator', escapeHtml(r.network.emulator ?? env.emulator ?? '—')],
    ['Media', escapeHtml(([media.preset, media.width && media.height ? `${media.width}×${media.height}` : null, media.fps ? `${media.fps} fps` : null]
      .filter(Boolean).join(', ') || '—') + (ownMedia.length ? `; ${ownMedia.join(', ')}` : ''))],
    ['Host', escapeHtml([env.os, env.cpus ? `${env.cpus} CPUs` : null, env.node ? `node ${env.node}` : null].filter(Boolean).join(' · ') || '—')],
    // Constrained devices' CPU (environment.cgroups): a peer's rates and frame rate are its own device's, not the host's.
    ...(env.cgroups?.peers ? [['CPU limits', escapeHtml(Object.entries(env.cgroups.peers).map(([peer, c]) => `${peer}: ${[
      c?.cpuQuotaCores == null ? null : `quota ${c.cpuQuotaCores} cores`, c?.cpus == null ? null : `cores ${c.cpus}`].filter(Boolean).join(', ')}`).join('; '))]] : []),
    ['Source', sourcePath ? `<a href="${escapeHtml(basename(sourcePath))}">${escapeHtml(sourcePath)}</a>` : '—'],
  ];
  return `<header class="report-header">
<p class="kicker">WebRTC test bed · run report</p>
<h1>${escapeHtml(r.scenario.name)} ${statusBadge(r.status)}</h1>
${r.scenario.description ? `<p class="description">${escapeHtml(r.scenario.description)}</p>` : ''}
<dl class="meta">${meta.map(([k, v]) => `<div><dt>${k}</dt><dd>${v}</dd></div>`).join('')}</dl>
</header>`;
}

/** Errors and gaps: an incomplete result renders, and says what is missing. @param {ReportResult} r */
function renderProblems(r) {
  const items = r.errors.map((e) => `<li><span class="at">${Number.isFinite(e.atS) ? formatClock(e.atS) : '—'}</span>${e.peer ? ` <b>${escapeHtml(e.peer)}</b>` : ''} ${escapeHtml(e.message ?? JSON.stringify(e))}</li>`);
  if (!r.timeline.length) items.push('<li>The result has no timeline: no per-second statistics were recorded.</li>');
  if (!r.summary) items.push('<li>The result has no summary: the tables below are computed from the timeline.</li>');
  const cpu = r.summary?.cpuLimitation;
  if (cpu?.limited) {
    items.push(`<li class="cpu-limited"><b>CPU-limited:</b> in ${formatPercent(cpu.share)} of the measured seconds (over ${formatPercent(cpu.thresholdShare)}) `
      + 'a sender\'s encoder reported <code>qualityLimitationReason: cpu</code>: the host, not the network, held quality back; '
      + 'read the rates with that in mind (fewer peers, a smaller video preset or a larger machine).</li>');
  }
  // When and how long each peer's encoders were CPU-limited (a throttled device's peer, or a starved host).
  const limitedPeers = Object.entries(cpu?.peers ?? {}).filter(([, p]) => p?.limitedS > 0);
  if (limitedPeers.length) {
    /** @param {{ episodes?: Array<{ fromS: number, toS: number }> }} p */
    const spans = (p) => (p.episodes ?? []).map((e) => `${formatClock(e.fromS)}–${formatClock(e.toS)}`).join(', ');
    items.push(`<li class="cpu-limited"><b>CPU-limited seconds</b> (<code>qualityLimitationReason: cpu</code>, in the measurement window): ${limitedPeers
      .map(([peer, p]) => `<b>${escapeHtml(peer)}</b> ${formatNumber(p.limitedS, 0)} s (${escapeHtml(spans(p))})`).join('; ')}.</li>`);
  }
  const harness = Object.entries(cpu?.harness?.peers ?? {}).filter(([, p]) => p?.limited);
  if (harness.length) {
    const t = cpu?.harness?.thresholds;
    items.push(`<li class="cpu-limited"><b>CPU-limited by the harness's verdict</b> (encode time per frame over ${formatNumber(t?.encodeShareOfInterval, 1)} × `
      + `the captured frame interval, or sent frame rate under ${formatPercent(t?.sentShareOfCaptured)} of the captured one while the link was not the limit, `
      + `in over ${formatPercent(t?.share)} of a sender's seconds), whatever the browser's reason said: ${harness
        .map(([peer, p]) => `<b>${escapeHtml(peer)}</b> ${formatNumber(p.limitedS, 0)} of ${formatNumber(p.judgedS, 0)} s (encode time ${formatNumber(p.encodeS, 0)} s, `
          + `frame rate ${formatNumber(p.frameRateS, 0)} s)`).join('; ')}.</li>`);
  }
  const host = r.resources?.hostSaturation;
  if (host?.saturated) {
    items.push(`<li class="cpu-limited"><b>Host saturated:</b> in ${formatPercent(host.share)} of the measured seconds the browsers and the relay `
      + `together used at least ${formatNumber(host.thresholdPct, 0)} % of CPU (${escapeHtml(String(host.cores))} cores × 100 %): `
      + 'frame rates and rates may show the machine, not the network (see Host resources).</li>');
  }
  for (const [label, node] of Object.entries(r.resources?.grid?.nodes ?? {}).filter(([, n]) => n?.saturation?.saturated)) {
    items.push(`<li class="cpu-limited"><b>Grid node ${escapeHtml(label)} saturated:</b> in ${formatPercent(node.saturation.share)} of the measured seconds its browsers `
      + `(${escapeHtml((node.peers ?? []).join(', '))}) together used at least ${formatNumber(node.saturation.thresholdPct, 0)} % of CPU (${escapeHtml(String(node.cores))} `
      + 'cores × 100 %): frame rates and rates may show the machine, not the network (see Grid placement).</li>');
  }
  const behind = r.summary?.emulatorBehind;
  if (behind?.behind) {
    // The result may be an old or a hand-edited one: the note must render whatever its spans are.
    /** @type {Array<{ fromS?: number, toS?: number }|null>} */
    const behindSpans = Array.isArray(behind.spans) ? behind.spans : [];
    const spans = behindSpans.map((span) => `${formatClock(span?.fromS)}–${formatClock(span?.toS)}`)
      .join(', ');
    items.push(`<li class="cpu-limited"><b>Emulator fell behind:</b> in ${formatNumber(behind.seconds, 0)} of ${formatNumber(behind.measuredSeconds, 0)} s `
      + `of the call (${escapeHtml(spans)}) the ${escapeHtml(String(r.network?.emulator ?? 'emulator'))}'s datagrams left late beyond its limit at p99 (relay: 1 ms native, 2 ms dgram) `
      + `(the latest ${formatNumber(behind.lateMaxMs, 1)} ms): in those seconds the links were not the configured ones; `
      + 'a busy host starves the relay (fewer peers, a smaller video preset or a larger machine); see <code>network.emulatorLoad</code>.'
      + ((behind.hostStallSeconds ?? 0) > 0 ? ` In ${formatNumber(behind.hostStallSeconds, 0)} of those seconds the host held the relay off the CPU as long `
        + '(other processes on its cores, a VM\'s vCPU not scheduled, a kernel that does not preempt).' : '')
      + '</li>');
  }
  if (r.sfu?.unavailable) items.push(`<li><b>Janus's view missing:</b> ${escapeHtml(String(r.sfu.unavailable))}; the browsers' figures stand alone.</li>`);
  if (r.status === 'passed' && !items.length) return '';
  return `<section class="problems ${r.status === 'passed' ? 'warn' : 'bad'}"><h2>${r.status === 'passed' ? 'Notes' : `Run ${escapeHtml(r.status)}`}</h2><ul>${items.join('') || '<li>No error was recorded.</li>'}</ul></section>`;
}

/** @param {import('./series.js').ChartData} charts */
function renderToc(charts) {
  const links = [['summary', 'Summary'], ['derived', 'Derived figures'], ...charts.sections.map((s) => [s.id, s.title]), ['network-config', 'Network configuration'], ['definitions', 'Definitions']];
  return `<nav class="toc">${links.map(([id, t]) => `<a href="#${escapeHtml(id)}">${escapeHtml(t)}</a>`).join('')}</nav>`;
}

/** A row heading: the metric's label and unit from the catalogue. @param {string} key */
function metricHeading(key) {
  const { label, unit } = metricInfo(key);
  return `${escapeHtml(label)} ${unit ? `<span class="unit">(${escapeHtml(unit)})</span>` : ''}`;
}

/** @param {import('./summary-table.js').Stat|null} stat @param {string} key */
function cell(stat, key) {
  const info = metricInfo(key);
  const scale = info.scale ?? 1;
  const sd = stat?.sd === null || stat?.sd === undefined ? null : stat.sd * scale;
  // A stat without values (n = 0) shows 0, as it always has (null × scale).
  return formatMeanSd(stat && { mean: (stat.mean ?? 0) * scale, sd }, info.decimals);
}

/** @param {{width: {mean?: number|null}|null, height: {mean?: number|null}|null}|null} res */
function resolution(res) {
  const width = res?.width?.mean;
  const height = res?.height?.mean;
  if (!isFiniteNumber(width) || !isFiniteNumber(height)) return '—';
  return `${Math.round(width)} × ${Math.round(height)}`;
}

/** @param {ReturnType<typeof buildSummaryTable>} table @param {ReportResult} r */
function renderSummaryTable(table, r) {
  const hasRef = Boolean(r.scenario.reference);
  const head = ['Metric', ...table.peers, 'Average', ...(hasRef ? ['Reference', 'Δ vs reference'] : [])];
  const rows = table.rows.map((row) => {
    if (row.key === 'resolution') {
      const res = /** @type {import('./summary-table.js').ResolutionRow} */ (row);
      const ref = res.reference;
      const diff = ref && isFiniteNumber(res.overall.width?.mean) && isFiniteNumber(ref.width?.mean) && isFiniteNumber(ref.height?.mean)
        ? `${formatDifference(res.overall.width?.mean, ref.width?.mean).split(' ')[0]} × ${formatDifference(res.overall.height?.mean, ref.height?.mean).split(' ')[0]}`
        : '—';
      return `<tr data-metric="resolution"><th scope="row">Avg received resolution <span class="unit">(px)</span></th>${table.peers.map((p) => `<td>${resolution(res.perPeer[p])}</td>`).join('')}<td class="avg">${resolution(res.overall)}</td>${hasRef ? `<td class="ref">${resolution(ref)}</td><td class="diff">${diff}</td>` : ''}</tr>`;
    }
    const metric = /** @type {import('./summary-table.js').SummaryRow} */ (row);
    const refs = hasRef ? referenceCells(metric.overall?.mean ?? null, metric.reference, metric.key) : '';
    return `<tr data-metric="${escapeHtml(metric.key)}" class="${metric.extra ? 'extra' : ''}"><th scope="row">${metricHeading(metric.key)}</th>${table.peers.map((p) => `<td>${cell(metric.perPeer[p], metric.key)}</td>`).join('')}<td class="avg">${cell(metric.overall, metric.key)}</td>${refs}</tr>`;
  });
  const firstExtra = table.rows.findIndex((row) => row.extra);
  if (firstExtra > 0) rows[firstExtra] = rows[firstExtra].replace('class="extra"', 'class="extra first-extra"');
  const ref = r.scenario.reference;
  const caption = `Mean ± sd of per-second values over the measurement window ${formatClock(table.windowS[0])}–${formatClock(table.windowS[1])}` +
    `${table.computed ? ', computed from the timeline because the result has no summary' : ''}. ` +
    (ref ? `Reference: ${escapeHtml(ref.source ?? 'published result')}${ref.notes ? ` — ${escapeHtml(ref.notes)}` : ''}.` : 'No published reference for this scenario.');
  return `<table class="summary"><thead><tr>${head.map((h) => `<th scope="col">${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table><p class="caption">${caption}</p>`;
}

/** A value of a metric in its shown unit (× scale), with its decimals. @param {number|null|undefined} value @param {string} key */
function formatMetric(value, key) {
  const info = metricInfo(key);
  return formatNumber(isFiniteNumber(value) ? value * (info.scale ?? 1) : null, info.decimals);
}

/**
 * The reference and Δ cells of a metric, both in its shown unit.
 * @param {number|null} value @param {RefStat|null} ref @param {string} key
 */
function referenceCells(value, ref, key) {
  if (!ref) return '<td class="ref">—</td><td class="diff">—</td>';
  const scale = metricInfo(key).scale ?? 1;
  const sd = ref.sd === null ? null : ref.sd * scale;
  const shown = formatMeanSd({ mean: ref.mean * scale, sd }, metricInfo(key).decimals);
  const diff = formatDifference(isFiniteNumber(value) ? value * scale : null, ref.mean * scale, metricInfo(key).decimals);
  return `<td class="ref">${shown}</td><td class="diff">${diff}</td>`;
}

/** @param {ReturnType<typeof buildDerived>} d @param {string[]} peers @param {ReportResult} r */
function renderDerived(d, peers, r) {
  const hasRef = Boolean(r.scenario.reference);
  const head = ['Figure', ...peers, 'Run', ...(hasRef ? ['Reference', 'Δ vs reference'] : [])];
  const rows = d.figures.map((f) => {
    const note = f.path === 'utilization' && d.computed ? ' <span class="note">computed</span>' : '';
    const over = f.comparedOver
      ? ` <span class="note">Δ over the changes at ${f.comparedOver.map(formatClock).join(', ')}: run ${formatMetric(f.compared, f.path)}</span>` : '';
    const refs = hasRef ? referenceCells(f.compared, f.reference, f.path) : '';
    return `<tr data-metric="${escapeHtml(f.path)}"><th scope="row">${metricHeading(f.path)}${note}</th>`
      + `${peers.map((p) => `<td>${f.perPeer ? formatMetric(f.perPeer[p], f.path) : ''}</td>`).join('')}`
      + `<td class="avg">${formatMetric(f.value, f.path)}${over}</td>${refs}</tr>`;
  });
  const table = rows.length
    ? `<table class="summary derived"><thead><tr>${head.map((h) => `<th scope="col">${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table>
<p class="caption">Utilisation per receiving peer. Set-up time: browser launch to first decoded video frame; the run's is the slowest peer's. Jain's index over the flows that share a link; time to steady rate averaged over the schedule changes after the call start. Definitions at the end of the page.</p>`
    : '<p class="empty">No per-run figure: no capacity was set, no peer showed video, no link was shared and no schedule change was timed.</p>';
  return `${table}${renderPeerTotals(r.summary)}${renderSetupTable(r.setup)}${renderSetupByPath(r)}${renderSteadyTable(d.steady, r)}${renderFairness(d.fairness, r)}`;
}

/**
 * Multi-party calls: what each peer sends and receives over all its connections (lib/network/topology.js), and how often its
 * encoder was CPU-limited. Shown from three peers on: with two, each peer's totals are its one connection's.
 * @param {import('./result-file.js').ReportResult['summary']} summary
 */
function renderPeerTotals(summary) {
  const totals = summary?.peerTotals ?? {};
  const peers = Object.keys(totals).sort();
  if (peers.length < 3) return '';
  const cpu = summary?.cpuLimitation?.byPeer ?? {};
  const rows = peers.map((p) => {
    const t = totals[p];
    return `<tr data-peer="${escapeHtml(p)}"><th scope="row">${escapeHtml(p)}</th><td>${formatNumber(t.uplinkKbps, 0)}</td><td>${formatNumber(t.downlinkKbps, 0)}</td>`
      + `<td>${formatNumber(t.downlinkToUplink, 2)}</td><td>${formatNumber(t.videoStreamsSent, 1)}</td><td>${formatNumber(t.videoStreamsReceived, 1)}</td>`
      + `<td>${formatPercent(cpu[p])}</td></tr>`;
  });
  const head = ['Peer', 'Uplink (kbps)', 'Downlink (kbps)', 'Downlink / uplink', 'Video streams sent', 'Video streams received', 'CPU-limited seconds'];
  return `<h3>Per-peer totals</h3><table class="summary peer-totals"><thead><tr>${head.map((h) => `<th scope="col">${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table>
<p class="caption">Means over the measurement window of each peer's audio + video rates summed over its connections; a stream counts while it carries ≥ 20 kbps (received: with frames). In a full mesh a peer sends n − 1 copies, so downlink / uplink ≈ 1 (an SFU's is n − 1 over 1).</p>`;
}

/** @param {ReturnType<typeof buildDerived>['steady']} steady @param {ReportResult} r */
function renderSteadyTable(steady, r) {
  if (!steady.changes.length || !steady.flows.length) return '';
  const perChange = steady.perChange;
  const head = ['Change at', 'What changed', ...steady.flows.map((f) => `${f.receiver} ← ${f.sender}`), 'Mean', ...(perChange ? ['Reference'] : [])];
  const rows = steady.changes.map((c, i) => `<tr><td>${formatClock(c.atS)}</td><td class="what">${escapeHtml(c.atS === 0 ? 'call start' : describeChange(c.events, r.network, c.atS))}</td>${c.perFlow.map((f) => `<td title="${f.steadyKbps === null ? 'too few samples' : `steady ${formatNumber(f.steadyKbps, 0)} kbps`}">${steadyCell(f)}<span class="steady-rate">${f.steadyKbps === null ? '' : ` @ ${formatNumber(f.steadyKbps, 0)}`}</span></td>`).join('')}<td class="avg">${c.meanS === null ? '—' : `${formatNumber(c.meanS, 1)} s`}</td>${perChange ? `<td class="ref">${perChange.published[i] === null ? '—' : `${formatNumber(perChange.published[i], 0)} s`}</td>` : ''}</tr>`);
  const unmatched = perChange?.unmatched.length
    ? ` The reference's changes at ${perChange.unmatched.map((atS) => `${escapeHtml(atS)} s`).join(', ')} (scenario time) match no timed change of this run.` : '';
  return `<h3>Time to steady video rate</h3><div class="scroll"><table class="summary steady"><thead><tr>${head.map((h) => `<th scope="col">${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table></div>
<p class="caption">Seconds from the change until the 5 s mean receive rate stays within ±${STEADY.tolerance * 100} % (≥ ${STEADY.minToleranceKbps} kbps) of the segment's steady rate (after @, kbps). Segments shorter than ${STEADY.minSegmentS} s are not evaluated.${unmatched}</p>`;
}

/** @param {{steadyKbps: number|null, timeToSteadyS: number|null}} f */
function steadyCell(f) {
  if (f.timeToSteadyS !== null) return `${formatNumber(f.timeToSteadyS, 0)} s`;
  if (f.steadyKbps === null) return '—';
  return `<span class="note">${f.steadyKbps < STEADY.minToleranceKbps ? 'no media' : 'not reached'}</span>`;
}

/** A verb for a convergence entry's change ('join' -> 'joins'). @param {string} change */
const changeVerb = (change) => ({ join: 'joins', leave: 'leaves' })[change] ?? change;

/** @param {import('./derived.js').Convergence} c */
const convergenceText = (c) => (Number.isFinite(c.convergenceS) ? `${formatNumber(c.convergenceS, 0)} s` : '<span class="note">not converged</span>');

/**
 * The one fairness table: per link (a bottleneck direction with flows, or a group of shared links from the routes),
 * the run-level Jain figures beside the reference, then each link's phases with every flow's mean rate and share,
 * the utilisation, Jain's index and the convergence time after the changes that start the phase.
 * @param {ReturnType<typeof buildDerived>['fairness']} fairness @param {ReportResult} r
 */
function renderFairness(fairness, r) {
  if (!fairness.links.length) return '';
  const { byFlows, links, run } = fairness;
  /** @param {number|null} v */
  const jainCell = (v) => formatMetric(v, 'jainIndex');
  const linkRows = links.map((l) => `<tr data-link="${escapeHtml(l.link)}"><th scope="row">${escapeHtml(l.link)} <span class="note">(${escapeHtml(l.flows.join(', '))})</span></th>`
    + `<td>${jainCell(l.jainIndex)}</td><td>${jainCell(l.jainIndexPerSecond)}</td>${byFlows ? `<td>${formatPercent(l.utilization)}</td>` : ''}</tr>`);
  const spare = byFlows ? '<td>—</td>' : '';
  const refs = [run.reference.jainIndex, run.reference.jainIndexPerSecond];
  const refRows = refs.some(Boolean) ? [
    `<tr class="ref"><th scope="row">Reference <span class="note">${escapeHtml(r.scenario.reference?.source ?? '')}</span></th>${refs.map((ref) => `<td class="ref">${ref ? formatMeanSd(ref, metricInfo('jainIndex').decimals) : '—'}</td>`).join('')}${spare}</tr>`,
    `<tr class="diff"><th scope="row">Δ vs reference</th>${[run.jainIndex, run.jainIndexPerSecond].map((v, i) => `<td class="diff">${refs[i] ? formatDifference(v, refs[i].mean, metricInfo('jainIndex').decimals) : '—'}</td>`).join('')}${spare}</tr>`,
  ] : [];
  const head = ['', "Jain's index (per phase)", "Jain's index (per second)", ...(byFlows ? ['Utilisation'] : [])];
  const overview = `<table class="summary fairness-run"><thead><tr>${head.map((h) => `<th scope="col">${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>${linkRows.join('')}`
    + `<tr class="run"><th scope="row">Run${links.length > 1 ? ' <span class="note">(mean over the links)</span>' : ''}</th><td class="avg">${jainCell(run.jainIndex)}</td><td class="avg">${jainCell(run.jainIndexPerSecond)}</td>${spare}</tr>`
    + `${refRows.join('')}</tbody></table>`;
  const phaseTables = links.map((l) => {
    /** @param {import('./derived.js').FairnessPhase} p @param {string} f */
    const rateCell = (p, f) => (!(f in p.meanKbps) ? '<td class="inactive"></td>'
      : `<td>${formatNumber(p.meanKbps[f], 0)}${p.shareOfCapacity ? ` <span class="note">(${formatPercent(p.shareOfCapacity[f] ?? null)})</span>` : ''}</td>`);
    const rows = l.phases.map((p, i) => `<tr><td>${formatClock(p.fromS)}–${formatClock(p.toS)}</td>`
      + (byFlows ? `<td class="what">${p.changes.map((c) => escapeHtml(`${c.flow} ${changeVerb(c.change)}`)).join('<br>') || (i === 0 ? 'start' : '—')}</td>`
        + `<td>${p.changes.map(convergenceText).join('<br>') || '—'}</td>` : '')
      + `${l.flows.map((f) => rateCell(p, f)).join('')}${byFlows ? `<td>${formatPercent(p.utilization)}</td>` : ''}<td class="avg">${jainCell(p.jainIndex)}</td></tr>`);
    const phaseHead = ['Phase', ...(byFlows ? ['Change', 'Converged after'] : []), ...l.flows.map((f) => `${f} (kbps)`), ...(byFlows ? ['Utilisation'] : []), "Jain's index"];
    const unmatched = l.unmatched.length
      ? ` Changes at no phase start: ${l.unmatched.map((c) => `${formatClock(c.atS)} ${escapeHtml(`${c.flow} ${changeVerb(c.change)}`)} (${convergenceText(c)})`).join(', ')}.` : '';
    return `<h4>Phases on ${escapeHtml(l.link)}</h4><div class="scroll"><table class="summary phases" data-link="${escapeHtml(l.link)}"><thead><tr>${phaseHead.map((h) => `<th scope="col">${escapeHtml(h)}</th>`).join('')}</tr></thead>`
      + `<tbody>${rows.join('') || `<tr><td colspan="${phaseHead.length}" class="empty">No phase with two or more flows.</td></tr>`}</tbody></table></div>${unmatched ? `<p class="caption">${unmatched.trim()}</p>` : ''}`;
  });
  const caption = byFlows
    ? 'Per bottleneck direction crossed by flows (lib/cross/fairness.js, over the measurement window). A phase is an interval with a constant set of competing flows, from the flows\' configured start, stop and pause times; each active flow\'s mean received rate in the phase, with its share of the configured capacity in parentheses; Jain\'s index over the competing flows (short TCP flows do not compete). Converged after: the time from the change to a fair share. Definitions at the end of the page.'
    : 'Per group of links that the same calls\' flows share (routes). Phases from the measured rates: a flow is active in a second when its receiver reports a rate; phases with two or more flows. Definitions at the end of the page.';
  return `<h3>Fairness on shared links</h3>${overview}<p class="caption">${caption}</p>${phaseTables.join('')}`;
}

/** @param {import('./series.js').ChartData} charts */
function renderZoomBar(charts) {
  return `<div class="zoombar" id="zoombar"><span>Time <b id="zoom-range">${formatClock(charts.xMinS)}–${formatClock(charts.xMaxS)}</b></span>
<button type="button" id="zoom-reset">Reset zoom</button>
<span class="hint">drag across a chart to zoom · shift-drag to pan · ctrl- or shift-wheel to zoom · double-click to reset</span>
<span class="legend-key"><i class="k-configured"></i>configured condition <i class="k-change"></i>schedule change ${charts.markers.some((m) => m.kind === 'flow') ? '<i class="k-flow"></i>flow joins, leaves, pauses or resumes ' : ''}<i class="k-error"></i>error ${charts.warmupS ? '<i class="k-warmup"></i>warm-up' : ''}</span></div>`;
}

/** @param {import('./series.js').ChartData} charts @param {Record<string, string>} [below] HTML under a section's charts, by section id */
export function renderChartSections(charts, below = {}) {
  return charts.sections.map((s) => `<section class="charts block" id="${escapeHtml(s.id)}"><h2>${escapeHtml(s.title)}${s.subtitle ? ` <small>${escapeHtml(s.subtitle)}</small>` : ''}</h2>
<div class="grid">${s.panels.map((p) => `<figure class="panel"><figcaption>${escapeHtml(p.title)}</figcaption><div class="canvas-box"><canvas id="chart-${escapeHtml(p.id)}" aria-label="${escapeHtml(p.title)}"></canvas></div></figure>`).join('')}</div>${Object.hasOwn(below, s.id) ? below[s.id] : ''}</section>`).join('\n') ||
    '<section class="charts block"><h2>Charts</h2><p class="empty">No per-second data was recorded, so there is nothing to plot.</p></section>';
}

/** @param {ReportResult} r */
function renderNetworkDetails(r) {
  const net = r.network;
  /** @type {Array<[string, Record<string, unknown>]>} */
  const links = Object.entries(net.links);
  const linkTable = links.length
    ? `<table class="summary compact"><thead><tr><th>Link</th>${LINK_FIELDS.map((k) => `<th>${k}</th>`).join('')}</tr></thead><tbody>${links.map(([id, p]) => `<tr><td>${escapeHtml(id)}</td>${LINK_FIELDS.map((k) => `<td>${p?.[k] === null || p?.[k] === undefined ? '—' : escapeHtml(p[k])}</td>`).join('')}</tr>`).join('')}</tbody></table>`
    : '<p class="empty">No links recorded.</p>';
  const routes = Object.entries(net.routes).map(([k, v]) => `<li><b>${escapeHtml(k)}</b>: ${escapeHtml((v ?? []).join(' → '))}</li>`).join('');
  /** @template T @param {T[]} items @param {(item: T) => string} fmt @param {number} [limit] */
  const list = (items, fmt, limit = 500) => `${items.slice(0, limit).map(fmt).join('')}${items.length > limit ? `<li>… ${items.length - limit} more in result.json</li>` : ''}`;
  return `<section class="block" id="network-config"><h2>Network configuration</h2>
<p>Emulator <b>${escapeHtml(net.emulator ?? r.environment.emulator ?? '—')}</b>. Links at the start of the run:</p>${linkTable}
${routes ? `<ul class="routes">${routes}</ul>` : ''}${renderGridPaths(r)}
<details><summary>Schedule events (${net.scheduleEvents.length})</summary><ul class="mono">${list(net.scheduleEvents, (e) => `<li>${formatClock(e.atS)} ${escapeHtml(e.link ?? '')} ${escapeHtml(JSON.stringify(e.params ?? {}))} <span class="note">${escapeHtml(e.cause ?? '')}</span></li>`)}</ul></details>
<details><summary>Emulator commands (${net.commands.length})</summary><ul class="mono">${list(net.commands, (c) => `<li class="${c.ok === false ? 'failed' : ''}">${Number.isFinite(c.atS) ? formatClock(c.atS) : ''} ${escapeHtml(c.cmd ?? JSON.stringify(c))}</li>`)}</ul></details>
<details><summary>Run events (${r.events.length})</summary><ul class="mono">${list(r.events, (e) => `<li>${Number.isFinite(e.atS) ? `${formatNumber(e.atS, 1)} s` : ''} ${escapeHtml(e.type ?? '')} ${escapeHtml(e.peer ?? '')}</li>`)}</ul></details>
${r.scenario.network ? `<details><summary>Scenario network section (as written)</summary><pre>${escapeHtml(JSON.stringify(r.scenario.network, null, 2))}</pre></details>` : ''}
</section>`;
}

function renderDefinitions() {
  return `<footer class="block definitions" id="definitions"><h2>Definitions</h2><dl>
<dt>Rates</dt><dd>Per-interval bitrate from cumulative byte counters (getStats), in kbps. A peer's rate in the summary is summed over its remotes.</dd>
<dt>Packet loss</dt><dd>lost / (received + lost) of all inbound RTP over the interval, as the receiver counts it: Chromium counts a packet a retransmission later repaired as lost. <b>After recovery</b>: the lost packets no retransmission filled (video); audio is not retransmitted. <b>On the wire</b>: the emulator's drops (random + queue) over packets in, per link, combined along a flow's route as 1 − Π(1 − lossᵢ). <b>Recovered</b>: on the wire − after recovery.</dd>
<dt>CPU limitation</dt><dd>the share of measured seconds in which a sender's video encoder reported <code>qualityLimitationReason: cpu</code>; above 20 % the run is marked CPU-limited. CPU per process tree is % of one core, sampled from /proc.</dd>
<dt>Configured condition</dt><dd>Capacity of a path is the smallest configured rate on its links; configured RTT is the sum of the one-way delays of both routes; configured loss combines the links as 1 − Π(1 − lossᵢ).</dd>
<dt>Utilisation</dt><dd>Mean (video + audio) receive rate divided by the mean configured capacity of the inbound paths, over the measurement window, where a capacity is set.</dd>
<dt>Time to steady rate</dt><dd>After each schedule change (and the call start) followed by at least ${STEADY.minSegmentS} s without change: the steady rate S is the median video receive rate over the last third of the segment; the rate is smoothed with a ${STEADY.smoothS} s forward mean; the time to steady is the time from the change until the smoothed rate enters ±${STEADY.tolerance * 100} % of S (at least ±${STEADY.minToleranceKbps} kbps) and stays there until the segment ends. A ramp (changes every 0.5 s) counts as one change at its last step. The run's figure is the mean over the changes after the call start (each the mean over flows); a reference given per change is compared with the run's mean over the same changes.</dd>
<dt>Jain's index</dt><dd>J = (Σxᵢ)² / (n·Σxᵢ²) over the (video + audio) receive rates of the flows that share a link (with cross traffic: over the rates of the flows on a bottleneck direction); 1 is fair, 1/n is one flow taking all. <b>J16</b> (§8-4, compared with the reference): a phase is an interval in which the set of active flows is constant; J is taken over each flow's mean rate in the phase, and the run's figure is the mean over phases with at least two flows, weighted by their length (J16's TCP figure: J(1408, 451) = 0.79). <b>Per second</b>: J of each second with at least two flows, averaged over the seconds. With several shared links, the run's figures are the means over the links.</dd>
<dt>Flows and phases</dt><dd>With cross traffic (scenario <code>flows</code>), a flow's rate is the goodput its receiver got per second: a call's video + audio receive rate per direction (<code>call:fwd</code> left → right, <code>call:back</code> right → left), iperf3's intervals for TCP and UDP, the page's bytes per second for a data channel. The stacked panels pile the flows on each bottleneck direction under its configured capacity; the markers on every chart show where a flow joins, leaves, pauses or resumes. As defined in lib/cross/fairness.js: a <b>phase</b> is an interval in which the set of competing flows is constant, from the flows' configured start, stop and pause times (not from the measured rates; short TCP flows do not compete); a flow's <b>share</b> is its mean rate in the phase over the mean configured capacity; <b>utilisation</b> is the sum of all flows' rates over the capacity; the <b>convergence time</b> after a join or leave is the time until the per-second Jain's index over the competing flows reaches ${CONVERGENCE.jainIndex} and holds for ${CONVERGENCE.holdS} s (or to the phase's end); not converged when it never does.</dd>
<dt>Gaps</dt><dd>Seconds without data are drawn as breaks in the lines, never bridged.</dd>
</dl></footer>`;
}
