import { PRESETS } from '../lib/media/media-presets.js';
import { runEmulators } from '../emulators/index.js';
import { installProcessHandlers } from '../lib/system/shutdown.js';
import { InputError } from '../lib/system/errors.js';
import { CODEC_NAMES, parseCodecFlag } from '../lib/media/codec.js';
import { loadAssertions } from '../suite/assertions.js';
import { resolveRegressionOptions } from '../suite/baseline.js';
import { BROWSER_POOL_OPTION, checkVideoFlag, comparisonOptions, finish, loadAssertionsFlag, loadBaselineFlag, regressionFlags, rememberFlag, checkHistoryStore } from './suite-options.js';
import { displayPath } from '../lib/input/json-file.js';
import { entryCostS, parseShard, planRuns, shardEntries } from '../suite/plan.js';
import { entryAssertions, listSuites, loadSuite } from '../suite/suite-file.js';
import { TRACE_DIR_OPTION, traceDirs } from './trace-dir.js';
import { gridOptions, gridRunOption } from './grid-option.js';
import { PUBLISH_OPTION, publishFlag, suiteSfuOption } from './sfu-option.js';
import { BANDWIDTH_ESTIMATION_OPTION, FIELD_TRIALS_OPTION, congestionPlanLine } from './congestion-options.js';

export const command = 'suite <suite>';
export const describe = 'Run a suite of scenarios (built-in: smoke, nightly; or a suite .json file), check its assertions and compare with a baseline';

/** @param {import('yargs').Argv} yargs */
export const builder = (yargs) => comparisonOptions(gridOptions(yargs)
  .positional('suite', { type: 'string', describe: `built-in suite (${listSuites().map((s) => s.name).join(', ')}) or path to a suite file` })
  .option('shard', { type: 'string', describe: 'run only slice k of n (e.g. 2/4), deterministic: for a CI matrix; join the slices with `merge`' })
  .option('repetitions', { type: 'number', describe: 'runs per scenario instead of the suite\'s' })
  .option('duration', { type: 'number', describe: 'every run this many seconds instead of the suite\'s or scenario\'s duration (after --time-scale in the file)' })
  .option('warmup', { type: 'number', describe: 'seconds of every run excluded from the summary statistics, instead of the suite\'s or scenario\'s' })
  .option('video', { type: 'string', describe: `video preset (${Object.keys(PRESETS).join(', ')}) or a .y4m file, instead of the suite's` })
  .option('emulator', { choices: runEmulators(), describe: 'network emulator instead of the suite\'s' })
  .option('sfu', suiteSfuOption())
  .option('publish', PUBLISH_OPTION)
  .option('field-trials', FIELD_TRIALS_OPTION)
  .option('bandwidth-estimation', BANDWIDTH_ESTIMATION_OPTION)
  .option('browser-pool', BROWSER_POOL_OPTION)
  .option('codec', { type: 'string', describe: `video codec of every run (${CODEC_NAMES.join(', ')}, optionally :scalabilityMode=<mode>, :profile=<hex>), instead of the scenarios'` })
  .option('browser-path', { type: 'string', describe: 'Chrome/Chromium executable (default: $CHROME_PATH, then well-known paths)' })
  .option('headful', { type: 'boolean', default: false, describe: 'show the browser windows' })
  .option('trace-dir', TRACE_DIR_OPTION)
  .option('dry-run', { type: 'boolean', default: false, describe: 'print the runs this suite (or shard) would make, and exit' }))
  .check((argv) => {
    if (argv.repetitions !== undefined && !(Number.isInteger(argv.repetitions) && argv.repetitions >= 1)) {
      throw new InputError(`--repetitions must be an integer of at least 1, got ${argv.repetitions}`);
    }
    if (argv.duration !== undefined && !(argv.duration > 0)) throw new InputError(`--duration must be a number of seconds above 0, got ${argv.duration}`);
    if (argv.warmup !== undefined && !(argv.warmup >= 0)) throw new InputError(`--warmup must be 0 or more seconds, got ${argv.warmup}`);
    checkVideoFlag(argv.video);
    parseCodecFlag(argv.codec);
    publishFlag(argv.publish);
    return true;
  });

/**
 * @param {{ suite: string, shard?: string, repetitions?: number, duration?: number, warmup?: number, video?: string, emulator?: string,
 *   sfu?: string, publish?: string, codec?: string, fieldTrials?: string, bandwidthEstimation?: string,
 *   browserPath?: string, headful: boolean, browserPool: boolean, traceDir: string[], dryRun: boolean, out?: string, baseline?: string,
 *   allowMachineMismatch: boolean, assertions?: string, alpha?: number, minEffect?: number, minChange?: number,
 *   metrics?: string, history?: string, fail: boolean, grid?: string, spread?: boolean, gridSecrets?: string }} argv
 */
export async function handler(argv) {
  const shard = argv.shard === undefined ? null : parseShard(argv.shard);
  const suite = loadSuite(argv.suite, {
    repetitions: argv.repetitions, durationS: argv.duration, warmupS: argv.warmup, video: argv.video, emulator: argv.emulator,
    sfu: argv.sfu, publish: publishFlag(argv.publish),
    codec: parseCodecFlag(argv.codec), fieldTrials: argv.fieldTrials, bandwidthEstimation: argv.bandwidthEstimation,
    traceDirs: traceDirs(argv),
  });
  const regression = resolveRegressionOptions(regressionFlags(argv), 'flags', suite.regression);
  const baseline = loadBaselineFlag(argv.baseline);
  const loaded = loadAssertionsFlag(argv.assertions)
    ?? {
      map: suite.assertionsFile ? loadAssertions(suite.assertionsFile) : {},
      file: suite.assertionsFile ? displayPath(suite.assertionsFile) : null,
    };
  const assertions = { map: entryAssertions(loaded.map, suite.entries), file: loaded.file };

  if (argv.dryRun) {
    const entries = shard ? shardEntries(suite.entries, shard) : suite.entries;
    const totalS = entries.reduce((sum, entry) => sum + entryCostS(entry), 0);
    console.log(`suite ${suite.name}${shard ? ` shard ${shard.index}/${shard.count}` : ''}: ${planRuns(entries).length} runs, about ${Math.round(totalS / 60)} min`);
    const congestion = congestionPlanLine(argv);
    if (congestion) console.log(`  ${congestion}`);
    for (const entry of entries) {
      const checks = (assertions.map[entry.name] ?? []).filter((a) => a.level !== 'off').length;
      console.log(`  ${entry.name.padEnd(28)} ${entry.repetitions} × ${entry.scenario.durationS} s (time scale ${entry.scenario.timeScale}, warm-up ${entry.scenario.warmupS} s), ${checks} assertions`);
    }
    return;
  }

  await checkHistoryStore(argv.history);
  // Every run of the suite uses the Grid: one that does not answer stops the suite before its first run (exit 3).
  const grid = await gridRunOption(argv);
  installProcessHandlers();
  // Loaded only to run (puppeteer, the servers): a refused flag or file answers without it.
  const { runSuite } = await import('../suite/runner.js');
  const { summary, paths } = await runSuite({
    suite, assertions: assertions.map, assertionsFile: assertions.file,
    baseline, regression, allowMachineMismatch: argv.allowMachineMismatch,
    shard, outDir: argv.out, browserPath: argv.browserPath, headful: argv.headful, grid, browserPool: argv.browserPool,
    log: (line) => console.error(line),
    remember: rememberFlag(argv.history, (line) => console.error(line)),
  });
  finish(summary, paths, argv);
}
