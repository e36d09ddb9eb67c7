// The report's charts of what is not one peer: the flows on the bottleneck, the network truth the emulator measured,
// and the host's processes. Pure: a normalized result in, chart sections out (chart-series.js).

import { PALETTE, JANUS_COLOR, configuredSeries, drawnPanels, hasMeasuredData, measured, mergeConfigured, isName, roundTime, safeId, withGaps } from './chart-series.js';
import { pathSteps } from './network.js';
import { flowFairness, jainBySharedLink } from '../lib/cross/fairness.js';
import { BOTTLENECK_BACK, BOTTLENECK_FWD } from '../lib/cross/flows.js';
import { linkWireLossPct } from '../lib/result/loss.js';
import { finiteOrNull } from '../lib/stats/statistics.js';

/**
 * @typedef {import('./chart-series.js').SeriesSpec} SeriesSpec
 * @typedef {import('./chart-series.js').PanelSpec} PanelSpec
 * @typedef {import('./chart-series.js').Section} Section
 * @typedef {import('./chart-series.js').Span} Span
 * @typedef {import('./network.js').LinkHistories} LinkHistories
 * @typedef {import('./result-file.js').ReportResult} ReportResult
 * @typedef {import('./result-file.js').TruthEntry} TruthEntry
 */

/** Each direction of the bottleneck: its panel's title. */
const BOTTLENECK_DIRECTIONS = { [BOTTLENECK_FWD]: 'left → right', [BOTTLENECK_BACK]: 'right → left' };
/** The kernel flows' tunnel direction whose route crosses each direction of the bottleneck (cross/kernel-flows.js). */
const TUNNEL_DIRECTIONS = { [BOTTLENECK_FWD]: 'forward', [BOTTLENECK_BACK]: 'back' };
const EMULATOR_COLOR = '#555555';

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
    const rates = byFlow.get(row.flow);
    if (rates && typeof row.rateKbps === 'number' && Number.isFinite(row.rateKbps)) rates.set(roundTime(row.t), row.rateKbps);
  }
  /** @param {string} f */
  const ratesOf = (f) => byFlow.get(f) ?? new Map();
  const seconds = [...new Set([...byFlow.values()].flatMap((m) => [...m.keys()]))].sort((a, b) => a - b);
  /** @param {string} f */
  const first = (f) => seconds.find((t) => ratesOf(f).has(t)) ?? Infinity;
  return [...flows].sort((a, b) => first(a) - first(b)).map((f) => ({
    label: f, color: colorOf(f), width: 1, ...withGaps(seconds.map((t) => [t, ratesOf(f).get(t) ?? 0])),
  }));
}

/**
 * "Flows on the bottleneck" (J16 fig. 8-10/8-11, RFC 8868 style): per direction of the bottleneck that lib/cross/fairness.js
 * reports (the forward one with flows, the backward one with two or more), every flow's rate stacked under the
 * configured capacity, and its per-second Jain's index over the competing flows.
 * @param {ReportResult} result @param {LinkHistories} histories @param {Span} span
 * @returns {Section}
 */
