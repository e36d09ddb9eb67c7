// The shape of what a page hands over when the orchestrator drains its frame reader (client-app/frame-reader.js
// drain()), checked before anything uses it: the page is untrusted like every page message (signaling/messages.js).
// Pure: a bad drain yields a reason, never a throw.
import { CODE_MODULUS, UNREAD_CODE } from '../../client-app/frame-code.js';

export const MAX_FRAMES_PER_SOURCE = 4000;
export const MAX_CAPTURES_PER_DRAIN = 16;
export const MAX_CAPTURE_SIDE_PX = 4096;
const MAX_SOURCES = 64;
const MAX_EPOCH_MS = 8.64e15;
const MAX_READ_MS = 3.6e6;

/**
 * @typedef {{ source: string, epochMs: number, code: number, width: number, height: number, luma: Buffer }} CheckedCapture
 * @typedef {{ batches: import('../lib/viewer/viewer.js').FrameBatch[], captures: CheckedCapture[] }} Drain
 */

/** @param {unknown} value @returns {value is Record<string, unknown>} */
const isObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);
/** @param {unknown} value @param {number} min @param {number} max @returns {value is number} */
const isInteger = (value, min, max) => typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
/** @param {unknown} value @param {number} min @param {number} max @returns {value is number} */
const isNumber = (value, min, max) => typeof value === 'number' && Number.isFinite(value) && value >= min && value <= max;

/**
 * One page's drain: `{ frames: { [source]: { codes, epochMs, readMs } }, captures: [...] }`, sources
 * 'local' or one of `remotes`, every time within `within` (the run so far: a page dates its own frames).
 * @param {unknown} value @param {string} peer the page's peer @param {string[]} remotes the peers it may show
 * @param {{ fromEpochMs: number, toEpochMs: number }} [within]
 * @returns {{ ok: true, value: Drain } | { ok: false, reason: string }}
 */
export function checkDrain(value, peer, remotes, { fromEpochMs, toEpochMs } = { fromEpochMs: 1, toEpochMs: MAX_EPOCH_MS }) {
  /** @param {unknown} epochMs */
  const inTime = (epochMs) => isNumber(epochMs, fromEpochMs, toEpochMs);
  const when = `epoch milliseconds from ${fromEpochMs} to ${toEpochMs}`;
  /** @param {string} reason */
  const fail = (reason) => ({ ok: /** @type {const} */ (false), reason: `frame reader of ${peer}: ${reason}` });
  if (!isObject(value) || !isObject(value.frames) || !Array.isArray(value.captures)) return fail('drain must be { frames: {…}, captures: […] }');
  const sources = Object.entries(value.frames);
  if (sources.length > MAX_SOURCES) return fail(`${sources.length} sources; at most ${MAX_SOURCES}`);
  /** @type {import('../lib/viewer/viewer.js').FrameBatch[]} */
  const batches = [];
  for (const [source, log] of sources) {
    if (source !== 'local' && !remotes.includes(source)) return fail(`unknown source ${JSON.stringify(source.slice(0, 64))}; expected local or ${remotes.join(', ')}`);
    if (!isObject(log) || !Array.isArray(log.codes) || !Array.isArray(log.epochMs)) return fail(`frames.${source} must be { codes: [], epochMs: [], readMs }`);
    const { codes, epochMs, readMs } = log;
    if (codes.length !== epochMs.length || codes.length > MAX_FRAMES_PER_SOURCE) {
      return fail(`frames.${source}: codes and epochMs must be equally long, at most ${MAX_FRAMES_PER_SOURCE}`);
    }
    if (!codes.every((code) => isInteger(code, UNREAD_CODE, CODE_MODULUS - 1))) {
      return fail(`frames.${source}.codes must be integers from ${UNREAD_CODE} to ${CODE_MODULUS - 1}`);
    }
    if (!epochMs.every(inTime)) return fail(`frames.${source}.epochMs must be ${when}`);
    if (!isNumber(readMs, 0, MAX_READ_MS)) return fail(`frames.${source}.readMs must be a number from 0 to ${MAX_READ_MS}`);
    batches.push({
      peer, source, codes: /** @type {number[]} */ (codes), epochMs: /** @type {number[]} */ (epochMs),
      readMs: /** @type {number} */ (readMs),
    });
  }
  if (value.captures.length > MAX_CAPTURES_PER_DRAIN) return fail(`${value.captures.length} captures; at most ${MAX_CAPTURES_PER_DRAIN}`);
  /** @type {CheckedCapture[]} */
  const captures = [];
  for (const [i, capture] of value.captures.entries()) {
    const where = `captures[${i}]`;
    if (!isObject(capture)) return fail(`${where} must be an object`);
    const { source, epochMs, code, width, height, luma } = capture;
    if (typeof source !== 'string' || !remotes.includes(source)) return fail(`${where}.source must be one of ${remotes.join(', ')}`);
    if (!inTime(epochMs) || !isInteger(code, 0, CODE_MODULUS - 1)) return fail(`${where}: epochMs must be ${when}, code a frame code`);
    if (!isInteger(width, 16, MAX_CAPTURE_SIDE_PX) || !isInteger(height, 16, MAX_CAPTURE_SIDE_PX)) return fail(`${where}: width and height must be integers from 16 to ${MAX_CAPTURE_SIDE_PX}`);
    const bytes = /** @type {number} */ (width) * /** @type {number} */ (height);
    if (typeof luma !== 'string' || luma.length !== 4 * Math.ceil(bytes / 3) || !/^[A-Za-z0-9+/]*={0,2}$/.test(luma)) {
      return fail(`${where}.luma must be ${bytes} bytes of base64 (width × height)`);
    }
    const [at, number, w, h] = /** @type {number[]} */ ([epochMs, code, width, height]);
    captures.push({ source, epochMs: at, code: number, width: w, height: h, luma: Buffer.from(luma, 'base64') });
  }
  return { ok: true, value: { batches, captures } };
}
