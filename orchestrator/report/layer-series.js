// The run report's simulcast/SVC charts (pure): per subscriber, the layer it received of each feed over time, the
// harness's layer switches as markers on those lines, and its downlink capacity on a second axis. From result.json's
// `layers` (lib/result/layers.js), read here as untrusted input: layersOf keeps only well-formed rows.
import { pathSteps } from './network.js';
import { configuredSeries, drawnPanels, isName, roundTime, safeId, withGaps, withGapsTips } from './chart-series.js';
import { formatNumber, isFiniteNumber } from './format.js';
import { isRecord } from '../lib/input/validate.js';

/**
 * @typedef {import('./chart-series.js').SeriesSpec} SeriesSpec
 * @typedef {import('./chart-series.js').PanelSpec} PanelSpec
 * @typedef {import('./chart-series.js').Section} Section
 * @typedef {import('./chart-series.js').Span} Span
 * @typedef {import('./network.js').LinkHistories} LinkHistories
 * @typedef {import('./network.js').StepSeries} StepSeries
 * @typedef {{ layer: number, widthPx: number|null, heightPx: number|null }} LayerSize
 * @typedef {{ kind: string, layers: LayerSize[] }} LayerPublisher
 * @typedef {{ t: number, peer: string, feed: string, layer: number|null, widthPx: number|null, heightPx: number|null,
 *   fps: number|null, kbps: number|null }} LayerReceived  a subscriber's received picture of one feed in one second
 * @typedef {{ spatial: number|null, temporal: number|null }} LayerPick
 * @typedef {{ atS: number, decidedAtS: number|null, peer: string, feed: string, from: LayerPick|null, to: LayerPick|null,
 *   cause: string, budgetKbps: number|null }} LayerSwitch  a layer the harness asked the SFU for
 * @typedef {{ check: string, peer: string, passed: boolean|null, detail: string }} LayerCheckRow
 * @typedef {{ publishers: Map<string, LayerPublisher>, received: LayerReceived[], switches: LayerSwitch[],
 *   downlinks: Map<string, Array<{ atS: number, rateKbps: number|null }>>, checks: LayerCheckRow[], passed: boolean|null }} ReportLayers
 */

/** The section's id (render-run.js puts the layer tables under its charts). */
export const LAYERS_SECTION_ID = 'layers';
/** Layer indexes the report draws: 0 .. MAX_LAYERS - 1 (simulcast sends at most 3 or 4 rids, SVC at most L3); others are dropped. */
export const MAX_LAYERS = 8;
/** Vertical distance between the feeds' lines on the layer axis, so feeds on one layer stay apart (tips give the true layer). */
const FEED_SPREAD = 0.1;

/** @param {unknown} v @returns {number|null} */
const finite = (v) => (isFiniteNumber(v) ? v : null);
/** @param {unknown} v @returns {number|null} a layer index the report draws */
const layerIndex = (v) => (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v < MAX_LAYERS ? v : null);
/** @param {unknown} v @returns {Array<Record<string, unknown>>} */
const records = (v) => (Array.isArray(v) ? v.filter(isRecord) : []);
/** @param {unknown} v @returns {Record<string, unknown>} */
const obj = (v) => (isRecord(v) ? v : {});
/** @param {unknown} v @returns {LayerPick|null} */
const pick = (v) => (isRecord(v) ? { spatial: layerIndex(v.spatial), temporal: layerIndex(v.temporal) } : null);

/**
 * result.json's `layers`, kept to well-formed entries (names non-empty strings, times finite, layers small integers),
 * keyed by Maps so no peer name reaches an object's prototype; null when the run has no such section.
 * @param {object} result normalized (result-file.js keeps unknown sections as they are)
 * @returns {ReportLayers|null}
 */
