import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { InputError } from '../lib/system/errors.js';
import { writeJsonAtomic } from '../lib/system/files.js';
import { REPO_ROOT } from '../lib/system/paths.js';
import { expectNumber, isRecord } from '../lib/input/validate.js';
import {
  BASELINE_KIND, DEFAULT_KEEP_NIGHTS, MIN_RUNS_PER_SIDE, baselineFromSummary, parseBaseline, rollBaselines,
} from '../suite/baseline.js';
import { describeMachineClass, machineClass } from '../lib/result/machine-class.js';
import { displayPath, readJsonFile } from '../lib/input/json-file.js';
import { readSuiteSummary } from '../suite/suite-dir.js';

export const command = 'baseline <action>';
export const describe = 'Manage baselines for regression checks (baseline save <suite-dir>, roll <files..>, class <path>)';

/** @param {import('yargs').Argv} yargs */
export const builder = (yargs) => yargs
  .command('save <suite-result>', 'Store the per-run values of a suite (or merge) result as a baseline file', (y) => y
    .positional('suite-result', { type: 'string', describe: 'suite directory or its summary.json' })
    .option('out', { type: 'string', describe: 'baseline file to write (default baselines/<suite>.json in the repository)' }), save)
  .command('roll <baselines..>', 'Join nightly baselines into a rolling one: per scenario the runs of the newest nights, of one machine class', (y) => y
    .positional('baselines', { type: 'string', array: true, describe: 'baseline files, one per night (missing files are skipped)' })
    .option('keep-nights', { type: 'number', default: DEFAULT_KEEP_NIGHTS, describe: 'newest nights kept per scenario' })
    .option('like', { type: 'string', describe: 'keep only nights of the machine class of this suite directory (default: of the newest night)' })
    .option('out', { type: 'string', demandOption: true, describe: 'rolling baseline file to write (not written when no night qualifies)' }), roll)
  .command('class <path>', 'Print the machine class of a suite directory, summary.json or baseline file', (y) => y
    .positional('path', { type: 'string', describe: 'suite directory, its summary.json, or a baseline file' }), printClass)
  .demandCommand(1, 'Name an action: save, roll or class.');

/** @param {{ suiteResult: string, out?: string }} argv */
async function save(argv) {
  const { file, suiteDir, summary } = await readSuiteSummary(argv.suiteResult);
  const baseline = baselineFromSummary(summary, { source: displayPath(suiteDir) });
  const names = Object.keys(baseline.scenarios);
  if (!names.length) throw new InputError(`${displayPath(file)}: runs: no run passed, so there is nothing to store; run the suite again`);
  const out = path.resolve(argv.out ?? path.join(REPO_ROOT, 'baselines', `${summary.suite.name}.json`));
  await writeJsonAtomic(out, baseline);
  console.log(`baseline of suite ${summary.suite.name} (${names.length} scenarios) -> ${displayPath(out)}`);
  console.log(`  machine class: ${describeMachineClass(baseline.machineClass)}`);
  for (const name of names) {
    const { runs } = baseline.scenarios[name];
    console.log(`  ${name.padEnd(28)} ${runs} runs${runs < MIN_RUNS_PER_SIDE ? ` (fewer than ${MIN_RUNS_PER_SIDE}: comparisons with it are inconclusive)` : ''}`);
  }
}

/** @param {string} file */
function readBaseline(file) {
  const resolved = path.resolve(file);
  return parseBaseline(readJsonFile(resolved, 'baseline', 'pass a file written by `baseline save`'), displayPath(resolved));
}

/** @param {{ baselines: string[], keepNights: number, like?: string, out: string }} argv */
async function roll(argv) {
  const keepNights = expectNumber(argv.keepNights, '--keep-nights', { min: 1, integer: true });
  const present = argv.baselines.filter((file) => existsSync(file));
  const nights = present.map(readBaseline);
  const machine = argv.like === undefined ? undefined : machineOf((await readSuiteSummary(argv.like)).summary, argv.like);
  const rolled = rollBaselines(nights, { keepNights, machine });
  if (!rolled) {
    console.log(`no night of machine class ${describeMachineClass(machine)} among ${present.length} baseline files: ${displayPath(path.resolve(argv.out))} not written`);
    return;
  }
  const out = path.resolve(argv.out);
  await writeJsonAtomic(out, rolled);
  console.log(`rolling baseline -> ${displayPath(out)}: ${rolled.source}; machine class ${describeMachineClass(rolled.machineClass)}`);
  for (const [name, { runs }] of Object.entries(rolled.scenarios)) console.log(`  ${name.padEnd(28)} ${runs} runs`);
}

/** @param {{ environment?: object|null }} summary @param {string} shown */
function machineOf(summary, shown) {
  if (!summary.environment) throw new InputError(`${shown}: environment: no run recorded one, so the machine class is unknown; pass a suite directory with at least one run`);
  return machineClass(summary.environment);
}

/** @param {{ path: string }} argv */
async function printClass(argv) {
  const isDir = existsSync(argv.path) && statSync(argv.path).isDirectory();
  const raw = isDir ? null : readJsonFile(path.resolve(argv.path), 'suite summary or baseline', 'pass a suite directory, summary.json or baseline file');
  // a baseline file or a suite summary, told apart by its kind before it is read as either
  const machine = isRecord(raw) && raw.kind === BASELINE_KIND ? readBaseline(argv.path).machineClass
    : machineOf((await readSuiteSummary(argv.path)).summary, argv.path);
  console.log(describeMachineClass(machine));
}

// The actions are subcommands; yargs runs them.
export const handler = () => {};
