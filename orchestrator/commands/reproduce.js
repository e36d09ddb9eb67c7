import path from 'node:path';
import { PRESETS } from '../lib/media/media-presets.js';
import { runEmulators } from '../emulators/index.js';
import { InputError } from '../lib/system/errors.js';
import { displayPath } from '../lib/input/json-file.js';
import { REPRODUCTIONS, findReproduction, tableScenarios } from '../lib/scenario/reproductions.js';
import { resumeDecision } from '../lib/scenario/reproductions/resume.js';
import { loadResult } from '../report/write.js';
import { planRuns } from '../suite/plan.js';
import { MEDIA_SOURCES, loadScenario } from '../lib/scenario/scenario-file.js';
import { TRACE_DIR_OPTION, traceDirs } from './trace-dir.js';
import { gridOptions, gridRunOption } from './grid-option.js';
import { installProcessHandlers } from '../lib/system/shutdown.js';
import { DEFAULT_REGRESSION } from '../suite/baseline.js';
import { reproductionFileName } from '../suite/render-reproduction.js';
import { publishReproduction, skipPublished } from '../suite/publish-reproduction.js';
import { BROWSER_POOL_OPTION, checkVideoFlag } from './suite-options.js';
import { sfuOption } from './sfu-option.js';
import { BANDWIDTH_ESTIMATION_OPTION, FIELD_TRIALS_OPTION, congestionPlanLine } from './congestion-options.js';
import { suiteExitCode } from '../suite/summary.js';

export const command = 'reproduce [table]';
export const describe = 'Run the scenarios of a published table (e.g. j16-table-8-1), or of all of them (--all), as a suite and render the reproduction pages';

/** As the nightly: J16 and F average 5 runs (J16 §7-4), a table whose paper ran more plans its own; 720p30 on this machine's cores. */
const DEFAULTS = { repetitions: 5, video: '720p30', emulator: 'relay' };

/** @param {import('yargs').Argv} yargs */
export const builder = (yargs) => gridOptions(yargs)
  .positional('table', { type: 'string', describe: `table id: ${REPRODUCTIONS.map((t) => t.id).join(', ')}` })
  .option('list', { type: 'boolean', default: false, describe: 'list the tables with their scenarios, and exit' })
  .option('all', { type: 'boolean', default: false, describe: 'run every table\'s scenarios into one suite directory (each scenario once)' })
  .option('resume', {
    type: 'boolean', default: false,
    describe: 'keep the runs already complete in --out (their result.json finished, same scenario and length) and run the rest',
  })
  .option('dry-run', { type: 'boolean', default: false, describe: 'print each planned run (and with --resume whether it is kept), run nothing' })
  .option('repetitions', { type: 'number', describe: `runs per scenario (default: its paper's, ${DEFAULTS.repetitions} for J16 and F, 10 for I22)` })
  .option('multi-party-repetitions', { type: 'number', describe: 'runs per scenario with more than two browsers (default --repetitions)' })
  .option('publish', {
    type: 'string',
    describe: 'run nothing: add the finished runs in --out to the reproduction in this folder (runs.json + README.md; '
      + 'the repository\'s is docs/reproduction)',
  })
  .option('skip-published', {
    type: 'string',
    describe: 'do not run the runs already published in this folder (its runs.json, e.g. docs/reproduction): go on from '
      + 'the committed page when the suite directory that made it is gone',
  })
  .option('max-runs', { type: 'number', describe: 'run at most this many runs (kept ones not counted), then stop: go on later with --resume' })
  .option('time-scale', { type: 'number', default: 1, describe: 'compress every scenario\'s clock (a smoke check, not a reproduction)' })
  .option('video', { type: 'string', default: DEFAULTS.video, describe: `video preset (${Object.keys(PRESETS).join(', ')}; J16 used 1080p50) or a .y4m file` })
  .option('media-source', { choices: MEDIA_SOURCES, describe: 'video rates of every run: rfc8867 or browser (default: each scenario\'s; rmcat-* use rfc8867)' })
  .option('field-trials', { ...FIELD_TRIALS_OPTION, describe: `${FIELD_TRIALS_OPTION.describe} (an experiment: --publish refuses its runs)` })
  .option('bandwidth-estimation', { ...BANDWIDTH_ESTIMATION_OPTION, describe: `${BANDWIDTH_ESTIMATION_OPTION.describe} (an experiment: --publish refuses its runs)` })
  .option('emulator', { choices: runEmulators(), default: DEFAULTS.emulator, describe: 'network emulator' })
  .option('sfu', sfuOption())
  .option('out', { type: 'string', describe: 'suite directory to write (default results/suites/reproduce-<table>/<UTC timestamp>)' })
  .option('browser-path', { type: 'string', describe: 'Chrome/Chromium executable (default: $CHROME_PATH, then well-known paths)' })
  .option('headful', { type: 'boolean', default: false, describe: 'show the browser windows' })
  .option('browser-pool', BROWSER_POOL_OPTION)
  .option('trace-dir', TRACE_DIR_OPTION)
  .check((argv) => {
    if (!argv.list && !argv.all && argv.table === undefined) {
      throw new InputError(`name a table (${REPRODUCTIONS.map((t) => t.id).join(', ')}), or pass --all or --list`);
    }
    if (argv.all && argv.table !== undefined) throw new InputError(`--all runs every table; drop the table name '${argv.table}'`);
    if (argv.publish !== undefined && !argv.out) throw new InputError('--publish needs --out <the suite directory whose runs to publish>');
    if (argv.resume && !argv.out) throw new InputError('--resume needs --out <the suite directory to continue>');
    for (const flag of ['repetitions', 'multi-party-repetitions', 'max-runs']) {
      const value = argv[flag];
      if (value !== undefined && !(Number.isInteger(value) && value >= 1)) throw new InputError(`--${flag} must be an integer of at least 1, got ${value}`);
    }
    if (!(argv.timeScale > 0)) throw new InputError(`--time-scale must be a number above 0, got ${argv.timeScale}`);
    checkVideoFlag(argv.video);
    return true;
  });