export function layersOf(result) {
  const raw = /** @type {{ layers?: unknown }} */ (result).layers;
  if (!isRecord(raw)) return null;
  /** @type {Map<string, LayerPublisher>} */
  const publishers = new Map(Object.entries(obj(raw.publishers)).flatMap(([peer, p]) => (isName(peer) && isRecord(p) ? [[peer, {
    kind: typeof p.kind === 'string' ? p.kind : '',
    layers: records(p.layers).flatMap((s) => {
      const layer = layerIndex(s.layer);
      return layer === null ? [] : [{ layer, widthPx: finite(s.widthPx), heightPx: finite(s.heightPx) }];
    }),
  }]] : [])));
  const received = records(raw.received).filter((row) => isFiniteNumber(row.t) && isName(row.peer) && isName(row.feed)).map((row) => ({
    t: Number(row.t), peer: String(row.peer), feed: String(row.feed), layer: layerIndex(row.layer),
    widthPx: finite(row.widthPx), heightPx: finite(row.heightPx), fps: finite(row.fps), kbps: finite(row.kbps),
  }));
  const switches = records(raw.switches).filter((s) => isFiniteNumber(s.atS) && isName(s.peer) && isName(s.feed)).map((s) => ({
    atS: Number(s.atS), decidedAtS: finite(s.decidedAtS), peer: String(s.peer), feed: String(s.feed),
    from: pick(s.from), to: pick(s.to), cause: typeof s.cause === 'string' ? s.cause : '', budgetKbps: finite(s.budgetKbps),
  })).sort((a, b) => a.atS - b.atS);
  const downlinks = new Map(Object.entries(obj(raw.downlinks)).filter(([peer]) => isName(peer)).map(([peer, changes]) => [
    peer, records(changes).filter((c) => isFiniteNumber(c.atS)).map((c) => ({ atS: Number(c.atS), rateKbps: finite(c.rateKbps) })),
  ]));
  const checks = records(raw.checks).map((c) => ({
    check: typeof c.check === 'string' ? c.check : '', peer: typeof c.peer === 'string' ? c.peer : '',
    passed: typeof c.passed === 'boolean' ? c.passed : null, detail: typeof c.detail === 'string' ? c.detail : '',
  }));
  return { publishers, received, switches, downlinks, checks, passed: typeof raw.passed === 'boolean' ? raw.passed : null };
}

/**
 * The y axis's categories, one per layer index: "L1 · 360p" when every feed's publisher has that layer at one height,
 * else "L1" (feeds of different sizes, or a layer no publisher lists).
 * @param {Array<LayerPublisher|undefined>} publishers the feeds' @param {number} count
 * @returns {string[]}
 */
export function layerCategories(publishers, count) {
  return Array.from({ length: count }, (_, layer) => {
    const heights = new Set(publishers.map((p) => p?.layers.find((size) => size.layer === layer)?.heightPx ?? null));
    const [height] = heights;
    return heights.size === 1 && height !== null ? `L${layer} · ${Math.round(height)}p` : `L${layer}`;
  });
}

/**
 * A subscriber's downlink capacity as a step series: its `<peer>.down` link from network.configured (the other
 * panels' source), or the layers section's downlinks when the network section lacks that link; null when unlimited throughout.
 * @param {ReportLayers} layers @param {LinkHistories} histories @param {string} peer @param {Span} span
 * @returns {StepSeries|null}
 */
export function downlinkSteps(layers, histories, peer, span) {
  const link = `${peer}.down`;
  if (histories.has(link)) return pathSteps(histories, [link], 'rateKbps', span);
  /** @type {StepSeries} */
  const steps = [];
  for (const { atS, rateKbps } of [...layers.downlinks.get(peer) ?? []].sort((a, b) => a.atS - b.atS)) {
    const t = Math.max(span.startS, Math.min(span.endS, atS));
    if (steps.at(-1)?.[0] === t) steps.pop();
    if (steps.at(-1)?.[1] !== rateKbps) steps.push([t, rateKbps]);
  }
  const last = steps.at(-1);
  if (!last || steps.every(([, v]) => v === null)) return null;
  if (last[0] < span.endS) steps.push([span.endS, last[1]]);
  return steps;
}

/** A received row as a tooltip: its layer, picture size, rate and frame rate. @param {LayerReceived} row */
export function receivedTip(row) {
  const size = row.widthPx !== null && row.heightPx !== null ? ` · ${Math.round(row.widthPx)}×${Math.round(row.heightPx)}` : '';
  const rate = row.kbps === null ? '' : ` · ${formatNumber(row.kbps, 0)} kbps`;
  const fps = row.fps === null ? '' : ` · ${formatNumber(row.fps, 1)} fps`;
  return `${row.layer === null ? 'no picture' : `layer ${row.layer}`}${size}${rate}${fps}`;
}

/** @param {LayerPick|null} p */
const pickText = (p) => (p ? `S${p.spatial ?? '?'} T${p.temporal ?? '?'}` : '?');

