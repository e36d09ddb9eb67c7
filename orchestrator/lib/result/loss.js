// Loss on the wire beside loss after recovery (F's residual loss). Pure.
//
// On the wire: what the emulator dropped (random loss and queue overflow) over what entered a link, from its
// truth rows; a flow's wire loss combines the links of its route. After recovery: what the receiver is left
// missing once NACK/RTX have done their work (client-app/stats.js: residualLossPct and video.residualLossPct;
// audio.lossPct, as Opus is not retransmitted). Recovered: the difference. A link's drops are not split by flow:
// every flow crossing a link is taken to see its loss rate, which holds for random loss and, on average, for drops
// at a shared queue.
import { valueAt } from './run-summary.js';
import { describe } from '../stats/statistics.js';

/**
 * @typedef {{ t: number|null, link?: string, packetsIn?: number, dropsLoss?: number, dropsQueue?: number }} TruthRow
 *   a network.truth row on the media clock: t ends the second it covers
 * @typedef {{ packetsIn: number, dropsLoss: number, dropsQueue: number }} LinkCounts
 * @typedef {import('./result.js').TimelineEntry} TimelineEntry
 */

/** @param {number|null} value */
const round = (value) => (value === null || !Number.isFinite(value) ? null : Number(value.toFixed(3)));
/** @param {unknown} value */
const count = (value) => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

/**
 * A link's loss on the wire: (random + queue drops) / packets in, in percent; null when nothing entered it.
 * @param {Partial<LinkCounts>} counts @returns {number|null}
 */
export function linkWireLossPct({ packetsIn, dropsLoss, dropsQueue }) {
  return count(packetsIn) > 0 ? round((100 * (count(dropsLoss) + count(dropsQueue))) / count(packetsIn)) : null;
}

/**
 * A route's loss from its links' losses: a packet arrives when every link lets it through. Null when any link's is unknown.
 * @param {Array<number|null>} linkLossPcts @returns {number|null}
 */
export function routeWireLossPct(linkLossPcts) {
  const known = linkLossPcts.filter(/** @returns {pct is number} */ (pct) => pct !== null);
  if (!linkLossPcts.length || known.length < linkLossPcts.length) return null;
  return round(100 * (1 - known.reduce((kept, pct) => kept * (1 - pct / 100), 1)));
}

/**
 * The truth counters per link per timeline second. A truth row covers the second that ends at its t, which the
 * emulator's own clock puts anywhere between two of the timeline's whole seconds; it goes to the nearest one, the
 * timeline interval it overlaps most. Rows that land on the same second (a late read of netem's counters) add up.
 * @param {TruthRow[]} truth @returns {Map<string, Map<number, LinkCounts>>}
 */
export function truthBySecond(truth) {
  /** @type {Map<string, Map<number, LinkCounts>>} */
  const byLink = new Map();
  for (const row of truth) {
    if (!row?.link || !Number.isFinite(row.t)) continue;
    const seconds = byLink.get(row.link) ?? new Map();
    byLink.set(row.link, seconds);
    const second = Math.round(/** @type {number} */ (row.t));
    const sum = seconds.get(second) ?? { packetsIn: 0, dropsLoss: 0, dropsQueue: 0 };
    seconds.set(second, {
      packetsIn: sum.packetsIn + count(row.packetsIn),
      dropsLoss: sum.dropsLoss + count(row.dropsLoss),
      dropsQueue: sum.dropsQueue + count(row.dropsQueue),
    });
  }
  return byLink;
}

/**
 * Timeline entries with the wire loss of the flow they receive (route remote->peer) in their second, and what
 * recovery took off it: wireLossPct, and recoveredLossPct = wireLossPct − the loss after recovery, for all media
 * (residualLossPct), video (video.residualLossPct) and audio (audio.lossPct).
 * Null where the emulator has no truth for a link of the route in that second (dummynet, a missing read).
 * @param {TimelineEntry[]} timeline @param {TruthRow[]} truth @param {Record<string, string[]>} routes
 * @returns {TimelineEntry[]}
 */
export function withWireLoss(timeline, truth, routes) {
  const bySecond = truthBySecond(truth);
  /** @param {number|null} wire @param {unknown} residual */
  const recovered = (wire, residual) => (wire === null || typeof residual !== 'number' ? null : round(wire - residual));
  return timeline.map((entry) => {
    const route = routes[`${entry.remote}->${entry.peer}`] ?? [];
    const links = route.map((link) => bySecond.get(link)?.get(entry.t)).filter(/** @returns {c is LinkCounts} */ (c) => c !== undefined);
    const wireLossPct = links.length === route.length ? routeWireLossPct(links.map(linkWireLossPct)) : null;
    const video = /** @type {Record<string, unknown>|undefined} */ (entry.video);
    const audio = /** @type {Record<string, unknown>|undefined} */ (entry.audio);
    return {
      ...entry,
      video: { ...video, recoveredLossPct: recovered(wireLossPct, video?.residualLossPct) },
      audio: { ...audio, recoveredLossPct: recovered(wireLossPct, audio?.lossPct) },
      wireLossPct,
      recoveredLossPct: recovered(wireLossPct, entry.residualLossPct),
    };
  });
}

/** The per-flow values of summary.loss.flows: the flow's wire loss, what its receiver still saw lost, and how it recovered. */
export const FLOW_LOSS_PATHS = [
  'wireLossPct', 'lossPct', 'residualLossPct', 'video.lossPct', 'video.residualLossPct', 'audio.lossPct',
  'recoveredLossPct', 'video.recoveredLossPct', 'audio.recoveredLossPct',
  'video.retransmittedPacketsReceived', 'video.retransmittedKbps', 'video.fecPacketsReceived',
];

/**
 * Loss over the measurement window (summary.loss): per link the truth counters summed and their ratio; per flow
 * (route "pA->pB", received by pB) statistics of the per-second values of withWireLoss's entries.
 * @param {{ truth: TruthRow[], timeline: TimelineEntry[], routes: Record<string, string[]>, windowS: [number, number] }} input
 */
export function lossSummary({ truth, timeline, routes, windowS: [fromS, toS] }) {
  const inWindow = (/** @type {number} */ t) => t > fromS && t <= toS;
  /** @type {Record<string, LinkCounts & { wireLossPct: number|null }>} */
  const links = {};
  for (const [link, seconds] of [...truthBySecond(truth)].sort(([a], [b]) => a.localeCompare(b))) {
    const sum = { packetsIn: 0, dropsLoss: 0, dropsQueue: 0 };
    for (const [second, counts] of seconds) {
      if (!inWindow(second)) continue;
      for (const field of /** @type {const} */ (['packetsIn', 'dropsLoss', 'dropsQueue'])) sum[field] += counts[field];
    }
    links[link] = { ...sum, wireLossPct: linkWireLossPct(sum) };
  }
  /** @type {Record<string, Record<string, ReturnType<typeof describe>>>} */
  const flows = {};
  for (const flow of Object.keys(routes).sort()) {
    const [from, to] = flow.split('->');
    const entries = timeline.filter((entry) => entry.peer === to && entry.remote === from && inWindow(entry.t));
    flows[flow] = Object.fromEntries(FLOW_LOSS_PATHS.map((path) => [path, describe(entries.map((entry) => valueAt(entry, path)))]));
  }
  return { links, flows };
}
