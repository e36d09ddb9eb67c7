// The chart specs every report section is made of, and the helpers that build their lines: measured points with gaps
// where seconds are missing, configured conditions as step lines, shared colours. Pure; drawn by assets/dashboard.js.

import { round2 } from './format.js';

/**
 * @typedef {{label: string, x: number[], y: Array<number|null>, color: string, dash?: number[], width?: number,
 *   stepped?: boolean, axis?: 'y'|'y2', tips?: string[], configured?: boolean, points?: boolean}} SeriesSpec  points: markers
 *   at its points, no line (the layer switches)
 * @typedef {Omit<SeriesSpec, 'x'|'y'>} LineStyle  a series without its points
 * @typedef {{id: string, title: string, yLabel: string, y2Label?: string, yCategories?: string[], series: SeriesSpec[],
 *   stacked?: boolean, spans?: Array<{fromS: number, toS: number, color: string}>}} PanelSpec  stacked: the measured series
 *   are drawn as stacked areas, the configured ones as lines; spans: time ranges shaded under the data (freezes)
 * @typedef {{id: string, title: string, subtitle?: string, panels: PanelSpec[]}} Section
 * @typedef {{tS: number, kind: 'change'|'error'|'flow', label?: string}} Marker  flow: a flow joins, leaves, pauses or resumes
 * @typedef {{xMinS: number, xMaxS: number, warmupS: number|null, markers: Marker[], sections: Section[]}} ChartData
 * @typedef {{startS: number, endS: number}} Span  the charts' time axis, in seconds
 */

/** Colour-blind-safe palette (Okabe–Ito, then Tableau) for peers or runs. */
export const PALETTE = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#8c564b', '#7f7f7f', '#bcbd22', '#17becf', '#1f77b4', '#d62728'];
/** Janus (the SFU): its process tree and its own view of each peer's legs. */
export const JANUS_COLOR = '#8c564b';
const CONFIGURED_COLOR = '#222222';
const CONFIGURED_DASH = [6, 4];

/**
 * A time on the x axis, to 2 decimals as every chart value (round2); a non-finite one is null in the page's JSON either way.
 * @param {number} t
 */
export const roundTime = (t) => Math.round(t * 100) / 100;

/**
 * A colour mixed with white, for the send side of a flow drawn next to its receive side.
 * @param {string} hex "#rrggbb" @param {number} amount 0 (unchanged) .. 1 (white)
 */
export function tint(hex, amount) {
  const n = Number.parseInt(hex.slice(1), 16);
  /** @param {number} c */
  const mix = (c) => Math.round(c + (255 - c) * amount).toString(16).padStart(2, '0');
  return `#${mix(n >> 16)}${mix((n >> 8) & 255)}${mix(n & 255)}`;
}

/**
 * Points to chart arrays, with a null inserted wherever seconds are missing (a gap longer than
 * 1.5 sampling intervals) so the line breaks there instead of bridging the gap.
 * @param {Array<[number, number|null]>} points sorted by t
 * @returns {{x: number[], y: Array<number|null>}}
 */
export function withGaps(points) {
  const diffs = points.slice(1).map(([t], i) => t - points[i][0]).filter((d) => d > 0).sort((a, b) => a - b);
  const step = diffs.length ? diffs[Math.floor(diffs.length / 2)] : 1;
  /** @type {number[]} */
  const x = [];
  /** @type {Array<number|null>} */
  const y = [];
  points.forEach(([t, v], i) => {
    if (i > 0 && t - points[i - 1][0] > 1.5 * step) {
      x.push(roundTime(points[i - 1][0] + step));
      y.push(null);
    }
    x.push(roundTime(t));
    y.push(round2(v));
  });
  return { x, y };
}

/** Tips aligned with withGaps() output (an empty tip at each inserted gap). @param {Array<[number, string]>} points */
export function withGapsTips(points) {
  const { x } = withGaps(points.map(([t]) => [t, 0]));
  const byT = new Map(points.map(([t, tip]) => [roundTime(t), tip]));
  return x.map((t) => byT.get(t) ?? '');
}

/** @param {Array<[number, number|null]>|null} steps @param {string} label @returns {SeriesSpec|null} */
export function configuredSeries(steps, label) {
  if (!steps) return null;
  return {
    label, x: steps.map(([t]) => roundTime(t)), y: steps.map(([, v]) => round2(v)),
    color: CONFIGURED_COLOR, dash: CONFIGURED_DASH, width: 1.5, stepped: true, configured: true,
  };
}

/**
 * Merges configured lines that are identical (symmetric conditions) into one, joining their labels;
 * when every configured line of the panel is the same one, it is simply "configured …".
 * @param {Array<SeriesSpec|null>} series @param {string} sharedLabel
 * @returns {SeriesSpec[]}
 */
export function mergeConfigured(series, sharedLabel) {
  const present = series.filter((s) => s !== null);
  const measuredLines = present.filter((s) => !s.configured);
  /** @type {Map<string, {spec: SeriesSpec, labels: string[]}>} */
  const byShape = new Map();
  for (const s of present.filter((c) => c.configured)) {
    const key = JSON.stringify([s.x, s.y]);
    const same = byShape.get(key);
    if (same) same.labels.push(s.label);
    else byShape.set(key, { spec: s, labels: [s.label] });
  }
  const merged = [...byShape.values()].map(({ spec, labels }) => ({ ...spec, label: byShape.size === 1 ? sharedLabel : labels.join(' = ') }));
  return [...measuredLines, ...merged];
}

/** @param {SeriesSpec[]} series */
export function hasMeasuredData(series) {
  return series.some((s) => !s.configured && s.y.some((v) => v !== null));
}

/**
 * A section's panels without their empty lines, and without the panels left with no measured line.
 * @param {PanelSpec[]} panels @returns {PanelSpec[]}
 */
export function drawnPanels(panels) {
  return panels.map((p) => ({ ...p, series: p.series.filter((s) => s.y.some((v) => v !== null)) }))
    .filter((p) => hasMeasuredData(p.series));
}

/**
 * Rows (a peer's entries about one remote, a process's readings) as a measured series.
 * @template {{t: number}} T
 * @param {T[]} rows sorted by t @param {(row: T) => number|null} pick
 * @param {LineStyle} style
 * @returns {SeriesSpec}
 */
export function measured(rows, pick, style) {
  return { ...style, ...withGaps(rows.map((row) => [row.t, pick(row)])) };
}

/** @param {unknown} v @returns {v is string} a peer, remote or link name: a string that is not empty */
export const isName = (v) => typeof v === 'string' && v !== '';

/** An id usable in the page (DOM ids, chart keys): anything but letters, digits, _ and - becomes _. @param {string} text */
export function safeId(text) {
  return text.replace(/[^A-Za-z0-9_-]/g, '_');
}
