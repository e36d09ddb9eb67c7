// The `encodings` of a stats sample (a simulcast/SVC publisher's per-encoding sender stats: client-app/publish.js),
// checked at the signaling edge like the rest of a page's message (signaling/messages.js). Pure; never throws.
import { describeValue } from './describe.js';

/** What each field of an encoding may be besides null. */
const ENCODING_KINDS = Object.freeze({
  rid: 'text', widthPx: 'number', heightPx: 'number', fps: 'number', kbps: 'number', active: 'boolean',
  qualityLimitationReason: 'text', scalabilityMode: 'text',
});
export const ENCODING_FIELDS = Object.freeze(Object.keys(ENCODING_KINDS));
/** Simulcast sends at most three rids; one more leaves room for a browser's spare. */
export const MAX_ENCODINGS = 4;
const MAX_TEXT_CHARS = 16;
/** Rates, sizes and frame rates: anything bigger is garbage (as signaling/messages.js MAX_SAMPLE_ABS_VALUE). */
const MAX_NUMBER = 1e12;

/**
 * One field's value, or why it is not one.
 * @param {string} kind @param {unknown} value @returns {string|null} the fault
 */
function fault(kind, value) {
  if (value === null) return null;
  if (kind === 'number') return typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= MAX_NUMBER ? null : `must be a number from 0 to ${MAX_NUMBER}`;
  if (kind === 'text') return typeof value === 'string' && value.length <= MAX_TEXT_CHARS ? null : `must be a string of at most ${MAX_TEXT_CHARS} characters`;
  return typeof value === 'boolean' ? null : 'must be true or false';
}

/**
 * A publisher's encodings over the interval: an array of at most MAX_ENCODINGS objects with only ENCODING_FIELDS, each
 * null or of its kind; every field present in the value returned (absent ones null).
 * @param {unknown} value
 * @returns {{ ok: true, value: Array<Record<string, unknown>> } | { ok: false, reason: string }}
 */
export function checkEncodings(value) {
  if (!Array.isArray(value) || value.length > MAX_ENCODINGS) {
    return { ok: false, reason: `sample.encodings must be an array of at most ${MAX_ENCODINGS} encodings, got ${describeValue(value)}` };
  }
  const rows = [];
  for (const [index, item] of value.entries()) {
    const path = `sample.encodings[${index}]`;
    if (item === null || typeof item !== 'object' || Array.isArray(item)) return { ok: false, reason: `${path} must be an object, got ${describeValue(item)}` };
    const unknown = Object.keys(item).find((key) => !ENCODING_FIELDS.includes(key));
    if (unknown !== undefined) return { ok: false, reason: `${path} has an unexpected field ${describeValue(unknown)}; allowed: ${ENCODING_FIELDS.join(', ')}` };
    /** @type {Record<string, unknown>} */
    const row = {};
    for (const [key, kind] of Object.entries(ENCODING_KINDS)) {
      const field = /** @type {Record<string, unknown>} */ (item)[key] ?? null;
      const why = fault(kind, field);
      if (why) return { ok: false, reason: `${path}.${key} ${why}, got ${describeValue(field)}` };
      row[key] = field;
    }
    rows.push(row);
  }
  return { ok: true, value: rows };
}
