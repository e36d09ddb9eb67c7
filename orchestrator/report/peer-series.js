// A peer's section of the run report: per remote, the catalogue metrics drawn in the panels of PEER_PANELS with the
// configured conditions as step lines, and a multi-party peer's uplink and downlink. Pure.

import { metricAt } from './timeline.js';
import { configuredPath } from './network.js';
import { JANUS_COLOR, PALETTE, configuredSeries, drawnPanels, isName, measured, mergeConfigured, safeId, tint, withGapsTips } from './chart-series.js';
import { peerSeconds } from '../lib/network/topology.js';
import { METRICS } from '../lib/result/metric-catalogue.js';

/**
 * @typedef {import('./chart-series.js').SeriesSpec} SeriesSpec
 * @typedef {import('./chart-series.js').LineStyle} LineStyle
 * @typedef {import('./chart-series.js').PanelSpec} PanelSpec
 * @typedef {import('./chart-series.js').Section} Section
 * @typedef {import('./chart-series.js').Span} Span
 * @typedef {import('./result-file.js').ReportResult} ReportResult
 * @typedef {import('./result-file.js').ReportEntry} ReportEntry
 * @typedef {import('../lib/result/metric-catalogue.js').Metric} Metric
 */

/** qualityLimitationReason values as y categories, in order of severity. */
export const QUALITY_REASONS = ['none', 'bandwidth', 'cpu', 'other'];
/** The loss panels' lines: the same meaning has the same colour in every flow's panel. */
const LOSS_COLORS = { wire: PALETTE[1], video: PALETTE[0], audio: PALETTE[2], retransmissions: PALETTE[7] };

/** @param {unknown} reason @returns {number|null} */
export function qualityReasonIndex(reason) {
  if (typeof reason !== 'string') return null;
  const i = QUALITY_REASONS.indexOf(reason);
  return i >= 0 ? i : QUALITY_REASONS.indexOf('other');
}

/**
 * @typedef {import('./network.js').StepSeries} StepSeries
 * @typedef {{ remote: string, entries: ReportEntry[], color: string, out: Record<string, StepSeries|null>,
 *   in: Record<string, StepSeries|null> }} RemoteLines  one remote of a peer: its entries, colour and
 *   the configured conditions of the paths to it (out) and from it (in)
 */

/** @param {string} kind a metric path's first part: 'video' or 'audio' @returns {string} */
const lossColor = (kind) => (kind === 'audio' ? LOSS_COLORS.audio : LOSS_COLORS.video);

/**
 * A measured line's style by the catalogue's `chart.line`: r is the remote, kind 'video' or 'audio' (the metric's
 * path), so one meaning has one look in every panel.
 * @type {Record<string, (r: RemoteLines, kind: string) => LineStyle>}
 */
