// The owner of a scenario's published reference (pure): its one shape, its validation, and the one reader that the
// loader, the run summary, the reports, the suites and the reproduction pages all use. Format: docs/scenario-format.md.
//
//   "reference": {
//     "source": "J16 §8-1-4, table 8-4",
//     "notes": "free text",
//     "metrics": { "<catalogue path>": { "mean": 1149.9, "sd": 128.8 } }
//   }
//
// Every key of `metrics` is a path of the metric catalogue (lib/metrics.js): per-second metrics ('video.recvKbps')
// and per-run ones ('utilization', 'setupMs', 'jainIndex', …) alike.
import { InputError } from './errors.js';
import { expectNumber, expectObject, expectText } from './validate.js';
import { METRIC_PATHS } from './metrics.js';

export const REFERENCE_FIELDS = ['source', 'notes', 'metrics'];
export const REFERENCE_VALUE_FIELDS = ['mean', 'sd'];

/**
 * @typedef {{ mean: number, sd: number|null }} ReferenceValue
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
    const entry = expectObject(value, `${where}.metrics.${path}`, REFERENCE_VALUE_FIELDS);
    const mean = expectNumber(entry.mean, `${where}.metrics.${path}.mean`);
    const sd = entry.sd === undefined || entry.sd === null ? null : expectNumber(entry.sd, `${where}.metrics.${path}.sd`, { min: 0 });
    values[path] = { mean, sd };
  }
  return { source, notes, metrics: values };
}

/**
 * The published value of one catalogue metric, or null. Reads results of any age: a reference that is not an
 * object, or a value without a finite mean, gives null.
 * @param {unknown} reference a scenario's reference (result.scenario.reference)
 * @param {string} path a catalogue path
 * @returns {ReferenceValue|null}
 */
export function referenceValue(reference, path) {
  const value = /** @type {any} */ (reference)?.metrics?.[path];
  if (!value || typeof value !== 'object' || !Number.isFinite(value.mean)) return null;
  return { mean: value.mean, sd: Number.isFinite(value.sd) ? value.sd : null };
}
