import path from 'node:path';
import { DEFAULT_PRESET, PRESETS } from '../lib/media/media-presets.js';
import { runEmulators } from '../emulators/index.js';
import { BROWSER_KINDS, DEFAULT_BROWSER } from '../lib/scenario/peer-browsers.js';
import { installProcessHandlers } from '../lib/system/shutdown.js';
import { InputError } from '../lib/system/errors.js';
import { CODEC_NAMES, parseCodecFlag } from '../lib/media/codec.js';
import { createProgress } from '../run/progress.js';
import { RESULTS_ROOT } from '../lib/system/paths.js';
import { defaultRunDir } from '../run/output.js';
import { writeIndex, writeRunReport } from '../report/write.js';
import { MEDIA_SOURCES, loadScenario } from '../lib/scenario/scenario-file.js';
import { BANDWIDTH_ESTIMATION_OPTION, FIELD_TRIALS_OPTION } from './congestion-options.js';
import { AUDIO_QUALITY_MODES } from '../lib/audio/audio-windows.js';
import { resolveScenarioOrGroup } from '../lib/scenario/scenario-groups.js';
import { headlinePaths, metricByPath } from '../lib/result/metric-catalogue.js';
import { referenceValue } from '../lib/scenario/reference.js';
import { emulatorBehindWarning } from '../lib/devices/cpu-limit.js';
import { saturatedNodesWarning } from '../lib/devices/node-resources.js';
import { TRACE_DIR_OPTION, traceDirs } from './trace-dir.js';
import { gridOptions, gridRunOption } from './grid-option.js';
import { PUBLISH_OPTION, publishFlag, sfuOption } from './sfu-option.js';

export const command = 'scenario <name>';
export const describe = 'Run one scenario (a built-in name, or a path to a scenario .json file), or every scenario of a group in turn, and write its results';

/** @param {import('yargs').Argv} yargs */
export const builder = (yargs) => gridOptions(yargs)
  .positional('name', { describe: 'scenario or group name (see `list`) or path to a scenario file', type: 'string' })
  .option('duration', { describe: 'run this many seconds instead of the scenario\'s duration', type: 'number' })
  .option('time-scale', { describe: 'compress the scenario clock (0.25 = 4× faster schedule); recorded in the results', type: 'number', default: 1 })
  .option('warmup', { describe: 'seconds excluded from the summary statistics (default: the scenario\'s warmupS)', type: 'number' })
  .option('out', { describe: 'result directory (default results/<scenario>/<UTC timestamp>; a group: one <scenario>/ directory per member inside it)', type: 'string' })
  .option('force', { describe: 'replace a result already in --out', type: 'boolean', default: false })
  .option('browser', { describe: 'every peer\'s browser, except peers the scenario\'s `browsers` names', choices: BROWSER_KINDS, default: DEFAULT_BROWSER })
  .option('browser-path', { describe: 'Chrome/Chromium executable (default: $CHROME_PATH, then well-known paths)', type: 'string' })
  .option('firefox-path', { describe: 'Firefox executable (default: $FIREFOX_PATH, then /usr/bin/firefox-esr and other well-known paths)', type: 'string' })
  .option('video', { describe: `video preset (${Object.keys(PRESETS).join(', ')}) or a .y4m file`, type: 'string', default: DEFAULT_PRESET })
  .option('emulator', { describe: 'network emulator', choices: runEmulators(), default: 'relay' })
  .option('sfu', sfuOption())
  .option('publish', PUBLISH_OPTION)
  .option('headful', { describe: 'show the browser windows', type: 'boolean', default: false })
  .option('media-source', {
    choices: MEDIA_SOURCES,
    describe: 'video rates: rfc8867 (150 kbps to 1.5 Mbps, starting at 150; the rmcat-* default) or browser (its own); overrides the scenario\'s',
  })
  .option('field-trials', FIELD_TRIALS_OPTION)
  .option('bandwidth-estimation', BANDWIDTH_ESTIMATION_OPTION)
  .option('audio-quality', {
    choices: AUDIO_QUALITY_MODES,
    describe: 'record what each page plays out and score it against the sent audio with ViSQOL in this mode (audio: 48 kHz, speech: 16 kHz); overrides the scenario\'s audioQuality',
  })
  .option('lip-sync', {
    type: 'boolean', default: false,
    describe: 'mark the media with tone bursts at known frames and measure each page\'s audio-video offset (ITU-R BT.1359); on over a scenario without lipSync',
  })
  .option('screen-share', {
    type: 'string',
    describe: 'these peers (comma-separated, e.g. p0) send generated slides as a second video track with contentHint "detail" (mesh calls); overrides the scenario\'s screenShare',
  })
  .option('codec', { describe: `video codec every connection must use (${CODEC_NAMES.join(', ')}), optionally :scalabilityMode=<mode> and, for h264, :profile=<hex>; overrides the scenario's`, type: 'string' })
  .option('trace-step-ms', { describe: 'netem, dummynet: replay link traces as rate steps this long (default: the scenario\'s network.traceStepMs, else 100)', type: 'number' })
  .option('trace-dir', TRACE_DIR_OPTION)
  .check((argv) => {
    parseCodecFlag(argv.codec);
    publishFlag(argv.publish);
    if (!(argv.timeScale > 0)) throw new InputError(`--time-scale must be a number above 0, got ${argv.timeScale}`);
    if (argv.duration !== undefined && !(argv.duration > 0)) throw new InputError(`--duration must be a number of seconds above 0, got ${argv.duration}`);
    if (argv.warmup !== undefined && !(argv.warmup >= 0)) throw new InputError(`--warmup must be 0 or more seconds, got ${argv.warmup}`);
    return true;
  });

