// The embedded store: one SQLite file through better-sqlite3 (built from source at install, docs/history.md).
// WAL journal and a busy timeout let two importers write one file at once: the second waits for the first's
// transaction instead of failing, and readers never block.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { EnvironmentError } from '../lib/system/errors.js';

/** How long a writer waits for another's transaction before giving up (an import of a nightly takes seconds). */
const BUSY_TIMEOUT_MS = 60_000;

/**
 * @param {string} file the database file (created with its folder when missing)
 * @returns {Promise<import('./store.js').Backend>}
 */
export async function openSqlite(file) {
  let Database;
  try {
    // @ts-ignore -- any: better-sqlite3 ships no types (@types/better-sqlite3 is not installed)
    Database = (await import('better-sqlite3')).default;
  } catch (error) {
    throw new EnvironmentError(`better-sqlite3 cannot be loaded (${error.message}); run \`npm run setup\`, which builds it from source against this Node's headers`, { cause: error });
  }
  mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const db = new Database(file, { timeout: BUSY_TIMEOUT_MS });
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  /** @type {Map<string, any>} any: better-sqlite3's Statement, untyped here */
  const statements = new Map();
  /** @param {string} sql */
  const prepare = (sql) => {
    if (!statements.has(sql)) statements.set(sql, db.prepare(sql));
    return statements.get(sql);
  };
  return {
    kind: 'sqlite',
    where: file,
    async query(sql, params = []) { return prepare(sql).all(...params); },
    async run(sql, params = []) { return { changes: prepare(sql).run(...params).changes }; },
    async exec(sql) { db.exec(sql); },
    // IMMEDIATE takes the write lock at BEGIN, so two writers queue there instead of deadlocking on an upgrade.
    async begin() { db.exec('BEGIN IMMEDIATE'); },
    async commit() { db.exec('COMMIT'); },
    async rollback() { if (db.inTransaction) db.exec('ROLLBACK'); },
    async lockSchema() { /* BEGIN IMMEDIATE already holds the only write lock */ },
    async close() { db.close(); },
  };
}
