import path from 'node:path';
import { PRESETS } from '../lib/media/media-presets.js';
import { EMULATORS } from '../emulators/index.js';
import { InputError } from '../lib/system/errors.js';
import { displayPath } from '../lib/input/json-file.js';
import { REPRODUCTIONS, findReproduction, tableScenarios } from '../lib/scenario/reproductions.js';
import { loadScenario } from '../lib/scenario/scenario-file.js';
import { TRACE_DIR_OPTION, traceDirs } from './trace-dir.js';
import { installProcessHandlers } from '../lib/system/shutdown.js';
import { DEFAULT_REGRESSION } from '../suite/baseline.js';
import { reproductionFileName } from '../suite/render-reproduction.js';
import { runSuite } from '../suite/runner.js';
import { checkVideoFlag } from '../suite/cli.js';
import { suiteExitCode } from '../suite/summary.js';

export const command = 'reproduce [table]';
export const describe = 'Run the scenarios of a published table (e.g. j16-table-8-1) as a suite and render its reproduction page';

/** As the nightly: J16 averages 5 runs (§7-4); 720p30 on this machine's cores. */
const DEFAULTS = { repetitions: 5, video: '720p30', emulator: 'relay' };

/** @param {import('yargs').Argv} yargs */
export const builder = (yargs) => yargs
  .positional('table', { type: 'string', describe: `table id: ${REPRODUCTIONS.map((t) => t.id).join(', ')}` })
  .option('list', { type: 'boolean', default: false, describe: 'list the tables with their scenarios, and exit' })
  .option('repetitions', { type: 'number', default: DEFAULTS.repetitions, describe: 'runs per scenario' })
  .option('time-scale', { type: 'number', default: 1, describe: 'compress every scenario\'s clock (a smoke check, not a reproduction)' })
  .option('video', { type: 'string', default: DEFAULTS.video, describe: `video preset (${Object.keys(PRESETS).join(', ')}; J16 used 1080p50) or a .y4m file` })
  .option('emulator', { choices: EMULATORS, default: DEFAULTS.emulator, describe: 'network emulator' })
  .option('out', { type: 'string', describe: 'suite directory to write (default results/suites/reproduce-<table>/<UTC timestamp>)' })
  .option('browser-path', { type: 'string', describe: 'Chrome/Chromium executable (default: $CHROME_PATH, then well-known paths)' })
  .option('headful', { type: 'boolean', default: false, describe: 'show the browser windows' })
  .option('trace-dir', TRACE_DIR_OPTION)
  .check((argv) => {
    if (!argv.list && argv.table === undefined) throw new InputError(`name a table (${REPRODUCTIONS.map((t) => t.id).join(', ')}) or pass --list`);
    if (!(Number.isInteger(argv.repetitions) && argv.repetitions >= 1)) throw new InputError(`--repetitions must be an integer of at least 1, got ${argv.repetitions}`);
    if (!(argv.timeScale > 0)) throw new InputError(`--time-scale must be a number above 0, got ${argv.timeScale}`);
    checkVideoFlag(argv.video);
    return true;
  });

export async function handler(argv) {
  if (argv.list) {
    const width = Math.max(...REPRODUCTIONS.map((t) => t.id.length));
    for (const table of REPRODUCTIONS) console.log(`${table.id.padEnd(width)}  ${table.citation}: ${table.title}\n${' '.repeat(width + 2)}${tableScenarios(table).join(', ')}`);
    return;
  }
  const table = findReproduction(argv.table);
  // A suite built in memory: the suite runner, its outputs and the reproduction pages are the suite's own.
  const suite = {
    name: `reproduce-${table.id}`,
    description: `${table.citation}: ${table.title}`,
    file: `reproduce ${table.id}`,
    emulator: argv.emulator,
    video: PRESETS[argv.video] ? argv.video : path.resolve(argv.video),
    assertionsFile: null,
    regression: DEFAULT_REGRESSION,
    entries: tableScenarios(table).map((name) => ({
      name, source: name, repetitions: argv.repetitions,
      scenario: loadScenario(name, { timeScale: argv.timeScale, traceDirs: traceDirs(argv) }),
    })),
  };
  installProcessHandlers();
  const { summary, suiteDir, paths } = await runSuite({
    suite, assertions: {}, assertionsFile: null, regression: suite.regression, outDir: argv.out,
    browserPath: argv.browserPath, headful: argv.headful, log: (line) => console.error(line),
  });
  const page = path.join(suiteDir, reproductionFileName(table.id));
  console.log(`\n${summary.outcome}: ${summary.counts.passedRuns} of ${summary.counts.runs} runs passed\nreproduction: ${displayPath(page)}\nsuite: ${displayPath(paths.page)}`);
  process.exitCode = suiteExitCode(summary);
}
