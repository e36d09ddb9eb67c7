// Where the harness lives and where runs write: one definition for every command.
import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const RESULTS_ROOT = path.join(REPO_ROOT, 'results');

/**
 * The first executable file of that name on a PATH-like list of folders, or null.
 * @param {string} name @param {string} searchPath
 * @returns {string|null}
 */
export function findExecutable(name, searchPath) {
  for (const dir of searchPath.split(path.delimiter).filter(Boolean)) {
    const candidate = path.join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this folder
    }
  }
  return null;
}
