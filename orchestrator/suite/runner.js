// Runs a suite (or one shard of it) run by run into one directory, then writes its summary and reports.
// Results and reports are written before any error leaves: an environment error (no browser) stops the
// suite with what ran so far; Ctrl-C finishes the current run as aborted and stops.
import { access } from 'node:fs/promises';
import path from 'node:path';
import { onCleanup, onInterrupt } from '../lib/system/shutdown.js';
import { createBrowserPool } from '../run/browser-pool.js';
import { EnvironmentError, HarnessError, InputError, errorMessage, errorStack } from '../lib/system/errors.js';
import { createProgress } from '../run/progress.js';
import { runScenario } from '../run/run.js';
import { resumeDecision } from '../lib/scenario/reproductions/resume.js';
import { loadResult, writeRunReport } from '../report/write.js';
import { checkMachineClass } from './baseline.js';
import { machineClass } from '../lib/result/machine-class.js';
import { planRuns, shardEntries } from './plan.js';
import { buildSuiteSummary, compactResult } from './summary.js';
import { defaultSuiteDir, writeSuiteOutputs } from './suite-dir.js';

/**
 * With --resume, the run already complete in its directory (lib/scenario/reproductions/resume.js), or null to run it.
 * @param {string} runDir
 * @param {{ entry: { name: string, scenario: import('../lib/scenario/reproductions/resume.js').ResumeScenario }, repetition: number,
 *   dir: string }} planned
 * @param {(line: string) => void} log
 * @returns {Promise<import('./summary.js').RunInput|null>}
 */
async function keptRun(runDir, { entry, repetition, dir }, log) {
  /** @type {import('./summary.js').SuiteResult|null} */
  const existing = await loadResult(path.join(runDir, 'result.json')).catch(() => null);
  const { keep, why } = resumeDecision(existing, entry.scenario);
  log(`${entry.name} run ${repetition}: ${keep ? 'kept' : 're-run'}, ${why}`);
  if (!keep || !existing) return null;
  const hasReport = await access(path.join(runDir, 'report.html')).then(() => true, () => false);
  return { scenario: entry.name, repetition, dir, hasReport, result: compactResult(existing) };
}

/**
 * @param {object} options
 * @param {import('./suite-file.js').Suite} options.suite
 * @param {Record<string, import('./assertions.js').Assertion[]>} options.assertions
 * @param {string|null} options.assertionsFile shown in the outputs
 * @param {{ file: string, data: import('./baseline.js').Baseline }|null} [options.baseline]
 * @param {import('./baseline.js').RegressionOptions} options.regression
 * @param {boolean} [options.allowMachineMismatch] compare with a baseline of another machine class
 * @param {{ index: number, count: number }|null} [options.shard]
 * @param {string} [options.outDir] default results/suites/<suite>/<UTC timestamp>
 * @param {string} [options.browserPath]
 * @param {boolean} [options.headful]
 * @param {import('../run/run.js').RunOptions['grid']} [options.grid]  --grid: every run's peers on this Selenium Grid
 * @param {(line: string) => void} [options.log]
 * @param {import('./suite-dir.js').Remember|null} [options.remember] write the suite to the results store
 * @param {boolean} [options.resume] keep each run whose result.json in the suite directory is complete
 *   (lib/scenario/reproductions/resume.js)
 * @param {number} [options.maxNewRuns] run at most this many runs (kept ones not counted), then stop: a long
 *   reproduction runs in chunks, each resumed with `resume`
 * @param {(scenario: string, repetition: number, durationS: number) => string|null} [options.skipRun] why a planned run is not this
 *   suite's to run (e.g. it is already published), or null to run it; a skipped run is left out of the summary
 * @param {typeof runScenario} [options.runOne] runs one scenario (a test's fake; default the real run)
 * @param {boolean} [options.browserPool] keep the runs' Chromium browsers for the next runs (run/browser-pool.js); each
 *   run's page still opens in a fresh browser context
 * @returns {Promise<{ summary: import('./summary.js').SuiteSummary, suiteDir: string, paths: Record<string, string> }>}
 * @throws {HarnessError} after writing the outputs, when the environment (or an input only a run could check) stopped the suite
 */
