// Finding and reading trace files (lib/trace.js has the format): a scenario's `trace` is a synthetic name, or a
// file relative to the scenario file, else one in orchestrator/traces/.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { InputError } from './errors.js';
import { displayPath } from './json-file.js';
import { SYNTHETIC_PREFIX, parseMahimahi, syntheticTrace } from './trace.js';

/** The built-in traces folder. */
export const TRACE_DIR = fileURLToPath(new URL('../traces/', import.meta.url));

/**
 * The file a trace name points at: an absolute path as is; a relative one next to baseDir, else in TRACE_DIR.
 * @param {string} name @param {string} baseDir @param {string} where  names the field in errors
 * @returns {string}
 */
export function traceFilePath(name, baseDir, where) {
  if (path.isAbsolute(name)) {
    if (existsSync(name)) return name;
    throw new InputError(`${where}: trace file ${name} does not exist`);
  }
  const candidates = [path.resolve(baseDir, name), path.join(TRACE_DIR, name)];
  const found = candidates.find((candidate) => existsSync(candidate));
  if (found) return found;
  throw new InputError(`${where}: trace '${name}' not found (looked for ${candidates.map(displayPath).join(' and ')}); give a mahimahi trace file or a ${SYNTHETIC_PREFIX}… name`);
}

/**
 * A trace by name: generated when synthetic, else read from its file (mahimahi's format).
 * @param {string} name @param {{baseDir?: string, where?: string}} [options]
 *   baseDir: where relative names are looked for first (the scenario file's folder; default the working directory)
 * @returns {import('./trace.js').Trace}
 */
export function readTrace(name, { baseDir = process.cwd(), where = 'trace' } = {}) {
  if (name.startsWith(SYNTHETIC_PREFIX)) return syntheticTrace(name, where);
  const file = traceFilePath(name, baseDir, where);
  let text;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new InputError(`${where}: cannot read trace file ${displayPath(file)} (${/** @type {Error} */ (error).message})`, { cause: error });
  }
  return parseMahimahi(text, displayPath(file), name);
}
