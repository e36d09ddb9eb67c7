import path from 'node:path';
import { InputError } from '../lib/errors.js';
import { writeJsonAtomic } from '../lib/files.js';
import { REPO_ROOT } from '../lib/paths.js';
import { MIN_RUNS_PER_SIDE, baselineFromSummary } from '../suite/baseline.js';
import { displayPath } from '../lib/json-file.js';
import { readSuiteSummary } from '../suite/suite-dir.js';

export const command = 'baseline <action>';
export const describe = 'Manage baselines for regression checks (baseline save <suite-dir>)';

/** @param {import('yargs').Argv} yargs */
export const builder = (yargs) => yargs
  .command('save <suite-result>', 'Store the per-run values of a suite (or merge) result as a baseline file', (y) => y
    .positional('suite-result', { type: 'string', describe: 'suite directory or its summary.json' })
    .option('out', { type: 'string', describe: 'baseline file to write (default baselines/<suite>.json in the repository)' }), save)
  .demandCommand(1, 'Name an action: save.');

/** @param {{ suiteResult: string, out?: string }} argv */
async function save(argv) {
  const { file, suiteDir, summary } = await readSuiteSummary(argv.suiteResult);
  const baseline = baselineFromSummary(summary, { source: displayPath(suiteDir) });
  const names = Object.keys(baseline.scenarios);
  if (!names.length) throw new InputError(`${displayPath(file)}: runs: no run passed, so there is nothing to store; run the suite again`);
  const out = path.resolve(argv.out ?? path.join(REPO_ROOT, 'baselines', `${summary.suite.name}.json`));
  await writeJsonAtomic(out, baseline);
  console.log(`baseline of suite ${summary.suite.name} (${names.length} scenarios) -> ${displayPath(out)}`);
  for (const name of names) {
    const { runs } = baseline.scenarios[name];
    console.log(`  ${name.padEnd(28)} ${runs} runs${runs < MIN_RUNS_PER_SIDE ? ` (fewer than ${MIN_RUNS_PER_SIDE}: comparisons with it are inconclusive)` : ''}`);
  }
}

// The actions are subcommands; yargs runs them.
export const handler = () => {};
