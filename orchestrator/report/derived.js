// The report's side of the derived figures: what a schedule change changed, and how a run's per-change times to
// steady rate line up with a reference given per change. The figures themselves (time to steady rate, Jain's index)
// are computed by lib/stats/steady-rate.js and lib/cross/fairness.js, for the run summary and the report alike. Pure.

import { linkHistories } from './network.js';
import { isChangeAt, meanOf } from '../lib/stats/steady-rate.js';

/**
 * What a change point changed, e.g. "rateKbps 1000→3000 (p0.up, p1.up)", from the links' params
 * just before and the event params.
 * @param {Array<{atS?: number, link?: string, params?: object, cause?: string}>} events
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
    /** @type {Record<string, unknown>} */
    const before = [...(histories.get(e.link ?? '') ?? [])].reverse().find((h) => h.t < atS - 1e-6)?.params ?? {};
    for (const [key, value] of Object.entries(e.params ?? {})) {
      if (before[key] === value) continue;
      const text = `${key} ${before[key] ?? '–'}→${value ?? '–'}`;
      changes.set(text, [...(changes.get(text) ?? []), e.link ?? '?']);
    }
  }
  if (!changes.size) return [...new Set(events.map((e) => e.cause).filter(Boolean))].join(', ') || 'schedule change';
  return [...changes].map(([text, links]) => `${text} (${[...new Set(links)].join(', ')})`).join('; ');
}

/**
 * A run's changes beside a reference given per change (byChangeAtS, keyed by the scenario's nominal seconds): the
 * published value of each change, matched within 1 s after undoing the run's time scale, and the run's mean over
 * the matched changes (what the reference's mean is compared with).
 * @param {Array<{atS: number, meanS: number|null}>} changes from timeToSteadyTable
 * @param {Record<string, number>|undefined} byChangeAtS
 * @param {number} timeScale the run's (nominal seconds × timeScale = run seconds)
 * @returns {{ published: Array<number|null>, runMeanS: number|null, unmatched: string[] }|null} published: per change
 */
export function perChangeReference(changes, byChangeAtS, timeScale) {
  if (!byChangeAtS) return null;
  const keys = Object.keys(byChangeAtS);
  const published = changes.map((c) => {
    const key = keys.find((atS) => isChangeAt(c, Number(atS), timeScale));
    return key === undefined ? null : byChangeAtS[key];
  });
  const matched = changes.filter((_, i) => published[i] !== null);
  const unmatched = keys.filter((atS) => !changes.some((c) => isChangeAt(c, Number(atS), timeScale)));
  return { published, runMeanS: meanOf(matched.map((c) => c.meanS)), unmatched };
}

// Cross-traffic flows (issue 12): result.flows (lib/cross/flows.js) and their fairness (lib/cross/fairness.js flowFairness).

/**
 * @typedef {import('../lib/cross/flows.js').FlowListEntry} FlowListEntry
 * @typedef {import('../lib/cross/fairness.js').Convergence} Convergence
 * @typedef {{ fromS: number, toS: number, flows: string[], meanKbps: Record<string, number|null>,
 *   shareOfCapacity: Record<string, number|null>|null, utilization: number|null, jainIndex: number|null,
 *   changes: Convergence[] }} FairnessPhase  flows: those competing (Jain's index is over them); meanKbps: every active one
 * @typedef {{ link: string, flows: string[], phases: FairnessPhase[], jainIndex: number|null, jainIndexPerSecond: number|null,
 *   utilization: number|null, unmatched: Convergence[] }} LinkFairness
 */

/**
 * When each flow of result.flows.list joins, leaves, pauses and resumes, inside the run (0 < atS < durationS).
 * @param {Array<Partial<FlowListEntry> & { name: string }>} list @param {number} durationS
 * @returns {Array<{ atS: number, flow: string, change: 'joins'|'leaves'|'pauses'|'resumes' }>} in time order
 */
export function flowEvents(list, durationS) {
  const events = list.flatMap((f) => [
    { atS: f.startS ?? 0, flow: f.name, change: /** @type {const} */ ('joins') },
    { atS: f.stopS ?? durationS, flow: f.name, change: /** @type {const} */ ('leaves') },
    ...(Array.isArray(f.pauses) ? f.pauses : []).flatMap((p) => [
      { atS: p.atS, flow: f.name, change: /** @type {const} */ ('pauses') },
      { atS: p.atS + p.durationS, flow: f.name, change: /** @type {const} */ ('resumes') },
    ]),
  ]);
  return events.filter((e) => Number.isFinite(e.atS) && e.atS > 0 && e.atS < durationS).sort((a, b) => a.atS - b.atS);
}

/**
 * One fairness model for the report's table, whichever way the run measured it: per bottleneck direction from the
 * flows (lib/cross/fairness.js flowFairness: phases from the flows' configured intervals, each with the joins and leaves
 * that start it and the convergence after them), else per group of shared links from the routes (jainBySharedLink:
 * phases from the measured rates, only those with two or more flows).
 * @param {{ links: Record<string, import('../lib/cross/fairness.js').LinkFairness> }|null} flowLinks
 * @param {import('../lib/cross/fairness.js').SharedLinkFairness[]} groups
 * @returns {{ byFlows: boolean, links: LinkFairness[] }}
 */
export function fairnessByLink(flowLinks, groups) {
  const links = Object.entries(flowLinks?.links ?? {});
  if (links.length) {
    return {
      byFlows: true,
      links: links.map(([link, f]) => {
        // The phase a change starts: the one holding the first second after it (lib/cross/fairness.js convergenceAfterChanges).
        /** @param {Convergence} c */
        const phaseOf = (c) => f.phases.find((p) => p.fromS < Math.ceil(c.atS + 0.5) && Math.ceil(c.atS + 0.5) <= p.toS);
        return {
          link, flows: f.flows, jainIndex: f.jainIndex, jainIndexPerSecond: f.jainIndexPerSecond, utilization: f.utilization,
          phases: f.phases.map((p) => ({ ...p, changes: f.convergence.filter((c) => phaseOf(c) === p) })),
          unmatched: f.convergence.filter((c) => !phaseOf(c)),
        };
      }),
    };
  }
  return {
    byFlows: false,
    links: groups.map((g) => ({
      link: g.links.join(', '), flows: g.flows,
      phases: g.phases.filter((p) => p.jainIndex !== null).map((p) => ({ ...p, shareOfCapacity: null, utilization: null, changes: [] })),
      jainIndex: g.jainIndex, jainIndexPerSecond: g.jainIndexPerSecond, utilization: null, unmatched: [],
    })),
  };
}
