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
