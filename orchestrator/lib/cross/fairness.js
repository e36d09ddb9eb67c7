// Fairness among flows that share a link (pure): Jain's index as J16 defines it (on each flow's mean rate within a
// phase) and per second. Used by the run summary (jainIndex, jainIndexPerSecond) and the report's fairness table;
// the flows of cross-traffic scenarios (flowFairness, below) build on it. Inputs are parts of result.json.
import { finiteOrNull, jainIndex } from '../stats/statistics.js';
import { meanOf } from '../stats/steady-rate.js';

/**
 * @typedef {{ t: number, peer: string, remote?: string, video?: Record<string, unknown>, audio?: Record<string, unknown> }} TimelineEntry
 *   getStats fields as the page reported them (lib/result/result.js TimelineEntry, a layer above)
 * @typedef {Array<[number, number]>} JainSeries  [second, Jain's index of that second]
 * @typedef {{ fromS: number, toS: number, seconds: number, flows: string[], meanKbps: Record<string, number>,
 *   jainIndex: number|null }} Phase  seconds fromS..toS (inclusive) with the same active flows
 * @typedef {{ links: string[], flows: string[], phases: Phase[], jainIndex: number|null, series: JainSeries,
 *   jainIndexPerSecond: number|null, byActiveFlows: Record<string, { mean: number|null, n: number }>,
 *   flowMeansKbps: Record<string, number|null> }} SharedLinkFairness
 */

/** Receive rate of an interval: video + audio; null when neither was measured.
 * @param {{ video?: Record<string, unknown>, audio?: Record<string, unknown> }|null|undefined} entry  a timeline entry: getStats
 *   fields as the page reported them
 */
export function totalRecvKbps(entry) {
  const v = finiteOrNull(entry?.video?.recvKbps);
  const a = finiteOrNull(entry?.audio?.recvKbps);
  return v === null && a === null ? null : (v ?? 0) + (a ?? 0);
}

/**
 * Adds a value to the list a map holds under key, starting one for a new key.
 * @template K, V
 * @param {Map<K, V[]>} map @param {K} key @param {V} value
 */
