import { writeCompareReport } from '../report/write.js';

export const command = 'compare <run-dirs..>';
export const describe = 'Overlay runs of one scenario in one HTML page (runs through different SFUs also side by side) and print its path';

/** @param {import('yargs').Argv} yargs */
export function builder(yargs) {
  return yargs
    .positional('run-dirs', { type: 'string', array: true, describe: 'Two or more run directories (or result.json files) of the same scenario' })
    .option('out', { type: 'string', describe: 'Where to write the page (default: compare-<scenario>-<time>.html in the results directory of the scenario)' });
}

/** @param {{runDirs: string[], out?: string}} argv */
export async function handler(argv) {
  console.log(await writeCompareReport(argv.runDirs, { out: argv.out }));
}