/** @type {Record<import('../lib/result/result.js').RunStatus, number>} */
const EXIT_CODE = { passed: 0, failed: 4, aborted: 130 };

/**
 * The options `scenario` reads, as yargs parses them (camelCase).
 * @typedef {{ name: string, duration?: number, timeScale: number, warmup?: number, out?: string, force: boolean,
 *   browser: string, browserPath?: string, firefoxPath?: string, video: string, emulator: string, sfu: string, headful: boolean,
 *   mediaSource?: string, fieldTrials?: string, bandwidthEstimation?: string, audioQuality?: string, lipSync: boolean,
 *   screenShare?: string, codec?: string, publish?: string, traceStepMs?: number, traceDir: string[],
 *   grid?: string, spread?: boolean, gridSecrets?: string }} ScenarioArgv
 */

/** @typedef {{ n?: number, mean: number, sd: number }} Stat */

/**
 * A summary section keyed by peer or metric name (run-summary.js builds them as object literals).
 * @template T
 * @param {object|null} section
 * @returns {Record<string, T>}
 */
const byName = (section) => Object.fromEntries(Object.entries(section ?? {}));

/** @param {Stat|undefined} stat */
const formatStat = (stat) => (stat?.n ? `${stat.mean.toFixed(1)} ± ${stat.sd.toFixed(1)}` : '–');

/**
 * How far the rate steps a kernel emulator replayed the traces with were from them (network.traceSteps).
 * @param {import('../lib/result/result.js').TraceSteps|null} traceSteps
 */
function printTraceSteps(traceSteps) {
  if (!traceSteps) return;
  const { p50, p99 } = traceSteps.appliedLateMs;
  console.log(`\ntraces as ${traceSteps.stepMs} ms rate steps (applied late by p50 ${p50 ?? '–'} / p99 ${p99 ?? '–'} ms):`);
  for (const [link, { steps, meanAbsErrorKbps, maxAbsErrorKbps, maxBacklogBytes, clampedSteps }] of Object.entries(traceSteps.links)) {
    console.log(`  ${link.padEnd(16)}${steps} steps; capacity per second off by mean ${meanAbsErrorKbps ?? '–'} / max ${maxAbsErrorKbps ?? '–'} kbps; `
      + `up to ${maxBacklogBytes} bytes ahead or behind the trace${clampedSteps ? `; ${clampedSteps} outage steps at the 8 kbps minimum` : ''}`);
  }
}

/**
 * A thesis-style table of the headline metrics.
 * @param {import('../lib/result/result.js').RunResult & { scenario: { reference?: unknown } }} result
 */
function printSummary({ summary, scenario, network, resources }) {
  printTraceSteps(network.traceSteps);
  /** @type {Record<string, Record<string, Stat>>} */
  const peers = byName(summary.peers);
  /** @type {Record<string, number|null>} */
  const setupMs = byName(summary.setupMs);
  /** @type {Record<string, Stat>} */
  const overall = byName(summary.overall);
  // An opt-in metric (audio.mosLqo) only when the run measured it.
  const rows = headlinePaths('table').filter((key) => !metricByPath(key)?.optIn || (overall[key]?.n ?? 0) > 0);
  const columns = [...Object.keys(peers), 'overall'];
  /** @param {string} column */
  const stats = (column) => (column === 'overall' ? overall : peers[column]);
  console.log(`\n${'metric'.padEnd(18)}${columns.map((c) => c.padStart(18)).join('')}${'reference'.padStart(14)}`);
  for (const key of rows) {
    const reference = referenceValue(scenario.reference, key)?.mean;
    console.log(`${key.padEnd(18)}${columns.map((c) => formatStat(stats(c)?.[key]).padStart(18)).join('')}${(reference ?? '').toString().padStart(14)}`);
  }
  if (summary.utilization) {
    /** @type {Record<string, number>} */
    const utilization = byName(summary.utilization);
    console.log(`${'utilization'.padEnd(18)}${columns.map((c) => (utilization[c] ?? 0).toFixed(2).padStart(18)).join('')}`);
  }
  console.log(`${'setupMs'.padEnd(18)}${columns.map((c) => String(c === 'overall' ? setupMs.max ?? '–' : setupMs[c] ?? '–').padStart(18)).join('')}`);
  const behind = emulatorBehindWarning(summary.emulatorBehind, network.emulator);
  if (behind) console.error(`\nwarning: ${behind}`);
  const saturated = saturatedNodesWarning(resources.grid);
  if (saturated) console.error(`\nwarning: ${saturated}`);
}

