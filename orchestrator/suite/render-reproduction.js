// A "Reproduction" page of a suite (reproduction-<id>.html in the suite directory): one published table
// (lib/scenario/reproductions.js) with, in every cell, our median and IQR over the repetitions beside the published value,
// the deviation, and markers for the known causes listed under the table. Pure; self-contained.
import { escapeHtml, formatDifference, formatNumber, metricInfo, statusBadge } from '../report/format.js';
import { renderPage } from '../report/page.js';

const STYLE = `<style>
table.reproduction td { vertical-align: top; } table.reproduction .ours { font-weight: 600; display: block; }
table.reproduction .iqr, table.reproduction .paper, table.reproduction .dev { display: block; font-size: .85em; }
table.reproduction .paper { color: #555; } table.reproduction sup a { text-decoration: none; }
ol.causes li { margin: .2em 0; }
</style>`;

/** @param {string} id */
export const reproductionFileName = (id) => `reproduction-${id}.html`;

/** A value in the unit the catalogue shows it in (utilisation as %). @param {string} path @param {number|null|undefined} value */
function shown(path, value) {
  const info = metricInfo(path);
  return Number.isFinite(value) ? value * (info.scale ?? 1) : null;
}

/** @param {string} path @param {number|null|undefined} value */
const format = (path, value) => formatNumber(shown(path, value), metricInfo(path).decimals ?? undefined);

/**
 * @param {ReturnType<typeof import('../lib/scenario/reproductions.js').buildReproduction>['rows'][number]['cells'][number]} cell
 * @param {Map<string, number>} causeNumbers
 */
function renderCell(cell, causeNumbers) {
  const { path, ours, published } = cell;
  const markers = cell.causes.map((id) => `<sup><a href="#cause-${escapeHtml(id)}" title="known cause">${causeNumbers.get(id)}</a></sup>`).join('');
  const iqr = ours && ours.n > 1 ? `IQR ${format(path, ours.q1)}–${format(path, ours.q3)}` : ours ? '1 run' : '';
  const deviation = cell.deviation === null ? '' : `Δ ${formatDifference(shown(path, ours?.median), shown(path, published))}`;
  return `<td data-path="${escapeHtml(path)}" data-ours="${ours ? ours.median : ''}" data-published="${published ?? ''}">`
    + `<span class="ours">${ours ? format(path, ours.median) : '—'}${markers}</span>`
    + `<span class="iqr note">${escapeHtml(iqr)}</span>`
    + `<span class="paper">paper ${published === null ? 'n/a' : format(path, published)}</span>`
    + `<span class="dev">${escapeHtml(deviation)}</span></td>`;
}

/**
 * @param {ReturnType<typeof import('../lib/scenario/reproductions.js').buildReproduction>} reproduction
 * @param {{ suiteName: string, suitePage?: string, environment?: Record<string, any>|null }} context
 * @returns {string} the page HTML
 */
export function renderReproductionPage(reproduction, { suiteName, suitePage = 'report.html', environment = null }) {
  const { table, rows, causes } = reproduction;
  const causeNumbers = new Map(causes.map((cause, index) => [cause.id, index + 1]));
  const heads = table.columns.map(({ path, heading }) => {
    const info = metricInfo(path);
    return `<th title="${escapeHtml(path)}">${escapeHtml(heading)}<br><span class="unit">${escapeHtml(info.label)}${info.unit ? ` (${escapeHtml(info.unit)})` : ''}</span></th>`;
  }).join('');
  const body = rows.map((row) => {
    const runs = row.runs.map((run) => (run.report
      ? `<a href="${escapeHtml(run.report)}">${run.repetition}</a>` : String(run.repetition)) + (run.status === 'passed' ? '' : ` ${statusBadge(run.status)}`)).join(' ');
    return `<tr data-scenario="${escapeHtml(row.scenario)}"><th scope="row">${escapeHtml(row.label)}<br><span class="mono note">${escapeHtml(row.scenario)}</span>`
      + `<br><span class="note">${row.passedRuns}/${row.runs.length} runs passed${runs ? `: ${runs}` : ''}</span></th>`
      + `${row.cells.map((cell) => renderCell(cell, causeNumbers)).join('')}</tr>`;
  }).join('\n');
  const env = environment ?? {};
  const meta = [
    ['Source', table.citation], ['Suite', suiteName], ['Browser', env.browser], ['Media', env.video],
    ['Emulator', env.emulator], ['Host', [env.os, env.cpus && `${env.cpus} CPUs`].filter(Boolean).join(' · ')],
  ];
  const notes = [
    ...(reproduction.compressed ? ['These runs were compressed (a time scale or a duration shorter than the scenario\'s): a smoke check of the page, not a reproduction.'] : []),
    ...(table.note ? [table.note] : []),
  ];
  const html = `${STYLE}<main class="report"><header class="report-header"><p class="kicker">WebRTC test bed · reproduction · <a href="${escapeHtml(suitePage)}">suite ${escapeHtml(suiteName)}</a></p>
<h1>${escapeHtml(table.citation)}: ${escapeHtml(table.title)}</h1>
<dl class="meta">${meta.map(([k, v]) => `<div><dt>${k}</dt><dd>${escapeHtml(v || '—')}</dd></div>`).join('')}</dl></header>
${notes.map((note) => `<p class="note">${escapeHtml(note)}</p>`).join('\n')}
<section class="block"><table class="summary compact reproduction"><thead><tr><th>Row</th>${heads}</tr></thead><tbody>
${body}
</tbody></table>
<p class="caption">Each cell: our median over the passed repetitions (bold; per run, the mean over its measurement window averaged over the peers, as the papers report), the interquartile range over the repetitions, the published value, and the deviation Δ = ours − paper. Numbered markers point to known causes of a deviation.</p></section>
<section class="block"><h2>Known causes of deviation</h2>${causes.length
    ? `<ol class="causes">${causes.map((cause) => `<li id="cause-${escapeHtml(cause.id)}">${escapeHtml(cause.text)}</li>`).join('')}</ol>`
    : '<p class="note">None recorded for these runs.</p>'}</section></main>`;
  return renderPage({ title: `${table.id} · ${table.title}`, body: html, script: null, generatedBy: 'webrtc-testbed reproduce' });
}
