// Chromium field trials for a run's browsers (pure): `Trial/Group/` pairs as Chromium's --force-fieldtrials reads them,
// e.g. `WebRTC-Bwe-LossBasedBweV2/Enabled:false/` switches today's loss-based bandwidth estimator off, so a run can
// show which part of WebRTC moves a figure. Validated at the edge: one argv element, never a shell word.
import { InputError } from '../system/errors.js';
import { describeValue } from '../input/validate.js';

/** Longer than any trial set a run needs; Chromium's own command line stays short. */
export const MAX_FIELD_TRIALS_CHARS = 1024;
export const MAX_FIELD_TRIALS = 16;
/** A trial's name or group: WebRTC's trials use letters, digits and `-_.`, groups also `:,` for their parameters. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const GROUP = /^[A-Za-z0-9._:,-]+$/;
const EXAMPLE = 'e.g. WebRTC-Bwe-LossBasedBweV2/Enabled:false/';

/**
 * The scenario's `fieldTrials` or --field-trials: null (none) or the canonical `Trial/Group/…/` string.
 * @param {unknown} raw @param {string} where "file: fieldTrials" or "--field-trials"
 * @returns {string|null}
 */
export function normalizeFieldTrials(raw, where) {
  if (raw === undefined || raw === null || raw === '') return null;
  if (typeof raw !== 'string') throw new InputError(`${where}: ${describeValue(raw)} is not a field-trial string; write Trial/Group/ pairs, ${EXAMPLE}`);
  if (raw.length > MAX_FIELD_TRIALS_CHARS) {
    throw new InputError(`${where}: ${raw.length} characters, more than ${MAX_FIELD_TRIALS_CHARS}; give fewer trials`);
  }
  if (!raw.endsWith('/')) throw new InputError(`${where}: ${describeValue(raw.slice(0, 80))} must end with '/' (Trial/Group/ pairs, ${EXAMPLE})`);
  const parts = raw.slice(0, -1).split('/');
  if (parts.length % 2 !== 0) throw new InputError(`${where}: a trial without its group; write Trial/Group/ pairs, ${EXAMPLE}`);
  const names = parts.filter((_, i) => i % 2 === 0);
  if (names.length > MAX_FIELD_TRIALS) throw new InputError(`${where}: ${names.length} trials, more than ${MAX_FIELD_TRIALS}; give fewer`);
  for (let i = 0; i < parts.length; i += 2) {
    if (!NAME.test(parts[i])) throw new InputError(`${where}: trial name ${describeValue(parts[i].slice(0, 80))} must be letters, digits, '.', '_' and '-'`);
    if (!GROUP.test(parts[i + 1])) {
      throw new InputError(`${where}: ${parts[i]}'s group ${describeValue(parts[i + 1].slice(0, 80))} must be letters, digits and '.', '_', '-', ':', ','`);
    }
  }
  const repeated = names.find((name, i) => names.indexOf(name) !== i);
  if (repeated) throw new InputError(`${where}: trial ${repeated} is given twice; keep one group for it`);
  return raw;
}