/** Worst first: an interrupted member stops the group, a failed one does not. */
const SEVERITY = [130, 4, 0];

/** @param {ScenarioArgv} argv */
export async function handler(argv) {
  installProcessHandlers();
  const { group, names } = resolveScenarioOrGroup(argv.name);
  // Every member is loaded before the first starts, so a bad one costs no run.
  const codec = parseCodecFlag(argv.codec);
  const dirs = traceDirs(argv);
  const scenarios = names.map((name) => loadScenario(name, {
    timeScale: argv.timeScale, durationS: argv.duration, warmupS: argv.warmup, codec, traceStepMs: argv.traceStepMs, traceDirs: dirs,
    mediaSource: argv.mediaSource, publish: publishFlag(argv.publish), audioQuality: argv.audioQuality,
    lipSync: argv.lipSync, screenShare: argv.screenShare?.split(','), fieldTrials: argv.fieldTrials,
    bandwidthEstimation: argv.bandwidthEstimation,
  }));
  if (argv.publish !== undefined && !scenarios.some((scenario) => scenario.topology === 'sfu')) {
    throw new InputError(`--publish: simulcast and SVC publish to an SFU, and ${argv.name} has no SFU call (topology sfu); drop --publish`);
  }
  const grid = await gridRunOption(argv);
  if (!group) {
    process.exitCode = await runOne(scenarios[0], argv, argv.out, grid);
    return;
  }
  const parentDir = argv.out ?? defaultRunDir(group.name);
  console.log(`group ${group.name}: ${scenarios.length} scenarios, one after another, into ${parentDir}`);
  /** @type {Array<{ name: string, code: number }>} */
  const outcomes = [];
  for (const [index, scenario] of scenarios.entries()) {
    console.log(`\n[${index + 1}/${scenarios.length}] ${scenario.name}`);
    const code = await runOne(scenario, argv, path.join(parentDir, scenario.name), grid);
    outcomes.push({ name: scenario.name, code });
    if (code === EXIT_CODE.aborted) break;
  }
  console.log(`\ngroup ${group.name}:`);
  for (const name of names) {
    const outcome = outcomes.find((o) => o.name === name);
    const status = outcome ? Object.entries(EXIT_CODE).find(([, code]) => code === outcome.code)?.[0] : 'not run';
    console.log(`  ${name.padEnd(Math.max(...names.map((n) => n.length)))}  ${status}`);
  }
  process.exitCode = SEVERITY.find((code) => outcomes.some((o) => o.code === code));
}

/**
 * Runs one scenario, prints its summary and writes its report.
 * @param {import('../lib/scenario/scenario-file.js').ResolvedScenario} scenario
 * @param {ScenarioArgv} argv
 * @param {string|undefined} outDir @param {import('../run/run.js').RunOptions['grid']} grid
 * @returns {Promise<number>} the run's exit code
 */
async function runOne(scenario, argv, outDir, grid) {
  const progress = createProgress({ durationS: scenario.durationS });
  progress.log(`scenario ${scenario.name}: ${scenario.description} (${scenario.durationS} s, time scale ${scenario.timeScale})`);
  // Loaded only to run (puppeteer, the servers): a refused flag or file, and `--help`, answer without it.
  const { runScenario } = await import('../run/run.js');
  const { result, runDir, resultFile } = await runScenario({
    scenario,
    video: argv.video,
    browser: argv.browser,
    browserPath: argv.browserPath,
    firefoxPath: argv.firefoxPath,
    emulator: argv.emulator,
    sfu: argv.sfu,
    headful: argv.headful,
    outDir,
    force: argv.force,
    grid,
    onSample: (sample) => progress.sample(sample),
    log: (line) => progress.log(line),
  });
  progress.done();
  printSummary(result);
  for (const error of result.errors) console.error(`error${error.peer ? ` (${error.peer})` : ''}: ${error.message}`);
  // The result is the record; a report that fails to render, or an index that cannot be refreshed, must not
  // lose it or change the run's exit code.
  const reportFile = await writeRunReport(runDir).catch((error) => { console.error(`warning: report not written: ${error.message}`); return null; });
  await writeIndex(RESULTS_ROOT).catch((error) => console.error(`warning: results index not updated: ${error.message}`));
  /** @param {string} file */
  const shown = (file) => path.relative(process.cwd(), file) || file;
  console.log(`\n${result.status}: ${shown(resultFile)}${reportFile ? `\nreport: ${shown(reportFile)}` : ''}`);
  return EXIT_CODE[result.status];
}
