// `history`: the results store of every night (docs/history.md). import suites and runs, export them for
// notebooks, render the trend dashboard, check for slow drift, and read the rolling baseline from the store.
import { existsSync } from 'node:fs';
import { appendFile } from 'node:fs/promises';
import path from 'node:path';
import { InputError } from '../lib/system/errors.js';
import { writeFileAtomic, writeJsonAtomic } from '../lib/system/files.js';
import { oneLine, workflowCommand } from '../lib/system/workflow-command.js';
import { displayPath } from '../lib/input/json-file.js';
import { METRIC_PATHS } from '../lib/result/metric-catalogue.js';
import { expectNumber } from '../lib/input/validate.js';
import { describeMachineClass, machineClass } from '../lib/result/machine-class.js';
import { DEFAULT_KEEP_NIGHTS, nightBaselines, rollBaselines } from '../suite/baseline.js';
import { readSuiteSummary } from '../suite/suite-dir.js';
import { renderTrendsPage } from '../report/render-trends.js';
import { DEFAULT_DRIFT } from '../lib/stats/drift.js';
import { runDirRecords, suiteRecords, writeRecords } from '../history/import.js';
import { readExportRows, readGreenNights, trendsFromStore } from '../history/query.js';
import { openStore, storeTarget } from '../history/store.js';
import { DASHBOARD_METRICS } from '../history/trends.js';
import { toCsv } from '../history/export.js';

export const command = 'history <action>';
export const describe = 'The results store of every night: import, export, report (trend dashboard), drift, baseline';

// No yargs default: --help and usage errors print defaults, and $HISTORY_STORE may hold a password (storeTarget).
const storeOption = { type: /** @type {const} */ ('string'), describe: 'SQLite file or postgres:// URL (default $HISTORY_STORE, else results/history.sqlite)' };
/** @param {import('yargs').Argv} y */
const filterOptions = (y) => y
  .option('store', storeOption)
  .option('scenario', { type: 'string', describe: 'only this scenario' })
  .option('metric', { type: 'string', array: true, describe: 'only these catalogue metrics (repeat or comma-separate)' })
  .option('since', { type: 'string', describe: 'only runs started at or after this date (ISO 8601, e.g. 2026-10-01)' })
  .option('suite', { type: 'string', describe: 'only nights of this suite' });
/** @param {import('yargs').Argv} y */
const driftOptions = (y) => y
  .option('drift-nights', { type: 'number', default: DEFAULT_DRIFT.nights, describe: 'drift: compare the last N nights with the N before' })
  .option('drift-pct', { type: 'number', default: DEFAULT_DRIFT.thresholdPct, describe: 'drift: flag a change of the median beyond this many per cent' });

/** @param {import('yargs').Argv} yargs */
export const builder = (yargs) => yargs
  .command('import <dirs..>', 'Write suite (or run) directories into the store; importing twice adds nothing', (y) => driftOptions(y
    .positional('dirs', { type: 'string', array: true, describe: 'suite directories (summary.json) or run directories (result.json)' })
    .option('store', storeOption)
    .option('commit', { type: 'string', default: process.env.GITHUB_SHA || undefined, describe: 'the commit the results were made with (default $GITHUB_SHA)' })
    .option('link-base', { type: 'string', describe: 'URL the suite directory is published at: reports are linked under it instead of by path' })), importDirs)
  .command('export', 'Print or write every run × metric summary as CSV or JSON', (y) => filterOptions(y)
    .option('format', { choices: ['csv', 'json'], default: 'csv' })
    .option('out', { type: 'string', describe: 'file to write (default: standard output)' }), exportRows)
  .command('report', 'Render the trend dashboard (self-contained HTML)', (y) => driftOptions(filterOptions(y))
    .option('out', { type: 'string', default: 'results/trends.html', describe: 'HTML file to write' }), report)
  .command('drift', 'List metrics whose last nights moved beyond the threshold from the nights before', (y) => driftOptions(filterOptions(y)), drift)
  .command('baseline', 'Write the rolling baseline from the store: the runs of the last green nights of one machine class', (y) => y
    .option('store', storeOption)
    .option('suite', { type: 'string', default: 'nightly', describe: 'suite whose nights to roll' })
    .option('keep-nights', { type: 'number', default: DEFAULT_KEEP_NIGHTS, describe: 'newest green nights kept per scenario' })
    .option('like', { type: 'string', describe: 'keep only nights of the machine class of this suite directory (default: of the newest night)' })
    .option('out', { type: 'string', demandOption: true, describe: 'baseline file to write (not written when no night qualifies)' }), baseline)
  .demandCommand(1, 'Name an action: import, export, report, drift or baseline.');