function append(map, key, value) {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/**
 * The links that several flows (routes, 'sender->receiver') cross; links carrying the same set of flows form one group.
 * @param {Record<string, unknown>} routes @returns {Array<{ links: string[], flows: string[] }>}
 */
export function sharedLinkGroups(routes) {
  /** @type {Map<string, string[]>} */
  const linkFlows = new Map();
  for (const [route, links] of Object.entries(routes ?? {})) {
    for (const link of Array.isArray(links) ? links : []) {
      append(linkFlows, link, route);
    }
  }
  /** @type {Map<string, string[]>} flow set -> links */
  const groups = new Map();
  for (const [link, fl] of linkFlows) {
    if (fl.length < 2) continue;
    const key = [...fl].sort().join(' ');
    append(groups, key, link);
  }
  return [...groups].map(([key, links]) => ({ links: links.sort(), flows: key.split(' ') }));
}

/**
 * Phases of a shared link: maximal runs of seconds (those where any of its flows has a rate) in which the same set
 * of flows is active, each with every active flow's mean rate and Jain's index over those means (null below two flows).
 * @param {string[]} flows @param {Map<string, Map<number, number>>} rates flow -> second -> kbps
 * @returns {Phase[]}
 */
export function phases(flows, rates) {
  const seconds = [...new Set(flows.flatMap((f) => [...(rates.get(f)?.keys() ?? [])]))].sort((a, b) => a - b);
  /** @type {Array<{ fromS: number, toS: number, flows: string[], samples: number[][] }>} */
  const runs = [];
  /** A rate the filter below found. @param {string} f @param {number} s */
  const rateOf = (f, s) => /** @type {number} */ (rates.get(f)?.get(s));
  for (const s of seconds) {
    const active = flows.filter((f) => rates.get(f)?.has(s));
    const last = runs.at(-1);
    if (last && last.flows.join(' ') === active.join(' ')) {
      last.toS = s;
      active.forEach((f, i) => last.samples[i].push(rateOf(f, s)));
    } else {
      runs.push({ fromS: s, toS: s, flows: active, samples: active.map((f) => [rateOf(f, s)]) });
    }
  }
  return runs.map(({ fromS, toS, flows: active, samples }) => {
    const means = samples.map((xs) => xs.reduce((a, b) => a + b, 0) / xs.length);
    return {
      fromS, toS, seconds: samples[0]?.length ?? 0, flows: active,
      meanKbps: Object.fromEntries(active.map((f, i) => [f, means[i]])),
      jainIndex: active.length >= 2 ? jainIndex(means) : null,
    };
  });
}

/**
 * The mean of the phases' Jain's indexes weighted by their seconds, over the phases that have one; null without.
 * @param {Array<{ jainIndex: number|null, seconds: number }>} phaseList
 */
function weightedJain(phaseList) {
  const shared = phaseList.flatMap(({ jainIndex: j, seconds }) => (j === null ? [] : [{ j, seconds }]));
  const weight = shared.reduce((sum, p) => sum + p.seconds, 0);
  return weight ? shared.reduce((sum, p) => sum + p.j * p.seconds, 0) / weight : null;
}

/**
 * Jain's index among the flows that share a link, for every group of sharedLinkGroups. A flow counts in a second of
 * the window (windowS[0] < t <= windowS[1]) when its receiver has a video or audio rate for it.
 * - jainIndex (J16 §8-4): per phase on the flows' mean rates, then the mean over the phases with two or more flows,
 *   weighted by their length; J16's TCP figure is Jain(1408, 451) = 0.79.
 * - jainIndexPerSecond: per second with two or more flows, then the mean over those seconds.
 * @param {TimelineEntry[]} timeline  as the pages reported it
 * @param {Record<string, unknown>} routes @param {[number, number]} windowS
 * @returns {SharedLinkFairness[]}
 */
export function jainBySharedLink(timeline, routes, windowS) {
  const [from, to] = windowS;
  /** @type {Map<string, Map<number, number>>} */
  const rates = new Map();
  for (const e of timeline) {
    if (!e?.peer || !e.remote || !(e.t > from && e.t <= to)) continue;
    const v = totalRecvKbps(e);
    if (v === null) continue;
    const route = `${e.remote}->${e.peer}`;
    const bySecond = rates.get(route) ?? new Map();
    rates.set(route, bySecond);
    bySecond.set(Math.round(e.t), v);
  }
  return sharedLinkGroups(routes).map(({ links, flows }) => {
    const byPhase = phases(flows, rates);
    /** @type {JainSeries} */
    const series = [];
    /** @type {Record<string, number[]>} */
    const byCount = {};
    for (const phase of byPhase) {
      if (phase.jainIndex === null) continue;
      for (let s = phase.fromS; s <= phase.toS; s += 1) {
        // A phase may span seconds no flow reported: those have no index.
        const j = jainIndex(phase.flows.map((f) => rates.get(f)?.get(s)).filter(/** @returns {v is number} */ (v) => v !== undefined));
        if (j === null) continue;
        series.push([s, j]);
        (byCount[phase.flows.length] ??= []).push(j);
      }
    }
    return {
      links, flows, phases: byPhase,
      jainIndex: weightedJain(byPhase),
      series, jainIndexPerSecond: meanOf(series.map(([, j]) => j)),
      byActiveFlows: Object.fromEntries(Object.entries(byCount).map(([k, js]) => [k, { mean: meanOf(js), n: js.length }])),
      flowMeansKbps: Object.fromEntries(flows.map((f) => [f, meanOf([...(rates.get(f)?.values() ?? [])])])),
    };
  });
}

/**
 * The run's two Jain figures: the mean over its shared-link groups (or flow links) of each one's figure; null without any.
 * @param {Array<{ jainIndex: number|null, jainIndexPerSecond: number|null }>} groups
 * @returns {{ jainIndex: number|null, jainIndexPerSecond: number|null }}
 */
export function runFairness(groups) {
  return { jainIndex: meanOf(groups.map((g) => g.jainIndex)), jainIndexPerSecond: meanOf(groups.map((g) => g.jainIndexPerSecond)) };
}

/*
 * Fairness among a scenario's flows (lib/cross/flows.js) on the bottleneck's two directions: issue 12's cross traffic.
 * The inputs are result.json's flows ({ list, rows }) and network.configured.
 */

/** Convergence after a join or leave: Jain's index over the active flows at least this, held this long. */
export const CONVERGENCE = { jainIndex: 0.9, holdS: 10 };
/** The links whose fairness is reported: the forward direction always, the backward one when flows compete on it. */
export const FAIRNESS_LINKS = ['bottleneck.fwd', 'bottleneck.back'];

/**
 * @typedef {object} FlowPhase  seconds fromS < t <= toS with the same active flows (from the configured intervals)
 * @property {number} fromS
 * @property {number} toS
 * @property {number} seconds  of them, those with a measured rate
 * @property {string[]} flows  active flows that compete for a share (short-TCP flows do not)
 * @property {Record<string, number>} meanKbps  every active flow on the link, short-TCP flows included
 * @property {Record<string, number|null>} shareOfCapacity  meanKbps / capacityKbps
 * @property {number|null} totalKbps  mean over the measured seconds of the sum of every flow's rate on the link
 * @property {number|null} capacityKbps  mean configured rate; null when the link is unlimited
 * @property {number|null} utilization  Σ total / Σ capacity over the seconds with a rate limit
 * @property {number|null} jainIndex  on the competing flows' mean rates; null below two
 *
 * @typedef {{ atS: number, change: 'join'|'leave', flow: string, convergenceS: number|null }} Convergence
 *
 * @typedef {object} LinkFairness
 * @property {string[]} flows  every flow crossing the link
 * @property {FlowPhase[]} phases
 * @property {number|null} jainIndex  the phases' Jain's index weighted by their measured seconds (J16 §8-4)
 * @property {number|null} jainIndexPerSecond  mean of series
 * @property {JainSeries} series  [t, Jain's index over the competing active flows] per measured second with two or more
 * @property {number|null} utilization  over the window
 * @property {Convergence[]} convergence
 */

/**
 * Fairness on each reported link over the window (windowS[0] < t <= windowS[1]).
 * - A flow is active in second t (which covers (t − 1, t]) when t − 0.5 falls in one of its configured intervals.
 * - A second is measured when any flow on the link has a row; an active flow without a row in a measured second
 *   got nothing through (0 kbps: an extra call still negotiating). Rows of one flow in one second are averaged.
 * - Capacity in second t is the link's configured rateKbps at t − 1.
 * - Convergence after a join or leave at atS (warmup <= atS < window end): the phase starting there; t* is its first
 *   measured second from which the per-second Jain's index over its competing flows stays >= 0.9 for 10 s (or until the
 *   phase ends, if sooner); convergenceS = (t* − 1) − atS, at least 0. Null when it never does, or the phase has
 *   fewer than two competing flows (nothing to share).
 * @param {{ list: import('./flows.js').FlowListEntry[], rows: Array<{ t: number, flow: string, rateKbps: number }> }} flows
 * @param {Array<{ t: number, link: string, rateKbps?: number|null }>} configured  result.json network.configured
 * @param {[number, number]} windowS
 * @returns {{ links: Record<string, LinkFairness> }}
 */
export function flowFairness(flows, configured, windowS) {
  // An older or damaged result.json may lack parts: what is not there is no flow and no rate.
  const series = flows.list.flatMap((entry) => (Array.isArray(entry?.series) ? entry.series : []))
    .filter((s) => typeof s?.name === 'string' && Array.isArray(s.links) && Array.isArray(s.intervals));
  /** @type {Map<string, Map<number, number[]>>} */
  const rates = new Map();
  for (const row of Array.isArray(flows.rows) ? flows.rows : []) {
    if (!Number.isFinite(row?.t) || !Number.isFinite(row.rateKbps)) continue;
    const t = Math.round(row.t);
    const bySecond = rates.get(row.flow) ?? new Map();
    rates.set(row.flow, bySecond);
    bySecond.set(t, [...(bySecond.get(t) ?? []), row.rateKbps]);
  }
  /** @type {(flow: string, t: number) => number|undefined} */
  const rateAt = (flow, t) => {
    const xs = rates.get(flow)?.get(t);
    return xs ? xs.reduce((a, b) => a + b, 0) / xs.length : undefined;
  };
  /** @type {Record<string, LinkFairness>} */
  const links = {};
  for (const link of FAIRNESS_LINKS) {
    const here = series.filter((s) => s.links.includes(link));
    if (here.length === 0 || (link !== FAIRNESS_LINKS[0] && here.length < 2)) continue;
    links[link] = linkFairness(here, rateAt, capacityOf(configured, link), windowS);
  }
  return { links };
}

/**
 * @param {Array<{ t: number, link: string, rateKbps?: number|null }>} configured @param {string} link
 * @returns {(t: number) => number|null} the configured rate in force at t
 */
export function capacityOf(configured, link) {
  const rows = configured.filter((row) => row.link === link).sort((a, b) => a.t - b.t);
  return (t) => {
    let rate = null;
    for (const row of rows) {
      if (row.t > t) break;
      rate = row.rateKbps ?? null;
    }
    return rate;
  };
}

/**
 * @param {import('./flows.js').FlowSeries[]} here
 * @param {(flow: string, t: number) => number|undefined} rateAt
 * @param {(t: number) => number|null} capacityAt
 * @param {[number, number]} windowS
 * @returns {LinkFairness}
 */
function linkFairness(here, rateAt, capacityAt, [fromS, toS]) {
  /** @param {import('./flows.js').FlowSeries} s @param {number} t */
  const isActive = (s, t) => s.intervals.some(([a, b]) => a <= t - 0.5 && t - 0.5 < b);
  /**
   * @type {Array<{ fromS: number, toS: number, flows: string[], seconds: LinkSecond[] }>}
   */
  const runs = [];
  for (let t = Math.floor(fromS) + 1; t <= Math.floor(toS); t += 1) {
    const active = here.filter((s) => isActive(s, t));
    const fair = active.filter((s) => s.fair).map((s) => s.name);
    if (fair.length === 0) continue;
    const last = runs.at(-1);
    const run = last && last.toS === t - 1 && last.flows.join(' ') === fair.join(' ') ? last : null;
    const current = run ?? { fromS: t - 1, toS: t, flows: fair, seconds: [] };
    if (!run) runs.push(current);
    current.toS = t;
    if (!here.some((s) => rateAt(s.name, t) !== undefined)) continue;
    current.seconds.push({
      t,
      rates: Object.fromEntries(active.map((s) => [s.name, rateAt(s.name, t) ?? 0])),
      total: here.reduce((sum, s) => sum + (rateAt(s.name, t) ?? 0), 0),
      capacity: capacityAt(t - 1),
    });
  }
  /** @type {JainSeries} */
  const series = [];
  const phaseList = runs.map((run) => {
    const n = run.seconds.length;
    const names = here.filter((s) => run.seconds.some((sec) => s.name in sec.rates)).map((s) => s.name);
    const meanKbps = Object.fromEntries(names.map((f) => [f, run.seconds.reduce((sum, sec) => sum + (sec.rates[f] ?? 0), 0) / n]));
    const capped = run.seconds.filter(hasCapacity);
    const capacityKbps = capped.length ? capped.reduce((sum, sec) => sum + sec.capacity, 0) / capped.length : null;
    if (run.flows.length >= 2) {
      for (const sec of run.seconds) {
        const j = jainIndex(run.flows.map((f) => sec.rates[f]));
        if (j !== null) series.push([sec.t, j]);
      }
    }
    return {
      fromS: run.fromS, toS: run.toS, seconds: n, flows: run.flows, meanKbps,
      shareOfCapacity: Object.fromEntries(names.map((f) => [f, capacityKbps ? meanKbps[f] / capacityKbps : null])),
      totalKbps: n ? run.seconds.reduce((sum, sec) => sum + sec.total, 0) / n : null,
      capacityKbps,
      utilization: utilizationOf(capped),
      jainIndex: run.flows.length >= 2 && n ? jainIndex(run.flows.map((f) => meanKbps[f])) : null,
    };
  });
  return {
    flows: here.map((s) => s.name),
    phases: phaseList,
    jainIndex: weightedJain(phaseList),
    jainIndexPerSecond: meanOf(series.map(([, j]) => j)),
    series,
    utilization: utilizationOf(runs.flatMap((run) => run.seconds).filter(hasCapacity)),
    convergence: convergenceAfterChanges(here.filter((s) => s.fair), phaseList, new Map(series), [fromS, toS]),
  };
}

/**
 * One measured second of a link: each active flow's rate, all flows' total, the link's capacity (null: unlimited).
 * @typedef {{ t: number, rates: Record<string, number>, total: number, capacity: number|null }} LinkSecond
 */

/** @param {LinkSecond} sec @returns {sec is LinkSecond & { capacity: number }} */
const hasCapacity = (sec) => sec.capacity !== null;

/** @param {Array<{ total: number, capacity: number }>} seconds  with a capacity */
function utilizationOf(seconds) {
  const capacity = seconds.reduce((sum, sec) => sum + sec.capacity, 0);
  return capacity > 0 ? seconds.reduce((sum, sec) => sum + sec.total, 0) / capacity : null;
}

/**
 * @param {import('./flows.js').FlowSeries[]} fair @param {FlowPhase[]} phaseList
 * @param {Map<number, number>} jainAt  per measured second with two or more competing flows
 * @param {[number, number]} windowS
 * @returns {Convergence[]}
 */
function convergenceAfterChanges(fair, phaseList, jainAt, [fromS, toS]) {
  /** @type {Array<Omit<Convergence, 'convergenceS'>>} */
  const changes = fair.flatMap((s) => s.intervals.flatMap(([a, b]) => [
    { atS: a, change: /** @type {const} */ ('join'), flow: s.name },
    { atS: b, change: /** @type {const} */ ('leave'), flow: s.name },
  ])).filter((c) => c.atS > 0 && c.atS >= fromS && c.atS < toS)
    .sort((x, y) => x.atS - y.atS || x.flow.localeCompare(y.flow) || x.change.localeCompare(y.change));
  return changes.map((c) => {
    const firstSecond = Math.ceil(c.atS + 0.5);
    const phase = phaseList.find((p) => p.fromS < firstSecond && firstSecond <= p.toS);
    return { ...c, convergenceS: phase && phase.flows.length >= 2 ? convergenceS(c.atS, firstSecond, phase.toS, jainAt) : null };
  });
}

/**
 * Seconds from a change at atS until the per-second Jain's index settles at CONVERGENCE.jainIndex or above: the first
 * measured second t* >= firstSecond from which it stays there for CONVERGENCE.holdS seconds, or to lastSecond if
 * sooner; (t* − 1) − atS, at least 0; null if it never does. Seconds without an index (not measured) are passed over.
 * @param {number} atS @param {number} firstSecond @param {number} lastSecond @param {Map<number, number>} jainAt
 * @returns {number|null}
 */
export function convergenceS(atS, firstSecond, lastSecond, jainAt, { jainIndex: threshold, holdS } = CONVERGENCE) {
  for (let start = firstSecond; start <= lastSecond; start += 1) {
    const first = jainAt.get(start);
    if (first === undefined || first < threshold) continue;
    let held = true;
    for (let t = start + 1; t < Math.min(start + holdS, lastSecond + 1); t += 1) {
      const j = jainAt.get(t);
      if (j !== undefined && j < threshold) { held = false; break; }
    }
    if (held) return Math.max(0, Math.round((start - 1 - atS) * 1000) / 1000);
  }
  return null;
}

/**
 * The run's fairness figures, one definition for the summary and the report: over the scenario's flows on the
 * bottleneck when it has flows (summary.fairness; convergenceS, the mean over the links' convergence times that were
 * reached), else over the routes that share links (jainBySharedLink; no fairness, no convergence).
 * any: timeline entries, configured flows and flow rows as result.json holds them (lib/result, a layer above)
 * @param {{ timeline: TimelineEntry[], configured: Array<any>, flows?: { list: import('./flows.js').FlowListEntry[], rows: Array<any> },
 *   routes: Record<string, unknown>, windowS: [number, number] }} input
 * @returns {{ fairness: { links: Record<string, LinkFairness> }|null, jainIndex: number|null,
 *   jainIndexPerSecond: number|null, convergenceS: number|null }}
 */
export function fairnessFigures({ timeline, routes, configured, windowS, flows }) {
  const fairness = Array.isArray(flows?.list) && flows.list.length ? flowFairness(flows, configured, windowS) : null;
  const perLink = Object.values(fairness?.links ?? {});
  if (!perLink.length) return { fairness, ...runFairness(jainBySharedLink(timeline, routes, windowS)), convergenceS: null };
  return {
    fairness,
    ...runFairness(perLink),
    convergenceS: meanOf(perLink.flatMap((l) => l.convergence.map((c) => c.convergenceS))),
  };
}
