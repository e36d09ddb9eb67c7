// Reading the harness's JSON input files (scenarios, suites, assertions, baselines):
// every failure is an InputError naming the file (and line).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { InputError } from './errors.js';

/** A path as the user should see it: relative to the working directory when inside it. @param {string} file */
export function displayPath(file) {
  const relative = path.relative(process.cwd(), file);
  return relative === '' || relative.startsWith('..') || path.isAbsolute(relative) ? file : relative;
}

/**
 * @param {string} file
 * @param {string} what  "suite", "assertions file", "baseline" … named in the message
 * @param {string} nextStep  what the user should do when the file is missing
 * @returns {unknown}
 */
export function readJsonFile(file, what, nextStep) {
  const shown = displayPath(file);
  let text;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = /** @type {NodeJS.ErrnoException} */ (error).code;
    const reason = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : String(error);
    throw new InputError(`${shown}: cannot read the ${what} (${reason}); ${nextStep}`, { cause: error });
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    const message = /** @type {Error} */ (error).message;
    const position = Number(/position (\d+)/.exec(message)?.[1] ?? text.length);
    const before = text.slice(0, position).split('\n');
    throw new InputError(`${shown}:${before.length}:${before.at(-1).length + 1}: invalid JSON in the ${what}: ${message}`, { cause: error });
  }
}
