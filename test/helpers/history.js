// Helpers of the results store tests: a store of an older schema version holding what a current one holds.
import { insertRows } from '../../orchestrator/history/sql.js';

/** The tables of schema version 2, in the order their foreign keys need. */
const BASE_TABLES = { nights: 'id', runs: 'id', run_metrics: 'run_id, metric', comparisons: 'night_id, scenario, metric' };

/** Columns later migrations added to them, left out so the copy fits a store of version 2. */
const LATER_COLUMNS = ['compared_with'];

/**
 * Copies every row of the base tables from one open store to another (of version 2 or later).
 * @param {import('../../orchestrator/history/store.js').Store} from @param {import('../../orchestrator/history/store.js').Store} to
 */
export async function copyBaseTables(from, to) {
  await to.transaction(async () => {
    for (const [table, key] of Object.entries(BASE_TABLES)) {
      const rows = await from.query(`SELECT * FROM ${table} ORDER BY ${key}`);
      const columns = Object.keys(rows[0] ?? {}).filter((column) => !LATER_COLUMNS.includes(column));
      if (rows.length) await insertRows(to, table, columns, rows, `(${key}) DO NOTHING`);
    }
  });
}

/** The per-night aggregate in a fixed order, to compare stores. @param {import('../../orchestrator/history/store.js').Store} store */
export const nightMetrics = (store) => store.query('SELECT * FROM night_metrics ORDER BY night_id, scenario, metric');
