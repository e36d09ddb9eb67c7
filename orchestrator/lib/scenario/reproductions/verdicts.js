// RFC 8868 §2's criteria for the RFC 8867 cases (pure): each case's measured utilisation, queuing delay, loss,
// fairness and convergence time, and a verdict per criterion. RFC 8868 sets no thresholds; where a verdict is given
// it uses this harness's own convergence criterion (lib/cross/fairness.js CONVERGENCE) and says so.
import { CONVERGENCE } from '../../cross/fairness.js';

const HARNESS = `this harness's convergence criterion (Jain's index ≥ ${CONVERGENCE.jainIndex} held ${CONVERGENCE.holdS} s, lib/cross/fairness.js); no threshold in RFC 8868`;

/**
 * @typedef {object} Criterion
 * @property {string} id
 * @property {string} path       the column's value
 * @property {string} heading
 * @property {boolean} competing  judged only in cases with two or more flows on the bottleneck
 * @property {((value: number|null) => boolean)|null} met  null: no threshold in RFC 8868
 * @property {string} threshold  how it is judged, cited
 */

/** @type {readonly Criterion[]} */
export const RMCAT_CRITERIA = Object.freeze([
  { id: 'utilization', path: 'bottleneck.utilization', heading: 'Utilisation (RFC 8868 §2)', competing: false, met: null, threshold: 'no threshold in RFC 8868' },
  { id: 'queue-delay', path: 'bottleneck.queueDelayMs', heading: 'Queuing delay (RFC 8868 §2)', competing: false, met: null, threshold: 'no threshold in RFC 8868' },
  { id: 'loss', path: 'lossPct', heading: 'Loss (RFC 8868 §2)', competing: false, met: null, threshold: 'no threshold in RFC 8868' },
  {
    id: 'fairness', path: 'jainIndex', heading: 'Fairness, Jain (RFC 8868 §2)', competing: true,
    met: (/** @type {number|null} */ value) => value !== null && value >= CONVERGENCE.jainIndex, threshold: `≥ ${CONVERGENCE.jainIndex}: ${HARNESS}`,
  },
  {
    id: 'convergence', path: 'convergenceS', heading: 'Convergence time (RFC 8868 §2)', competing: true,
    met: (/** @type {number|null} */ value) => value !== null, threshold: `reached after every join and leave: ${HARNESS}`,
  },
].map((criterion) => Object.freeze(criterion)));

/** Per-run values a verdict reads beside the table's columns (lib/scenario/reproductions/derived.js). */
export const VERDICT_PATHS = Object.freeze(['fairness.changes']);

/** The cases with a single media flow on the bottleneck (RFC 8867 §5.1 and §5.3), where fairness does not apply. */
const SINGLE_FLOW = ['rmcat-5.1', 'rmcat-5.3'];

/**
 * The expected behaviour the scenario's reference quotes from RFC 8867 (its first sentence), or null.
 * @param {unknown} reference
 */
export function expectedBehaviour(reference) {
  const notes = /** @type {{ notes?: unknown }} */ (reference ?? {}).notes;
  const match = typeof notes === 'string' ? /Expected behaviour \((RFC 8867 §[^)]*)\): (.+?\.)(?= [A-Z]|$)/.exec(notes) : null;
  return match ? `${match[1]}: ${match[2]}` : null;
}

/**
 * One case's verdict from our medians.
 * @param {string} scenario
 * @param {Record<string, number|null>} medians by column path, and by VERDICT_PATHS
 * @returns {{ criteria: { id: string, value: number|null, verdict: 'met'|'not met'|'measured'|'not applicable', threshold: string }[],
 *   verdict: 'met'|'not met'|'measured'|'no runs' }}
 */
export function rmcatVerdict(scenario, medians) {
  const criteria = RMCAT_CRITERIA.map(({ id, path, competing, met, threshold }) => {
    const value = medians[path] ?? null;
    if (competing && SINGLE_FLOW.includes(scenario)) return { id, value, verdict: /** @type {const} */ ('not applicable'), threshold: 'one media flow' };
    // A convergence time is counted from a flow joining or leaving: a case whose flows all ran through the window has none.
    if (id === 'convergence' && medians['fairness.changes'] === 0) {
      return { id, value, verdict: /** @type {const} */ ('not applicable'), threshold: 'no flow joined or left in the measurement window' };
    }
    if (!met) return { id, value, verdict: /** @type {const} */ ('measured'), threshold };
    return { id, value, verdict: met(value) ? /** @type {const} */ ('met') : /** @type {const} */ ('not met'), threshold };
  });
  const judged = criteria.filter((c) => c.verdict === 'met' || c.verdict === 'not met');
  const anyValue = Object.values(medians).some((v) => v !== null && v !== undefined);
  const verdict = !anyValue ? 'no runs' : judged.some((c) => c.verdict === 'not met') ? 'not met' : judged.length ? 'met' : 'measured';
  return { criteria, verdict };
}
