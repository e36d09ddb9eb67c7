// Reading the harness's JSON input files (scenarios, suites, assertions, baselines): every failure is an InputError
// naming the file (and line), never quoting its content; size and nesting are bounded (lib/input/limits.js).
import path from 'node:path';
import { InputError } from '../system/errors.js';
import { readInputText } from './input-file.js';
import { MAX_JSON_DEPTH, MAX_JSON_FILE_BYTES } from './limits.js';

/** A path as the user should see it: relative to the working directory when inside it. @param {string} file */
export function displayPath(file) {
  const relative = path.relative(process.cwd(), file);
  return relative === '' || relative.startsWith('..') || path.isAbsolute(relative) ? file : relative;
}

/**
 * The offset of the first bracket nested deeper than maxDepth, or -1. Brackets inside strings do not count.
 * The harness walks parsed input recursively, so a deeper file would end in a RangeError instead of this message.
 * @param {string} text @param {number} maxDepth
 */
export function tooDeepAt(text, maxDepth) {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > maxDepth) return i;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return -1;
}

/** "file:line:column" of an offset into text. @param {string} shown @param {string} text @param {number} offset */
function at(shown, text, offset) {
  const before = text.slice(0, offset).split('\n');
  return `${shown}:${before.length}:${before[before.length - 1].length + 1}`;
}

/**
 * JSON.parse's reason without the file's text: V8 quotes the token and a stretch of the input around it.
 * @param {string} message
 */
export function parseReason(message) {
  if (/^Unexpected token/.test(message)) return 'unexpected character';
  return message.replace(/ in JSON at position.*$/s, '').replace(/, ".*$/s, '');
}

/**
 * @param {string} file
 * @param {string} what  "suite", "assertions file", "baseline" … named in the message
 * @param {string} nextStep  what the user should do when the file is missing
 * @returns {unknown}
 */
export function readJsonFile(file, what, nextStep) {
  const shown = displayPath(file);
  const text = readInputText(file, { shown, what, maxBytes: MAX_JSON_FILE_BYTES, nextStep });
  const deep = tooDeepAt(text, MAX_JSON_DEPTH);
  if (deep >= 0) {
    throw new InputError(`${at(shown, text, deep)}: the ${what} nests arrays and objects more than ${MAX_JSON_DEPTH} deep, the limit (docs/scenario-format.md "Limits")`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    const message = /** @type {Error} */ (error).message;
    // V8 gives no position for an unexpected token: the end of the file stands in.
    const position = Number(/position (\d+)/.exec(message)?.[1] ?? text.length);
    throw new InputError(`${at(shown, text, position)}: invalid JSON in the ${what}: ${parseReason(message)}`, { cause: error });
  }
}
