// What the suite, merge and reproduce commands share: the comparison flags, loading a baseline, and the closing report.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { EnvironmentError, InputError, errorMessage } from '../lib/system/errors.js';
import { expectNumber } from '../lib/input/validate.js';
import { loadAssertions } from '../suite/assertions.js';
import { DEFAULT_REGRESSION, parseBaseline } from '../suite/baseline.js';
import { displayPath, readJsonFile } from '../lib/input/json-file.js';
import { KNOWN_METRICS } from '../lib/result/metric-values.js';
import { renderMarkdown } from '../suite/markdown.js';
import { suiteExitCode } from '../suite/summary.js';
import { PRESETS } from '../lib/media/media-presets.js';
import { DEFAULT_DRIFT } from '../lib/stats/drift.js';
import { rememberSuite } from '../history/remember.js';
import { isPostgresUrl, openStore, storeTarget } from '../history/store.js';
import { redact } from '../history/store-postgres.js';

/** --browser-pool of suite and reproduce (run/browser-pool.js). */
export const BROWSER_POOL_OPTION = {
  type: /** @type {const} */ ('boolean'), default: true,
  describe: 'keep each run\'s Chromium browsers for the next runs (a fresh browser context per run; not with a netem namespace, a '
    + 'device\'s cgroup or --grid); --no-browser-pool launches fresh ones for every run',
};

/**
 * --video of suite and reproduce: a preset name or an existing .y4m file.
 * @param {string|undefined} video
 */
export function checkVideoFlag(video) {
  if (video !== undefined && !PRESETS[video] && !(video.endsWith('.y4m') && existsSync(video))) {
    throw new InputError(`--video ${video}: neither a preset (${Object.keys(PRESETS).join(', ')}) nor an existing .y4m file`);
  }
}

/** @param {import('yargs').Argv} yargs */
export function comparisonOptions(yargs) {
  return yargs
    .option('out', { type: 'string', describe: 'suite directory to write (default results/suites/<suite>/<UTC timestamp>)' })
    .option('baseline', { type: 'string', describe: 'baseline file (from `baseline save`) to compare each metric with' })
    .option('allow-machine-mismatch', { type: 'boolean', default: false, describe: 'compare with a baseline from another machine class (or one that recorded none); the mismatch is noted in the outputs' })
    .option('assertions', { type: 'string', describe: 'assertions file instead of the suite\'s (format: docs/suites.md)' })
    .option('alpha', { type: 'number', describe: 'significance level of the two-sided Mann-Whitney U test (default 0.05)' })
    .option('min-effect', { type: 'number', describe: 'smallest |Cliff\'s delta| that counts as a regression (default 0.474)' })
    .option('min-change', { type: 'number', describe: 'smallest relative change of the medians that counts, e.g. 0.1 = 10 % (default 0.1)' })
    .option('metrics', { type: 'string', describe: `comma-separated metrics to compare with the baseline (default: ${DEFAULT_REGRESSION.metrics.join(',')})` })
    .option('history', { type: 'string', describe: 'results store (SQLite file or postgres:// URL) to write this suite to; its slow drifts become warnings (docs/history.md). Without a value: $HISTORY_STORE, else results/history.sqlite' })
    .option('fail', { type: 'boolean', default: true, describe: 'exit non-zero on failed assertions, regressions and crashed runs (--no-fail: report only, exit 0)' });
}

/**
 * The regression settings given as flags, validated with the flag's name in messages.
 * @param {{ alpha?: number, minEffect?: number, minChange?: number, metrics?: string }} argv
 * @returns {Partial<import('../suite/baseline.js').RegressionOptions>}
 */
export function regressionFlags(argv) {
  const flags = {};
  if (argv.alpha !== undefined) flags.alpha = expectNumber(argv.alpha, '--alpha', { above: 0, max: 0.5 });
  if (argv.minEffect !== undefined) flags.minEffectSize = expectNumber(argv.minEffect, '--min-effect', { min: 0, max: 1 });
  if (argv.minChange !== undefined) flags.minRelativeChange = expectNumber(argv.minChange, '--min-change', { min: 0 });
  if (argv.metrics !== undefined) {
    flags.metrics = String(argv.metrics).split(',').map((m) => m.trim()).filter(Boolean);
    const unknown = flags.metrics.find((m) => !KNOWN_METRICS.includes(m));
    if (unknown !== undefined || flags.metrics.length === 0) throw new InputError(`--metrics: unknown metric '${unknown ?? ''}'; known: ${KNOWN_METRICS.join(', ')}`);
  }
  return flags;
}

/**
 * --history: the suite is written to this results store before its outputs (commit: $GITHUB_SHA).
 * @param {string|undefined} store '' (the flag without a value): $HISTORY_STORE, so a password stays off argv
 * @param {(line: string) => void} log
 * @returns {import('../suite/suite-dir.js').Remember|null}
 */
export function rememberFlag(store, log) {
  if (store === undefined) return null;
  const commit = process.env.GITHUB_SHA || null;
  return (suiteDir, summary) => rememberSuite(suiteDir, summary, { store: storeTarget(store), commit, drift: DEFAULT_DRIFT, log });
}

/**
 * Opens and closes the `--history` store before any run: an unreachable PostgreSQL or an unwritable SQLite file stops
 * the suite at once (exit 3) instead of after hours of calls. Past this check, a store that fails is a warning.
 * @param {string|undefined} store
 */
export async function checkHistoryStore(store) {
  if (store === undefined) return;
  const target = storeTarget(store);
  try {
    await (await openStore(target)).close();
  } catch (error) {
    const shown = isPostgresUrl(target) ? redact(target) : target;
    throw new EnvironmentError(`--history ${shown}: the results store cannot be opened (${errorMessage(error)}); start it or fix the URL or path, `
      + 'or run without --history and import the suite later with `history import <suite dir>`');
  }
}

/**
 * @param {string|undefined} file
 * @returns {{ file: string, data: import('../suite/baseline.js').Baseline }|null}
 */
export function loadBaselineFlag(file) {
  if (file === undefined) return null;
  const resolved = path.resolve(file);
  const data = parseBaseline(readJsonFile(resolved, 'baseline', 'pass a file written by `baseline save` to --baseline'), displayPath(resolved));
  return { file: displayPath(resolved), data };
}

/**
 * @param {string|undefined} file
 * @returns {{ map: Record<string, import('../suite/assertions.js').Assertion[]>, file: string }|undefined}
 */
export function loadAssertionsFlag(file) {
  if (file === undefined) return undefined;
  const resolved = path.resolve(file);
  if (!existsSync(resolved)) throw new InputError(`--assertions ${file}: no such file; pass an assertions file (format: docs/suites.md)`);
  return { map: loadAssertions(resolved), file: displayPath(resolved) };
}

/**
 * Prints where the outputs are and the outcome, and sets the exit code.
 * @param {import('../suite/summary.js').SuiteSummary} summary @param {Record<string, string>} paths @param {{ fail: boolean }} argv
 */
export function finish(summary, paths, argv) {
  console.log(`\n${renderMarkdown(summary, { reportPath: displayPath(paths.page) })}Also: ${[paths.summary, paths.junit, paths.markdown].map(displayPath).join(', ')}`);
  process.exitCode = suiteExitCode(summary, { noFail: !argv.fail });
}
