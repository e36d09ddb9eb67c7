// Slow drift (pure): a metric whose nightly medians of the last N nights moved more than X % from those of the
// N nights before. Each night's gate compares with the last few green nights, so a drift of a few per cent a
// week never trips it; this check compares two windows of nights instead.
import { median } from './statistics.js';

export const DEFAULT_DRIFT = { nights: 7, thresholdPct: 10 };

/**
 * @typedef {{ recent: number, previous: number, changePct: number|null, worse: boolean, fromIndex: number, nights: number }} Drift
 *   recent/previous: the median of the windows' nightly medians; changePct null when previous is 0;
 *   fromIndex: the series index where the recent window starts
 */

/**
 * @param {number[]} medians one value per night, oldest first (nights without a value left out)
 * @param {{ nights?: number, thresholdPct?: number, worseWhen: 'lower'|'higher' }} options
 * @returns {Drift|null} null: fewer than 2 × nights values, or no change beyond the threshold
 */
export function detectDrift(medians, { nights = DEFAULT_DRIFT.nights, thresholdPct = DEFAULT_DRIFT.thresholdPct, worseWhen }) {
  if (!Number.isInteger(nights) || nights < 1) throw new RangeError(`drift nights must be a positive integer, got ${nights}`);
  if (medians.length < 2 * nights) return null;
  const recent = median(medians.slice(-nights));
  const previous = median(medians.slice(-2 * nights, -nights));
  if (recent === null || previous === null || recent === previous) return null;
  const changePct = previous === 0 ? null : ((recent - previous) / Math.abs(previous)) * 100;
  if (changePct !== null && Math.abs(changePct) <= thresholdPct) return null;
  const worse = worseWhen === 'lower' ? recent < previous : recent > previous;
  return { recent, previous, changePct, worse, fromIndex: medians.length - nights, nights };
}

/**
 * The suite warnings of a store's drifts: those in the worse direction (a drift for the better is news, not a warning).
 * @param {{ worse: boolean, text: string }[]} drifts
 * @returns {string[]}
 */
export const driftWarnings = (drifts) => drifts.filter((drift) => drift.worse).map((drift) => `slow drift (results store): ${drift.text}`);

/** One line for the outputs. @param {string} scenario @param {string} metric @param {Drift} drift */
export function describeDrift(scenario, metric, drift) {
  const change = drift.changePct === null ? 'from 0' : `${drift.changePct > 0 ? '+' : ''}${drift.changePct.toFixed(1)} %`;
  /** @param {number} value */
  const fmt = (value) => Number(value.toPrecision(4));
  return `${scenario} ${metric}: drifted ${change} (${drift.worse ? 'worse' : 'better'}): median of the last ${drift.nights} nights ${fmt(drift.recent)} vs ${fmt(drift.previous)} the ${drift.nights} before`;
}