/**
 * @template {string[]|null} F
 * @param {string[]|undefined} given @param {F} fallback
 * @returns {string[]|F}
 */
function metricsOf(given, fallback) {
  if (!given?.length) return fallback;
  const metrics = given.flatMap((item) => String(item).split(',')).map((item) => item.trim()).filter(Boolean);
  for (const metric of metrics) {
    if (!METRIC_PATHS.includes(metric)) throw new InputError(`--metric: unknown metric "${metric}"; known: ${METRIC_PATHS.join(', ')}`);
  }
  return metrics;
}

/** @param {string|undefined} since */
function sinceOf(since) {
  if (since === undefined) return null;
  const ms = Date.parse(since);
  if (!Number.isFinite(ms)) throw new InputError(`--since: "${since}" is not a date; give ISO 8601, e.g. 2026-10-01`);
  return new Date(ms).toISOString();
}

/**
 * @typedef {{ store?: string, scenario?: string, metric?: string[], since?: string, suite?: string }} FilterArgv
 * @typedef {{ driftNights: number, driftPct: number }} DriftArgv
 */

/**
 * The --scenario, --metric, --since and --suite filter.
 * @template {string[]|null} F
 * @param {FilterArgv} argv @param {F} defaultMetrics
 */
const filterOf = (argv, defaultMetrics) => ({
  scenario: argv.scenario ?? null, metrics: metricsOf(argv.metric, defaultMetrics), since: sinceOf(argv.since), suite: argv.suite ?? null,
});

/** @param {DriftArgv} argv */
const driftOf = (argv) => ({
  nights: expectNumber(argv.driftNights, '--drift-nights', { min: 1, integer: true }),
  thresholdPct: expectNumber(argv.driftPct, '--drift-pct', { min: 0 }),
});

/**
 * Opens the store, runs work, closes it whatever happens.
 * @template T
 * @param {string|undefined} target --store @param {(store: import('../history/store.js').Store) => Promise<T>} work
 * @returns {Promise<T>}
 */
