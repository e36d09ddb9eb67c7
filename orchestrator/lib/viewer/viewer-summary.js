// A viewer's streams summed up (pure): per stream and over all of them, glass-to-glass delay, freezes and picture
// quality over the measurement window; each second's quality scores; the decoder's own freeze count beside what the
// viewer saw. viewer.js measures what these sum.
import { describe, percentile } from '../stats/statistics.js';

/** @typedef {import('./viewer.js').QualityScore} QualityScore */
/** @typedef {Pick<QualityScore, 'psnrDb'|'ssim'|'vmaf'>} Scored */

/** @param {number|null|undefined} value @param {number} [digits] */
export const round = (value, digits = 1) => (value === null || value === undefined || !Number.isFinite(value) ? null
  : Number(value.toFixed(digits)));
/** @param {number[]} values */
export const sum = (values) => values.reduce((total, value) => total + value, 0);

/** Score fields of a QualityScore and their decimals. */
const SCORES = /** @type {const} */ ({ psnrDb: 2, ssim: 4, vmaf: 2 });
/** @param {Scored[]} scores @param {keyof typeof SCORES} field @returns {number[]} */
const valuesOf = (scores, field) => scores.flatMap((score) => {
  const value = score[field];
  return typeof value === 'number' ? [value] : [];
});
/** @param {number[]} values @param {number} decimals */
const meanOf = (values, decimals) => (values.length ? round(sum(values) / values.length, decimals) : null);

/**
 * Each second's mean PSNR, SSIM and VMAF over its captures, into the matching per-second rows.
 * @param {import('./viewer.js').ViewerSecond[]} perSecond
 * @param {Array<Scored & { atS: number|null, peer: string, remote: string }>} quality
 */
export function addQualityPerSecond(perSecond, quality) {
  const rows = new Map(perSecond.map((row) => [`${row.t}\n${row.peer}\n${row.remote}`, row]));
  /** @type {Map<string, Scored[]>} */
  const bySecond = new Map();
  for (const score of quality) {
    // Math.ceil(null) was 0: kept.
    const key = `${Math.ceil(score.atS ?? 0)}\n${score.peer}\n${score.remote}`;
    const scores = bySecond.get(key) ?? [];
    bySecond.set(key, scores);
    scores.push(score);
  }
  for (const [key, scores] of bySecond) {
    const row = rows.get(key);
    if (!row) continue;
    for (const field of /** @type {Array<keyof typeof SCORES>} */ (Object.keys(SCORES))) {
      row.video[field] = meanOf(valuesOf(scores, field), SCORES[field]);
    }
  }
}

/**
 * Mean, p5, p50 and p95 of the captures' VMAF (the low percentile is the one a viewer remembers); null without scores.
 * @param {QualityScore[]} scores
 */
function vmafSpread(scores) {
  const sorted = valuesOf(scores, 'vmaf').sort((a, b) => a - b);
  if (!sorted.length) return null;
  const at = (/** @type {number} */ p) => round(percentile(sorted, p), 2);
  return { mean: meanOf(sorted, 2), p5: at(5), p50: at(50), p95: at(95) };
}

/**
 * One received stream over the measurement window.
 * @param {{ delays: number[], freezes: Array<{ durationMs: number }>, framesShown: number, framesSkipped: number|null,
 *   unreadable: number, scores: QualityScore[], frameCode: boolean, unavailable: string|null }} input
 *   unavailable: why the run measured no glass-to-glass delay on this stream at all (null: it did)
 */
export function streamSummary({ delays, freezes, framesShown, framesSkipped, unreadable, scores, frameCode, unavailable }) {
  const sorted = [...delays].sort((a, b) => a - b);
  return {
    frameCode,
    unavailable,
    glassToGlassMs: { ...describe(sorted), max: sorted.at(-1) ?? null },
    framesShown,
    framesSkipped,
    unreadableFrames: unreadable,
    freezes: { count: freezes.length, totalMs: round(sum(freezes.map((freeze) => freeze.durationMs))) },
    quality: {
      captures: scores.length,
      psnrDb: meanOf(valuesOf(scores, 'psnrDb'), 2),
      ssim: meanOf(valuesOf(scores, 'ssim'), 4),
      vmaf: vmafSpread(scores),
    },
  };
}

/**
 * Every stream together: glass-to-glass over every matched frame, freezes summed, quality over every capture.
 * @param {Array<ReturnType<typeof streamSummary>>} streams @param {number[]} delays @param {QualityScore[]} scores
 */
export function overallSummary(streams, delays, scores) {
  const sorted = [...delays].sort((a, b) => a - b);
  /** @param {'psnrDb'|'ssim'} field */
  const weighted = (field) => {
    const scored = streams.flatMap(({ quality }) => {
      const value = quality[field];
      return value === null ? [] : [{ value, captures: quality.captures }];
    });
    const captures = sum(scored.map((stream) => stream.captures));
    return captures ? sum(scored.map((stream) => stream.value * stream.captures)) / captures : null;
  };
  return {
    glassToGlassMs: { ...describe(sorted), max: sorted.at(-1) ?? null },
    freezes: {
      count: sum(streams.map((stream) => stream.freezes.count)),
      // A null total adds nothing.
      totalMs: round(sum(streams.map((stream) => stream.freezes.totalMs ?? 0))),
    },
    quality: { psnrDb: round(weighted('psnrDb'), 2), ssim: round(weighted('ssim'), 4), vmaf: vmafSpread(scores) },
  };
}

/**
 * The decoder's own freeze count and time (getStats freezeCount, totalFreezesDuration) per stream over the window,
 * beside what the viewer saw: the cross-check.
 * @param {Record<string, ReturnType<typeof streamSummary>>} streams
 * @param {Array<{ t: number, peer: string, remote: string, video?: Record<string, unknown> }>} timeline
 * @param {[number, number]} windowS
 */
export function withGetStatsFreezes(streams, timeline, [fromS, toS]) {
  return Object.fromEntries(Object.entries(streams).map(([key, stream]) => {
    const [remote, peer] = key.split('->');
    const mine = timeline.filter((entry) => entry.peer === peer && entry.remote === remote && entry.t > fromS && entry.t <= toS);
    // A browser without the fields gives null, not 0: no count is not a count of none.
    /** @param {string} field */
    const total = (field) => {
      const values = mine.flatMap((entry) => {
        const value = entry.video?.[field];
        return typeof value === 'number' && Number.isFinite(value) ? [value] : [];
      });
      return values.length ? sum(values) : null;
    };
    return [key, { ...stream, getStatsFreezes: { count: total('freezeCount'), totalMs: round(total('freezeDurationMs')) } }];
  }));
}

