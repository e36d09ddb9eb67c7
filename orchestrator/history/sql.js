// Writing rows to either store: multi-row INSERTs with a conflict clause, in chunks that stay under both
// databases' limit of bound parameters (SQLite 32 766, PostgreSQL 65 535).
const PARAMS_PER_STATEMENT = 8_000;

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
