// One small interface over the two results stores (docs/history.md): the embedded SQLite file (default) and a
// shared PostgreSQL given by URL. Opening a store brings its schema to this harness's version; opening it to
// read (serve) changes nothing and refuses a store of another version.
import { InputError, errorMessage } from '../lib/system/errors.js';
import { pendingMigrations, SCHEMA_VERSION, VERSION_TABLE } from './schema.js';
import { openSqlite, openSqliteReader } from './store-sqlite.js';
import { openPostgres, openPostgresReader } from './store-postgres.js';

/**
 * What each backend provides. SQL uses `?` placeholders; the PostgreSQL backend numbers them.
 * @typedef {object} Backend
 * @property {'sqlite'|'postgres'} kind
 * @property {string} where the file, or the URL without its password
 * @property {<Row = Record<string, unknown>>(sql: string, params?: unknown[]) => Promise<Row[]>} query  a caller names the rows
 *   its SELECT gives, of the tables this module's migrations made
 * @property {(sql: string, params?: unknown[]) => Promise<{ changes: number }>} run
 * @property {(sql: string) => Promise<void>} exec
 * @property {() => Promise<void>} begin a write transaction (the embedded store's is exclusive)
 * @property {() => Promise<void>} commit
 * @property {() => Promise<void>} rollback
 * @property {() => Promise<void>} lockSchema inside a transaction: only one process migrates at a time
 * @property {() => Promise<void>} close
 */

/** @typedef {Backend & { transaction: <T>(work: () => Promise<T>) => Promise<T>, version: number }} Store */
/** @typedef {Pick<Backend, 'kind'|'where'|'query'|'close'>} Reader a store opened read-only (serve): queries only */

/** The default embedded store, relative to the working directory. */
export const DEFAULT_STORE = 'results/history.sqlite';

/**
 * The store a command uses: the one given, else $HISTORY_STORE, else DEFAULT_STORE. Read when the command runs,
 * not as a yargs default, which --help and every usage error would print with its password.
 * @param {string|undefined} given undefined or '' (a flag given without a value): the default
 */
export const storeTarget = (given) => given || process.env.HISTORY_STORE || DEFAULT_STORE;

/** @param {string} target */
export const isPostgresUrl = (target) => /^postgres(ql)?:\/\//.test(target);

/**
 * Opens (creating when missing) and migrates a store.
 * @param {string} target a file path (embedded) or a postgres:// URL
 * @param {{ upTo?: number }} [options] upTo: migrate only this far (tests of a migration from an older version)
 * @returns {Promise<Store>}
 */
export async function openStore(target, { upTo = SCHEMA_VERSION } = {}) {
  if (!target) throw new InputError(`--store: name a database file or a postgres:// URL (default ${DEFAULT_STORE})`);
  const backend = isPostgresUrl(target) ? await openPostgres(target) : await openSqlite(target);
  /** @type {Store} */
  const store = { ...backend, version: 0, transaction: (work) => inTransaction(backend, work) };
  try {
    store.version = await migrate(store, upTo);
  } catch (error) {
    await backend.close();
    throw error;
  }
  return store;
}

/**
 * Opens a store to read, once, for `serve`: read-only, never created nor migrated, so a page neither waits for an
 * importer nor holds one off. A store of another schema version is refused, naming what to run.
 * @param {string} target a file path (embedded) or a postgres:// URL
 * @returns {Promise<Reader & { version: number }>}
 */
export async function openStoreReader(target) {
  const reader = isPostgresUrl(target) ? await openPostgresReader(target) : await openSqliteReader(target);
  try {
    const version = await storedVersion(reader);
    if (version > SCHEMA_VERSION) {
      throw new InputError(`--store ${reader.where}: the results store has schema version ${version}, this harness reads ${SCHEMA_VERSION}; update the harness (git pull)`);
    }
    if (version < SCHEMA_VERSION) {
      throw new InputError(`--store ${reader.where}: the results store has schema version ${version}, this harness reads ${SCHEMA_VERSION}; serving never migrates: `
        + 'migrate it with `history import <suite dir> --store <the same store>` (any history command migrates it), then serve again');
    }
    return { ...reader, version };
  } catch (error) {
    await reader.close();
    throw error;
  }
}

/** @param {Reader} reader @returns {Promise<number>} */
async function storedVersion(reader) {
  let rows;
  try {
    rows = await reader.query('SELECT version FROM schema_version');
  } catch (error) {
    throw new InputError(`--store ${reader.where}: not a results store (${errorMessage(error)}); create one with \`history import <suite dir> --store <it>\``, { cause: error });
  }
  return rows.length ? Number(rows[0].version) : 0;
}

/**
 * @template T
 * @param {Backend} backend @param {() => Promise<T>} work
 * @returns {Promise<T>}
 */
async function inTransaction(backend, work) {
  await backend.begin();
  try {
    const value = await work();
    await backend.commit();
    return value;
  } catch (error) {
    await backend.rollback();
    throw error;
  }
}

/**
 * Applies the pending migrations in one transaction under the schema lock, so two importers starting on a new
 * store do not both create its tables.
 * @param {Store} store @param {number} upTo
 * @returns {Promise<number>} the version after
 */
async function migrate(store, upTo) {
  return store.transaction(async () => {
    await store.lockSchema();
    await store.exec(VERSION_TABLE);
    const rows = await store.query('SELECT version FROM schema_version');
    const current = rows.length ? Number(rows[0].version) : 0;
    if (current > SCHEMA_VERSION) {
      throw new InputError(`${store.where}: the results store has schema version ${current}, this harness knows up to ${SCHEMA_VERSION}; update the harness (git pull) before writing to it`);
    }
    const pending = pendingMigrations(current, upTo);
    for (const migration of pending) {
      for (const statement of migration.statements) await store.exec(statement);
      await migration.fill?.(store);
    }
    const version = pending.at(-1)?.version ?? current;
    if (!rows.length) await store.run('INSERT INTO schema_version (version) VALUES (?)', [version]);
    else if (version !== current) await store.run('UPDATE schema_version SET version = ?', [version]);
    return version;
  });
}
