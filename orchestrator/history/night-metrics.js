// The per-night aggregate the dashboard and the drift check read: per night, scenario and metric the median and
// IQR of the passed runs' medians, their count, the published reference, the runs' browser version and whether
// the gate found a regression. Written with the night in the import's transaction (and back-filled by the
// migration that added the table), so a year of nights is read as ~140 000 rows instead of aggregating ~700 000.
import { percentile } from '../lib/stats/statistics.js';
import { insertRows } from './sql.js';

export const NIGHT_METRIC_COLUMNS = ['night_id', 'scenario', 'metric', 'median', 'q1', 'q3', 'n', 'reference', 'browser_version', 'regression'];

/**
 * @typedef {{ night_id: string, scenario: string, metric: string, median: number|null, q1: number|null, q3: number|null, n: number,
 *   reference: number|null, browser_version: string|null, regression: number }} NightMetricRow regression: 1 or 0;
 *   median, q1, q3: null only for a night without values, which nightMetricRows never writes
 */

/**
 * (pure)
 * @param {{ night_id: string, scenario: string, browser_version: string|null, metric: string, median: number,
 *   reference: number|null }[]} values the passed runs' metric medians
 * @param {{ night_id: string, scenario: string, metric: string }[]} regressions the gate's regressions
 * @returns {NightMetricRow[]}
 */
export function nightMetricRows(values, regressions) {
  const regressed = new Set(regressions.map((row) => `${row.night_id}\0${row.scenario}\0${row.metric}`));
  /** @type {Map<string, { row: typeof values[number], medians: number[], versions: Set<string> }>} */
  const groups = new Map();
  for (const row of values) {
    if (!Number.isFinite(row.median)) continue;
    const key = `${row.night_id}\0${row.scenario}\0${row.metric}`;
    const group = groups.get(key) ?? { row, medians: [], versions: new Set() };
    groups.set(key, group);
    group.medians.push(row.median);
    if (row.browser_version) group.versions.add(row.browser_version);
  }
  return [...groups].map(([key, { row, medians, versions }]) => {
    const sorted = medians.sort((a, b) => a - b);
    return {
      night_id: row.night_id, scenario: row.scenario, metric: row.metric,
      median: percentile(sorted, 50), q1: percentile(sorted, 25), q3: percentile(sorted, 75), n: sorted.length,
      reference: row.reference ?? null, browser_version: [...versions].sort().join(', ') || null, regression: regressed.has(key) ? 1 : 0,
    };
  });
}

/**
 * Recomputes one night's aggregate from its stored runs (inside the caller's transaction). Runs are only ever
 * added to a night, so an upsert of every row is complete; the same runs give the same rows (idempotent).
 * @param {import('./store.js').Backend} store @param {string} nightId
 * @returns {Promise<number>} rows written
 */
export async function refreshNightMetrics(store, nightId) {
  /** @type {Parameters<typeof nightMetricRows>[0]} */
  const values = await store.query(
    `SELECT r.night_id, r.scenario, r.browser_version, m.metric, m.median, m.reference
     FROM runs r JOIN run_metrics m ON m.run_id = r.id WHERE r.night_id = ? AND r.status = 'passed'`,
    [nightId],
  );
  /** @type {Parameters<typeof nightMetricRows>[1]} */
  const regressions = await store.query("SELECT night_id, scenario, metric FROM comparisons WHERE night_id = ? AND verdict = 'regression'", [nightId]);
  const update = NIGHT_METRIC_COLUMNS.slice(3).map((column) => `${column} = excluded.${column}`).join(', ');
  return insertRows(store, 'night_metrics', NIGHT_METRIC_COLUMNS, nightMetricRows(values, regressions), `(night_id, scenario, metric) DO UPDATE SET ${update}`);
}

/**
 * The migration's back-fill: every stored night, one at a time (a year's runs need not fit in memory).
 * @param {import('./store.js').Backend} store
 */
export async function backfillNightMetrics(store) {
  /** @type {Array<{ id: string }>} */
  const nights = await store.query('SELECT id FROM nights ORDER BY started_at');
  for (const { id } of nights) await refreshNightMetrics(store, id);
}
