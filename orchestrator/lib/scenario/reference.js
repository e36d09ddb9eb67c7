// The owner of a scenario's published reference (pure): its one shape, its validation, and the one reader that the
// loader, the run summary, the reports, the suites and the reproduction pages all use. Format: docs/scenario-format.md.
//
//   "reference": {
//     "source": "J16 §8-1-4, table 8-4",
//     "notes": "free text",
//     "metrics": { "<catalogue path>": { "mean": 1149.9, "sd": 128.8 } }
//   }
//
// Every key of `metrics` is a path of the metric catalogue (lib/result/metric-catalogue.js): per-second metrics ('video.recvKbps')
// and per-run ones ('utilization', 'setupMs', 'jainIndex', …) alike, in the metric's own unit (utilisation a
// fraction). A metric measured after each schedule change (timeToSteadyS) may give the published value per change,
// keyed by the change's time in the scenario as written: { "byChangeAtS": { "60": 16, "180": 18 } }; its mean is
// then the mean over those changes (and may be left out), and a run is compared over the same changes.
import { InputError } from '../system/errors.js';
import { expectNumber, expectObject, expectText, isRecord } from '../input/validate.js';
import { METRIC_PATHS } from '../result/metric-catalogue.js';

export const REFERENCE_FIELDS = ['source', 'notes', 'metrics'];
export const REFERENCE_VALUE_FIELDS = ['mean', 'sd', 'byChangeAtS'];
/** The per-run metrics measured after each schedule change, whose reference may be given per change. */
export const PER_CHANGE_PATHS = ['timeToSteadyS'];

/**
 * @typedef {{ mean: number, sd: number|null, byChangeAtS?: Record<string, number> }} ReferenceValue
 *   byChangeAtS: only for PER_CHANGE_PATHS; keys are nominal seconds (the scenario's schedule times)
 * @typedef {{ source: string, notes: string|null, metrics: Record<string, ReferenceValue> }} Reference
 */

/**
 * Validates a scenario's `reference` section and returns it in its one shape (sd null when not given).
 * @param {unknown} raw
 * @param {string} where e.g. "orchestrator/scenarios/bandwidth-1500.json: reference"
 * @returns {Reference|null}
 */
export function validateReference(raw, where) {
  if (raw === undefined || raw === null) return null;
  if (raw && typeof raw === 'object' && 'utilization' in raw) {
    throw new InputError(`${where}.utilization: move it to ${where}.metrics.utilization as { "mean": <fraction> }`);
  }
  const reference = expectObject(raw, where, REFERENCE_FIELDS);
  const source = expectText(reference.source, `${where}.source`);
  const notes = reference.notes === undefined || reference.notes === null ? null : expectText(reference.notes, `${where}.notes`);
  const metrics = expectObject(reference.metrics ?? {}, `${where}.metrics`, METRIC_PATHS);
  /** @type {Record<string, ReferenceValue>} */
  const values = {};
  for (const [path, value] of Object.entries(metrics)) {
    const at = `${where}.metrics.${path}`;
    const entry = expectObject(value, at, REFERENCE_VALUE_FIELDS);
    const sd = entry.sd === undefined || entry.sd === null ? null : expectNumber(entry.sd, `${at}.sd`, { min: 0 });
    if (entry.byChangeAtS === undefined) {
      values[path] = { mean: expectNumber(entry.mean, `${at}.mean`), sd };
      continue;
    }
    const byChangeAtS = validateByChange(entry.byChangeAtS, path, `${at}.byChangeAtS`);
    const changesMean = Object.values(byChangeAtS).reduce((a, b) => a + b, 0) / Object.keys(byChangeAtS).length;
    const mean = entry.mean === undefined ? changesMean : expectNumber(entry.mean, `${at}.mean`);
    if (Math.abs(mean - changesMean) > 0.01 * Math.abs(changesMean)) {
      throw new InputError(`${at}.mean: ${mean} is not the mean of byChangeAtS (${changesMean}); leave it out or correct it`);
    }
    values[path] = { mean, sd, byChangeAtS };
  }
  return { source, notes, metrics: values };
}

/**
 * @param {unknown} raw @param {string} path @param {string} where
 * @returns {Record<string, number>} nominal change time (s, as written) -> published value
 */
function validateByChange(raw, path, where) {
  if (!PER_CHANGE_PATHS.includes(path)) {
    throw new InputError(`${where}: only ${PER_CHANGE_PATHS.join(', ')} ${PER_CHANGE_PATHS.length > 1 ? 'are' : 'is'} measured per schedule change; give ${path} as { "mean": … }`);
  }
  const byChange = expectObject(raw, where);
  if (!Object.keys(byChange).length) throw new InputError(`${where}: give at least one change, e.g. { "60": 16 }`);
  /** @type {Record<string, number>} */
  const values = {};
  for (const [atS, value] of Object.entries(byChange)) {
    if (!/^\d+(\.\d+)?$/.test(atS)) throw new InputError(`${where}: key '${atS}' is not a change time in seconds (e.g. "60")`);
    values[atS] = expectNumber(value, `${where}.${atS}`, { min: 0 });
  }
  return values;
}

/**
 * The published value of one catalogue metric, or null. Reads results of any age: a reference that is not an
 * object, or a value without a finite mean, gives null.
 * @param {unknown} reference a scenario's reference (result.scenario.reference)
 * @param {string} path a catalogue path
 * @returns {ReferenceValue|null}
 */
export function referenceValue(reference, path) {
  const metrics = isRecord(reference) ? reference.metrics : undefined;
  const value = isRecord(metrics) ? metrics[path] : undefined;
  if (!isRecord(value) || typeof value.mean !== 'number' || !Number.isFinite(value.mean)) return null;
  const sd = typeof value.sd === 'number' && Number.isFinite(value.sd) ? value.sd : null;
  const byChange = value.byChangeAtS && typeof value.byChangeAtS === 'object'
    ? Object.entries(value.byChangeAtS).filter(([atS, v]) => Number.isFinite(Number(atS)) && Number.isFinite(v)) : [];
  return byChange.length ? { mean: value.mean, sd, byChangeAtS: Object.fromEntries(byChange) } : { mean: value.mean, sd };
}
