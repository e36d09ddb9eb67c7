// `history import`: suite and run directories into the results store. One transaction per suite; every
// insert is ON CONFLICT DO NOTHING on keys derived from the results, so importing twice adds nothing, and the
// night's aggregate (night-metrics.js) is recomputed from its stored runs in the same transaction.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { loadResult } from '../report/write.js';
import { runFile } from '../lib/input/run-file.js';
import { refreshNightMetrics } from './night-metrics.js';
import { nightRecord, runRecord } from './records.js';
import { insertRows } from './sql.js';

const NIGHT_COLUMNS = ['id', 'suite', 'started_at', 'ended_at', 'outcome', 'exit_code', 'commit_sha', 'browser', 'emulator',
  'machine_class', 'shard', 'suite_dir', 'report', 'imported_at', 'compared_with'];
const RUN_COLUMNS = ['id', 'night_id', 'scenario', 'repetition', 'started_at', 'status', 'commit_sha', 'browser',
  'browser_version', 'emulator', 'machine_class', 'result_path', 'report'];
const METRIC_COLUMNS = ['run_id', 'metric', 'median', 'mean', 'q1', 'q3', 'n', 'reference'];
const COMPARISON_COLUMNS = ['night_id', 'scenario', 'metric', 'verdict', 'current_median', 'baseline_median', 'p_value',
  'cliffs_delta', 'relative_change'];

/**
 * @typedef {Record<string, unknown> & { suite: { name: string },
 *   runs: Array<{ dir: string, repetition: number, report?: string|null }> }} SummaryJson
 *   summary.json as this layer reads it: suite/summary.js builds it, suite/suite-dir.js checks a read one's runs, and
 *   nightRecord checks every other field it stores
 */

/**
 * Writes one night (or a lone run: night null) with its runs; returns the rows added.
 * @param {import('./store.js').Store} store
 * @param {{ night: ({ id: string } & Record<string, unknown>)|null, comparisons: Array<Record<string, unknown>>,
 *   runs: Array<{ run: Record<string, unknown>, metrics: Array<Record<string, unknown>> }> }} records
 */
export async function writeRecords(store, { night, comparisons, runs }) {
  return store.transaction(async () => {
    const added = { nights: 0, runs: 0, metrics: 0, comparisons: 0 };
    if (night) added.nights = await insertRows(store, 'nights', NIGHT_COLUMNS, [night], '(id) DO NOTHING');
    for (const { run, metrics } of runs) {
      // A run imported alone first joins its night when the suite is imported later.
      const attach = '(id) DO UPDATE SET night_id = excluded.night_id, repetition = excluded.repetition'
        + ' WHERE runs.night_id IS NULL AND excluded.night_id IS NOT NULL';
      added.runs += await insertRows(store, 'runs', RUN_COLUMNS, [run], attach);
      added.metrics += await insertRows(store, 'run_metrics', METRIC_COLUMNS, metrics, '(run_id, metric) DO NOTHING');
    }
    added.comparisons = await insertRows(store, 'comparisons', COMPARISON_COLUMNS, comparisons, '(night_id, scenario, metric) DO NOTHING');
    if (night) await refreshNightMetrics(store, night.id);
    return added;
  });
}

/**
 * A link to a file of the result: under --link-base when given (the URL the reports are published at), else the path.
 * @param {string|null} linkBase @param {string} base @param {string} relative
 */
const linkTo = (linkBase, base, relative) => (linkBase ? `${linkBase.replace(/\/+$/, '')}/${relative}` : path.join(base, relative));

/**
 * A suite's records from its summary and its runs' result.json files (also before summary.json is written:
 * `suite`/`merge --history`).
 * @param {string} suiteDir @param {SummaryJson} summary
 * @param {{ commit: string|null, linkBase?: string|null, importedAt?: string }} options
 */
export async function suiteRecords(suiteDir, summary, { commit, linkBase = null, importedAt = new Date().toISOString() }) {
  const { night, comparisons } = nightRecord(summary, { suiteDir, report: linkTo(linkBase, suiteDir, 'report.html'), commit, importedAt });
  const runs = [];
  // One result at a time: a nightly's results are a few MB each.
  for (const entry of summary.runs) {
    const resultFile = path.join(suiteDir, entry.dir, 'result.json');
    const result = await loadResult(await runFile(suiteDir, entry, 'result.json'), resultFile).catch(() => null);
    if (!result) continue;
    runs.push(runRecord(result, {
      nightId: night.id, repetition: entry.repetition, resultPath: resultFile, commit,
      report: entry.report ? linkTo(linkBase, suiteDir, entry.report) : null,
    }));
  }
  return { night, comparisons, runs };
}

/**
 * A single run directory's records: its result.json, with its report.html when there is one. (`history import`
 * tells a suite directory from a run directory: commands/history.js readRecords.)
 * @param {string} dir absolute, holding result.json
 * @param {{ commit: string|null, linkBase?: string|null }} options
 */
export async function runDirRecords(dir, { commit, linkBase = null }) {
  const resultFile = path.join(dir, 'result.json');
  const result = await loadResult(resultFile);
  const report = existsSync(path.join(dir, 'report.html')) ? linkTo(linkBase, dir, 'report.html') : null;
  return { night: null, comparisons: [], runs: [runRecord(result, { resultPath: resultFile, report, commit })] };
}
