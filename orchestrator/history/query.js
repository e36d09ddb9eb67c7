// Reads from the results store (the SQL of the dashboard, the export, the drift check and the rolling baseline).
// Filters are bound parameters; only the metric list, which comes from the catalogue, is spelled into IN (…).
import { buildTrends } from './trends.js';

/**
 * @typedef {{ scenario?: string|null, metrics?: string[]|null, since?: string|null, suite?: string|null }} Filter
 */

/**
 * @param {Filter} filter
 * @param {{ scenario: string, time: string, metric: string }} columns what the filter is applied to (n: nights)
 * @returns {{ where: string, params: unknown[] }}
 */
function whereOf({ scenario = null, metrics = null, since = null, suite = null }, columns) {
  const clauses = [];
  const params = [];
  if (scenario) { clauses.push(`${columns.scenario} = ?`); params.push(scenario); }
  if (since) { clauses.push(`${columns.time} >= ?`); params.push(since); }
  if (suite) { clauses.push('n.suite = ?'); params.push(suite); }
  if (metrics?.length) { clauses.push(`${columns.metric} IN (${metrics.map(() => '?').join(', ')})`); params.push(...metrics); }
  return { where: clauses.length ? `WHERE ${clauses.join(' AND ')}` : '', params };
}

/**
 * Every night of the suite(s), oldest first.
 * @param {import('./store.js').Reader} store @param {Filter} filter
 * @returns {Promise<Array<import('./trends.js').NightRecord & { suite: string, machine_class: string|null }>>}
 */
export async function readNights(store, { since = null, suite = null } = {}) {
  const clauses = [since && 'started_at >= ?', suite && 'suite = ?'].filter(Boolean);
  return store.query(
    `SELECT id, suite, started_at, outcome, browser, commit_sha, machine_class, report FROM nights
     ${clauses.length ? `WHERE ${clauses.join(' AND ')}` : ''} ORDER BY started_at, id`,
    [since, suite].filter(Boolean),
  );
}

/**
 * The stored per-night aggregate (night-metrics.js) of the nights the filter keeps.
 * @param {import('./store.js').Reader} store @param {Filter} filter
 * @returns {Promise<import('./night-metrics.js').NightMetricRow[]>}
 */
export async function readNightAggregates(store, filter) {
  const { where, params } = whereOf(filter, { scenario: 'a.scenario', time: 'n.started_at', metric: 'a.metric' });
  return store.query(
    `SELECT a.night_id, a.scenario, a.metric, a.median, a.q1, a.q3, a.n, a.reference, a.regression
     FROM night_metrics a JOIN nights n ON n.id = a.night_id ${where}`,
    params,
  );
}

/**
 * Runs per night, scenario and status (a night's verdict per scenario).
 * @param {import('./store.js').Reader} store @returns {Promise<import('./trends.js').StatusRow[]>}
 */
export async function readRunStatuses(store) {
  /** @type {Array<Omit<import('./trends.js').StatusRow, 'runs'> & { runs: number|string }>} runs: a COUNT, text from some drivers */
  const rows = await store.query('SELECT night_id, scenario, status, COUNT(*) AS runs FROM runs WHERE night_id IS NOT NULL GROUP BY night_id, scenario, status');
  return rows.map((row) => ({ ...row, runs: Number(row.runs) }));
}

/**
 * Every run and metric summary, for `history export` (one row per run × metric).
 * @param {import('./store.js').Reader} store @param {Filter} filter
 */
export async function readExportRows(store, filter) {
  const { where, params } = whereOf(filter, { scenario: 'r.scenario', time: 'r.started_at', metric: 'm.metric' });
  return store.query(
    `SELECT r.id AS run_id, r.night_id, n.suite, n.outcome AS night_outcome, r.scenario, r.repetition, r.started_at, r.status,
       r.commit_sha, r.browser, r.emulator, r.machine_class, m.metric, m.median, m.mean, m.q1, m.q3, m.n, m.reference,
       r.result_path, r.report
     FROM run_metrics m JOIN runs r ON r.id = m.run_id LEFT JOIN nights n ON n.id = r.night_id
     ${where} ORDER BY r.started_at, r.id, m.metric`,
    params,
  );
}

/**
 * The passed runs' values per night for the rolling baseline: newest nights first, green nights only, and none
 * before the newest night compared with no baseline (of the machine class, when given): such a night started a new
 * series, as the first night does and a reset of the rolling baseline does (the nightly workflow's reset_baseline).
 * @param {import('./store.js').Reader} store @param {{ suite: string, limit: number, machineClass?: string|null }} options
 */
export async function readGreenNights(store, { suite, limit, machineClass = null }) {
  const sameClass = machineClass ? ' AND machine_class = ?' : '';
  /**
   * @type {Array<{ id: string, suite: string, started_at: string, browser: string|null, emulator: string|null,
   *   machine_class: string|null }>}
   */
  const nights = await store.query(
    `SELECT id, suite, started_at, browser, emulator, machine_class FROM nights WHERE suite = ? AND outcome = 'passed'
     AND started_at >= COALESCE((SELECT MAX(started_at) FROM nights WHERE suite = ? AND compared_with = ''${sameClass}), '')
     ORDER BY started_at DESC LIMIT ?`,
    [suite, suite, ...(machineClass ? [machineClass] : []), limit],
  );
  /** @type {Array<{ night_id: string, run_id: string, scenario: string, metric: string, median: number }>} */
  const values = [];
  for (const night of nights) {
    /** @type {typeof values} */
    const passed = await store.query(
      "SELECT r.night_id, r.id AS run_id, r.scenario, m.metric, m.median FROM runs r JOIN run_metrics m ON m.run_id = r.id WHERE r.night_id = ? AND r.status = 'passed'",
      [night.id],
    );
    values.push(...passed);
  }
  return { nights, values };
}

/**
 * The dashboard's data from the store's per-night aggregate.
 * @param {import('./store.js').Reader} store
 * @param {Filter & { metrics: string[], drift?: { nights: number, thresholdPct: number } }} options
 */
export async function trendsFromStore(store, { metrics, drift, ...filter }) {
  const [nights, aggregates, statuses] = await Promise.all([
    readNights(store, filter), readNightAggregates(store, { ...filter, metrics }), readRunStatuses(store),
  ]);
  return buildTrends({ nights, aggregates, statuses, metrics, drift });
}