/**
 * @param {{ table?: string, list: boolean, all: boolean, resume: boolean, dryRun: boolean, repetitions?: number,
 *   multiPartyRepetitions?: number, maxRuns?: number, publish?: string, skipPublished?: string,
 *   timeScale: number, video: string, mediaSource?: string, fieldTrials?: string, bandwidthEstimation?: string, emulator: string,
 *   sfu: string, out?: string, browserPath?: string,
 *   headful: boolean, browserPool: boolean, traceDir: string[], grid?: string, spread?: boolean, gridSecrets?: string }} argv
 */
export async function handler(argv) {
  if (argv.list) {
    const width = Math.max(...REPRODUCTIONS.map((t) => t.id.length));
    for (const table of REPRODUCTIONS) console.log(`${table.id.padEnd(width)}  ${table.citation}: ${table.title}\n${' '.repeat(width + 2)}${tableScenarios(table).join(', ')}`);
    return;
  }
  // The check above leaves a table name unless --all (or --list).
  const tables = argv.all || argv.table === undefined ? REPRODUCTIONS : [findReproduction(argv.table)];
  const [table] = tables;
  // A suite built in memory: the suite runner, its outputs and the reproduction pages are the suite's own.
  const suite = {
    name: argv.all ? 'reproduce-all' : `reproduce-${table.id}`,
    description: argv.all ? `every published table (${tables.length})` : `${table.citation}: ${table.title}`,
    file: argv.all ? 'reproduce --all' : `reproduce ${table.id}`,
    emulator: argv.emulator,
    sfu: argv.sfu,
    video: PRESETS[argv.video] ? argv.video : path.resolve(argv.video),
    assertionsFile: null,
    regression: DEFAULT_REGRESSION,
    entries: entriesOf(tables, argv),
  };
  const skipRun = argv.skipPublished === undefined ? () => null : await skipPublished(argv.skipPublished);
  if (argv.dryRun) return printPlan(suite.entries, argv, skipRun);
  if (argv.publish !== undefined && argv.out !== undefined) {
    // The page counts the whole reproduction's runs, whichever table this chunk ran.
    const planned = planRuns(entriesOf(REPRODUCTIONS, argv)).length;
    const { runs, added, files } = await publishReproduction(argv.out, argv.publish, { planned });
    console.log(`published ${runs} runs (${added} new) of ${planned} planned: ${files.map(displayPath).join(', ')}`);
    return;
  }
  const grid = await gridRunOption(argv);
  installProcessHandlers();
  // Loaded only to run (puppeteer, the servers): --publish alone, and a refused flag, answer without it.
  const { runSuite } = await import('../suite/runner.js');
  const { summary, suiteDir, paths } = await runSuite({
    suite, assertions: {}, assertionsFile: null, regression: suite.regression, outDir: argv.out, resume: argv.resume,
    browserPath: argv.browserPath, headful: argv.headful, grid, log: (line) => console.error(line), maxNewRuns: argv.maxRuns,
    skipRun, browserPool: argv.browserPool,
  });
  const pages = tables.map((t) => `reproduction: ${displayPath(path.join(suiteDir, reproductionFileName(t.id)))}`).join('\n');
  console.log(`\n${summary.outcome}: ${summary.counts.passedRuns} of ${summary.counts.runs} runs passed\n${pages}\nsuite: ${displayPath(paths.page)}`);
  process.exitCode = suiteExitCode(summary);
}

