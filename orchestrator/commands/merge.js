import { comparisonOptions, finish, loadAssertionsFlag, loadBaselineFlag, regressionFlags, rememberFlag } from './suite-options.js';
import { mergeSuiteDirs } from '../suite/merge.js';

export const command = 'merge <suite-dirs..>';
export const describe = 'Join suite directories (the shards of a CI matrix) into one suite result and report, re-checking assertions and the baseline';

/** @param {import('yargs').Argv} yargs */
export const builder = (yargs) => comparisonOptions(yargs
  .positional('suite-dirs', { type: 'string', array: true, describe: 'suite directories (or their summary.json) of one suite' }));

/**
 * @param {{ suiteDirs: string[], out?: string, baseline?: string, allowMachineMismatch: boolean, assertions?: string,
 *   alpha?: number, minEffect?: number, minChange?: number, metrics?: string, history?: string, fail: boolean }} argv
 */
export async function handler(argv) {
  const { summary, paths } = await mergeSuiteDirs(argv.suiteDirs, {
    outDir: argv.out,
    assertions: loadAssertionsFlag(argv.assertions),
    baseline: loadBaselineFlag(argv.baseline),
    regression: regressionFlags(argv),
    allowMachineMismatch: argv.allowMachineMismatch,
    log: (line) => console.error(line),
    remember: rememberFlag(argv.history, (line) => console.error(line)),
  });
  finish(summary, paths, argv);
}
