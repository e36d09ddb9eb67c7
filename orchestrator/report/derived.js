// Derived figures: time to steady rate after schedule changes and Jain's index on shared links
// (utilisation and set-up time are in result.summary, lib/run-summary.js). Pure: inputs are parts of
// result.json, outputs plain objects.

import { describe, jainIndex } from '../lib/statistics.js';
import { metricAt, mean } from './timeline.js';
import { linkHistories } from './network.js';

/** Settings of the time-to-steady definition (documented in the report footer). */
export const STEADY = { smoothS: 5, tolerance: 0.15, minToleranceKbps: 20, tailFraction: 1 / 3, minSegmentS: 20 };

/** @typedef {Array<[number, number|null]>} Points */

/** Receive rate of an interval: video + audio; null when neither was measured. @param {object} entry */
export function totalRecvKbps(entry) {
  const v = metricAt(entry, 'video.recvKbps');
  const a = metricAt(entry, 'audio.recvKbps');
  return v === null && a === null ? null : (v ?? 0) + (a ?? 0);
}

/**
 * The flows in a timeline: one per (receiver, sender) pair, sorted.
 * @param {Array<{peer: string, remote: string}>} timeline @returns {Array<{receiver: string, sender: string}>}
 */
export function flows(timeline) {
  const keys = new Set(timeline.filter((e) => e?.peer && e?.remote).map((e) => `${e.remote}->${e.peer}`));
  return [...keys].sort().map((k) => {
    const [sender, receiver] = k.split('->');
    return { receiver, sender };
  });
}

/**
 * [t, value] of one peer's entries about one remote, sorted by t.
 * @param {Array<object>} timeline @param {string} peer @param {string} remote
 * @param {(entry: object) => number|null} pick @returns {Points}
 */
export function pairSeries(timeline, peer, remote, pick) {
  return timeline
    .filter((e) => e && e.peer === peer && e.remote === remote && Number.isFinite(e.t))
    .sort((a, b) => a.t - b.t)
    .map((e) => [e.t, pick(e)]);
}

/**
 * Moments after which a steady rate is expected: the call start (t = 0) and every schedule change
 * followed by at least minSegmentS without another change. Events within 0.25 s are one change;
 * a ramp (a change every 0.5 s) thus counts once, at its last step.
 * @param {Array<{atS: number, link?: string, params?: object, cause?: string}>} scheduleEvents
 * @param {number} endS
 * @param {number} [minSegmentS]
 * @returns {Array<{atS: number, untilS: number, events: Array<object>}>}
 */
export function changePoints(scheduleEvents, endS, minSegmentS = STEADY.minSegmentS) {
  const sorted = (scheduleEvents ?? []).filter((e) => Number.isFinite(e?.atS)).sort((a, b) => a.atS - b.atS);
  /** @type {Array<{atS: number, events: Array<object>}>} */
  const groups = [{ atS: 0, events: [] }];
  for (const e of sorted) {
    if (e.atS <= 0.25) groups[0].events.push(e);
    else if (e.atS - groups.at(-1).atS < 0.25) groups.at(-1).events.push(e);
    else groups.push({ atS: e.atS, events: [e] });
  }
  return groups
    .map((g, i) => ({ ...g, untilS: groups[i + 1]?.atS ?? endS }))
    .filter((g) => g.untilS - g.atS >= minSegmentS);
}

/**
 * Time to steady rate after a change at fromS, within the segment [fromS, toS).
 * Definition: the steady rate S is the median rate over the last third of the segment. The rate is
 * smoothed with a 5 s forward mean (r̄(t) = mean of samples in [t, t + 5 s)). The time to steady is
 * t* − fromS, where t* is the earliest sample time from which r̄ stays within ±15 % of S (at least
 * ±20 kbps) up to the end of the segment. Not reached (null) when the last smoothed value is outside,
 * and null when S is below 20 kbps (no media).
 * @param {Points} points [t, kbps], sorted
 * @param {number} fromS @param {number} toS
 * @param {Partial<typeof STEADY>} [options]
 * @returns {{steadyKbps: number|null, timeToSteadyS: number|null, n: number}}
 */
export function timeToSteady(points, fromS, toS, options = {}) {
  const { smoothS, tolerance, minToleranceKbps, tailFraction } = { ...STEADY, ...options };
  const samples = points.filter(([t, v]) => t >= fromS && t < toS && Number.isFinite(v));
  if (samples.length < 2 * smoothS) return { steadyKbps: null, timeToSteadyS: null, n: samples.length };
  const tailFrom = toS - (toS - fromS) * tailFraction;
  const steady = describe(samples.filter(([t]) => t >= tailFrom).map(([, v]) => v)).median;
  // No media to settle (the call died or never carried video): nothing to time.
  if (steady === null || steady < minToleranceKbps) return { steadyKbps: steady, timeToSteadyS: null, n: samples.length };
  const band = Math.max(steady * tolerance, minToleranceKbps);
  const lastStart = samples.at(-1)[0] - smoothS + 1e-9;
  let firstInBand = null;
  let end = 0;
  let sum = 0;
  for (let i = 0; i < samples.length && samples[i][0] <= lastStart; i += 1) {
    const t = samples[i][0];
    while (end < samples.length && samples[end][0] < t + smoothS) sum += samples[end++][1];
    const smoothed = sum / (end - i);
    sum -= samples[i][1];
    if (Math.abs(smoothed - steady) > band) firstInBand = null;
    else if (firstInBand === null) firstInBand = t;
  }
  return { steadyKbps: steady, timeToSteadyS: firstInBand === null ? null : firstInBand - fromS, n: samples.length };
}