/**
 * The suite's entries for these tables: each scenario once, as many times as --repetitions or else its paper ran it
 * (the most any of its tables' papers did), larger calls --multi-party-repetitions times where given.
 * @param {readonly import('../lib/scenario/reproductions.js').Reproduction[]} tables
 * @param {{ timeScale: number, mediaSource?: string, fieldTrials?: string, bandwidthEstimation?: string, repetitions?: number,
 *   multiPartyRepetitions?: number, traceDir: string[] }} argv
 */
function entriesOf(tables, argv) {
  return [...new Set(tables.flatMap(tableScenarios))].map((name) => {
    const { timeScale, mediaSource, fieldTrials, bandwidthEstimation } = argv;
    const scenario = loadScenario(name, { timeScale, traceDirs: traceDirs(argv), mediaSource, fieldTrials, bandwidthEstimation });
    const papers = tables.filter((table) => tableScenarios(table).includes(name)).map((table) => table.repetitions ?? DEFAULTS.repetitions);
    const twoParty = argv.repetitions ?? Math.max(...papers);
    const repetitions = scenario.allPeers > 2 ? argv.multiPartyRepetitions ?? twoParty : twoParty;
    return { name, source: name, repetitions, scenario };
  });
}

/**
 * One line per planned run: its directory and, with --resume, whether the run there is kept and why.
 * @param {{ name: string, repetitions: number, scenario: import('../lib/scenario/reproductions/resume.js').ResumeScenario }[]} entries
 * @param {{ out?: string, resume: boolean, fieldTrials?: string, bandwidthEstimation?: string }} argv
 * @param {(scenario: string, repetition: number, durationS: number) => string|null} skipRun
 */
async function printPlan(entries, argv, skipRun) {
  const plan = planRuns(entries);
  let skips = 0;
  for (const { entry, dir, repetition } of plan) {
    const scenario = entry.scenario;
    const skipped = skipRun(entry.name, repetition, scenario.durationS);
    if (skipped) { skips += 1; console.log(`${dir}  ${scenario.durationS} s  skip: ${skipped}`); continue; }
    const decision = argv.resume && argv.out
      ? resumeDecision(await loadResult(path.join(argv.out, dir, 'result.json')).catch(() => null), scenario) : null;
    console.log(`${dir}  ${scenario.durationS} s${decision ? `  ${decision.keep ? 'keep' : 'run'}: ${decision.why}` : '  run'}`);
  }
  console.log(`${plan.length} runs of ${entries.length} scenarios${skips ? ` (${skips} skipped)` : ''}${argv.out ? ` into ${displayPath(path.resolve(argv.out))}` : ''}`);
  const congestion = congestionPlanLine(argv);
  if (congestion) console.log(`${congestion} (an experiment: --publish refuses its runs)`);
}
