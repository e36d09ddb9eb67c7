// Finding and reading trace files (lib/network/trace.js has the format). A scenario's `trace` is a synthetic name, or a file
// relative to the scenario file's folder, a --trace-dir or orchestrator/traces/: never an absolute path, never one
// whose real path (symlinks followed) leaves those folders, only a regular file of at most MAX_TRACE_FILE_BYTES.
import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { InputError } from '../system/errors.js';
import { isInside, readInputText } from '../input/input-file.js';
import { displayPath } from '../input/json-file.js';
import { MAX_TRACE_FILE_BYTES } from '../input/limits.js';
import { SYNTHETIC_PREFIX, parseMahimahi, syntheticTrace } from './trace.js';

/** The built-in traces folder. */
export const TRACE_DIR = fileURLToPath(new URL('../../traces/', import.meta.url));

/**
 * The file a trace name points at, looked for in each folder in turn.
 * @param {string} name @param {string[]} dirs  the allowed folders, in lookup order
 * @param {string} where  names the field in errors
 * @returns {string} its real path
 */
export function traceFilePath(name, dirs, where) {
  const allowed = `the scenario's folder, a --trace-dir or ${displayPath(TRACE_DIR)}`;
  if (path.isAbsolute(name)) {
    throw new InputError(`${where}: trace '${name}' is an absolute path; name a file relative to ${allowed}, or pass its folder as --trace-dir`);
  }
  const roots = dirs.map((dir) => path.resolve(dir));
  const candidates = roots.map((root) => path.resolve(root, name)).filter((candidate) => roots.some((root) => isInside(root, candidate)));
  if (candidates.length === 0) {
    throw new InputError(`${where}: trace '${name}' leaves ${allowed}; move the file into one of them, or pass its folder as --trace-dir`);
  }
  const found = candidates.find((candidate) => existsSync(candidate));
  if (!found) {
    throw new InputError(`${where}: trace '${name}' not found (looked for ${candidates.map(displayPath).join(' and ')}); give a mahimahi trace file or a ${SYNTHETIC_PREFIX}… name`);
  }
  const real = realpathSync(found);
  const realRoots = roots.filter((root) => existsSync(root)).map((root) => realpathSync(root));
  if (!realRoots.some((root) => isInside(root, real))) {
    throw new InputError(`${where}: trace '${name}' is a link to a file outside ${allowed}; copy the file into one of them, or pass its folder as --trace-dir`);
  }
  return real;
}

/**
 * Reads and parses a mahimahi trace file: a regular file of at most MAX_TRACE_FILE_BYTES.
 * @param {string} file @param {{name?: string, where: string}} options  name: the trace's (default: the file as shown)
 * @returns {import('./trace.js').Trace}
 */
export function readTraceFile(file, { name, where }) {
  const shown = displayPath(file);
  const text = readInputText(file, {
    shown: `${where}: ${shown}`, what: 'trace file', maxBytes: MAX_TRACE_FILE_BYTES, nextStep: 'check the path',
  });
  return parseMahimahi(text, shown, name ?? shown);
}

/**
 * A trace a scenario names: generated when synthetic, else read from its file (mahimahi's format).
 * @param {string} name @param {{baseDir: string, traceDirs?: string[], where?: string}} options
 *   baseDir: the scenario file's folder; traceDirs: --trace-dir, looked in after it
 * @returns {import('./trace.js').Trace}
 */
export function readTrace(name, { baseDir, traceDirs = [], where = 'trace' }) {
  if (name.startsWith(SYNTHETIC_PREFIX)) return syntheticTrace(name, where);
  return readTraceFile(traceFilePath(name, [baseDir, ...traceDirs, TRACE_DIR], where), { name, where });
}

/**
 * A trace given on the command line (`trace show`, `calibrate --trace`): a synthetic name, or a file at the path
 * the user typed (theirs to choose, unlike a path inside a scenario), still only a bounded regular file.
 * @param {string} input @param {string} where  the flag or command
 * @returns {import('./trace.js').Trace}
 */
export function readTraceArgument(input, where) {
  if (input.startsWith(SYNTHETIC_PREFIX)) return syntheticTrace(input, where);
  return readTraceFile(path.resolve(input), { name: input, where });
}
