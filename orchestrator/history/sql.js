// Writing rows to either store: multi-row INSERTs with a conflict clause, in chunks that stay under both
// databases' limit of bound parameters (SQLite 32 766, PostgreSQL 65 535); what both stores bind.
import { describeKind } from '../lib/input/validate.js';

const PARAMS_PER_STATEMENT = 8_000;

/**
 * A statement's parameters, each text, a finite number or null, or a TypeError: the last guard under the import's
 * field checks (records.js). better-sqlite3 spreads an array over several parameters and takes an object as named
 * ones, so one array from a file would move its values into other rows of a multi-row INSERT; pg would store an
 * array literal or JSON instead.
 * @param {string} sql @param {unknown[]} params @returns {Array<string|number|null>}
 */
export function bindable(sql, params) {
  const bad = params.findIndex((value) => value !== null && typeof value !== 'string' && !(typeof value === 'number' && Number.isFinite(value)));
  if (bad < 0) return /** @type {Array<string|number|null>} */ (params);
  const statement = sql.replace(/\s+/g, ' ').trim().slice(0, 40);
  throw new TypeError(`results store: parameter ${bad + 1} of ${statement}… is ${describeKind(params[bad])}; only text, finite numbers and null are stored. A value reached the store unchecked: report this as a bug`);
}

/**
 * INSERT of many rows in few statements (a run's 50 metrics in one round trip to PostgreSQL).
 * @param {import('./store.js').Backend} store @param {string} table @param {string[]} columns @param {Array<Record<string, unknown>>} rows
 * @param {string} onConflict e.g. '(id) DO NOTHING'
 * @returns {Promise<number>} rows inserted or updated
 */
export async function insertRows(store, table, columns, rows, onConflict) {
  const tuple = `(${columns.map(() => '?').join(', ')})`;
  const perStatement = Math.max(1, Math.floor(PARAMS_PER_STATEMENT / columns.length));
  let changes = 0;
  for (let start = 0; start < rows.length; start += perStatement) {
    const chunk = rows.slice(start, start + perStatement);
    const sql = `INSERT INTO ${table} (${columns.join(', ')}) VALUES ${chunk.map(() => tuple).join(', ')} ON CONFLICT ${onConflict}`;
    changes += (await store.run(sql, chunk.flatMap((row) => columns.map((column) => row[column] ?? null)))).changes;
  }
  return changes;
}
