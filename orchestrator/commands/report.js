import { resolveRun, writeRunReport } from '../report/write.js';

export const command = 'report <run-dir>';
export const describe = 'Regenerate report.html of a run from its result.json';

/** @param {import('yargs').Argv} yargs */
export function builder(yargs) {
  return yargs.positional('run-dir', { type: 'string', describe: 'Run directory (results/<scenario>/<timestamp>) or its result.json' });
}

/** @param {{runDir: string}} argv */
export async function handler(argv) {
  const { runDir, resultFile } = await resolveRun(argv.runDir);
  console.log(await writeRunReport(runDir, { resultFile }));
}
