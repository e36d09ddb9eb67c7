// A run's files inside its suite directory. summary.json's runs[].dir is checked by name when it is read
// (suite/suite-dir.js readSuiteSummary); a symbolic link on the way must not lead out of the suite directory either.
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { InputError } from '../system/errors.js';
import { isInside } from './input-file.js';
import { displayPath } from './json-file.js';

/**
 * The real path of a run's file, which must be inside the suite directory: a run's dir is checked by name
 * (readSuiteSummary), and a symbolic link on the way must not lead out either (to another user's runs, or /etc).
 * A file that does not exist is returned as joined, for its reader to report as missing.
 * @param {string} suiteDir @param {{ dir: string }} run @param {string} name e.g. 'result.json'
 * @returns {Promise<string>}
 */
export async function runFile(suiteDir, run, name) {
  const root = await realpath(suiteDir);
  const file = path.join(suiteDir, run.dir, name);
  for (const target of [path.dirname(file), file]) {
    const real = await realpath(target).catch(() => null);
    if (real !== null && !isInside(root, real)) {
      throw new InputError(`${displayPath(target)}: a symbolic link out of the suite directory ${displayPath(suiteDir)}; a run's files must be inside it: remove the link`);
    }
  }
  return realpath(file).catch(() => file);
}