export const LINE_STYLES = {
  receive: (r) => ({ label: `receive ← ${r.remote}`, color: r.color, width: 1.5 }),
  send: (r) => ({ label: `send → ${r.remote}`, color: tint(r.color, 0.5), width: 1.25, dash: [4, 2] }),
  rtt: (r) => ({ label: `RTT ↔ ${r.remote}`, color: r.color, width: 1.5 }),
  loss: (r) => ({ label: `loss ← ${r.remote}`, color: r.color, width: 1.5 }),
  fps: (r) => ({ label: `fps ← ${r.remote}`, color: r.color, width: 1.5 }),
  height: (r) => ({ label: `height ← ${r.remote}`, color: r.color, width: 1.25, dash: [2, 2], axis: 'y2', stepped: true }),
  'screen-height': (r) => ({ label: `screen height ← ${r.remote}`, color: r.color, width: 1.25, dash: [2, 2], axis: 'y2', stepped: true }),
  audio: (r) => ({ label: `audio ← ${r.remote}`, color: r.color, width: 1.5 }),
  video: (r) => ({ label: `video ← ${r.remote}`, color: tint(r.color, 0.4), width: 1.5, dash: [4, 2] }),
  estimate: (r) => ({ label: `estimate → ${r.remote}`, color: r.color, width: 1.5 }),
  concealed: (r) => ({ label: `concealed ← ${r.remote}`, color: r.color, width: 1.5 }),
  inserted: (r) => ({ label: `inserted ← ${r.remote}`, color: tint(r.color, 0.5), width: 1, dash: [4, 2] }),
  removed: (r) => ({ label: `removed ← ${r.remote}`, color: tint(r.color, 0.5), width: 1, dash: [2, 2] }),
  mos: (r) => ({ label: `MOS-LQO (ViSQOL) ← ${r.remote}`, color: r.color, width: 2, axis: 'y2', stepped: true }),
  wire: () => ({ label: 'on the wire', color: LOSS_COLORS.wire, width: 2 }),
  'after-recovery': (r, kind) => ({ label: `${kind} after recovery`, color: lossColor(kind), width: 1.5 }),
  'before-retransmission': (r, kind) => ({
    label: `${kind} before retransmission (receiver)`, color: tint(lossColor(kind), 0.5), width: 1, dash: [4, 2],
  }),
  recovered: (r, kind) => ({ label: `${kind} recovered`, color: lossColor(kind), width: 1, dash: [3, 2] }),
  retransmissions: (r, kind) => ({
    label: `${kind} retransmissions received`, color: LOSS_COLORS.retransmissions, width: 1, axis: 'y2', stepped: true,
  }),
};

/** @typedef {(r: RemoteLines, peer: string) => SeriesSpec|null} ConfiguredLine */
/** @type {ConfiguredLine} */
const capacityIn = (r, peer) => configuredSeries(r.in.capacityKbps, `capacity ${r.remote}→${peer}`);
/** @type {ConfiguredLine} */
const capacityOut = (r, peer) => configuredSeries(r.out.capacityKbps, `capacity ${peer}→${r.remote}`);
/** @type {ConfiguredLine} */
const lossIn = (r, peer) => configuredSeries(r.in.lossPct, `configured loss ${r.remote}→${peer}`);

/**
 * A peer's panels in page order. Their measured lines are the catalogue's metrics whose `chart.panel` is the panel's
 * id (lib/result/metric-catalogue.js); `lines`: those of a field that is no metric; `configured`: the conditions' step
 * lines, merged into `shared` when they are equal; perRemote: one panel per remote, titled by it.
 * @type {Array<{ id: string, title: string|((remote: string, peer: string) => string), yLabel: string, y2Label?: string,
 *   yCategories?: string[], perRemote?: boolean, shared?: string, configured?: ConfiguredLine[],
 *   lines?: (r: RemoteLines) => SeriesSpec }>}
 */
