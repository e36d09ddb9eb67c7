// The normalised flows as result.json lists them (pure): which peers each extra call takes, the links and the
// measured directions (series) of every flow, and the per-second rates the pages measured for them. The flows
// themselves (their validation, activity and bursts) are flows.js.
import { InputError } from '../system/errors.js';
import {
  BOTTLENECK_BACK, BOTTLENECK_FWD, MAIN_CALL_DEFAULTS, MAIN_CALL_FLOW, activeIntervals, isLeft, peerRoute, shortTcpBursts,
} from './flows.js';
import { finiteOrNull } from '../stats/statistics.js';

/** @typedef {import('./flows.js').Flow} Flow */
/** @typedef {import('./flows.js').FlowSeries} FlowSeries */
/** @typedef {import('./flows.js').FlowListEntry} FlowListEntry */
/** @typedef {import('./flows.js').MainCall} MainCall */

/**
 * The peers of every extra call: call flows in file order take p(N), p(N+1), … two each after the main call's N.
 * The left one of a pair sends a forward-only call ({ sender, receiver }); a two-way call is { a: left, b: right }.
 * @param {{ peers: number, flows: Flow[] }} scenario
 * @returns {Record<string, { sender: string, receiver: string } | { a: string, b: string }>}
 */
export function flowPeers({ peers, flows }) {
  /** @type {Record<string, { sender: string, receiver: string } | { a: string, b: string }>} */
  const byFlow = {};
  flows.filter((flow) => flow.kind === 'call').forEach((flow, k) => {
    const pair = [`p${peers + 2 * k}`, `p${peers + 2 * k + 1}`];
    const [left, right] = isLeft(pair[0]) ? pair : [pair[1], pair[0]];
    byFlow[flow.name] = flow.direction === 'forward' ? { sender: left, receiver: right } : { a: left, b: right };
  });
  return byFlow;
}

/**
 * The measured directions of every flow, the main call's first.
 * @param {{ peers: number, durationS: number, flows: Flow[], network?: { bottleneck?: unknown }, mainCall?: MainCall }} scenario
 * @returns {Array<{ flow: string, series: FlowSeries[] }>}
 */
function seriesByFlow(scenario) {
  const hasBottleneck = scenario.network?.bottleneck !== undefined;
  const peersOf = flowPeers(scenario);
  /** @param {string} name @param {Array<[string, string]>} pairs @param {Array<[number, number]>} intervals @returns {FlowSeries} */
  const mediaSeries = (name, pairs, intervals) => ({
    name, fair: true, links: [...new Set(pairs.flatMap(([from, to]) => peerRoute(from, to, hasBottleneck)))], intervals, pairs,
  });
  const main = Array.from({ length: scenario.peers }, (_, i) => `p${i}`);
  /** @param {boolean} fromLeft */
  const crossing = (fromLeft) => main.flatMap((from) => main.filter((to) => isLeft(from) === fromLeft && isLeft(to) !== fromLeft)
    .map((to) => /** @type {[string, string]} */ ([from, to])));
  const mainCall = scenario.mainCall ?? MAIN_CALL_DEFAULTS;
  /** @type {Array<[number, number]>} */
  const whole = [[mainCall.startS, scenario.durationS]];
  const result = [{
    flow: MAIN_CALL_FLOW,
    series: [
      mediaSeries(`${MAIN_CALL_FLOW}:fwd`, crossing(true), whole),
      ...(mainCall.direction === 'both' ? [mediaSeries(`${MAIN_CALL_FLOW}:back`, crossing(false), whole)] : []),
    ],
  }];
  for (const flow of scenario.flows) {
    const intervals = activeIntervals(flow);
    if (flow.kind === 'call') {
      const peers = peersOf[flow.name];
      const [left, right] = 'sender' in peers ? [peers.sender, peers.receiver] : [peers.a, peers.b];
      const series = [mediaSeries(`${flow.name}:fwd`, [[left, right]], intervals)];
      if (flow.direction === 'both') series.push(mediaSeries(`${flow.name}:back`, [[right, left]], intervals));
      result.push({ flow: flow.name, series });
    } else if (flow.kind === 'data') {
      if (flow.from === undefined || flow.to === undefined) {
        throw new InputError(`flow "${flow.name}": a data flow needs from and to; pass it through normalizeFlows, which checks them`);
      }
      result.push({ flow: flow.name, series: [mediaSeries(flow.name, [[flow.from, flow.to]], intervals)] });
    } else {
      const links = [flow.direction === 'backward' ? BOTTLENECK_BACK : BOTTLENECK_FWD];
      result.push({ flow: flow.name, series: [{ name: flow.name, fair: flow.kind !== 'tcp-short', links, intervals }] });
    }
  }
  return result;
}

