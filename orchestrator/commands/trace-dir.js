// --trace-dir, shared by the commands that load scenarios: folders a scenario's trace files may come from besides
// its own folder and orchestrator/traces/ (lib/network/trace-file.js).
import { statSync } from 'node:fs';
import path from 'node:path';
import { InputError } from '../lib/system/errors.js';

export const TRACE_DIR_OPTION = {
  type: /** @type {const} */ ('string'), array: true, default: /** @type {string[]} */ ([]),
  describe: 'a folder scenarios may name trace files in, besides their own folder and orchestrator/traces/ (repeatable)',
};

/**
 * The --trace-dir folders, absolute; each must exist.
 * @param {{traceDir?: string[]}} argv
 * @returns {string[]}
 */
export function traceDirs(argv) {
  return (argv.traceDir ?? []).map((dir) => {
    const isDir = (() => { try { return statSync(dir).isDirectory(); } catch { return false; } })();
    if (!isDir) throw new InputError(`--trace-dir ${dir}: not a folder; give an existing folder of trace files`);
    return path.resolve(dir);
  });
}
