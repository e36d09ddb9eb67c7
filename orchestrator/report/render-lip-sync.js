// The run report's lip sync (pure): a table per received stream (and each sender's own capture skew) of the
// audio-video offset of its marks over the measurement window, with ITU-R BT.1359's verdict, and a chart of every
// mark's offset over the call between BT.1359's thresholds (result.json `lipSync`, lib/audio/lip-sync.js).
import { escapeHtml, formatNumber, isFiniteNumber } from './format.js';
import { safeId, tint } from './chart-series.js';
import { isRecord } from '../lib/input/validate.js';

/**
 * @typedef {import('../lib/audio/lip-sync.js').LipSyncResult} LipSyncResult
 * @typedef {import('../lib/audio/lip-sync.js').LipSyncStream} LipSyncStream
 * @typedef {import('../lib/audio/lip-sync.js').CaptureStream} CaptureStream
 */

const THRESHOLD_COLOR = '#222222';

/** result.json's `lipSync` when it has one (this harness wrote it: only its presence is checked). @param {unknown} result */
function lipSyncOf(result) {
  const lipSync = isRecord(result) ? result.lipSync : null;
  return isRecord(lipSync) && Array.isArray(lipSync.streams) ? /** @type {LipSyncResult} */ (/** @type {unknown} */ (lipSync)) : null;
}

/**
 * @param {unknown} result a result.json
 * @returns {string} '' when the run did not measure lip sync
 */
export function renderLipSync(result) {
  const lipSync = lipSyncOf(result);
  if (!lipSync) return '';
  /** @param {unknown} value @param {number} [decimals] */
  const n = (value, decimals = 0) => formatNumber(isFiniteNumber(value) ? value : null, decimals);
  /** @param {string} name @param {LipSyncStream['summary']} s @param {string} marks @param {number|null} seenMs */
  const row = (name, s, marks, seenMs) => `<tr><th scope="row">${escapeHtml(name)}</th><td>${n(s.medianMs)}</td><td>${n(s.meanMs)}</td>`
    + `<td>${n(s.p95AbsMs)}</td><td>${n(s.maxAbsMs)}</td><td>${n(s.driftMsPerMin, 1)}</td><td>${marks}</td><td>${escapeHtml(s.verdict ?? '—')}</td>`
    + `<td>${n(seenMs)}</td></tr>`;
  /** @param {Omit<CaptureStream, 'marks'>} s */
  const marks = (s) => `${n(s.summary.n)} of ${n(s.expectedMarks)}${s.unpaired ? ` (${n(s.unpaired)} onsets unpaired)` : ''}`
    + `${s.droppedOnsets ? ` (${n(s.droppedOnsets)} dropped)` : ''}`;
  const rows = [
    ...lipSync.streams.map((s) => row(`${s.remote} → ${s.peer}`, s.summary, marks(s), s.seen.medianMs)),
    row('All streams', lipSync.overall, n(lipSync.overall.n), null),
    // A capture's skew is the harness's devices', no viewer's: no verdict.
    ...lipSync.capture.map((s) => row(`${s.peer}'s own capture (microphone − camera)`, { ...s.summary, verdict: null }, marks(s), s.summary.medianMs)),
  ];
  const { detectable, acceptable } = lipSync.thresholdsMs;
  const head = ['Stream', 'Offset median (ms)', 'mean', 'p95 |offset|', 'max |offset|', 'Drift (ms/min)', 'Marks', 'BT.1359', 'As the page saw it (median)'];
  return `<section id="lip-sync" class="block"><h2>Lip sync</h2>
<table class="summary lip-sync"><thead><tr>${head.map((h) => `<th scope="col">${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table>
<p class="caption">Over the measurement window. A mark is a ${n(lipSync.marks.toneMs)} ms ${n(lipSync.marks.toneHz)} Hz tone in the sent audio at a known frame
every ${n(lipSync.marks.intervalS)} s${lipSync.audioDelayMs ? `, the audio sent ${n(lipSync.audioDelayMs)} ms late against the video` : ''}. Offset = when the receiving
page's audio played the tone's onset − when it showed the mark's frame, on the page's clock (as the page saw it), less the skew the sender's fake
camera and microphone added at capture (its own capture's offset − the media's audio delay): positive, the sound after the picture. ITU-R BT.1359
(its sign reversed here): detectable beyond ${n(-detectable.audioEarly)} ms audio early or ${n(detectable.audioLate)} ms late, unacceptable beyond
${n(-acceptable.audioEarly)} ms early or ${n(acceptable.audioLate)} ms late; the verdict judges the median. Drift: the least-squares slope of the
offsets. A sender's own capture is its camera's frames as they reach its page against its microphone's tones: the skew the call starts with.
A received mark without its sender's capture of it has no offset.
Offsets beyond ±${n((lipSync.marks.intervalS * 1000) / 2)} ms pair with the wrong mark.</p></section>`;
}

/**
 * The chart: every received stream's mark offsets over the call, BT.1359's thresholds as lines.
 * @param {unknown} result a result.json @param {{ span: import('./chart-series.js').Span, colorOf: (peer: string) => string }} charts
 * @returns {import('./chart-series.js').Section|null}
 */
export function buildLipSyncSection(result, { span, colorOf }) {
  const lipSync = lipSyncOf(result);
  if (!lipSync || !lipSync.streams.some((s) => s.marks.length)) return null;
  /** @param {string} label @param {number} ms @param {number[]} dash */
  const threshold = (label, ms, dash) => ({
    label, x: [span.startS, span.endS], y: [ms, ms], color: THRESHOLD_COLOR, dash, width: 1, configured: true,
  });
  const { detectable, acceptable } = lipSync.thresholdsMs;
  const series = [
    ...lipSync.streams.filter((s) => s.marks.length).flatMap((s) => [
      { label: `${s.remote} → ${s.peer}`, x: s.marks.map((m) => m.atS), y: s.marks.map((m) => m.offsetMs), color: colorOf(s.remote), points: true },
      {
        label: `${s.remote} → ${s.peer} as the page saw it`, x: s.marks.map((m) => m.atS), y: s.marks.map((m) => m.seenMs),
        color: tint(colorOf(s.remote), 0.55), points: true,
      },
    ]),
    threshold(`BT.1359 detectable: audio ${detectable.audioLate} ms late`, detectable.audioLate, [6, 4]),
    threshold(`BT.1359 detectable: audio ${-detectable.audioEarly} ms early`, detectable.audioEarly, [6, 4]),
    threshold(`BT.1359 unacceptable: audio ${acceptable.audioLate} ms late`, acceptable.audioLate, [2, 3]),
    threshold(`BT.1359 unacceptable: audio ${-acceptable.audioEarly} ms early`, acceptable.audioEarly, [2, 3]),
  ];
  return {
    id: 'lip-sync', title: 'Lip sync',
    subtitle: 'each mark\'s audio onset − display of its frame at the receiving page, less the sender\'s capture skew (positive: sound after picture)',
    panels: [{ id: safeId('lip-sync-offsets'), title: 'Audio − video offset per mark', yLabel: 'ms', series }],
  };
}