/**
 * result.json's flows.list: the main call (`main: true`) and every flow, with its peers, links, measured series and,
 * for a short-TCP flow, its bursts. Empty when the scenario has no flows.
 * @param {{ peers: number, durationS: number, flows?: Flow[], network?: { bottleneck?: unknown }, mainCall?: MainCall }} scenario  resolved
 * @returns {FlowListEntry[]}
 */
export function flowList(scenario) {
  const flows = scenario.flows ?? [];
  if (flows.length === 0) return [];
  const resolved = { ...scenario, flows };
  const peersOf = flowPeers(resolved);
  const series = seriesByFlow(resolved);
  const linksOf = (/** @type {number} */ i) => [...new Set(series[i].series.flatMap((s) => s.links))];
  /** @type {FlowListEntry} */
  const main = {
    name: MAIN_CALL_FLOW, kind: 'call', main: true, ...(scenario.mainCall ?? MAIN_CALL_DEFAULTS), stopS: scenario.durationS, pauses: [],
    links: linksOf(0), series: series[0].series,
  };
  return [main, ...flows.map((flow, i) => ({
    ...flow,
    ...(peersOf[flow.name] ? { peers: peersOf[flow.name] } : {}),
    links: linksOf(i + 1),
    series: series[i + 1].series,
    ...(flow.kind === 'tcp-short' ? { bursts: shortTcpBursts(flow) } : {}),
  }))];
}

/**
 * The series of a flows list that cross a link.
 * @param {FlowListEntry[]} list @param {string} link
 * @returns {FlowSeries[]}
 */
export function flowsOnLink(list, link) {
  return list.flatMap((entry) => entry.series).filter((s) => s.links.includes(link));
}

/**
 * Per-second rate rows of the series measured in the pages: a call direction is its receivers' video + audio
 * recvKbps from its senders (summed over the main call's pairs), source `getStats`; a data flow is its receiver's
 * `data.recvKbps` from its sender, source `datachannel`. `t` is the sample's second (Math.round of its t).
 * @param {FlowListEntry[]} list
 * any: getStats fields as the pages reported them (lib/result/result.js MediaMetrics, a layer above)
 * @param {Array<{ t: number, peer: string, remote: string, video?: any, audio?: any, data?: any }>} timeline
 *   (any: getStats fields as the page reported them, checked where read)
 * @returns {Array<{ t: number, flow: string, rateKbps: number, source: string }>}
 */
export function pageFlowRows(list, timeline) {
  // A data flow and the call's media share one connection: one sample carries both.
  /** @type {Record<'getStats'|'datachannel', Map<string, string>>} source -> "sender->receiver" -> series */
  const bySource = { getStats: new Map(), datachannel: new Map() };
  for (const entry of list) {
    const pairs = bySource[entry.kind === 'data' ? 'datachannel' : 'getStats'];
    for (const s of entry.series) for (const [from, to] of s.pairs ?? []) pairs.set(`${from}->${to}`, s.name);
  }
  /** @type {Map<string, { t: number, flow: string, rateKbps: number, source: string }>} */
  const rows = new Map();
  /** @param {number} t @param {string} flow @param {string} source @param {number} kbps */
  const add = (t, flow, source, kbps) => {
    const row = rows.get(`${flow} ${t}`);
    if (row) row.rateKbps += kbps;
    else rows.set(`${flow} ${t}`, { t, flow, rateKbps: kbps, source });
  };
  for (const e of timeline) {
    if (!Number.isFinite(e?.t)) continue;
    const t = Math.round(e.t);
    const pair = `${e.remote}->${e.peer}`;
    const v = finiteOrNull(e.video?.recvKbps);
    const a = finiteOrNull(e.audio?.recvKbps);
    const media = bySource.getStats.get(pair);
    if (media && (v !== null || a !== null)) add(t, media, 'getStats', (v ?? 0) + (a ?? 0));
    const data = bySource.datachannel.get(pair);
    const d = finiteOrNull(e.data?.recvKbps);
    if (data && d !== null) add(t, data, 'datachannel', d);
  }
  return [...rows.values()].sort((x, y) => x.t - y.t || x.flow.localeCompare(y.flow));
}
