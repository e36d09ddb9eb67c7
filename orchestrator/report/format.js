// Formatting helpers shared by the report renderers. Pure.
import { isRecord } from '../lib/input/validate.js';
import { metricByPath } from '../lib/result/metric-catalogue.js';

/** @type {Record<string, string>} */
const HTML_ESCAPES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** A finite number (Number.isFinite, as a type guard). @param {unknown} v @returns {v is number} */
export const isFiniteNumber = (v) => typeof v === 'number' && Number.isFinite(v);

/** @param {unknown} value @returns {string} */
export function escapeHtml(value) {
  return String(value ?? '').replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]);
}

/** A result's text or number as a table cell, escaped; anything else '—'. @param {unknown} value */
export const textCell = (value) => escapeHtml(typeof value === 'string' || typeof value === 'number' ? value : '—');

/** The records of a list read from a result; nothing for what is not a list. @param {unknown} value @returns {Record<string, unknown>[]} */
export const recordsOf = (value) => (Array.isArray(value) ? value.filter(isRecord) : []);

/**
 * Text from a result inside Markdown: one line, and no character that starts a link, an image, an HTML tag or
 * entity, emphasis, code or a table cell (Markdown reads a backslash before punctuation as the character itself).
 * @param {unknown} value @returns {string}
 */
export function escapeMarkdown(value) {
  return String(value ?? '').replace(/[\r\n]+/g, ' ').replace(/[\\`*_[\]<>|~!&#]/g, '\\$&');
}

/**
 * JSON for a <script type="application/json"> block: "<" is escaped so "</script>" in a
 * scenario description or error message cannot end the block early.
 * @param {unknown} value
 */
export function jsonForScript(value) {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

/**
 * Seconds as m:ss (h:mm:ss past an hour); negative values keep their sign.
 * @param {number|null|undefined} seconds
 */
export function formatClock(seconds) {
  if (!isFiniteNumber(seconds)) return '—';
  const sign = seconds < 0 ? '−' : '';
  const total = Math.round(Math.abs(seconds));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, '0');
  return h ? `${sign}${h}:${String(m).padStart(2, '0')}:${s}` : `${sign}${m}:${s}`;
}

/**
 * A number with precision chosen by magnitude (thesis tables: 2456, 69.0, 1.13), or "—".
 * @param {number|null|undefined} value
 * @param {number|null} [decimals] fixed decimals; by magnitude when omitted or null
 */
export function formatNumber(value, decimals) {
  if (!isFiniteNumber(value)) return '—';
  const d = decimals ?? (Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2);
  return value.toFixed(d).replace(/^-(?=0(\.0*)?$)/, '').replace('-', '−');
}

/**
 * "mean ± sd" as in the thesis tables; the sd part is left out when unknown.
 * @param {{mean?: number|null, sd?: number|null}|null|undefined} stat
 * @param {number|null} [decimals] fixed decimals; by the mean's magnitude when omitted or null
 */
export function formatMeanSd(stat, decimals) {
  if (!stat || !isFiniteNumber(stat.mean)) return '—';
  const mean = formatNumber(stat.mean, decimals);
  return Number.isFinite(stat.sd) ? `${mean} ± ${formatNumber(stat.sd, decimals ?? decimalsFor(stat.mean))}` : mean;
}

/** Decimals the mean of a stat is shown with, reused for its sd so both line up. @param {number} value */
function decimalsFor(value) {
  return Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2;
}

/**
 * Signed difference "+23 (+2.0 %)"; the percentage is left out when the reference is 0.
 * @param {number|null|undefined} value @param {number|null|undefined} reference
 * @param {number|null} [decimals] the metric's (Jain's index: 3); by the reference's magnitude when omitted or null
 */
export function formatDifference(value, reference, decimals = null) {
  if (!isFiniteNumber(value) || !isFiniteNumber(reference)) return '—';
  const diff = value - reference;
  const abs = formatNumber(diff, decimals ?? decimalsFor(reference || diff));
  const signed = diff > 0 ? `+${abs}` : abs;
  if (reference === 0) return signed;
  const pct = (diff / Math.abs(reference)) * 100;
  return `${signed} (${pct > 0 ? '+' : ''}${formatNumber(pct, 1)} %)`;
}

/** @param {number|null|undefined} fraction 0..1 */
export function formatPercent(fraction) {
  return isFiniteNumber(fraction) ? `${formatNumber(fraction * 100, 1)} %` : '—';
}

/** Round for embedding in the page: 2 decimals are plenty for chart points and keep the JSON small. @param {number|null|undefined} v */
export function round2(v) {
  return isFiniteNumber(v) ? Math.round(v * 100) / 100 : null;
}

/**
 * How a metric is shown: its catalogue entry (lib/result/metric-catalogue.js); an unknown key is shown as itself, by magnitude.
 * @param {string} key
 * @returns {{label: string, unit: string, decimals: number|null, scale?: number}}
 */
export function metricInfo(key) {
  return metricByPath(key) ?? { label: key, unit: '', decimals: null };
}

/** @param {string} status */
export function statusBadge(status) {
  return `<span class="status status-${escapeHtml(status.replace(/[^a-z]/gi, ''))}">${escapeHtml(status)}</span>`;
}
