// The report's side of the derived figures: what a schedule change changed, and how a run's per-change times to
// steady rate line up with a reference given per change. The figures themselves (time to steady rate, Jain's index)
// are computed by lib/steady-rate.js and lib/fairness.js, for the run summary and the report alike. Pure.

import { linkHistories } from './network.js';
import { meanOf } from '../lib/steady-rate.js';

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
  const scale = timeScale > 0 ? timeScale : 1;
  const keys = Object.keys(byChangeAtS);
  const published = changes.map((c) => {
    const key = keys.find((atS) => c.atS > 0 && Math.abs(c.atS / scale - Number(atS)) <= 1);
    return key === undefined ? null : byChangeAtS[key];
  });
  const matched = changes.filter((_, i) => published[i] !== null);
  const unmatched = keys.filter((atS) => !changes.some((c) => c.atS > 0 && Math.abs(c.atS / scale - Number(atS)) <= 1));
  return { published, runMeanS: meanOf(matched.map((c) => c.meanS)), unmatched };
}

// Cross-traffic flows (issue 12): result.flows and summary.fairness, as lib/flows.js and lib/fairness.js write them.

/**
 * @typedef {{ name: string, kind?: string, startS?: number, stopS?: number, pauses?: Array<{ atS: number, durationS: number }>,
 *   links?: string[] }} ResultFlow  an entry of result.flows.list (times on the media clock, already time-scaled)
 * @typedef {{ atS: number, change: string, flow: string, convergenceS?: number|null }} FlowChange
 * @typedef {{ fromS: number, toS: number, flows: string[], meanKbps: Record<string, number|null>,
 *   share: Record<string, number|null>|null, utilization: number|null, jainIndex: number|null, changes: FlowChange[] }} FairnessPhase
 * @typedef {{ link: string, flows: string[], phases: FairnessPhase[], jainIndex: number|null, jainIndexPerSecond: number|null,
 *   utilization: number|null, unmatched: FlowChange[] }} LinkFairness
 */

/** The flow a rate row belongs to without its direction: "call-2:fwd" -> "call-2" (one colour for both directions). */
export function flowBase(flow) {
  return flow.replace(/:(fwd|back)$/, '');
}

/**
 * The bottleneck link a flow of result.flows.rows crosses: a call's direction by its suffix (the contract puts every
 * call's first peer left of the bottleneck: ":fwd" crosses bottleneck.fwd, ":back" bottleneck.back); any other flow by
 * the links its result.flows.list entry names. Null for a flow that crosses neither.
 * @param {string} flow @param {ResultFlow[]} list @returns {string|null}
 */
export function flowLink(flow, list) {
  const direction = /:(fwd|back)$/.exec(flow)?.[1];
  if (direction) return `bottleneck.${direction}`;
  const links = list.find((f) => f.name === flow)?.links ?? [];
  return links.find((l) => l === 'bottleneck.fwd' || l === 'bottleneck.back') ?? null;
}

/**
 * When each flow of result.flows.list joins, leaves, pauses and resumes, inside the run (0 < atS < durationS).
 * @param {ResultFlow[]} list @param {number} durationS
 * @returns {Array<{ atS: number, flow: string, change: 'joins'|'leaves'|'pauses'|'resumes' }>} in time order
 */
export function flowEvents(list, durationS) {
  const events = list.flatMap((f) => [
    { atS: f.startS ?? 0, flow: f.name, change: /** @type {const} */ ('joins') },
    { atS: f.stopS ?? durationS, flow: f.name, change: /** @type {const} */ ('leaves') },
    ...(f.pauses ?? []).flatMap((p) => [
      { atS: p.atS, flow: f.name, change: /** @type {const} */ ('pauses') },
      { atS: p.atS + p.durationS, flow: f.name, change: /** @type {const} */ ('resumes') },
    ]),
  ]);
  return events.filter((e) => Number.isFinite(e.atS) && e.atS > 0 && e.atS < durationS).sort((a, b) => a.atS - b.atS);
}

/** @param {unknown} v */
const numberOrNull = (v) => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/**
 * One fairness model for the report's table, whichever way the run measured it: per bottleneck link from
 * summary.fairness (a run with flows: phases from the flows' configured intervals, each starting with the changes of
 * its convergence list), else per group of shared links from the routes (lib/fairness.js jainBySharedLink, phases
 * from the measured rates, only those with two or more flows).
 * @param {any} summary result.summary
 * @param {import('../lib/fairness.js').SharedLinkFairness[]} groups
 * @returns {{ byFlows: boolean, links: LinkFairness[] }}
 */
export function fairnessByLink(summary, groups) {
  const written = summary?.fairness?.links;
  if (written && typeof written === 'object' && Object.keys(written).length) {
    const links = Object.entries(written).map(([link, f]) => {
      const phasesIn = Array.isArray(f?.phases) ? f.phases.filter((p) => Number.isFinite(p?.fromS) && Array.isArray(p.flows)) : [];
      /** @type {FlowChange[]} */
      const changes = Array.isArray(f?.convergence) ? f.convergence.filter((c) => Number.isFinite(c?.atS)) : [];
      const phases = phasesIn.map((p) => ({
        fromS: p.fromS, toS: p.toS, flows: p.flows, meanKbps: p.meanKbps ?? {}, share: p.share ?? null,
        utilization: numberOrNull(p.utilization), jainIndex: numberOrNull(p.jainIndex),
        changes: changes.filter((c) => Math.abs(c.atS - p.fromS) <= 0.5),
      }));
      return {
        link, flows: [...new Set(phases.flatMap((p) => p.flows))], phases,
        jainIndex: numberOrNull(f?.jainIndex), jainIndexPerSecond: numberOrNull(f?.jainIndexPerSecond),
        utilization: numberOrNull(f?.utilization),
        unmatched: changes.filter((c) => !phases.some((p) => p.changes.includes(c))),
      };
    });
    return { byFlows: true, links };
  }
  return {
    byFlows: false,
    links: groups.map((g) => ({
      link: g.links.join(', '), flows: g.flows,
      phases: g.phases.filter((p) => p.jainIndex !== null).map((p) => ({ ...p, share: null, utilization: null, changes: [] })),
      jainIndex: g.jainIndex, jainIndexPerSecond: g.jainIndexPerSecond, utilization: null, unmatched: [],
    })),
  };
}
