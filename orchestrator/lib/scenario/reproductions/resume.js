// Which runs `reproduce --resume` keeps (pure): a run directory's result.json is complete when the run finished
// (passed or failed, with its summary) for the same scenario at the same length; anything else is re-run.

/** The statuses of a run that went to its end; `aborted` (Ctrl-C, a crashed peer) is partial. */
const FINISHED = ['passed', 'failed'];

/**
 * any: a parsed JSON file, checked field by field below
 * @param {any} result a parsed result.json, or null when there is none or it does not parse
 * @param {{ name: string, durationS: number }} scenario the scenario the suite would run there
 * @returns {{ keep: boolean, why: string }}
 */
export function resumeDecision(result, scenario) {
  if (!result) return { keep: false, why: 'no readable result.json' };
  if (!FINISHED.includes(result.status)) return { keep: false, why: `status ${result.status ?? 'unknown'} (partial)` };
  if (!result.summary) return { keep: false, why: 'no summary (partial)' };
  if (result.scenario?.name !== scenario.name) return { keep: false, why: `result of ${result.scenario?.name ?? 'another scenario'}` };
  if (result.scenario?.durationS !== scenario.durationS) {
    return { keep: false, why: `ran ${result.scenario?.durationS} s, this plan ${scenario.durationS} s (another --time-scale?)` };
  }
  return { keep: true, why: `complete (${result.status})` };
}
