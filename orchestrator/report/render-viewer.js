// The run report's "What the viewer saw" table (pure HTML): per received stream over the measurement window,
// glass-to-glass delay, frames, freezes as seen beside the decoder's own count, picture quality; and what reading
// the frame codes cost each page.
import { escapeHtml, formatNumber, isFiniteNumber } from './format.js';

/**
 * @param {import('./result-file.js').ReportResult} r normalized result
 * @returns {string} '' when the run collected nothing about what the viewers saw
 */
export function renderViewerSummary(r) {
  const summary = r.summary?.viewer;
  const streams = Object.entries(summary?.streams ?? {}).sort(([a], [b]) => a.localeCompare(b));
  if (!streams.length || !summary) return '';
  /** @param {unknown} value @param {number} [decimals] */
  const n = (value, decimals = 0) => formatNumber(isFiniteNumber(value) ? value : null, decimals);
  /** @param {{ count?: number|null, totalMs?: number|null }|undefined} f */
  const freezes = (f) => (f && isFiniteNumber(f.count) ? `${n(f.count)} · ${n(isFiniteNumber(f.totalMs) ? f.totalMs / 1000 : null, 2)} s` : '—');
  const head = ['Stream', 'Glass-to-glass mean', 'p50', 'p95', 'max', 'Frames shown', 'Source frames never shown', 'Freezes as seen',
    'Freezes (getStats)', 'PSNR (dB)', 'SSIM', 'VMAF mean', 'VMAF p5 · p50 · p95', 'Captures'];
  /** @param {{ mean?: number|null, p5?: number|null, p50?: number|null, p95?: number|null }|null|undefined} v */
  const vmaf = (v) => `<td>${n(v?.mean, 1)}</td><td>${v ? `${n(v.p5, 1)} · ${n(v.p50, 1)} · ${n(v.p95, 1)}` : '—'}</td>`;
  const rows = streams.map(([key, s]) => `<tr data-stream="${escapeHtml(key)}"><th scope="row">${escapeHtml(key.replace('->', ' → '))}</th>`
    + `<td>${n(s.glassToGlassMs?.mean)}</td><td>${n(s.glassToGlassMs?.median)}</td><td>${n(s.glassToGlassMs?.p95)}</td><td>${n(s.glassToGlassMs?.max)}</td>`
    + `<td>${n(s.framesShown)}</td><td>${s.frameCode ? n(s.framesSkipped) : '—'}</td><td>${freezes(s.freezes)}</td><td>${freezes(s.getStatsFreezes)}</td>`
    + `<td>${n(s.quality?.psnrDb, 2)}</td><td>${n(s.quality?.ssim, 4)}</td>${vmaf(s.quality?.vmaf)}<td>${n(s.quality?.captures)}</td></tr>`);
  /** @type {Partial<typeof summary.overall>} */
  const o = summary.overall ?? {};
  rows.push(`<tr class="run"><th scope="row">All streams</th><td class="avg">${n(o.glassToGlassMs?.mean)}</td><td class="avg">${n(o.glassToGlassMs?.median)}</td>`
    + `<td class="avg">${n(o.glassToGlassMs?.p95)}</td><td class="avg">${n(o.glassToGlassMs?.max)}</td><td></td><td></td><td class="avg">${freezes(o.freezes)}</td><td></td>`
    + `<td class="avg">${n(o.quality?.psnrDb, 2)}</td><td class="avg">${n(o.quality?.ssim, 4)}</td>${vmaf(o.quality?.vmaf)}<td></td></tr>`);
  /** @type {Partial<NonNullable<import('./result-file.js').ReportResult['viewer']>>} */
  const viewer = r.viewer ?? {};
  const cost = Object.entries(viewer.readCost ?? {}).map(([peer, c]) => `${escapeHtml(peer)} ${n(c?.readMsPerFrame, 3)} ms/frame (${n(c?.cpuPct, 2)} % of a core)`);
  const unscored = [viewer.unmatchedCaptures ? `${n(viewer.unmatchedCaptures)} captures did not carry the code they were filed under and were not scored` : '',
    viewer.droppedCaptures ? `${n(viewer.droppedCaptures)} captures were dropped over the disk budget` : ''].filter(Boolean);
  const uncoded = streams.filter(([, s]) => !s.frameCode).map(([key]) => escapeHtml(key));
  // A Grid run's streams between two nodes: their frame times were on two clocks, moved onto one by measured offsets.
  const clockErrors = Object.entries(summary.clockErrors ?? {}).filter(([, e]) => e && !e.sameNode)
    .map(([key, e]) => `${escapeHtml(key.replace('->', ' → '))} ± ${Number.isFinite(e.clockErrorMs) ? `${n(e.clockErrorMs, 1)} ms` : 'unknown (a node\'s clock was not read)'}`);
  const undelayed = streams.filter(([, s]) => s.frameCode && typeof s.unavailable === 'string')
    .map(([key, s]) => `${escapeHtml(key.replace('->', ' → '))}: ${escapeHtml(s.unavailable)}`);
  return `<section id="viewer-summary" class="block"><h2>What the viewer saw</h2>
<table class="summary viewer"><thead><tr>${head.map((h) => `<th scope="col">${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table>
<p class="caption">Over the measurement window. Glass-to-glass (ms): from the sender's camera delivering a source frame to the receiver's
display of it, read from the frame code in both pages' frames on the shared clock, to one display refresh (16.7 ms at 60 Hz). A freeze is a picture on
screen for at least max(3 × the mean of the 30 before it, that mean + 150 ms) (W3C webrtc-stats), as seen (count · total) and as the decoder
counted it. PSNR and SSIM: luma of the captured received frames, scaled up to the source size, against their source frames, code strip
excluded; VMAF likewise (0-100; its motion feature sees the captures as one clip, so it compares runs of this harness, not
published full-rate VMAF): ${escapeHtml(viewer.vmaf?.reason ?? 'not computed')}.${cost.length ? ` Reading the frame codes: ${cost.join('; ')}.` : ''}
${clockErrors.length ? `Across Grid nodes each page's frame times were put on the orchestrator's clock by its node's measured offset (see Grid
placement), so the delays may be off by the two nodes' clock errors added: ${clockErrors.join('; ')}. ` : ''}${unscored.length ? `${unscored.join('; ')}.` : ''}${uncoded.length ? ` No frame code in the media of ${uncoded.join(', ')}: no delay, skips or scores.` : ''}${undelayed.length ? ` No glass-to-glass delay on ${undelayed.join('; ')}.` : ''}</p></section>`;
}