export const PEER_PANELS = [
  { id: 'video-rate', title: 'Video rate', yLabel: 'kbps', shared: 'configured capacity', configured: [capacityIn, capacityOut] },
  { id: 'audio-rate', title: 'Audio rate', yLabel: 'kbps' },
  {
    id: 'rtt', title: 'Round-trip time', yLabel: 'ms', shared: 'configured RTT',
    configured: [(r) => configuredSeries(r.out.rttMs, `configured RTT ↔ ${r.remote}`)],
  },
  { id: 'loss', title: 'Packet loss (received)', yLabel: '%', shared: 'configured loss', configured: [lossIn] },
  // One panel per received flow: the emulator's drops on its route beside what the receiver was left missing (lib/result/loss.js).
  {
    id: 'loss-recovery', title: (remote, peer) => `Loss: on the wire vs after recovery (${remote} → ${peer})`, perRemote: true,
    yLabel: '%', y2Label: 'retransmissions (packets/s)', shared: 'configured loss', configured: [lossIn],
  },
  { id: 'frames', title: 'Received frame rate and resolution', yLabel: 'fps', y2Label: 'height (px)' },
  // A shared screen (--screen-share): contentHint "detail" should hold the height and give up frames.
  { id: 'screen', title: 'Shared screen: received frame rate and height', yLabel: 'fps', y2Label: 'height (px)' },
  {
    id: 'quality-limitation', title: 'Quality-limitation reason (sender)', yLabel: '', yCategories: QUALITY_REASONS,
    lines: (r) => measured(r.entries, (e) => qualityReasonIndex(e.video?.qualityLimitationReason), {
      label: `send → ${r.remote}`, color: r.color, width: 2, stepped: true,
    }),
  },
  { id: 'jitter', title: 'Jitter', yLabel: 'ms' },
  { id: 'jitter-buffer', title: 'Jitter-buffer delay (per emitted sample)', yLabel: 'ms' },
  { id: 'audio-playout', title: 'Audio playout: samples concealed, inserted, removed; MOS-LQO', yLabel: '% of samples played', y2Label: 'MOS-LQO (1-5)' },
  {
    id: 'available-outgoing', title: 'Available outgoing bitrate (sender estimate)', yLabel: 'kbps', shared: 'configured capacity',
    configured: [capacityOut],
  },
];

/** @param {ReportEntry[]} entries */
function resolutionTips(entries) {
  return withGapsTips(entries.map((e) => [e.t, e.video?.recvWidth && e.video?.recvHeight ? `${e.video.recvWidth}×${e.video.recvHeight}` : '']));
}

/**
 * One remote's measured line of a catalogue metric (the height line with the resolution as its tips).
 * @param {Metric & { chart: NonNullable<Metric['chart']> }} metric @param {RemoteLines} r
 * @returns {SeriesSpec}
 */
function metricLine(metric, r) {
  const style = LINE_STYLES[metric.chart.line](r, metric.path.split('.')[0]);
  const line = measured(r.entries, (e) => metricAt(e, metric.path), style);
  return metric.chart.line === 'height' ? { ...line, tips: resolutionTips(r.entries) } : line;
}

/** The catalogue metrics drawn in a peer panel, in their `chart.order`. @param {string} panel */
function panelMetrics(panel) {
  /** @type {Array<Metric & { chart: NonNullable<Metric['chart']> }>} */
  const charted = [];
  for (const metric of METRICS) if (metric.chart?.panel === panel) charted.push({ ...metric, chart: metric.chart });
  return charted.sort((a, b) => a.chart.order - b.chart.order);
}

/**
 * A peer's panels (PEER_PANELS), each with its catalogue metrics' lines for every remote in `chart.order`, then its
 * configured lines.
 * @param {string} peer @param {RemoteLines[]} per @param {(name: string) => string} id
 * @returns {PanelSpec[]}
 */
function peerPanels(peer, per, id) {
  return PEER_PANELS.flatMap((panel) => {
    const metrics = panelMetrics(panel.id);
    /** @param {RemoteLines[]} remotes @param {string} suffix @returns {PanelSpec} */
    const build = (remotes, suffix) => ({
      id: id(suffix ? `${panel.id}-${suffix}` : panel.id),
      title: typeof panel.title === 'function' ? panel.title(suffix, peer) : panel.title, yLabel: panel.yLabel,
      ...(panel.y2Label ? { y2Label: panel.y2Label } : {}), ...(panel.yCategories ? { yCategories: panel.yCategories } : {}),
      series: mergeConfigured([
        ...metrics.flatMap((metric) => remotes.map((r) => metricLine(metric, r))),
        ...(panel.lines ? remotes.map(panel.lines) : []),
        ...(panel.configured ?? []).flatMap((line) => remotes.map((r) => line(r, peer))),
      ], panel.shared ?? ''),
    });
    return panel.perRemote ? per.map((r) => build([r], r.remote)) : [build(per, '')];
  });
}