async function withStore(target, work) {
  const store = await openStore(storeTarget(target));
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

/**
 * Drift lines as warnings: printed, and in GitHub Actions as annotations and in the job summary.
 * @param {Array<{ text: string }>} drifts
 */
async function warnDrift(drifts) {
  // A drift names a stored scenario: a store written by an older harness or another writer may hold any text.
  for (const drift of drifts) {
    console.log(`drift: ${oneLine(drift.text)}`);
    if (process.env.GITHUB_ACTIONS) console.log(workflowCommand('warning', { title: 'drift' }, drift.text));
  }
  if (drifts.length && process.env.GITHUB_STEP_SUMMARY) {
    await appendFile(process.env.GITHUB_STEP_SUMMARY, `\n### Drift (results store)\n\n${drifts.map((d) => `- ${oneLine(d.text)}`).join('\n')}\n`);
  }
}

/**
 * What `history import` reads from a directory: a suite directory (its summary.json, checked as suite/suite-dir.js
 * reads it, and every run's result.json) or a single run directory, as records.
 * @param {string} target
 * @param {{ commit: string|null, linkBase?: string|null, importedAt?: string }} options
 */
export async function readRecords(target, { commit, linkBase = null, importedAt = new Date().toISOString() }) {
  const dir = path.resolve(target);
  if (existsSync(path.join(dir, 'summary.json'))) {
    const { suiteDir, summary } = await readSuiteSummary(dir);
    return suiteRecords(suiteDir, summary, { commit, linkBase, importedAt });
  }
  if (!existsSync(path.join(dir, 'result.json'))) {
    throw new InputError(`${displayPath(dir)}: neither summary.json nor result.json here; pass a suite directory (results/suites/<suite>/<time>) or a run directory`);
  }
  return runDirRecords(dir, { commit, linkBase });
}

/** @param {DriftArgv & { store?: string, dirs: string[], commit?: string, linkBase?: string }} argv */
async function importDirs(argv) {
  await withStore(argv.store, async (store) => {
    /** @type {Set<string>} */
    const suites = new Set();
    for (const dir of argv.dirs) {
      const records = await readRecords(dir, { commit: argv.commit ?? null, linkBase: argv.linkBase ?? null });
      const added = await writeRecords(store, records);
      if (records.night) suites.add(records.night.suite);
      console.log(`${displayPath(path.resolve(dir))} -> ${store.where}: added ${added.nights} nights, ${added.runs} runs, ${added.metrics} metric summaries, ${added.comparisons} comparisons${records.runs.length && !added.runs ? ' (already stored)' : ''}`);
    }
    for (const suite of suites) {
      const trends = await trendsFromStore(store, { suite, metrics: DASHBOARD_METRICS, drift: driftOf(argv) });
      await warnDrift(trends.drifts.filter((d) => d.worse));
    }
  });
}

/** @param {FilterArgv & { format: 'csv'|'json', out?: string }} argv */
async function exportRows(argv) {
  const filter = filterOf(argv, null);
  const rows = await withStore(argv.store, (store) => readExportRows(store, filter));
  const text = argv.format === 'json' ? `${JSON.stringify(rows, null, 1)}\n` : toCsv(rows);
  if (argv.out) {
    await writeFileAtomic(path.resolve(argv.out), text);
    console.error(`${rows.length} rows -> ${displayPath(path.resolve(argv.out))}`);
  } else {
    process.stdout.write(text);
  }
}

/** @param {FilterArgv & DriftArgv} argv */
async function trendsOf(argv) {
  const options = { ...filterOf(argv, DASHBOARD_METRICS), drift: driftOf(argv) };
  return withStore(argv.store, async (store) => ({ trends: await trendsFromStore(store, options), where: store.where }));
}

/** @param {FilterArgv & DriftArgv & { out: string }} argv */
async function report(argv) {
  const { trends, where } = await trendsOf(argv);
  const out = path.resolve(argv.out);
  await writeFileAtomic(out, renderTrendsPage(trends, { store: where }));
  console.log(`trend dashboard of ${trends.nights.length} nights, ${trends.scenarios.length} scenarios -> ${displayPath(out)}`);
  await warnDrift(trends.drifts);
}

/** @param {FilterArgv & DriftArgv} argv */
async function drift(argv) {
  const { trends } = await trendsOf(argv);
  if (!trends.drifts.length) console.log(`no drift beyond ${argv.driftPct} % over ${trends.nights.length} nights`);
  await warnDrift(trends.drifts);
}

/** @param {{ store?: string, suite: string, keepNights: number, like?: string, out: string }} argv */
async function baseline(argv) {
  const keepNights = expectNumber(argv.keepNights, '--keep-nights', { min: 1, integer: true });
  const machine = argv.like === undefined ? undefined : machineClass((await readSuiteSummary(argv.like)).summary.environment ?? {});
  // Nights of other machine classes are skipped by the roll, so read more than kept.
  const { nights, values } = await withStore(argv.store, (store) => readGreenNights(store, {
    suite: argv.suite, limit: keepNights * 4, machineClass: machine ? JSON.stringify(machine) : null,
  }));
  const rolled = rollBaselines(nightBaselines(nights, values), { keepNights, machine });
  if (!rolled) {
    console.log(`no green ${argv.suite} night${machine ? ` of machine class ${describeMachineClass(machine)}` : ''} in the store: ${displayPath(path.resolve(argv.out))} not written`);
    return;
  }
  await writeJsonAtomic(path.resolve(argv.out), rolled);
  console.log(`rolling baseline from the store -> ${displayPath(path.resolve(argv.out))}: ${rolled.source}`);
}
