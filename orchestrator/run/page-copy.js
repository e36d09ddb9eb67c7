// What crosses DevTools when a collector drains a page (the audio recorder, the lip-sync listener, the frame reader):
// the drain is copied in the page within bounds (copyInPage) before it is sent, so an oversized answer is refused
// there instead of being serialized whole into the orchestrator's memory, and a drain that does not answer is reported
// by name, never waited on by the run (page-drains.js gives up on it at the end).
//
// The page's code runs first and may have replaced any global or prototype method (Object.keys, Array.from,
// Array.isArray, Array.prototype.*, Object.prototype.then, a setter on Array.prototype[0]), so the copy uses syntax
// only: typeof, for-in, a primitive string's length, indexing, template literals of numbers. It builds only objects
// with a null prototype (`{ __proto__: null }`: assigning to them calls no setter of the page, and a `then` the page put
// on Object.prototype cannot hijack the answer's promise); a list travels as `{ items, n }` and an object as
// `{ entries }`, rebuilt in Node (readPageCopy). What it reads is the page's: each value read once, and what the page
// has inherited (an enumerable key on Object.prototype) copied like its own, for the collectors' checks to refuse.

/** A copied number, boolean or null counts this many characters against the budget (a double's longest JSON). */
export const VALUE_CHARS = 24;
/** The longest reason the page's copy may give (a path of at most a few 64-character names). */
const MAX_REASON_CHARS = 1000;
/** Nesting the rebuild follows at most: no collector copies deeper than a few levels. */
const MAX_REBUILD_DEPTH = 16;

/**
 * @typedef {{ maxChars: number, maxKeys: number, maxItems: number, maxDepth: number, budgetChars: number }} CopyLimits
 *   maxChars: of one string or key; maxKeys: of one object; maxItems: of one list (anything with a numeric length);
 *   maxDepth: objects and lists deeper than this are copied as null; budgetChars: of every string and key of a drain
 *   together, each other value counted as VALUE_CHARS
 * @typedef {{ hook: 'audio'|'lipSync'|'viewer', tell: { method: string, value: number } | null, limits: CopyLimits }} CopyRequest
 *   hook: window.testbed's member (client-app/app.js) whose drain() is copied; tell: a method of it to call first
 * @typedef {{ none: true } | { threw: true } | { refused: string } | { drained: unknown }} CopyAnswer
 */

/**
 * Runs in the page (page.evaluate; it must close over nothing): the hook's drain copied within the limits, or why
 * not. Every field of the request is present (a missing one would be read from the page's Object.prototype).
 * @param {CopyRequest} request @returns {Promise<unknown>} what readPageCopy reads
 */
export async function copyInPage({ hook, tell, limits: { maxChars, maxKeys, maxItems, maxDepth, budgetChars } }) {
  let budget = budgetChars;
  let reason = '';
  // Thrown by identity: nothing the page throws can pass for it.
  const refusal = { __proto__: null };
  /** @param {string} at @param {string} what @returns {never} */
  const refuse = (at, what) => {
    reason = at === '' ? what : `${what} at ${at}`;
    throw refusal;
  };
  /** @param {string} text @param {string} at */
  const charge = (text, at) => {
    budget -= text.length;
    if (text.length > maxChars) refuse(at, `a string of ${text.length} characters (at most ${maxChars})`);
    if (budget < 0) refuse(at, `more than ${budgetChars} characters in all`);
    return text;
  };
  /** @param {string} at @param {string} key */
  const under = (at, key) => {
    const name = key.length <= 64 ? key : '…';
    return at === '' ? name : `${at}.${name}`;
  };
  /** @param {unknown} value @param {string} at @param {number} depth @returns {unknown} */
  const copy = (value, at, depth) => {
    if (typeof value === 'string') return charge(value, at);
    budget -= 24; // VALUE_CHARS: the copy closes over nothing
    if (budget < 0) refuse(at, `more than ${budgetChars} characters in all`);
    if (typeof value === 'number' || typeof value === 'boolean' || value === null) return value;
    if (typeof value !== 'object' || depth > maxDepth) return null;
    // any: the page's object, each member read once.
    const page = /** @type {any} */ (value);
    const length = page.length;
    if (typeof length === 'number') {
      if (!(length >= 0 && length <= maxItems && length % 1 === 0)) refuse(at, `a list of ${length} items (at most ${maxItems})`);
      /** @type {Record<string, unknown>} */
      const items = { __proto__: null };
      for (let i = 0; i < length; i += 1) items[i] = copy(page[i], `${at}[${i}]`, depth + 1);
      return { __proto__: null, items, n: length };
    }
    /** @type {Record<string, unknown>} */
    const entries = { __proto__: null };
    let keys = 0;
    for (const key in page) {
      keys += 1;
      if (keys > maxKeys) refuse(at, `an object of more than ${maxKeys} keys`);
      entries[charge(key, at)] = copy(page[key], under(at, key), depth + 1);
    }
    return { __proto__: null, entries };
  };
  let drained;
  try {
    // any: the page's diagnostics hook (client-app/app.js), which the DOM types do not know.
    const source = await /** @type {any} */ (window).testbed?.[hook];
    if (!source) return { __proto__: null, none: true };
    if (tell !== null) source[tell.method](tell.value);
    drained = await source.drain();
  } catch {
    return { __proto__: null, threw: true };
  }
  try {
    return { __proto__: null, copied: copy(drained, '', 0) };
  } catch (error) {
    // Anything else was thrown by the page's code while read (a getter, a proxy).
    return { __proto__: null, refused: error === refusal ? reason : 'it could not be copied' };
  }
}

