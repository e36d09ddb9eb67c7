// A "Reproduction" page of a suite (reproduction-<id>.html in the suite directory): one published table
// (lib/scenario/reproductions.js) with, in every cell, our median and IQR over the repetitions beside the published value,
// the deviation, and markers for the known causes listed under the table. Pure; self-contained.
import { columnMetric } from '../lib/scenario/reproductions.js';
import { escapeHtml, formatDifference, formatNumber, statusBadge } from '../report/format.js';
import { renderPage } from '../report/page.js';

/** @param {string} path */
export const metricInfo = (path) => columnMetric(path) ?? { label: path, unit: '', decimals: null, scale: 1 };

const STYLE = `<style>
table.reproduction td { vertical-align: top; } table.reproduction .ours { font-weight: 600; display: block; }
table.reproduction .iqr, table.reproduction .paper, table.reproduction .dev { display: block; font-size: .85em; }
table.reproduction .paper { color: #555; } table.reproduction sup a { text-decoration: none; }
ol.causes li { margin: .2em 0; } table.reproduction td.verdict { max-width: 28em; font-size: .9em; }
</style>`;

/** @param {string} id */
export const reproductionFileName = (id) => `reproduction-${id}.html`;

/** A value in the unit the catalogue shows it in (utilisation as %). @param {string} path @param {number|null|undefined} value */
export function shown(path, value) {
  if (typeof value !== 'number' || !Number.isFinite(value)) return null;
  return path.startsWith('×') ? value : value * (metricInfo(path).scale ?? 1);
}

/** A cell's value as the pages show it. @param {string} path a column key @param {number|null|undefined} value */
export const format = (path, value) => formatNumber(shown(path, value), path.startsWith('×') ? 2 : metricInfo(path).decimals ?? undefined);

/**
 * @param {ReturnType<typeof import('../lib/scenario/reproductions.js').buildReproduction>['rows'][number]['cells'][number]} cell
 * @param {Map<string, number>} causeNumbers
 */
function renderCell(cell, causeNumbers) {
  const { key: path, ours, published } = cell;
  const markers = cell.causes.map((id) => `<sup><a href="#cause-${escapeHtml(id)}" title="known cause">${causeNumbers.get(id)}</a></sup>`).join('');
  const iqr = path.startsWith('×') ? (ours ? 'ratio of the medians' : '') : ours && ours.n > 1 ? `IQR ${format(path, ours.q1)}–${format(path, ours.q3)}` : ours ? '1 run' : '';
  const deviation = cell.deviation === null ? '' : `Δ ${formatDifference(shown(path, ours?.median), shown(path, published))}`;
  return `<td data-path="${escapeHtml(cell.path)}" data-ours="${ours ? ours.median : ''}" data-published="${published ?? ''}" data-key="${escapeHtml(path)}">`
    + `<span class="ours">${ours ? format(path, ours.median) : '—'}${markers}</span>`
    + `<span class="iqr note">${escapeHtml(iqr)}</span>`
    + `<span class="paper">paper ${published === null ? 'n/a' : format(path, published)}</span>`
    + `<span class="dev">${escapeHtml(deviation)}</span></td>`;
}

/**
 * A case's expected behaviour (RFC 8867) and its verdict by RFC 8868's criteria, each criterion with how it is judged.
 * @param {NonNullable<ReturnType<typeof import('../lib/scenario/reproductions.js').buildReproduction>['rows'][number]['verdict']>} verdict
 */
function renderVerdict(verdict) {
  const items = verdict.criteria.map((c) => `<li data-criterion="${escapeHtml(c.id)}">${escapeHtml(c.id)}: <b>${escapeHtml(c.verdict)}</b>`
    + ` <span class="note">(${escapeHtml(c.threshold)})</span></li>`).join('');
  return `<td class="verdict" data-verdict="${escapeHtml(verdict.verdict)}"><b>${escapeHtml(verdict.verdict)}</b><ul>${items}</ul>`
    + `<span class="note">Expected: ${escapeHtml(verdict.expected ?? 'see the scenario file')}</span></td>`;
}

/**
 * @param {ReturnType<typeof import('../lib/scenario/reproductions.js').buildReproduction>} reproduction
 * any: the run's environment as result.json holds it, whose fields depend on the backend
 * @param {{ suiteName: string, suitePage?: string, environment?: Record<string, any>|null }} context
 * @returns {string} the page HTML
 */
export function renderReproductionPage(reproduction, { suiteName, suitePage = 'report.html', environment = null }) {
  const { table, rows, causes } = reproduction;
  const causeNumbers = new Map(causes.map((cause, index) => [cause.id, index + 1]));
  const heads = table.columns.map(({ path, heading, ratioToBaseline }) => {
    const info = metricInfo(path);
    const unit = ratioToBaseline ? '×' : info.unit;
    return `<th title="${escapeHtml(path)}">${escapeHtml(heading)}<br><span class="unit">${escapeHtml(info.label)}${unit ? ` (${escapeHtml(unit)})` : ''}</span></th>`;
  }).join('') + (table.verdicts ? '<th>Verdict (RFC 8868 §2) and expected behaviour (RFC 8867)</th>' : '');
  const body = rows.map((row) => {
    const runs = row.runs.map((run) => (run.report
      ? `<a href="${escapeHtml(run.report)}">${run.repetition}</a>` : String(run.repetition)) + (run.status === 'passed' ? '' : ` ${statusBadge(run.status)}`)).join(' ');
    return `<tr data-scenario="${escapeHtml(row.scenario)}"><th scope="row">${escapeHtml(row.label)}<br><span class="mono note">${escapeHtml(row.scenario)}</span>`
      + `<br><span class="note">${row.passedRuns}/${row.runs.length} runs passed${runs ? `: ${runs}` : ''}</span></th>`
      + `${row.cells.map((cell) => renderCell(cell, causeNumbers)).join('')}${row.verdict ? renderVerdict(row.verdict) : ''}</tr>`;
  }).join('\n');
  const env = environment ?? {};
  const meta = [
    ['Source', table.citation], ['Suite', suiteName], ['Browser', env.browser], ['Media', env.video],
    ['Emulator', env.emulator], ['Host', [env.os, env.cpus && `${env.cpus} CPUs`].filter(Boolean).join(' · ')],
  ];
  const notes = [
    ...(reproduction.compressed ? ['These runs were compressed (a time scale or a duration shorter than the scenario\'s): a smoke check of the page, not a reproduction.'] : []),
    ...(reproduction.variants.length ? [`These runs changed the browsers' congestion control (${reproduction.variants.join('; ')}): an experiment on the `
      + 'paper\'s scenarios, not its set-up, which reproduce --publish does not take.'] : []),
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
