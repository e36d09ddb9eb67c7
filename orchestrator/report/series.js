// Chart series for the report pages: per peer and direction, with the configured condition as a
// step line on the same time axis. Pure: result in, plain chart specs out (embedded as JSON and
// drawn by assets/dashboard.js).

import { metricAt } from './timeline.js';
import { configuredPath, linkHistories, pathSteps } from './network.js';
import { changePoints } from '../lib/stats/steady-rate.js';
import { flowFairness, jainBySharedLink } from '../lib/cross/fairness.js';
import { BOTTLENECK_BACK, BOTTLENECK_FWD } from '../lib/cross/flows.js';
import { flowEvents } from './derived.js';
import { round2 } from './format.js';
import { linkWireLossPct } from '../lib/result/loss.js';
import { peerSeconds } from '../lib/network/topology.js';
import { buildViewerSection } from './viewer-series.js';
import { METRICS } from '../lib/result/metric-catalogue.js';

/**
 * @typedef {{label: string, x: number[], y: Array<number|null>, color: string, dash?: number[], width?: number,
 *   stepped?: boolean, axis?: 'y'|'y2', tips?: string[], configured?: boolean}} SeriesSpec
 * @typedef {{id: string, title: string, yLabel: string, y2Label?: string, yCategories?: string[], series: SeriesSpec[],
 *   stacked?: boolean, spans?: Array<{fromS: number, toS: number, color: string}>}} PanelSpec  stacked: the measured series
 *   are drawn as stacked areas, the configured ones as lines; spans: time ranges shaded under the data (freezes)
 * @typedef {{id: string, title: string, subtitle?: string, panels: PanelSpec[]}} Section
 * @typedef {{tS: number, kind: 'change'|'error'|'flow', label?: string}} Marker  flow: a flow joins, leaves, pauses or resumes
 * @typedef {{xMinS: number, xMaxS: number, warmupS: number|null, markers: Marker[], sections: Section[]}} ChartData
 */

/** Colour-blind-safe palette (Okabe–Ito, then Tableau) for peers or runs. */
export const PALETTE = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#8c564b', '#7f7f7f', '#bcbd22', '#17becf', '#1f77b4', '#d62728'];
const CONFIGURED_COLOR = '#222222';
const CONFIGURED_DASH = [6, 4];
/** qualityLimitationReason values as y categories, in order of severity. */
export const QUALITY_REASONS = ['none', 'bandwidth', 'cpu', 'other'];
/** The loss panels' lines: the same meaning has the same colour in every flow's panel. */
const LOSS_COLORS = { wire: PALETTE[1], video: PALETTE[0], audio: PALETTE[2], retransmissions: PALETTE[7] };
/** Janus (the SFU): its process tree and its own view of each peer's legs. */
const JANUS_COLOR = '#8c564b';
/** Above this many distinct schedule change times (ramps), only the change points are marked. */
const MAX_CHANGE_MARKERS = 30;

/**
 * A colour mixed with white, for the send side of a flow drawn next to its receive side.
 * @param {string} hex "#rrggbb" @param {number} amount 0 (unchanged) .. 1 (white)
 */
export function tint(hex, amount) {
  const n = Number.parseInt(hex.slice(1), 16);
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
  const x = [];
  const y = [];
  points.forEach(([t, v], i) => {
    if (i > 0 && t - points[i - 1][0] > 1.5 * step) {
      x.push(round2(points[i - 1][0] + step));
      y.push(null);
    }
    x.push(round2(t));
    y.push(round2(v));
  });
  return { x, y };
}

