// Chart series for the report pages: per peer and direction, with the configured condition as a
// step line on the same time axis. Pure: result in, plain chart specs out (embedded as JSON and
// drawn by assets/dashboard.js). The specs and their helpers are chart-series.js; the sections are built by
// peer-series.js (each peer), viewer-series.js (what the viewer saw), layer-series.js (simulcast/SVC layers) and
// network-series.js (flows, network, host).

import { linkHistories } from './network.js';
import { changePoints } from '../lib/stats/steady-rate.js';
import { flowEvents } from './derived.js';
import { PALETTE, isName, roundTime } from './chart-series.js';
import { buildPeerSection } from './peer-series.js';
import { buildViewerSection } from './viewer-series.js';
import { buildFlowsSection, buildNetworkSection, buildResourcesSection } from './network-series.js';
import { buildLayersSection } from './layer-series.js';
import { buildLipSyncSection } from './render-lip-sync.js';
import { buildTalkSection } from './render-talk.js';

/**
 * @typedef {import('./chart-series.js').ChartData} ChartData
 * @typedef {import('./chart-series.js').Marker} Marker
 * @typedef {import('./chart-series.js').Section} Section
 * @typedef {import('./chart-series.js').Span} Span
 * @typedef {import('./result-file.js').ReportResult} ReportResult
 */

/** Above this many distinct schedule change times (ramps), only the change points are marked. */
const MAX_CHANGE_MARKERS = 30;

/**
 * Time span of the charts: from 0 (or the first sample, if earlier) to the scenario duration (or the
 * last sample, if later).
 * @param {Pick<ReportResult, 'timeline'|'scenario'>} result normalized
 * @returns {Span}
 */
export function timeSpan(result) {
  // A loop, not Math.min(...ts): a long many-peer timeline exceeds the argument limit.
  let first = Infinity;
  let last = -Infinity;
  for (const e of result.timeline) {
    if (e.t < first) first = e.t;
    if (e.t > last) last = e.t;
  }
  if (!result.timeline.length) first = last = 0;
  const { durationS } = result.scenario;
  const duration = typeof durationS === 'number' && Number.isFinite(durationS) ? durationS : last;
  return { startS: Math.min(0, first), endS: Math.max(duration, last, 1) };
}

/**
 * Vertical markers on every time chart: schedule changes, flows joining, leaving, pausing and resuming (labelled;
 * changes at one time share one marker), and errors.
 * @param {ReportResult} result normalized @param {number} endS @returns {Marker[]}
 */
export function markers(result, endS) {
  const events = result.network.scheduleEvents.filter((e) => Number.isFinite(e?.atS) && e.atS > 0);
  const times = [...new Set(events.map((e) => Math.round(e.atS * 100) / 100))].sort((a, b) => a - b);
  const changeTimes = times.length <= MAX_CHANGE_MARKERS ? times : changePoints(events, endS).map((c) => c.atS).filter((t) => t > 0);
  /** @type {Marker[]} */
  const out = changeTimes.map((t) => ({ tS: t, kind: 'change' }));
  /** @type {Map<number, string[]>} */
  const flowChanges = new Map();
  for (const e of flowEvents(result.flows.list, result.scenario.durationS ?? endS)) {
    const t = roundTime(e.atS);
    flowChanges.set(t, [...(flowChanges.get(t) ?? []), `${e.flow} ${e.change}`]);
  }
  for (const [t, labels] of flowChanges) out.push({ tS: t, kind: 'flow', label: labels.join(', ') });
  for (const e of result.errors) if (typeof e.atS === 'number' && Number.isFinite(e.atS)) out.push({ tS: e.atS, kind: 'error' });
  return out;
}

/**
 * Every chart of a run report.
 * @param {ReportResult} result normalized (result-file.js)
 * @returns {ChartData}
 */
export function buildRunCharts(result) {
  const span = timeSpan(result);
  const histories = linkHistories(result.network);
  const peers = [...new Set(result.timeline.flatMap((e) => [e.peer, e.remote]).filter(isName))].sort();
  /** @param {string} peer */
  const colorOf = (peer) => PALETTE[peers.indexOf(peer) % PALETTE.length];
  /** @type {Section[]} */
  const sections = [];
  for (const peer of peers) {
    const section = buildPeerSection(result, peer, { span, histories, colorOf });
    if (section) sections.push(section);
  }
  // An SFU run with simulcast/SVC: each subscriber's layers before the peers' sections (a run without `layers` has none).
  const layersSection = buildLayersSection(result, { span, histories, colorOf });
  if (layersSection) sections.unshift(layersSection);
  const viewerSection = buildViewerSection(result, { histories, span, colorOf });
  if (viewerSection.panels.length) sections.unshift(viewerSection);
  const lipSyncSection = buildLipSyncSection(result, { span, colorOf });
  if (lipSyncSection) sections.unshift(lipSyncSection);
  const talkSection = buildTalkSection(result, { colorOf });
  if (talkSection) sections.unshift(talkSection);
  const flowsSection = buildFlowsSection(result, histories, span);
  if (flowsSection.panels.length) sections.unshift(flowsSection);
  const networkSection = buildNetworkSection(result, histories, span);
  if (networkSection.panels.length) sections.push(networkSection);
  const resourcesSection = buildResourcesSection(result.resources?.rows ?? [], colorOf, result.network.emulator);
  if (resourcesSection.panels.length) sections.push(resourcesSection);

  return { xMinS: span.startS, xMaxS: span.endS, warmupS: warmupOf(result), markers: markers(result, span.endS), sections };
}

/** @param {ReportResult} result normalized @returns {number|null} */
export function warmupOf(result) {
  const w = result.summary?.windowS?.[0] ?? result.scenario.warmupS;
  return typeof w === 'number' && Number.isFinite(w) && w > 0 ? w : null;
}