export function buildFlowsSection(result, histories, span) {
  const { list, rows } = result.flows;
  const fairness = flowFairness(result.flows, result.network.configured, [span.startS, span.endS]);
  // A flow's series (a call's two directions) share its colour.
  const owners = list.map((entry) => entry.name);
  const ownerOf = new Map(list.flatMap((entry) => (Array.isArray(entry.series) ? entry.series : []).map((s) => [s.name, entry.name])));
  /** @param {string} flow */
  const colorOf = (flow) => PALETTE[Math.max(0, owners.indexOf(ownerOf.get(flow) ?? '')) % PALETTE.length];
  /** @param {string} link @param {string} name */
  const id = (link, name) => safeId(`flows-${link}-${name}`);
  /** @type {Record<string, string>} */
  const directions = BOTTLENECK_DIRECTIONS;
  /** @type {PanelSpec[]} */
  const panels = Object.entries(fairness.links).flatMap(([link, f]) => [
    {
      id: id(link, 'stacked'), title: `Flows on the bottleneck: ${link} (${directions[link] ?? ''}), stacked`, yLabel: 'kbps',
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
    ...kernelFlowPanels(result, link, (name) => id(link, name), colorOf),
  ]);
  return {
    id: 'flows', title: 'Flows on the bottleneck', subtitle: 'each flow\'s received rate per second (result.flows)',
    panels: panels.filter((p) => hasMeasuredData(p.series)),
  };
}

/**
 * Each kernel flow's own drops and delay per second on one direction of the bottleneck (its tunnel's truth), beside
 * the link's, which count every flow in its FIFO: the link's drops less the kernel flows' are the calls'. Results made
 * before the relay counted them per tunnel have no such series, and so no panel.
 * @param {ReportResult} result @param {string} link @param {(name: string) => string} id @param {(flow: string) => string} colorOf
 * @returns {PanelSpec[]}
 */
function kernelFlowPanels(result, link, id, colorOf) {
  /** @type {Record<string, string>} */
  const tunnelDirections = TUNNEL_DIRECTIONS;
  const tunnelRows = result.flows.truth.filter((row) => row.direction === tunnelDirections[link]).sort((a, b) => a.t - b.t);
  const flows = [...new Set(tunnelRows.filter((row) => finiteOrNull(row.dropsQueue) !== null).map((row) => row.flow))];
  if (!flows.length) return [];
  const linkRows = (result.network.truth ?? []).filter((e) => e?.link === link && Number.isFinite(e.t)).sort((a, b) => a.t - b.t);
  /** @param {{ t: number, dropsQueue?: unknown, dropsLoss?: unknown }} row */
  const drops = (row) => {
    const [queue, loss] = [finiteOrNull(row.dropsQueue), finiteOrNull(row.dropsLoss)];
    return queue === null || loss === null ? null : queue + loss;
  };
  /** @param {{ t: number, oneWayDelayMsP50?: unknown }} row */
  const delayMs = (row) => finiteOrNull(row.oneWayDelayMsP50);
  /** @param {string} flow */
  const of = (flow) => tunnelRows.filter((row) => row.flow === flow);
  return [
    {
      id: id('drops'), title: `Drops per second by flow: ${link} (queue and random loss)`, yLabel: 'packets',
      series: [
        ...(linkRows.length ? [measured(linkRows, drops, { label: `${link}, every flow`, color: EMULATOR_COLOR, width: 1.5, stepped: true })] : []),
        ...flows.map((flow) => measured(of(flow), drops, { label: flow, color: colorOf(flow), width: 1.5, stepped: true })),
      ],
    },
    {
      id: id('delay'), title: `One-way delay p50 through the relay by flow: ${link}`, yLabel: 'ms',
      series: [
        ...(linkRows.length ? [measured(linkRows, delayMs, { label: `${link}, every flow`, color: EMULATOR_COLOR, width: 1.5 })] : []),
        ...flows.map((flow) => measured(of(flow), delayMs, { label: `${flow} (its route)`, color: colorOf(flow), width: 1.5 })),
      ],
    },
  ];
}

/**
 * CPU (% of one core) and memory of each sampled process tree: each browser with its helpers, the relay, the SFU.
 * @param {Array<{t: number, process: string, cpuPct: number, rssMb: number}>} rows
 * @param {(peer: string) => string} colorOf
 * @param {unknown} [emulator]  the emulator's name (result.network.emulator), which its process tree is tracked under
 * @returns {Section}
 */
export function buildResourcesSection(rows, colorOf, emulator) {
  const names = [...new Set(rows.map((row) => row.process))].sort();
  // Besides the peers' browsers and the emulator's tree (tracked under its backend's name), the one process tree is
  // the SFU's, under its own name; a result without the emulator's name had only the emulator's.
  /** @param {string} name */
  const color = (name) => (/^p\d+$/.test(name) ? colorOf(name) : typeof emulator !== 'string' || name === emulator ? EMULATOR_COLOR : JANUS_COLOR);
  /** @param {string} name */
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

/**
 * The network truth's panels: queueing delay, loss on the wire, drops, and link throughput against the configured rate.
 * @param {TruthEntry[]} truth @param {LinkHistories} histories @param {Span} span
 * @returns {PanelSpec[]}
 */
function truthPanels(truth, histories, span) {
  const links = [...new Set(truth.map((e) => e?.link).filter(isName))].sort();
  if (!links.length) return [];
  const perLink = links.map((link, i) => ({
    link,
    color: PALETTE[i % PALETTE.length],
    entries: truth.filter((e) => e?.link === link && Number.isFinite(e.t)).sort((a, b) => a.t - b.t),
  }));
  return [
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
  ];
}

/**
 * Network truth (queueing delay, drops, link throughput vs configured rate) and fairness on shared links.
 * @param {ReportResult} result @param {LinkHistories} histories @param {Span} span
 * @returns {Section}
 */
export function buildNetworkSection(result, histories, span) {
  const panels = truthPanels(result.network.truth ?? [], histories, span);
  const windowS = result.summary?.windowS ?? [span.startS, span.endS];
  // A run with flows has its Jain's index per second in the flows section, over every flow.
  const jain = result.flows.rows.length ? [] : jainBySharedLink(result.timeline, result.network.routes, windowS);
  if (jain.length) {
    panels.push({
      id: 'net-jain', title: "Jain's index per second on shared links", yLabel: 'J',
      series: jain.map((group, i) => ({ label: group.links.join(', '), color: PALETTE[i % PALETTE.length], width: 1.5, ...withGaps(group.series) })),
    });
  }
  return { id: 'network', title: 'Network', subtitle: 'measured at the emulator and across flows', panels: drawnPanels(panels) };
}

/**
 * Throughput of a truth interval from its bytesOut; the interval is the time since the previous
 * entry of the link (1 s for the first).
 * @param {{t: number, bytesOut?: number|null}} entry @param {{t: number}|undefined} previous
 */
export function linkKbps(entry, previous) {
  if (typeof entry.bytesOut !== 'number' || !Number.isFinite(entry.bytesOut)) return null;
  const dt = previous && entry.t > previous.t ? entry.t - previous.t : 1;
  return (entry.bytesOut * 8) / 1000 / dt;
}
