// Which runs `reproduce --resume` keeps (pure): a run directory's result.json is complete when the run finished
// (passed or failed, with its summary) for the same scenario at the same length with the same congestion control;
// anything else is re-run.
import { fieldOf, isOneOf } from '../../input/validate.js';
import { congestionVariantOf } from './run-kinds.js';

/** The statuses of a run that went to its end; `aborted` (Ctrl-C, a crashed peer) is partial. */
const FINISHED = ['passed', 'failed'];

/** @typedef {{ name: string, durationS: number, fieldTrials: string|null, bandwidthEstimation: string }} ResumeScenario */

/**
 * @param {unknown} result a parsed result.json, or null when there is none or it does not parse; checked field by field
 * @param {ResumeScenario} scenario the scenario the suite would run there
 * @returns {{ keep: boolean, why: string }}
 */
export function resumeDecision(result, scenario) {
  if (!result) return { keep: false, why: 'no readable result.json' };
  const status = fieldOf(result, 'status');
  if (!isOneOf(FINISHED, status)) return { keep: false, why: `status ${status ?? 'unknown'} (partial)` };
  if (!fieldOf(result, 'summary')) return { keep: false, why: 'no summary (partial)' };
  const ran = fieldOf(result, 'scenario');
  const name = fieldOf(ran, 'name');
  if (name !== scenario.name) return { keep: false, why: `result of ${name ?? 'another scenario'}` };
  const durationS = fieldOf(ran, 'durationS');
  if (durationS !== scenario.durationS) {
    return { keep: false, why: `ran ${durationS} s, this plan ${scenario.durationS} s (another --time-scale?)` };
  }
  const variant = congestionVariantOf(ran, scenario);
  if (variant.length) return { keep: false, why: `ran with ${variant.join(' and ')}, unlike this plan (another --field-trials or --bandwidth-estimation?)` };
  return { keep: true, why: `complete (${status})` };
}