/**
 * Time to steady video rate for every flow after every change point.
 * @param {Array<object>} timeline @param {Array<object>} scheduleEvents @param {number} endS
 * @returns {{flows: Array<{receiver: string, sender: string}>, changes: Array<{atS: number, untilS: number, events: Array<object>,
 *   perFlow: Array<{steadyKbps: number|null, timeToSteadyS: number|null, n: number}>, meanS: number|null}>}}
 */
export function timeToSteadyTable(timeline, scheduleEvents, endS) {
  const fl = flows(timeline);
  const series = fl.map((f) => pairSeries(timeline, f.receiver, f.sender, (e) => metricAt(e, 'video.recvKbps')));
  const changes = changePoints(scheduleEvents, endS).map((c) => {
    const perFlow = series.map((pts) => timeToSteady(pts, c.atS, c.untilS));
    return { ...c, perFlow, meanS: mean(perFlow.map((r) => r.timeToSteadyS)) };
  });
  return { flows: fl, changes };
}

/**
 * What a change point changed, e.g. "rateKbps 1000→3000 (p0.up, p1.up)", from the links' params
 * just before and the event params.
 * @param {Array<{link?: string, params?: object, cause?: string}>} events
 * @param {import('./network.js').NetworkSection} network
 * @param {number} atS
 * @returns {string}
 */
export function describeChange(events, network, atS) {
  if (!events.length) return 'call start';
  const histories = linkHistories(network);
  /** @type {Map<string, string[]>} change text -> links */
  const changes = new Map();
  for (const e of events) {
    const before = [...(histories.get(e.link) ?? [])].reverse().find((h) => h.t < atS - 1e-6)?.params ?? {};
    for (const [key, value] of Object.entries(e.params ?? {})) {
      if (before[key] === value) continue;
      const text = `${key} ${before[key] ?? '–'}→${value ?? '–'}`;
      if (!changes.has(text)) changes.set(text, []);
      changes.get(text).push(e.link ?? '?');
    }
  }
  if (!changes.size) return [...new Set(events.map((e) => e.cause).filter(Boolean))].join(', ') || 'schedule change';
  return [...changes].map(([text, links]) => `${text} (${[...new Set(links)].join(', ')})`).join('; ');
}

/**
 * Jain's index among the flows (routes) that share a link, per second and summarised. Links
 * carrying the same set of flows are reported together. A flow counts in a second when its
 * receiver has a video or audio rate for it; seconds with fewer than two flows are skipped.
 * @param {Array<object>} timeline @param {Record<string, string[]>} routes @param {[number, number]} windowS
 * @returns {Array<{links: string[], flows: string[], series: Points, mean: number|null,
 *   byActiveFlows: Record<string, {mean: number|null, n: number}>, flowMeansKbps: Record<string, number|null>}>}
 */
export function jainBySharedLink(timeline, routes, windowS) {
  const [from, to] = windowS;
  /** @type {Map<string, string[]>} flow set -> links */
  const groups = new Map();
  const linkFlows = new Map();
  for (const [route, links] of Object.entries(routes ?? {})) {
    for (const link of Array.isArray(links) ? links : []) {
      if (!linkFlows.has(link)) linkFlows.set(link, []);
      linkFlows.get(link).push(route);
    }
  }
  for (const [link, fl] of linkFlows) {
    if (fl.length < 2) continue;
    const key = [...fl].sort().join(' ');
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(link);
  }
  /** @type {Map<string, Map<number, number>>} route -> second -> kbps */
  const rates = new Map();
  for (const e of timeline) {
    if (!e?.peer || !e.remote || !(e.t >= from && e.t <= to)) continue;
    const v = totalRecvKbps(e);
    if (v === null) continue;
    const route = `${e.remote}->${e.peer}`;
    if (!rates.has(route)) rates.set(route, new Map());
    rates.get(route).set(Math.round(e.t), v);
  }
  return [...groups].map(([key, links]) => {
    const fl = key.split(' ');
    const seconds = [...new Set(fl.flatMap((f) => [...(rates.get(f)?.keys() ?? [])]))].sort((a, b) => a - b);
    /** @type {Points} */
    const series = [];
    /** @type {Record<string, number[]>} */
    const byCount = {};
    for (const s of seconds) {
      const active = fl.map((f) => rates.get(f)?.get(s)).filter((v) => v !== undefined);
      const j = active.length >= 2 ? jainIndex(active) : null;
      if (j === null) continue;
      series.push([s, j]);
      (byCount[active.length] ??= []).push(j);
    }
    const byActiveFlows = Object.fromEntries(Object.entries(byCount).map(([k, js]) => [k, { mean: mean(js), n: js.length }]));
    const flowMeansKbps = Object.fromEntries(fl.map((f) => [f, mean([...(rates.get(f)?.values() ?? [])])]));
    return { links: links.sort(), flows: fl, series, mean: mean(series.map(([, j]) => j)), byActiveFlows, flowMeansKbps };
  });
}