/**
 * One peer's legs as Janus saw them, per Admin API reading: what it received from the peer (the publisher handle)
 * and what it sent to it (every subscription), audio + video, RTP headers included.
 * @param {Array<{t: number, peer: string, direction: string, bitrateKbps: number}>} rows  result.sfu.rows
 * @param {string} peer
 * @returns {Array<{t: number, fromPeerKbps: number, toPeerKbps: number}>} in time order
 */
export function janusPeerReadings(rows, peer) {
  /** @type {Map<number, {t: number, fromPeerKbps: number, toPeerKbps: number}>} */
  const byReading = new Map();
  for (const row of rows) {
    if (row.peer !== peer || !Number.isFinite(row.bitrateKbps)) continue;
    const reading = byReading.get(row.t) ?? { t: row.t, fromPeerKbps: 0, toPeerKbps: 0 };
    if (row.direction === 'fromPeer') reading.fromPeerKbps += row.bitrateKbps;
    else if (row.direction === 'toPeer') reading.toPeerKbps += row.bitrateKbps;
    byReading.set(row.t, reading);
  }
  return [...byReading.values()].sort((a, b) => a.t - b.t);
}

/**
 * With two or more remotes (multi-party), what the peer's own access link carries in each direction; in an SFU call
 * also as Janus counted it at the other end of the peer's legs.
 * @param {ReportResult} result @param {string} peer @param {ReportEntry[]} own the peer's entries
 * @param {number} remoteCount @param {(name: string) => string} id @param {(peer: string) => string} colorOf
 * @returns {PanelSpec[]}
 */
function uplinkDownlinkPanels(result, peer, own, remoteCount, id, colorOf) {
  if (remoteCount < 2) return [];
  const totals = peerSeconds(own);
  const janus = janusPeerReadings(result.sfu?.rows ?? [], peer);
  return [{
    id: id('uplink-downlink'), title: `Uplink vs downlink (audio + video over all ${remoteCount} connections)`, yLabel: 'kbps',
    series: [
      measured(totals, (row) => row.uplinkKbps, { label: 'uplink (sent)', color: colorOf(peer), width: 1.5, dash: [4, 2] }),
      measured(totals, (row) => row.downlinkKbps, { label: 'downlink (received)', color: colorOf(peer), width: 2 }),
      ...(janus.length ? [
        measured(janus, (row) => row.fromPeerKbps, { label: 'uplink as Janus received it', color: JANUS_COLOR, width: 1.25, dash: [4, 2] }),
        measured(janus, (row) => row.toPeerKbps, { label: 'downlink as Janus sent it', color: JANUS_COLOR, width: 1.25 }),
      ] : []),
    ],
  }];
}

/**
 * A peer's section: its panels against each remote, the configured paths to and from it; null when it has no entries.
 * @param {ReportResult} result @param {string} peer
 * @param {{ span: Span, histories: import('./network.js').LinkHistories, colorOf: (peer: string) => string }} charts
 * @returns {Section|null}
 */
export function buildPeerSection(result, peer, { span, histories, colorOf }) {
  const net = result.network;
  const own = result.timeline.filter((e) => e.peer === peer).sort((a, b) => a.t - b.t);
  if (!own.length) return null;
  const remotes = [...new Set(own.map((e) => e.remote).filter(isName))].sort();
  const per = remotes.map((remote) => ({
    remote,
    entries: own.filter((e) => e.remote === remote),
    color: colorOf(remote),
    out: configuredPath(net, peer, remote, span, histories),
    in: configuredPath(net, remote, peer, span, histories),
  }));
  /** @param {string} name */
  const id = (name) => safeId(`${peer}-${name}`);
  const panels = [...uplinkDownlinkPanels(result, peer, own, remotes.length, id, colorOf), ...peerPanels(peer, per, id)];
  return {
    id: safeId(`peer-${peer}`),
    title: `Peer ${peer}`,
    subtitle: `receives from and sends to ${remotes.join(', ')}`,
    panels: drawnPanels(panels),
  };
}