/** @param {unknown} value @returns {value is Record<string, unknown>} */
const isObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);

/** Thrown by rebuild: the answer is not what copyInPage makes. */
class Malformed extends Error {}

/**
 * A copied value rebuilt: lists as arrays, objects as plain ones (own data properties only, `__proto__` one of them).
 * @param {unknown} value @param {number} depth @returns {unknown}
 */
function rebuild(value, depth) {
  if (value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  if (!isObject(value) || depth > MAX_REBUILD_DEPTH) throw new Malformed();
  const { entries, items, n } = value;
  if (isObject(entries)) return Object.fromEntries(Object.entries(entries).map(([key, entry]) => [key, rebuild(entry, depth + 1)]));
  if (!isObject(items) || typeof n !== 'number' || !Number.isInteger(n) || n < 0 || Object.keys(items).length !== n) throw new Malformed();
  return Array.from({ length: n }, (_, i) => {
    if (!Object.hasOwn(items, i)) throw new Malformed();
    return rebuild(items[i], depth + 1);
  });
}

/**
 * What the page's copy answered (page.evaluate's result: the page's realm made it, so it is checked like input).
 * @param {unknown} answer @returns {CopyAnswer}
 */
export function readPageCopy(answer) {
  const malformed = { refused: 'drain refused: the page\'s copy is malformed' };
  if (!isObject(answer)) return malformed;
  if (answer.none === true) return { none: true };
  if (answer.threw === true) return { threw: true };
  if (typeof answer.refused === 'string') {
    return { refused: `drain refused in the page: ${answer.refused.length <= MAX_REASON_CHARS ? answer.refused : 'a reason too long to tell'}` };
  }
  if (!Object.hasOwn(answer, 'copied')) return malformed;
  try {
    return { drained: rebuild(answer.copied, 0) };
  } catch (error) {
    if (error instanceof Malformed) return malformed;
    throw error;
  }
}

/**
 * Drains `request.hook` of the page through copyInPage: its copy, undefined when there is nothing to read (the page
 * closing or crashed, or no such hook yet), or `{ reported: true }` when it threw or was refused, reported through
 * onRejected as `<label>: …`. A drain unanswered after timeoutMs is reported (once), and still awaited.
 * @param {import('puppeteer').Page} page @param {CopyRequest} request
 * @param {{ label: string, onRejected: (reason: string) => void, timeoutMs: number }} report
 * @returns {Promise<{ drained: unknown } | { reported: true } | undefined>}
 */
export async function drainPageCopy(page, request, { label, onRejected, timeoutMs }) {
  const slow = setTimeout(() => onRejected(`${label}: the drain has not answered for ${timeoutMs / 1000} s`), timeoutMs);
  /** @type {unknown} */
  let answer;
  try {
    answer = await page.evaluate(copyInPage, request);
  } catch {
    return undefined;
  } finally {
    clearTimeout(slow);
  }
  const read = readPageCopy(answer);
  if ('none' in read) return undefined;
  if ('drained' in read) return read;
  onRejected(`${label}: ${'threw' in read ? 'the drain threw' : read.refused}`);
  return { reported: true };
}