/** @param {Array<[number, number|null]>|null} steps @param {string} label @returns {SeriesSpec|null} */
export function configuredSeries(steps, label) {
  if (!steps) return null;
  return {
    label, x: steps.map(([t]) => round2(t)), y: steps.map(([, v]) => round2(v)),
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
  const present = series.filter(Boolean);
  const measured = present.filter((s) => !s.configured);
  const byShape = new Map();
  for (const s of present.filter((c) => c.configured)) {
    const key = JSON.stringify([s.x, s.y]);
    if (byShape.has(key)) byShape.get(key).labels.push(s.label);
    else byShape.set(key, { spec: s, labels: [s.label] });
  }
  const merged = [...byShape.values()].map(({ spec, labels }) => ({ ...spec, label: byShape.size === 1 ? sharedLabel : labels.join(' = ') }));
  return [...measured, ...merged];
}

/** @param {SeriesSpec[]} series */
function hasMeasuredData(series) {
  return series.some((s) => !s.configured && s.y.some((v) => v !== null));
}

/**
 * One peer's entries about one remote as a measured series.
 * @param {Array<object>} entries sorted by t @param {(e: object) => number|null} pick
 * @param {Omit<SeriesSpec, 'x'|'y'>} style
 * @returns {SeriesSpec}
 */
function measured(entries, pick, style) {
  return { ...style, ...withGaps(entries.map((e) => [e.t, pick(e)])) };
}

/** @param {string|null|undefined} reason */
export function qualityReasonIndex(reason) {
  if (typeof reason !== 'string') return null;
  const i = QUALITY_REASONS.indexOf(reason);
  return i >= 0 ? i : QUALITY_REASONS.indexOf('other');
}

/**
 * Time span of the charts: from 0 (or the first sample, if earlier) to the scenario duration (or the
 * last sample, if later).
 * @param {object} result normalized
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
  const duration = Number.isFinite(result.scenario.durationS) ? result.scenario.durationS : last;
  return { startS: Math.min(0, first), endS: Math.max(duration, last, 1) };
}

/**
 * Vertical markers on every time chart: schedule changes, flows joining, leaving, pausing and resuming (labelled;
 * changes at one time share one marker), and errors.
 * @param {object} result normalized @param {number} endS @returns {Marker[]}
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
    const t = round2(e.atS);
    flowChanges.set(t, [...(flowChanges.get(t) ?? []), `${e.flow} ${e.change}`]);
  }
  for (const [t, labels] of flowChanges) out.push({ tS: t, kind: 'flow', label: labels.join(', ') });
  for (const e of result.errors) if (Number.isFinite(e.atS)) out.push({ tS: e.atS, kind: 'error' });
  return out;
}

/**
 * Every chart of a run report.
 * @param {object} result normalized (result-file.js)
 * @returns {ChartData}
 */
export function buildRunCharts(result) {
  const { startS, endS } = timeSpan(result);
  const span = { startS, endS };
  const net = result.network;
  const histories = linkHistories(net);
  const peers = [...new Set(result.timeline.flatMap((e) => [e.peer, e.remote]).filter(Boolean))].sort();
  const colorOf = (peer) => PALETTE[peers.indexOf(peer) % PALETTE.length];
  /** @type {Section[]} */
  const sections = [];

  for (const peer of peers) {
    const own = result.timeline.filter((e) => e.peer === peer).sort((a, b) => a.t - b.t);
    if (!own.length) continue;
    const remotes = [...new Set(own.map((e) => e.remote).filter(Boolean))].sort();
    const per = remotes.map((remote) => ({
      remote,
      entries: own.filter((e) => e.remote === remote),
      color: colorOf(remote),
      out: configuredPath(net, peer, remote, span, histories),
      in: configuredPath(net, remote, peer, span, histories),
    }));
    const id = (name) => `${peer}-${name}`.replace(/[^A-Za-z0-9_-]/g, '_');
    const totals = peerSeconds(own);
    const janus = janusPeerReadings(result.sfu?.rows ?? [], peer);
    // With two or more remotes (multi-party), what the peer's own access link carries in each direction; in an SFU call
    // also as Janus counted it at the other end of the peer's legs.
    /** @type {PanelSpec[]} */
    const totalPanels = remotes.length < 2 ? [] : [{
      id: id('uplink-downlink'), title: `Uplink vs downlink (audio + video over all ${remotes.length} connections)`, yLabel: 'kbps',
      series: [
        measured(totals, (row) => row.uplinkKbps, { label: 'uplink (sent)', color: colorOf(peer), width: 1.5, dash: [4, 2] }),
        measured(totals, (row) => row.downlinkKbps, { label: 'downlink (received)', color: colorOf(peer), width: 2 }),
        ...(janus.length ? [
          measured(janus, (row) => row.fromPeerKbps, { label: 'uplink as Janus received it', color: JANUS_COLOR, width: 1.25, dash: [4, 2] }),
          measured(janus, (row) => row.toPeerKbps, { label: 'downlink as Janus sent it', color: JANUS_COLOR, width: 1.25 }),
        ] : []),
      ],
    }];
    const panels = [...totalPanels, ...peerPanels(peer, per, id)];
    sections.push({
      id: `peer-${peer}`.replace(/[^A-Za-z0-9_-]/g, '_'),
      title: `Peer ${peer}`,
      subtitle: `receives from and sends to ${remotes.join(', ')}`,
      panels: panels.map((p) => ({ ...p, series: p.series.filter((s) => s.y.some((v) => v !== null)) }))
        .filter((p) => hasMeasuredData(p.series)),
    });
  }

  const viewerSection = buildViewerSection(result, { measured, configuredSeries, tint, histories, span, colorOf });
  if (viewerSection.panels.length) sections.unshift(viewerSection);
  const flowsSection = buildFlowsSection(result, histories, span);
  if (flowsSection.panels.length) sections.unshift(flowsSection);
  const networkSection = buildNetworkSection(result, histories, span);
  if (networkSection.panels.length) sections.push(networkSection);
  const resourcesSection = buildResourcesSection(result.resources?.rows ?? [], colorOf);
  if (resourcesSection.panels.length) sections.push(resourcesSection);

  return { xMinS: startS, xMaxS: endS, warmupS: warmupOf(result), markers: markers(result, endS), sections };
}

/**
 * @typedef {{ remote: string, entries: Array<object>, color: string, out: Record<string, Array<[number, number|null]>|null>,
 *   in: Record<string, Array<[number, number|null]>|null> }} RemoteLines  one remote of a peer: its entries, colour and
 *   the configured conditions of the paths to it (out) and from it (in)
 */

/**
 * A measured line's style by the catalogue's `chart.line`: r is the remote, kind 'video' or 'audio' (the metric's
 * path), so one meaning has one look in every panel.
 * @type {Record<string, (r: RemoteLines, kind: string) => Omit<SeriesSpec, 'x'|'y'>>}
 */
export const LINE_STYLES = {
  receive: (r) => ({ label: `receive ← ${r.remote}`, color: r.color, width: 1.5 }),
  send: (r) => ({ label: `send → ${r.remote}`, color: tint(r.color, 0.5), width: 1.25, dash: [4, 2] }),
  rtt: (r) => ({ label: `RTT ↔ ${r.remote}`, color: r.color, width: 1.5 }),
  loss: (r) => ({ label: `loss ← ${r.remote}`, color: r.color, width: 1.5 }),
  fps: (r) => ({ label: `fps ← ${r.remote}`, color: r.color, width: 1.5 }),
  height: (r) => ({ label: `height ← ${r.remote}`, color: r.color, width: 1.25, dash: [2, 2], axis: 'y2', stepped: true }),
  audio: (r) => ({ label: `audio ← ${r.remote}`, color: r.color, width: 1.5 }),
  video: (r) => ({ label: `video ← ${r.remote}`, color: tint(r.color, 0.4), width: 1.5, dash: [4, 2] }),
  estimate: (r) => ({ label: `estimate → ${r.remote}`, color: r.color, width: 1.5 }),
  wire: () => ({ label: 'on the wire', color: LOSS_COLORS.wire, width: 2 }),
  'after-recovery': (r, kind) => ({ label: `${kind} after recovery`, color: LOSS_COLORS[kind], width: 1.5 }),
  'before-retransmission': (r, kind) => ({
    label: `${kind} before retransmission (receiver)`, color: tint(LOSS_COLORS[kind], 0.5), width: 1, dash: [4, 2],
  }),
  recovered: (r, kind) => ({ label: `${kind} recovered`, color: LOSS_COLORS[kind], width: 1, dash: [3, 2] }),
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
  {
    id: 'quality-limitation', title: 'Quality-limitation reason (sender)', yLabel: '', yCategories: QUALITY_REASONS,
    lines: (r) => measured(r.entries, (e) => qualityReasonIndex(e.video?.qualityLimitationReason), {
      label: `send → ${r.remote}`, color: r.color, width: 2, stepped: true,
    }),
  },
  { id: 'jitter', title: 'Jitter', yLabel: 'ms' },
  { id: 'jitter-buffer', title: 'Jitter-buffer delay (per emitted sample)', yLabel: 'ms' },
  {
    id: 'available-outgoing', title: 'Available outgoing bitrate (sender estimate)', yLabel: 'kbps', shared: 'configured capacity',
    configured: [capacityOut],
  },
];

/**
 * One remote's measured line of a catalogue metric (the height line with the resolution as its tips).
 * @param {import('../lib/result/metric-catalogue.js').Metric} metric @param {RemoteLines} r
 * @returns {SeriesSpec}
 */
function metricLine(metric, r) {
  const style = LINE_STYLES[metric.chart.line](r, metric.path.split('.')[0]);
  const line = measured(r.entries, (e) => metricAt(e, metric.path), style);
  return metric.chart.line === 'height' ? { ...line, tips: resolutionTips(r.entries) } : line;
}

/**
 * A peer's panels (PEER_PANELS), each with its catalogue metrics' lines for every remote in `chart.order`, then its
 * configured lines.
 * @param {string} peer @param {RemoteLines[]} per @param {(name: string) => string} id
 * @returns {PanelSpec[]}
 */
function peerPanels(peer, per, id) {
  return PEER_PANELS.flatMap((panel) => {
    const metrics = METRICS.filter((m) => m.chart?.panel === panel.id).sort((a, b) => a.chart.order - b.chart.order);
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

/** Each direction of the bottleneck: its panel's title. */
const BOTTLENECK_DIRECTIONS = { [BOTTLENECK_FWD]: 'left → right', [BOTTLENECK_BACK]: 'right → left' };

/**
 * The flows of result.flows.rows on one link as stacked-area series on a common time axis: a flow without a row in a
 * second where another flow has one counts 0 (not started, stopped or paused), a second without any row is a gap.
 * Flows stack in the order they first carry data, so the first flow lies at the bottom.
 * @param {Array<{t: number, flow: string, rateKbps: number|null}>} rows @param {string[]} flows
 * @param {(flow: string) => string} colorOf
 * @returns {SeriesSpec[]}
 */
export function stackedFlowSeries(rows, flows, colorOf) {
  /** @type {Map<string, Map<number, number>>} */
  const byFlow = new Map(flows.map((f) => [f, new Map()]));
  for (const row of rows) {
    if (byFlow.has(row.flow) && Number.isFinite(row.rateKbps)) byFlow.get(row.flow).set(round2(row.t), row.rateKbps);
  }
  const seconds = [...new Set([...byFlow.values()].flatMap((m) => [...m.keys()]))].sort((a, b) => a - b);
  const first = (f) => seconds.find((t) => byFlow.get(f).has(t)) ?? Infinity;
  return [...flows].sort((a, b) => first(a) - first(b)).map((f) => ({
    label: f, color: colorOf(f), width: 1, ...withGaps(seconds.map((t) => [t, byFlow.get(f).get(t) ?? 0])),
  }));
}

/**
 * "Flows on the bottleneck" (J16 fig. 8-10/8-11, RFC 8868 style): per direction of the bottleneck that lib/cross/fairness.js
 * reports (the forward one with flows, the backward one with two or more), every flow's rate stacked under the
 * configured capacity, and its per-second Jain's index over the competing flows.
 * @param {object} result normalized
 * @param {ReturnType<typeof linkHistories>} histories
 * @param {{startS: number, endS: number}} span
 * @returns {Section}
 */
function buildFlowsSection(result, histories, span) {
  const { list, rows } = result.flows;
  const fairness = flowFairness(result.flows, result.network.configured, [span.startS, span.endS]);
  // A flow's series (a call's two directions) share its colour.
  const owners = list.map((entry) => entry.name);
  const ownerOf = new Map(list.flatMap((entry) => (Array.isArray(entry.series) ? entry.series : []).map((s) => [s.name, entry.name])));
  const colorOf = (flow) => PALETTE[Math.max(0, owners.indexOf(ownerOf.get(flow))) % PALETTE.length];
  const id = (link, name) => `flows-${link}-${name}`.replace(/[^A-Za-z0-9_-]/g, '_');
  /** @type {PanelSpec[]} */
  const panels = Object.entries(fairness.links).flatMap(([link, f]) => [
    {
      id: id(link, 'stacked'), title: `Flows on the bottleneck: ${link} (${BOTTLENECK_DIRECTIONS[link] ?? ''}), stacked`, yLabel: 'kbps',
      stacked: true,
      series: mergeConfigured([
        ...stackedFlowSeries(rows, f.flows, colorOf),
        configuredSeries(pathSteps(histories, [link], 'rateKbps', span), `capacity ${link}`),
      ], 'configured capacity'),
    },
    {
      id: id(link, 'jain'), title: `Jain's index per second: ${link}`, yLabel: 'J',
      series: [{ label: link, color: PALETTE[0], width: 1.5, ...withGaps(f.series) }],
    },
  ]);
  return {
    id: 'flows', title: 'Flows on the bottleneck', subtitle: 'each flow\'s received rate per second (result.flows)',
    panels: panels.filter((p) => hasMeasuredData(p.series)),
  };
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
 * CPU (% of one core) and memory of each sampled process tree: each browser with its helpers, the relay, Janus.
 * @param {Array<{t: number, process: string, cpuPct: number, rssMb: number}>} rows
 * @param {(peer: string) => string} colorOf
 * @returns {Section}
 */
function buildResourcesSection(rows, colorOf) {
  const names = [...new Set(rows.map((row) => row.process))].sort();
  const color = (name) => (/^p\d+$/.test(name) ? colorOf(name) : name === 'relay' ? '#555555' : JANUS_COLOR);
  const of = (name) => rows.filter((row) => row.process === name).sort((a, b) => a.t - b.t);
  const panels = !names.length ? [] : [
    {
      id: 'resources-cpu', title: 'CPU per process tree (100 % = one core)', yLabel: '%',
      series: names.map((name) => measured(of(name), (row) => row.cpuPct, { label: name, color: color(name), width: 1.5 })),
    },
    {
      id: 'resources-memory', title: 'Memory per process tree (resident)', yLabel: 'MB',
      series: names.map((name) => measured(of(name), (row) => row.rssMb, { label: name, color: color(name), width: 1.5 })),
    },
  ];
  return { id: 'resources', title: 'Host resources', subtitle: 'sampled from /proc once a second', panels };
}

/** @param {object} result normalized @returns {number|null} */
export function warmupOf(result) {
  const w = result.summary?.windowS?.[0] ?? result.scenario.warmupS;
  return Number.isFinite(w) && w > 0 ? w : null;
}

/** @param {Array<object>} entries */
function resolutionTips(entries) {
  return withGapsTips(entries.map((e) => [e.t, e.video?.recvWidth && e.video?.recvHeight ? `${e.video.recvWidth}×${e.video.recvHeight}` : '']));
}

/** Tips aligned with withGaps() output (an empty tip at each inserted gap). @param {Array<[number, string]>} points */
function withGapsTips(points) {
  const { x } = withGaps(points.map(([t]) => [t, 0]));
  const byT = new Map(points.map(([t, tip]) => [round2(t), tip]));
  return x.map((t) => byT.get(t) ?? '');
}

/**
 * Network truth (queueing delay, drops, link throughput vs configured rate) and fairness on shared links.
 * @param {object} result normalized
 * @param {ReturnType<typeof linkHistories>} histories
 * @param {{startS: number, endS: number}} span
 * @returns {Section}
 */
function buildNetworkSection(result, histories, span) {
  const truth = result.network.truth ?? [];
  const links = [...new Set(truth.map((e) => e?.link).filter(Boolean))].sort();
  /** @type {PanelSpec[]} */
  const panels = [];
  if (links.length) {
    const perLink = links.map((link, i) => ({
      link,
      color: PALETTE[i % PALETTE.length],
      entries: truth.filter((e) => e?.link === link && Number.isFinite(e.t)).sort((a, b) => a.t - b.t),
    }));
    panels.push(
      {
        id: 'net-queue-delay', title: 'Queueing delay at the emulator (network truth)', yLabel: 'ms',
        series: [
          ...perLink.map((l) => measured(l.entries, (e) => e.queueDelayMsP95 ?? null, { label: `${l.link} p95`, color: l.color, width: 1.5 })),
          ...perLink.map((l) => measured(l.entries, (e) => e.queueDelayMsP50 ?? null, { label: `${l.link} p50`, color: l.color, width: 1, dash: [3, 2] })),
        ],
      },
      {
        id: 'net-wire-loss', title: 'Loss on the wire per link (network truth: drops / packets in)', yLabel: '%',
        series: mergeConfigured([
          ...perLink.map((l) => measured(l.entries, (e) => linkWireLossPct(e), { label: l.link, color: l.color, width: 1.5 })),
          ...perLink.map((l) => configuredSeries(pathSteps(histories, [l.link], 'lossPct', span), `configured loss ${l.link}`)),
        ], 'configured loss'),
      },
      {
        id: 'net-drops', title: 'Drops per second (network truth)', yLabel: 'packets',
        series: [
          ...perLink.map((l) => measured(l.entries, (e) => e.dropsQueue ?? null, { label: `${l.link} queue`, color: l.color, width: 1.5, stepped: true })),
          ...perLink.map((l) => measured(l.entries, (e) => e.dropsLoss ?? null, { label: `${l.link} random loss`, color: l.color, width: 1, dash: [3, 2], stepped: true })),
        ],
      },
      {
        id: 'net-throughput', title: 'Link throughput (network truth) vs configured rate', yLabel: 'kbps',
        series: mergeConfigured([
          ...perLink.map((l) => measured(l.entries.map((e, i) => ({ ...e, kbps: linkKbps(e, l.entries[i - 1]) })), (e) => e.kbps, { label: `${l.link} out`, color: l.color, width: 1.5 })),
          ...perLink.map((l) => configuredSeries(pathSteps(histories, [l.link], 'rateKbps', span), `rate ${l.link}`)),
        ], 'configured rate'),
      },
    );
  }
  const windowS = result.summary?.windowS ?? [span.startS, span.endS];
  // A run with flows has its Jain's index per second in the flows section, over every flow.
  const jain = result.flows.rows.length ? [] : jainBySharedLink(result.timeline, result.network.routes, windowS);
  if (jain.length) {
    panels.push({
      id: 'net-jain', title: "Jain's index per second on shared links", yLabel: 'J',
      series: jain.map((group, i) => ({ label: group.links.join(', '), color: PALETTE[i % PALETTE.length], width: 1.5, ...withGaps(group.series) })),
    });
  }
  return { id: 'network', title: 'Network', subtitle: 'measured at the emulator and across flows', panels: panels.map((p) => ({ ...p, series: p.series.filter((s) => s.y.some((v) => v !== null)) })).filter((p) => hasMeasuredData(p.series)) };
}

/**
 * Throughput of a truth interval from its bytesOut; the interval is the time since the previous
 * entry of the link (1 s for the first).
 * @param {{t: number, bytesOut?: number|null}} entry @param {{t: number}|undefined} previous
 */
export function linkKbps(entry, previous) {
  if (!Number.isFinite(entry.bytesOut)) return null;
  const dt = previous && entry.t > previous.t ? entry.t - previous.t : 1;
  return (entry.bytesOut * 8) / 1000 / dt;
}
