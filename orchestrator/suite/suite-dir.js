// A suite directory on disk: <suite-dir>/summary.json, junit.xml, summary.md, report.html, one
// reproduction-<table>.html per published table whose scenarios ran, sfu-comparison.json when a scenario ran through
// several SFUs, and one <scenario>/run-<k>/ directory (result.json + report.html) per run.
import { appendFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { InputError } from '../lib/system/errors.js';
import { writeFileAtomic, writeJsonAtomic } from '../lib/system/files.js';
import { describeKind, describeValue, expectName, expectNumber, expectObject, expectText, isName, isRecord } from '../lib/input/validate.js';
import { RESULTS_ROOT } from '../lib/system/paths.js';
import { loadResult, writeIndex } from '../report/write.js';
import { displayPath, readJsonFile } from '../lib/input/json-file.js';
import { buildReproduction, reproductionsOf, tableScenarios } from '../lib/scenario/reproductions.js';
import { collectTableRuns, commonMediaSource, referencesOf } from './reproduction-runs.js';
import { renderReproductionPage, reproductionFileName } from './render-reproduction.js';
import { renderJunit } from './junit.js';
import { renderMarkdown } from './markdown.js';
import { renderSuitePage } from './render-suite.js';
import { SUMMARY_KIND, SUMMARY_SCHEMA_VERSION, compactResult } from './summary.js';
import { runFile } from '../lib/input/run-file.js';
import { sfuComparisonsOf, sfuRunFigures } from '../report/sfu-comparison.js';

/** @typedef {(suiteDir: string, summary: import('./summary.js').SuiteSummary) => Promise<string[]>} Remember */

export const OUTPUT_FILES = { summary: 'summary.json', junit: 'junit.xml', markdown: 'summary.md', page: 'report.html' };
/** Written beside them when the suite ran a scenario through several SFUs (docs/suites.md "SFUs side by side"). */
export const SFU_COMPARISON_FILE = 'sfu-comparison.json';
export const SFU_COMPARISON_KIND = 'webrtc-testbed-sfu-comparison';

/**
 * results/suites/<suite>/<UTC timestamp>, e.g. results/suites/nightly/2026-11-21T02-00-00Z
 * @param {string} suiteName
 */
export function defaultSuiteDir(suiteName, date = new Date(), root = RESULTS_ROOT) {
  return path.join(root, 'suites', suiteName, date.toISOString().replace(/\.\d+Z$/, 'Z').replaceAll(':', '-'));
}

/**
 * Reads a suite summary from a suite directory or its summary.json.
 * @param {string} target
 * @returns {Promise<{ suiteDir: string, file: string, summary: import('./summary.js').SuiteSummary }>}
 */
export async function readSuiteSummary(target) {
  const info = await stat(target).catch(() => null);
  const file = info?.isDirectory() ? path.join(target, OUTPUT_FILES.summary) : target;
  const shown = displayPath(file);
  const summary = readJsonFile(file, 'suite summary', 'pass a suite directory (results/suites/<suite>/<timestamp>) or its summary.json');
  if (!isRecord(summary) || summary.kind !== SUMMARY_KIND) {
    throw new InputError(`${shown}: kind: must be "${SUMMARY_KIND}", got ${describeValue(isRecord(summary) ? summary.kind : undefined)}; pass the summary.json a \`suite\` or \`merge\` run wrote`);
  }
  if (summary.schemaVersion !== SUMMARY_SCHEMA_VERSION) throw new InputError(`${shown}: schemaVersion: this harness reads ${SUMMARY_SCHEMA_VERSION}, got ${describeValue(summary.schemaVersion)}`);
  if (!Array.isArray(summary.runs)) throw new InputError(`${shown}: runs: must be an array, got ${describeValue(summary.runs)}`);
  summary.runs.forEach((/** @type {unknown} */ run, /** @type {number} */ i) => checkRun(run, `${shown}: runs[${i}]`));
  // kind, schemaVersion and runs are checked above; the rest is as a suite or merge of this harness wrote it
  return { suiteDir: path.dirname(path.resolve(file)), file, summary: /** @type {import('./summary.js').SuiteSummary} */ (summary) };
}

/**
 * One of summary.json's runs, checked before a path is made of it or a store or page keeps it: a summary may come
 * from another machine (a shard, a shared results folder), and its dir must not lead out of the suite directory.
 * @param {unknown} run @param {string} at "file: runs[i]"
 */
function checkRun(run, at) {
  const record = expectObject(run, at);
  expectName(record.scenario, `${at}.scenario`);
  expectNumber(record.repetition, `${at}.repetition`, { min: 1, integer: true });
  expectText(record.status, `${at}.status`);
  expectInsidePath(record.dir, `${at}.dir`);
  if (record.report !== null && record.report !== undefined) expectInsidePath(record.report, `${at}.report`);
}

/** A path relative to the suite directory and inside it: names joined by '/'. @param {unknown} value @param {string} where */
function expectInsidePath(value, where) {
  if (typeof value === 'string' && value.split('/').every(isName)) return;
  const got = typeof value === 'string' ? 'a path that leaves it or has other characters' : describeKind(value);
  throw new InputError(`${where}: must be a path inside the suite directory (names of letters, digits, '.', '_' and '-' joined by '/', no '..'), got ${got}; pass the summary.json a \`suite\` or \`merge\` run wrote`);
}

/**
 * The runs of a suite directory with their results read back (null when a result.json is missing or unreadable).
 * @param {string} suiteDir @param {{ runs: { scenario: string, repetition: number, dir: string, report: string|null }[] }} summary
 * @returns {Promise<import('./summary.js').RunInput[]>}
 */
export async function readRuns(suiteDir, summary) {
  const runs = [];
  // One at a time: a nightly has 100+ results of a few MB each, and only their compact form is kept.
  for (const run of summary.runs) {
    const result = await loadResult(await runFile(suiteDir, run, 'result.json')).then(compactResult, () => null);
    runs.push({ scenario: run.scenario, repetition: run.repetition, dir: run.dir, hasReport: Boolean(run.report), result });
  }
  return runs;
}

/**
 * Writes summary.json (atomic), junit.xml, summary.md and report.html into suiteDir, appends the Markdown to
 * $GITHUB_STEP_SUMMARY when set, and refreshes the results index (results/index.html when the suite is under
 * results/, else <suite-dir>/index.html).
 * @param {string} suiteDir @param {import('./summary.js').SuiteSummary} summary
 * @param {{ log?: (line: string) => void, remember?: Remember|null }} [options]
 *   remember: writes the suite to the results store first, its warnings join summary.warnings
 * @returns {Promise<Record<keyof typeof OUTPUT_FILES, string>>} the written paths
 */
export async function writeSuiteOutputs(suiteDir, summary, { log = () => {}, remember = null } = {}) {
  if (remember) summary.warnings = [...(summary.warnings ?? []), ...await remember(suiteDir, summary)];
  const paths = /** @type {Record<keyof typeof OUTPUT_FILES, string>} */ (
    Object.fromEntries(Object.entries(OUTPUT_FILES).map(([key, name]) => [key, path.join(suiteDir, name)]))
  );
  const markdown = renderMarkdown(summary, { reportPath: displayPath(paths.page) });
  await writeJsonAtomic(paths.summary, summary);
  await writeFileAtomic(paths.junit, renderJunit(summary));
  await writeFileAtomic(paths.markdown, markdown);
  // The summary is the record: a reproduction page that cannot be made must not cost the suite page.
  const reproductions = await writeReproductionPages(suiteDir, summary)
    .catch((error) => { log(`reproduction pages not written: ${error.message}`); return []; });
  const sfuComparisons = await writeSfuComparison(suiteDir, summary)
    .catch((error) => { log(`SFU comparison not written: ${error.message}`); return []; });
  await writeFileAtomic(paths.page, renderSuitePage(summary, { reproductions, sfuComparisons }));
  if (process.env.GITHUB_STEP_SUMMARY) {
    await appendFile(process.env.GITHUB_STEP_SUMMARY, `${markdown}\n`).catch((error) => log(`cannot append to $GITHUB_STEP_SUMMARY: ${error.message}`));
  }
  const inResults = !path.relative(RESULTS_ROOT, suiteDir).startsWith('..');
  await writeIndex(inResults ? RESULTS_ROOT : suiteDir).catch((error) => log(`results index not updated: ${error.message}`));
  return paths;
}

/**
 * Writes sfu-comparison.json when the suite ran a scenario through several SFUs (an entry's `sfu` list): per scenario,
 * its runs' figures per subscriber (report/sfu-comparison.js), which the suite page sets side by side.
 * @param {string} suiteDir @param {import('./summary.js').SuiteSummary} summary
 * @returns {Promise<import('../report/sfu-comparison.js').SfuComparison[]>} none when no scenario ran through two SFUs
 */
export async function writeSfuComparison(suiteDir, summary) {
  // Runs of a summary written before runs recorded their SFU have none, and are not compared.
  const candidates = summary.runs.filter((run) => typeof run.sfu === 'string');
  if (new Set(candidates.map((run) => run.sfu)).size < 2) return [];
  const runs = [];
  // One result at a time, only its figures kept.
  for (const run of candidates) {
    const result = await loadResult(await runFile(suiteDir, run, 'result.json')).catch(() => null);
    if (result) runs.push(sfuRunFigures(result, { label: `${run.scenario} run ${run.repetition}`, href: run.report }));
  }
  const comparisons = sfuComparisonsOf(runs);
  if (comparisons.length) {
    await writeJsonAtomic(path.join(suiteDir, SFU_COMPARISON_FILE), { kind: SFU_COMPARISON_KIND, suite: summary.suite.name, comparisons });
  }
  return comparisons;
}

/**
 * Writes reproduction-<id>.html for every published table (lib/scenario/reproductions.js) with a row among the suite's
 * scenarios. A run counts only when it ran the shipped scenario file of that name: a suite's own file of the
 * same name is not the paper's experiment.
 * @param {string} suiteDir @param {import('./summary.js').SuiteSummary} summary
 * @returns {Promise<{ id: string, citation: string, title: string, file: string }[]>} file relative to suiteDir
 */
export async function writeReproductionPages(suiteDir, summary) {
  const tables = reproductionsOf(summary.scenarios.map((s) => s.name));
  if (!tables.length) return [];
  const needed = new Set(tables.flatMap(tableScenarios));
  const runs = await collectTableRuns(suiteDir, summary, needed);
  const references = referencesOf(needed);
  const environment = { video: summary.environment?.video ?? summary.suite?.video ?? null, cpus: summary.environment?.cpus ?? null };
  const written = [];
  for (const table of tables) {
    const mine = runs.filter((run) => tableScenarios(table).includes(run.scenario));
    const mediaSource = commonMediaSource(mine);
    const reproduction = buildReproduction(table, { runs: mine, references, environment: { ...environment, mediaSource } });
    const file = reproductionFileName(table.id);
    await writeFileAtomic(path.join(suiteDir, file), renderReproductionPage(reproduction, {
      suiteName: summary.suite?.name ?? 'suite', suitePage: OUTPUT_FILES.page, environment: summary.environment,
    }));
    written.push({ id: table.id, citation: table.citation, title: table.title, file });
  }
  return written;
}