export async function runSuite({
  suite, assertions, assertionsFile, baseline = null, regression, allowMachineMismatch = false, shard = null, outDir, browserPath,
  headful = false, grid, log = () => {}, remember = null, resume = false, maxNewRuns = Infinity, skipRun = () => null,
  runOne = runScenario, browserPool = false,
}) {
  const startedAt = new Date();
  const suiteDir = path.resolve(outDir ?? defaultSuiteDir(suite.name, startedAt));
  const entries = shard ? shardEntries(suite.entries, shard) : suite.entries;
  const plan = planRuns(entries);
  /** @type {import('./summary.js').RunInput[]} */
  const runs = [];
  /** @type {string[]} */
  const problems = [];
  /** @type {HarnessError|null} */
  let haltingError = null;
  let interrupted = false;
  let machineChecked = false;
  let newRuns = 0;
  let notYetRun = 0;
  const stopListening = onInterrupt(() => { interrupted = true; });
  const pool = browserPool ? createBrowserPool() : undefined;
  const closePool = onCleanup('browser pool', async () => pool?.close());

  log(`suite ${suite.name}${shard ? ` shard ${shard.index}/${shard.count}` : ''}: ${plan.length} runs of ${entries.map((e) => e.name).join(', ') || 'nothing (empty shard)'} -> ${suiteDir}`);
  try {
    for (const [i, { entry, repetition, dir }] of plan.entries()) {
      if (interrupted) break;
      const skipped = skipRun(entry.name, repetition, entry.scenario.durationS);
      if (skipped) { log(`[${i + 1}/${plan.length}] ${entry.name} run ${repetition}: skipped, ${skipped}`); continue; }
      const runDir = path.join(suiteDir, dir);
      const kept = resume ? await keptRun(runDir, { entry, repetition, dir }, (why) => log(`[${i + 1}/${plan.length}] ${why}`)) : null;
      if (kept) { runs.push(kept); continue; }
      // Past the chunk's size the loop goes on only to collect the runs already kept.
      if (newRuns === maxNewRuns) { notYetRun += 1; continue; }
      newRuns += 1;
      const progress = createProgress({ durationS: entry.scenario.durationS });
      progress.log(`[${i + 1}/${plan.length}] ${entry.name} run ${repetition}/${entry.repetitions} (${entry.scenario.durationS} s)`);
      let result;
      try {
        ({ result } = await runOne({
          scenario: entry.scenario, video: suite.video, emulator: suite.emulator, sfu: entry.sfu ?? suite.sfu, browserPath, headful, grid,
          outDir: runDir, force: resume, onSample: (sample) => progress.sample(sample), log: (line) => progress.log(line),
          browserPool: pool,
        }));
      } catch (error) {
        progress.done();
        if (error instanceof HarnessError) {
          haltingError = error;
          problems.push(`${entry.name} run ${repetition}: ${errorMessage(error)}`);
          break;
        }
        // A harness bug: the run counts as crashed (no result.json) and the suite goes on.
        log(`${entry.name} run ${repetition} crashed: ${errorStack(error)}`);
        problems.push(`${entry.name} run ${repetition} crashed: ${errorMessage(error)}`);
        runs.push({ scenario: entry.name, repetition, dir, hasReport: false, result: null });
        continue;
      }
      progress.done();
      const hasReport = await writeRunReport(runDir).then(() => true, (error) => { log(`report for ${dir} not written: ${errorMessage(error)}`); return false; });
      log(`${entry.name} run ${repetition}: ${result.status}${result.errors.length ? ` (${result.errors[0].message})` : ''}`);
      runs.push({ scenario: entry.name, repetition, dir, hasReport, result: compactResult(result) });
      if (result.status === 'aborted') interrupted = true;
      // The machine class is known once a browser has run: refuse a foreign baseline before the other runs.
      if (baseline && !machineChecked) {
        machineChecked = true;
        const { note, refusal } = machineCheck(baseline, result, allowMachineMismatch);
        if (note) { problems.push(note); log(note); }
        if (refusal) { haltingError = refusal; problems.push(refusal.message); baseline = null; break; }
      }
    }
  } finally {
    stopListening();
    await closePool();
  }
  if (notYetRun) problems.push(`${notYetRun} run(s) not run yet (--max-runs ${maxNewRuns}): run the same command again, with --resume, to go on`);

  const summary = buildSuiteSummary({
    suite, regression, assertions, assertionsFile, scenarios: entries.map((e) => e.name), runs, baseline, shard,
    startedAt: startedAt.toISOString(), endedAt: new Date().toISOString(), problems,
    halted: haltingError ? (haltingError instanceof EnvironmentError ? 'environment-error' : 'input-error') : null, interrupted,
  });
  const paths = await writeSuiteOutputs(suiteDir, summary, { log, remember });
  if (haltingError) throw haltingError;
  return { summary, suiteDir, paths };
}

/**
 * The baseline's machine class against the suite's first run (known once a browser has run): a note for the summary,
 * or the refusal that stops the suite (a foreign baseline).
 * @param {NonNullable<Parameters<typeof checkMachineClass>[0]>} baseline @param {import('../lib/result/result.js').RunResult} result
 * @param {boolean} allowMismatch
 * @returns {{ note: string|null, refusal: InputError|null }}
 */
function machineCheck(baseline, result, allowMismatch) {
  try {
    return { note: checkMachineClass(baseline, machineClass(result.environment), { allowMismatch }) ?? null, refusal: null };
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    return { note: null, refusal: error };
  }
}
