// The embedded store: one SQLite file through better-sqlite3 (built from source at install, docs/history.md).
// WAL journal and a busy timeout let two importers write one file at once: the second waits for the first's
// transaction instead of failing, and readers never block.
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { EnvironmentError, InputError, errorMessage } from '../lib/system/errors.js';
import { bindable } from './sql.js';

/** How long a writer waits for another's transaction before giving up (an import of a nightly takes seconds). */
const BUSY_TIMEOUT_MS = 60_000;

/** @returns {Promise<any>} any: better-sqlite3's Database class (the package ships no types) */
async function driver() {
  try {
    // @ts-ignore -- any: better-sqlite3 ships no types (@types/better-sqlite3 is not installed)
    return (await import('better-sqlite3')).default;
  } catch (error) {
    throw new EnvironmentError(`better-sqlite3 cannot be loaded (${errorMessage(error)}); run \`npm run setup\`, which builds it from source against this Node's headers`, { cause: error });
  }
}

/**
 * Each SQL text prepared once per connection.
 * @param {any} db  any: a better-sqlite3 Database (untyped)
 * @returns {(sql: string) => any}  any: better-sqlite3's Statement, untyped here
 */
function preparer(db) {
  /** @type {Map<string, any>} any: better-sqlite3's Statement */
  const statements = new Map();
  return (sql) => {
    if (!statements.has(sql)) statements.set(sql, db.prepare(sql));
    return statements.get(sql);
  };
}

/**
 * @param {string} file the database file (created with its folder when missing)
 * @returns {Promise<import('./store.js').Backend>}
 */
export async function openSqlite(file) {
  const Database = await driver();
  mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const db = new Database(file, { timeout: BUSY_TIMEOUT_MS });
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  const prepare = preparer(db);
  return {
    kind: 'sqlite',
    where: file,
    async query(sql, params = []) { return prepare(sql).all(...bindable(sql, params)); },
    async run(sql, params = []) { return { changes: prepare(sql).run(...bindable(sql, params)).changes }; },
    async exec(sql) { db.exec(sql); },
    // IMMEDIATE takes the write lock at BEGIN, so two writers queue there instead of deadlocking on an upgrade.
    async begin() { db.exec('BEGIN IMMEDIATE'); },
    async commit() { db.exec('COMMIT'); },
    async rollback() { if (db.inTransaction) db.exec('ROLLBACK'); },
    async lockSchema() { /* BEGIN IMMEDIATE already holds the only write lock */ },
    async close() { db.close(); },
  };
}

/**
 * The store as `serve` reads it: an existing file, opened read-only. It takes no lock a writer waits for (WAL
 * readers read the last commit) and never creates the file: a missing one is an error naming it.
 * @param {string} file
 * @returns {Promise<import('./store.js').Reader>}
 */
export async function openSqliteReader(file) {
  const Database = await driver();
  let db;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true, timeout: BUSY_TIMEOUT_MS });
  } catch (error) {
    if (!existsSync(file)) {
      throw new InputError(`--store ${file}: no such file; serving never creates a store: name an existing one, or create it by importing a suite (\`history import <suite dir> --store ${file}\`)`);
    }
    throw new EnvironmentError(`--store ${file}: cannot open the results store read-only (${errorMessage(error)})`, { cause: error });
  }
  const prepare = preparer(db);
  return {
    kind: 'sqlite',
    where: file,
    async query(sql, params = []) { return prepare(sql).all(...bindable(sql, params)); },
    async close() { db.close(); },
  };
}
