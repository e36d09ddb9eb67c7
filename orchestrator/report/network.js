// The configured network condition as step functions of time, from result.network. Pure.
//
// A step series is an array of [tS, value] points: value holds from tS until the next point; the
// last point repeats the final value at the end of the span so the line reaches the right edge.
// What a route's capacity, delay and loss are is lib/network/link-model.js's pathConditions.

import { LINK_FIELD_SPECS, pathConditions, sameLinkParams } from '../lib/network/link-model.js';

/**
 * @typedef {import('../lib/network/link-model.js').LinkParams} LinkParams
 * @typedef {Partial<LinkParams>} RecordedLinkParams  as a result holds them: an aborted or hand-edited one may lack fields
 * @typedef {{links?: Record<string, RecordedLinkParams>, routes?: Record<string, string[]>,
 *   configured?: Array<{t: number, link: string} & RecordedLinkParams>}} NetworkSection
 * @typedef {Array<[number, number|null]>} StepSeries
 * @typedef {Map<string, Array<{t: number, params: RecordedLinkParams}>>} LinkHistories
 */

/**
 * Per link, its parameters over time: network.links gives the values before the first
 * network.configured entry, each configured entry the values from its t on. Entries that repeat
 * the previous values (network.configured is sampled every second) are left out.
 * @param {NetworkSection} network @returns {LinkHistories}
 */
export function linkHistories(network) {
  /** @type {LinkHistories} */
  const histories = new Map();
  for (const [link, params] of Object.entries(network?.links ?? {})) histories.set(link, [{ t: -Infinity, params: params ?? {} }]);
  const configured = (network?.configured ?? []).filter((c) => c && typeof c.t === 'number' && c.link);
  for (const entry of [...configured].sort((a, b) => a.t - b.t)) {
    const { t, link, ...params } = entry;
    const history = histories.get(link) ?? [];
    histories.set(link, history);
    const last = history.at(-1);
    // A field missing on both sides compares equal (undefined), as it should for a partial result.
    const same = last && sameLinkParams(/** @type {LinkParams} */ (last.params), /** @type {LinkParams} */ (params));
    if (!same) history.push({ t, params });
  }
  return histories;
}

/**
 * Missing or malformed fields as a scenario that leaves them out (no cap, no delay, no loss), so partial results still chart.
 * @param {RecordedLinkParams} p @returns {LinkParams}
 */
function complete(p) {
  const value = (/** @type {import('../lib/network/link-model.js').LinkField} */ { field, unset, range }) => {
    const v = p[field];
    if (!range) return typeof v === 'string' ? v : unset;
    return typeof v === 'number' && Number.isFinite(v) ? v : unset;
  };
  return /** @type {LinkParams} */ (Object.fromEntries(LINK_FIELD_SPECS.map((spec) => [spec.field, value(spec)])));
}

/**
 * A field of pathConditions(route) at each time any link of the route changes, within [startS, endS].
 * @param {LinkHistories} histories
 * @param {string[]} route link names
 * @param {'rateKbps'|'oneWayDelayMs'|'lossPct'} field
 * @param {{startS: number, endS: number}} span
 * @returns {StepSeries|null} null when no link of the route is known, or the field is null throughout
 */
export function pathSteps(histories, route, field, { startS, endS }) {
  if (!route.some((link) => histories.has(link))) return null;
  const lists = route.map((link) => histories.get(link) ?? []);
  const times = [...new Set(lists.flatMap((h) => h.map((e) => e.t)).filter((t) => t > startS && t <= endS))].sort((a, b) => a - b);
  const cursors = lists.map(() => -1);
  /** @type {StepSeries} */
  const steps = [];
  for (const t of [startS, ...times]) {
    const params = Object.fromEntries(route.map((link, i) => {
      const h = lists[i];
      while (cursors[i] + 1 < h.length && h[cursors[i] + 1].t <= t) cursors[i] += 1;
      return [link, complete(cursors[i] >= 0 ? h[cursors[i]].params : {})];
    }));
    const value = pathConditions(params, route)[field];
    const previous = steps.at(-1);
    if (!previous || previous[1] !== value) steps.push([t, value]);
  }
  const last = steps.at(-1);
  if (!last || steps.every(([, v]) => v === null)) return null;
  if (last[0] < endS) steps.push([endS, last[1]]);
  return steps;
}

/** @param {NetworkSection} network @param {string} from @param {string} to @returns {string[]|null} */
export function routeLinks(network, from, to) {
  const route = network?.routes?.[`${from}->${to}`];
  return Array.isArray(route) && route.length ? route : null;
}

/**
 * Configured condition between two peers over [startS, endS]: capacity and loss of the route
 * from -> to, and the RTT, i.e. the one-way delays of both routes summed.
 * @param {NetworkSection} network @param {string} from @param {string} to @param {{startS: number, endS: number}} span
 * @param {LinkHistories} [histories] pass when calling repeatedly
 * @returns {{capacityKbps: StepSeries|null, lossPct: StepSeries|null, rttMs: StepSeries|null}}
 */
export function configuredPath(network, from, to, span, histories = linkHistories(network)) {
  const forward = routeLinks(network, from, to);
  const back = routeLinks(network, to, from);
  return {
    capacityKbps: forward && pathSteps(histories, forward, 'rateKbps', span),
    lossPct: forward && pathSteps(histories, forward, 'lossPct', span),
    rttMs: forward && back ? pathSteps(histories, [...forward, ...back], 'oneWayDelayMs', span) : null,
  };
}
