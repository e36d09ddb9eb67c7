// Runs of different video codecs side by side, as J16 table 8-11 sets VP8, VP9 and H.264 beside each other: one
// column per codec (the mean over its runs), rows for rate, RTT, frame rate, loss, resolution, freezes and QP, the
// scenario's published value beside each. Pure.
import { metricsOfList } from '../lib/result/metric-catalogue.js';
import { referenceValue } from '../lib/scenario/reference.js';
import { describe } from '../lib/stats/statistics.js';
import { escapeHtml, formatNumber, metricInfo } from './format.js';
import { runStatistics } from './summary-table.js';

/** The rows of the codec table: the catalogue's `codecTable` metrics; two on one row (width, height) are the resolution. */
const ROWS = [...new Set(metricsOfList('codecTable').map((metric, _, all) => (
  all.filter((other) => other.codecTable === metric.codecTable).length > 1 ? 'resolution' : metric.path)))];

/**
 * A run's video codec: what its first peer sent with (result.environment.codecs), else what it asked for, else the
 * timeline's; null when none says.
 * @param {import('./result-file.js').ReportResult} r a normalized result
 * @returns {string|null} e.g. "VP9", "H264"
 */
export function codecOf(r) {
  const connections = Object.values(r.environment?.codecs?.peers ?? {}).flatMap((remotes) => Object.values(remotes ?? {}));
  const mimeType = connections.map((c) => c?.send?.mimeType ?? c?.recv?.mimeType).find(Boolean) ?? r.scenario?.codec?.mimeType
    ?? r.timeline.map((e) => e.video?.codec && `video/${e.video.codec}`).find(Boolean);
  return typeof mimeType === 'string' ? mimeType.replace(/^video\//i, '') : null;
}

/**
 * @param {import('./result-file.js').ReportResult} r
 * @returns {string|null} the encoder implementations its peers reported, e.g. "libvpx"
 */
function encodersOf(r) {
  const names = Object.values(r.environment?.codecs?.peers ?? {}).flatMap((remotes) => Object.values(remotes ?? {}))
    .map((c) => c?.send?.implementation).filter(Boolean);
  return names.length ? [...new Set(names)].join(', ') : null;
}

/**
 * The codec table, or '' when the runs use fewer than two codecs.
 * @param {import('./result-file.js').ReportResult[]} results normalized, in the page's order
 */
export function renderCodecTable(results) {
  const codecs = [...new Set(results.map(codecOf))];
  if (codecs.length < 2 || codecs.includes(null)) return '';
  const columns = codecs.map((codec) => {
    const runs = results.filter((r) => codecOf(r) === codec);
    const overall = runs.map((r) => runStatistics(r).overall);
    /** @param {string} path */
    const mean = (path) => describe(overall.map((o) => o[path]?.mean ?? null)).mean;
    /** @param {string} path */
    const reference = (path) => referenceValue(runs[0].scenario.reference, path)?.mean ?? null;
    return { codec, runs, mean, reference, encoders: [...new Set(runs.map(encodersOf).filter(Boolean))].join('; ') };
  });
  /** @param {number|null} value @param {number|null} ref @param {number|null} decimals */
  const cell = (value, ref, decimals) => `${formatNumber(value, decimals)}${ref === null ? '' : ` <span class="ref">(${formatNumber(ref, decimals)})</span>`}`;
  const rows = ROWS.map((path) => {
    if (path === 'resolution') {
      /** @typedef {typeof columns[number]} Column */
      /** @param {(c: Column, path: string) => number|null} get */
      const size = (get) => columns.map((c) => [get(c, 'video.recvWidth'), get(c, 'video.recvHeight')]);
      /** @param {Array<number|null>} pair */
      const shown = (pair) => (pair.every(Number.isFinite) ? `${formatNumber(pair[0], 0)} × ${formatNumber(pair[1], 0)}` : '—');
      const refs = size((c, p) => c.reference(p));
      return `<tr data-metric="resolution"><th scope="row">Resolution <span class="unit">(px)</span></th>${size((c, p) => c.mean(p))
        .map((pair, i) => `<td>${shown(pair)}${refs[i].every(Number.isFinite) ? ` <span class="ref">(${shown(refs[i])})</span>` : ''}</td>`).join('')}</tr>`;
    }
    const info = metricInfo(path);
    return `<tr data-metric="${escapeHtml(path)}"><th scope="row">${escapeHtml(info.label)} ${info.unit ? `<span class="unit">(${escapeHtml(info.unit)})</span>` : ''}</th>${columns
      .map((c) => `<td>${cell(c.mean(path), c.reference(path), info.decimals)}</td>`).join('')}</tr>`;
  });
  rows.push(`<tr><th scope="row">Encoder</th>${columns.map((c) => `<td>${escapeHtml(c.encoders || '—')}</td>`).join('')}</tr>`);
  const head = `<tr><th scope="col">Metric</th>${columns.map((c) => `<th scope="col" data-codec="${escapeHtml(c.codec)}">${escapeHtml(c.codec)} <span class="note">${c.runs.length} run${c.runs.length === 1 ? '' : 's'}</span></th>`).join('')}</tr>`;
  const caption = 'Per codec: the mean over its runs of each run\'s mean over its measurement window, averaged over peers; in brackets the '
    + 'published value of the run\'s scenario (J16 table 8-11 for VP8, VP9 and H.264; none for AV1). QP is on each codec\'s own scale '
    + '(VP8 0-127, VP9 and AV1 0-255, H.264 0-51): compare it between runs of one codec, not across codecs.';
  return `<table class="summary codecs"><thead>${head}</thead><tbody>${rows.join('')}</tbody></table><p class="caption">${caption}</p>`;
}
