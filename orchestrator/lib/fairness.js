// Fairness among flows that share a link (pure): Jain's index as J16 defines it (on each flow's mean rate within a
// phase) and per second. Used by the run summary (jainIndex, jainIndexPerSecond) and the report's fairness table;
// cross-traffic scenarios (issue 12) build on it. Inputs are parts of result.json.
import { jainIndex } from './statistics.js';
import { meanOf } from './steady-rate.js';

/**
 * @typedef {Array<[number, number]>} JainSeries  [second, Jain's index of that second]
 * @typedef {{ fromS: number, toS: number, seconds: number, flows: string[], meanKbps: Record<string, number>,
 *   jainIndex: number|null }} Phase  seconds fromS..toS (inclusive) with the same active flows
 * @typedef {{ links: string[], flows: string[], phases: Phase[], jainIndex: number|null, series: JainSeries,
 *   jainIndexPerSecond: number|null, byActiveFlows: Record<string, { mean: number|null, n: number }>,
 *   flowMeansKbps: Record<string, number|null> }} SharedLinkFairness
 */

/** Receive rate of an interval: video + audio; null when neither was measured. @param {any} entry */
export function totalRecvKbps(entry) {
  const finiteOrNull = (v) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
  const v = finiteOrNull(entry?.video?.recvKbps);
  const a = finiteOrNull(entry?.audio?.recvKbps);
  return v === null && a === null ? null : (v ?? 0) + (a ?? 0);
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
      if (!linkFlows.has(link)) linkFlows.set(link, []);
      linkFlows.get(link).push(route);
    }
  }
  /** @type {Map<string, string[]>} flow set -> links */
  const groups = new Map();
  for (const [link, fl] of linkFlows) {
    if (fl.length < 2) continue;
    const key = [...fl].sort().join(' ');
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(link);
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
  for (const s of seconds) {
    const active = flows.filter((f) => rates.get(f)?.has(s));
    const last = runs.at(-1);
    if (last && last.flows.join(' ') === active.join(' ')) {
      last.toS = s;
      active.forEach((f, i) => last.samples[i].push(rates.get(f).get(s)));
    } else {
      runs.push({ fromS: s, toS: s, flows: active, samples: active.map((f) => [rates.get(f).get(s)]) });
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
 * Jain's index among the flows that share a link, for every group of sharedLinkGroups. A flow counts in a second of
 * the window (windowS[0] < t <= windowS[1]) when its receiver has a video or audio rate for it.
 * - jainIndex (J16 §8-4): per phase on the flows' mean rates, then the mean over the phases with two or more flows,
 *   weighted by their length; J16's TCP figure is Jain(1408, 451) = 0.79.
 * - jainIndexPerSecond: per second with two or more flows, then the mean over those seconds.
 * @param {Array<any>} timeline @param {Record<string, unknown>} routes @param {[number, number]} windowS
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
    if (!rates.has(route)) rates.set(route, new Map());
    rates.get(route).set(Math.round(e.t), v);
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
        const j = jainIndex(phase.flows.map((f) => rates.get(f).get(s)).filter((v) => v !== undefined));
        if (j === null) continue;
        series.push([s, j]);
        (byCount[phase.flows.length] ??= []).push(j);
      }
    }
    const shared = byPhase.filter((p) => p.jainIndex !== null);
    const weight = shared.reduce((sum, p) => sum + p.seconds, 0);
    return {
      links, flows, phases: byPhase,
      jainIndex: weight ? shared.reduce((sum, p) => sum + p.jainIndex * p.seconds, 0) / weight : null,
      series, jainIndexPerSecond: meanOf(series.map(([, j]) => j)),
      byActiveFlows: Object.fromEntries(Object.entries(byCount).map(([k, js]) => [k, { mean: meanOf(js), n: js.length }])),
      flowMeansKbps: Object.fromEntries(flows.map((f) => [f, meanOf([...(rates.get(f)?.values() ?? [])])])),
    };
  });
}

/**
 * The run's two Jain figures: the mean over its shared-link groups of each group's figure; null without a shared link.
 * @param {SharedLinkFairness[]} groups
 * @returns {{ jainIndex: number|null, jainIndexPerSecond: number|null }}
 */
export function runFairness(groups) {
  return { jainIndex: meanOf(groups.map((g) => g.jainIndex)), jainIndexPerSecond: meanOf(groups.map((g) => g.jainIndexPerSecond)) };
}
