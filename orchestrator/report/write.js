// Report I/O: run reports, the results index and comparison pages, written atomically.
// The renderers (render-*.js) are pure; this module reads result files and writes pages.

import { mkdir, readdir, stat } from 'node:fs/promises';
import { join, dirname, basename, relative, resolve, sep } from 'node:path';
import { HarnessError, InputError } from '../lib/system/errors.js';
import { writeFileAtomic } from '../lib/system/files.js';
import { loadResult } from './result-file.js';
import { renderRunReport } from './render-run.js';
import { renderIndex, indexEntry, unreadableEntry } from './render-index.js';
import { renderCompareReport } from './render-compare.js';
import { renderErrorPage } from './render-error.js';

export { loadResult, parseResult, normalizeResult } from './result-file.js';
export { renderRunReport } from './render-run.js';
export { renderIndex } from './render-index.js';
export { renderCompareReport } from './render-compare.js';

/** Directories never searched for runs. */
const SKIP_DIRS = new Set(['node_modules', 'test-artifacts']);
const MAX_DEPTH = 6;

/**
 * A run directory or a result.json path -> { runDir, resultFile }.
 * @param {string} target
 */
export async function resolveRun(target) {
  const info = await stat(target).catch(() => null);
  if (!info) throw new InputError(`${target} does not exist: pass a run directory (results/<scenario>/<timestamp>) or its result.json.`);
  return info.isDirectory()
    ? { runDir: target, resultFile: join(target, 'result.json') }
    : { runDir: dirname(target), resultFile: target };
}

/**
 * Writes runDir/report.html from runDir/result.json. When the result cannot be read, the page
 * says why (so a link to it never shows a blank page) and the error is thrown.
 * @param {string} runDir
 * @param {{resultFile?: string}} [options] a result file under another name than runDir/result.json
 * @returns {Promise<string>} the report path
 */
export async function writeRunReport(runDir, { resultFile = join(runDir, 'result.json') } = {}) {
  const out = join(runDir, 'report.html');
  let result;
  try {
    result = await loadResult(resultFile);
  } catch (error) {
    if (error instanceof HarnessError) await writeFileAtomic(out, renderErrorPage(error.message, resultFile)).catch(() => {});
    throw error;
  }
  await writeFileAtomic(out, renderRunReport(result, { sourcePath: resultFile }));
  return out;
}

/**
 * Every result.json under root (any depth, hidden, node_modules and test-artifacts skipped), sorted.
 * @param {string} root @returns {Promise<string[]>}
 */
export async function findResultFiles(root) {
  /** @type {string[]} */
  const found = [];
  /** @param {string} dir @param {number} depth @returns {Promise<void>} */
  const walk = async (dir, depth) => {
    const entries = await readdir(dir, { withFileTypes: true }).catch((error) => {
      if (dir === root) throw new InputError(`cannot read results directory ${root}: ${error.message}. Pass --dir with an existing directory.`, { cause: error });
      return [];
    });
    for (const e of entries) {
      if (e.isFile() && e.name === 'result.json') found.push(join(dir, e.name));
      else if (e.isDirectory() && depth < MAX_DEPTH && !e.name.startsWith('.') && !SKIP_DIRS.has(e.name)) await walk(join(dir, e.name), depth + 1);
    }
  };
  await walk(root, 0);
  return found.sort();
}

/**
 * The index rows of every run under root; unreadable results are listed with their error.
 * @param {string} root
 */
export async function collectRuns(root) {
  const files = await findResultFiles(root);
  const entries = [];
  for (const file of files) {
    const runDir = dirname(file);
    const href = relative(root, runDir).split(sep).map(encodeURIComponent).join('/');
    const hasReport = await stat(join(runDir, 'report.html')).then(() => true, () => false);
    try {
      entries.push(indexEntry(await loadResult(file), { href, hasReport }));
    } catch (error) {
      if (!(error instanceof HarnessError)) throw error;
      entries.push(unreadableEntry(error.message, { href, hasReport }));
    }
  }
  return entries;
}

/**
 * Writes resultsRoot/index.html listing every run under resultsRoot.
 * @param {string} resultsRoot @returns {Promise<string>} the index path
 */
export async function writeIndex(resultsRoot) {
  const out = join(resultsRoot, 'index.html');
  await mkdir(resultsRoot, { recursive: true });
  await writeFileAtomic(out, renderIndex(await collectRuns(resultsRoot), { root: resultsRoot }));
  return out;
}

/**
 * Renders runs of one scenario overlaid and writes the page.
 * @param {string[]} targets run directories or result.json files (at least 2)
 * @param {{out?: string}} [options] default: compare-<scenario>-<UTC time>.html next to the first run's directory
 * @returns {Promise<string>} the written path
 */
export async function writeCompareReport(targets, { out } = {}) {
  if (targets.length < 2) throw new InputError(`compare needs at least two run directories (got ${targets.length}).`);
  const runs = [];
  for (const target of targets) {
    const { resultFile } = await resolveRun(target);
    runs.push({ result: await loadResult(resultFile), sourcePath: resultFile });
  }
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const file = resolve(out ?? join(dirname(dirname(runs[0].sourcePath)), `compare-${basename(runs[0].result.scenario.name)}-${stamp}.html`));
  await writeFileAtomic(file, renderCompareReport(runs, { baseDir: dirname(file) }));
  return file;
}
