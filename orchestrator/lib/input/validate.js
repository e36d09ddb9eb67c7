/**
 * Checks for values read from the harness's input files and flags. Every failure is an InputError whose
 * message starts with the path it was given ("file: field.path" or "--flag") and says what is expected.
 * Pure: no I/O.
 */
import { InputError } from '../system/errors.js';

/**
 * @typedef {{min?: number, max?: number, above?: number, integer?: boolean}} NumberRange
 */

/** @param {unknown} value */
export function describeValue(value) {
  return value === undefined ? 'nothing' : JSON.stringify(value);
}

/**
 * Throws InputError unless value is a finite number within range.
 * @param {unknown} value
 * @param {string} path  "file: field.path" named in the message
 * @param {NumberRange} [range]
 * @returns {number}
 */
export function expectNumber(value, path, { min, max, above, integer = false } = {}) {
  const ok = typeof value === 'number' && Number.isFinite(value) && (!integer || Number.isInteger(value))
    && (min === undefined || value >= min) && (max === undefined || value <= max)
    && (above === undefined || value > above);
  if (ok) return value;
  const kind = integer ? 'an integer' : 'a number';
  throw new InputError(`${path}: must be ${kind}${describeRange({ min, max, above })}, got ${describeValue(value)}`);
}

/**
 * " from 0 to 100", " > 0 and <= 60000", " >= 1": the bounds as expectNumber's messages state them.
 * @param {NumberRange} range
 */
function describeRange({ min, max, above }) {
  if (min !== undefined && max !== undefined) return ` from ${min} to ${max}`;
  return [above !== undefined && ` > ${above}`, min !== undefined && ` >= ${min}`, max !== undefined && ` <= ${max}`]
    .filter(Boolean).join(' and');
}

/**
 * Throws InputError unless value is a plain object whose keys are all in allowedKeys (catches typos).
 * @param {unknown} value
 * @param {string} path
 * @param {readonly string[]|null} [allowedKeys]  null: any keys (a map keyed by names)
 * @param {{what?: string}} [options]  what the message says it must be
 * @returns {Record<string, unknown>}  each caller checks the fields it reads
 */
export function expectObject(value, path, allowedKeys = null, { what = 'an object' } = {}) {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new InputError(`${path}: must be ${what}, got ${describeValue(value)}`);
  }
  const unknown = allowedKeys ? Object.keys(value).find((key) => !allowedKeys.includes(key)) : undefined;
  if (allowedKeys && unknown !== undefined) {
    throw new InputError(`${path}: unknown field '${unknown}'; allowed: ${allowedKeys.join(', ') || '(none)'}`);
  }
  return /** @type {Record<string, unknown>} */ (value);
}

/** @param {unknown} value @returns {value is Record<string, unknown>} a plain object (not null, not an array) */
export function isRecord(value) {
  return Boolean(value) && typeof value === 'object' && !Array.isArray(value);
}

/** @param {unknown} value @param {string} key @returns {unknown} value's field key, undefined when value is not a record */
export function fieldOf(value, key) {
  return isRecord(value) ? value[key] : undefined;
}

/**
 * The value at a path of fields, undefined from the first step that is not a record: a reader of a file of any version.
 * @param {unknown} value @param {...string} keys @returns {unknown}
 */
export function pathOf(value, ...keys) {
  return keys.reduce(fieldOf, value);
}

/**
 * Whether value is one of list's members: the check of an enumerated field, narrowing it to the members' type.
 * @template {string} T @param {readonly T[]} list @param {unknown} value @returns {value is T}
 */
export function isOneOf(list, value) {
  return list.includes(/** @type {T} */ (value));
}

/**
 * Throws InputError unless value is a string, by default one with more than white space.
 * @param {unknown} value
 * @param {string} path
 * @param {{what?: string, allowEmpty?: boolean}} [options]  what the message says it must be
 * @returns {string}
 */
export function expectText(value, path, { what = 'a non-empty string', allowEmpty = false } = {}) {
  if (typeof value !== 'string' || (!allowEmpty && value.trim() === '')) {
    throw new InputError(`${path}: must be ${what}, got ${describeValue(value)}`);
  }
  return value;
}

/**
 * Scenario and suite names become directory names and appear in generated shell scripts, so they are plain
 * words: letters, digits, '.', '_' and '-', and not '.' or '..'.
 */
export const NAME_PATTERN = /^[A-Za-z0-9._-]+$/;

/** A name by NAME_PATTERN's rule. @param {unknown} value @returns {value is string} */
export const isName = (value) => typeof value === 'string' && NAME_PATTERN.test(value) && value !== '.' && value !== '..';

/**
 * Throws InputError unless value is a name (NAME_PATTERN): a scenario or suite name read back from a result, a
 * summary or a store, where a line break or a slash would reach a workflow command, a page or a path.
 * @param {unknown} value @param {string} path @returns {string}
 */
export function expectName(value, path) {
  if (isName(value)) return value;
  throw new InputError(`${path}: must be a name of letters, digits, '.', '_' and '-' (not '.' or '..'), got ${typeof value === 'string' ? 'a string with other characters' : describeKind(value)}`);
}

/** What a value is, without quoting it (a hostile file's value may be long or hold control characters). @param {unknown} value */
export function describeKind(value) {
  if (value === null || value === undefined) return 'nothing';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return Array.isArray(value) ? 'an array' : typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/**
 * The `name` of a scenario or suite file: a valid name, equal to the file's base name.
 * @param {unknown} name  the file's `name` field
 * @param {string} baseName  the file name without .json, which the name derives from
 * @param {string} file  as the user sees it
 * @param {string} kind  "scenario", "suite"
 * @returns {string}
 */
export function expectFileName(name, baseName, file, kind) {
  if (!isName(baseName)) {
    throw new InputError(`${file}: name: a ${kind}'s name is its file's base name, and ${describeValue(baseName)} is not a valid one: rename the file to letters, digits, '.', '_' and '-' only (not '.' or '..') and set name to match`);
  }
  if (name !== baseName) {
    throw new InputError(`${file}: name: must equal the file's base name '${baseName}', got ${describeValue(name)}`);
  }
  return baseName;
}