/** A layer switch as a tooltip: from, to, cause and budget. @param {LayerSwitch} s */
export function switchTip(s) {
  const budget = s.budgetKbps === null ? '' : `, budget ${formatNumber(s.budgetKbps, 0)} kbps`;
  return `${pickText(s.from)} → ${pickText(s.to)}${s.cause ? ` (${s.cause}${budget})` : budget}`;
}

/**
 * One feed's lines in a subscriber's panel: its received layer per second (gaps where no row or no picture), and the
 * switches the harness asked for as markers at the layer they asked for, both lifted by `offset` on the layer axis.
 * @param {LayerReceived[]} rows the feed's, sorted by t @param {LayerSwitch[]} switches the feed's
 * @param {{ feed: string, color: string, offset: number }} style
 * @returns {SeriesSpec[]}
 */
export function feedSeries(rows, switches, { feed, color, offset }) {
  const lift = (/** @type {number|null} */ layer) => (layer === null ? null : layer + offset);
  const line = {
    label: `layer ← ${feed}`, color, width: 2, stepped: true,
    ...withGaps(rows.map((row) => [row.t, lift(row.layer)])), tips: withGapsTips(rows.map((row) => [row.t, receivedTip(row)])),
  };
  const asked = switches.filter((s) => s.to?.spatial !== null && s.to?.spatial !== undefined);
  if (!asked.length) return [line];
  return [line, {
    label: `switch asked ← ${feed}`, color, points: true,
    x: asked.map((s) => roundTime(s.atS)), y: asked.map((s) => lift(s.to?.spatial ?? null)), tips: asked.map(switchTip),
  }];
}

/**
 * A subscriber's panel: each feed's received layer (a layer index, not the picture's height: feeds of different sizes
 * share one axis, the steps read as the SFU's choices, and the harness's switches and the checks count in the same
 * index), the switches, and its downlink capacity on the second axis.
 * @param {ReportLayers} layers @param {string} peer
 * @param {{ span: Span, histories: LinkHistories, colorOf: (peer: string) => string }} charts
 * @returns {PanelSpec}
 */
export function subscriberPanel(layers, peer, { span, histories, colorOf }) {
  const rows = layers.received.filter((row) => row.peer === peer).sort((a, b) => a.t - b.t);
  const feeds = [...new Set(rows.map((row) => row.feed))].sort();
  const switches = layers.switches.filter((s) => s.peer === peer);
  const seen = [...rows.map((row) => row.layer), ...switches.map((s) => s.to?.spatial ?? null)].filter((l) => l !== null);
  const listed = feeds.map((feed) => layers.publishers.get(feed)?.layers.length ?? 0);
  const count = Math.min(MAX_LAYERS, Math.max(1, ...listed, ...seen.map((l) => l + 1)));
  const steps = downlinkSteps(layers, histories, peer, span);
  const capacity = configuredSeries(steps, `downlink capacity (${peer}.down)`);
  return {
    id: safeId(`layers-${peer}`),
    title: `${peer}: layer received of each feed, and downlink capacity${steps ? '' : ' (unlimited)'}`,
    yLabel: 'layer', y2Label: 'downlink (kbps)', yCategories: layerCategories(feeds.map((feed) => layers.publishers.get(feed)), count),
    series: [
      ...feeds.flatMap((feed, i) => feedSeries(rows.filter((row) => row.feed === feed), switches.filter((s) => s.feed === feed), {
        feed, color: colorOf(feed), offset: (i - (feeds.length - 1) / 2) * FEED_SPREAD,
      })),
      ...(capacity ? [{ ...capacity, axis: /** @type {const} */ ('y2') }] : []),
    ],
  };
}

/**
 * The "Received layers" section: a panel per subscriber with received rows; null for a run without `layers`.
 * @param {object} result normalized
 * @param {{ span: Span, histories: LinkHistories, colorOf: (peer: string) => string }} charts
 * @returns {Section|null}
 */
export function buildLayersSection(result, charts) {
  const layers = layersOf(result);
  if (!layers) return null;
  const subscribers = [...new Set(layers.received.map((row) => row.peer))].sort();
  return {
    id: LAYERS_SECTION_ID, title: 'Received layers',
    subtitle: 'simulcast/SVC: the layer each subscriber received of each feed, beside its downlink capacity',
    panels: drawnPanels(subscribers.map((peer) => subscriberPanel(layers, peer, charts))),
  };
}
