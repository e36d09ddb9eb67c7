/**
 * Built-in input files (orchestrator/scenarios/, orchestrator/suites/) are found by name; anything that looks
 * like a path is a file anywhere.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { InputError } from '../system/errors.js';

/**
 * Whether an argument names a file rather than a built-in.
 * @param {string} nameOrPath
 */
export const isFilePath = (nameOrPath) => nameOrPath.includes('/') || nameOrPath.endsWith('.json');

/**
 * The built-in names in dir (its .json files without the extension), in natural order (loss-5 before loss-10).
 * @param {string} dir
 * @returns {string[]}
 */
export function builtinNames(dir) {
  return readdirSync(dir).filter((entry) => entry.endsWith('.json')).map((entry) => entry.slice(0, -5))
    .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
}

/**
 * The absolute path of a built-in by name, or of a file by path (relative to the working directory).
 * @param {string} kind  "scenario", "suite": named in the error
 * @param {string} nameOrPath
 * @param {string} dir  where the built-ins live
 * @param {(known: string[]) => string} [listKnown]  the error's tail, listing the built-ins
 * @returns {string}
 */
export function resolveBuiltin(kind, nameOrPath, dir, listKnown = (known) => `known: ${known.join(', ')}`) {
  if (isFilePath(nameOrPath)) return path.resolve(nameOrPath);
  const known = builtinNames(dir);
  if (!known.includes(nameOrPath)) throw new InputError(`unknown ${kind} '${nameOrPath}'; ${listKnown(known)}`);
  return path.join(dir, `${nameOrPath}.json`);
}
