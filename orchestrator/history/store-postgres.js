// The shared store: a PostgreSQL database given by URL (postgres://user@host/db), for nightlies that run on
// several machines. Same schema as the embedded one; concurrent importers are serialised per row by the
// primary keys (ON CONFLICT), and migrations by an advisory lock.
import { EnvironmentError, errorCode, errorMessage } from '../lib/system/errors.js';
import { bindable } from './sql.js';

/** Advisory lock key of schema migrations (any constant; "i25"). */
const MIGRATION_LOCK = 25_025;

/** `?` placeholders (the embedded store's) as PostgreSQL's `$n`; the store's SQL has no `?` in literals. @param {string} sql */
const numbered = (sql) => {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
};

/** Connections `serve` keeps to the store: a page's few queries run side by side, and no more. */
const READER_CONNECTIONS = 3;

/**
 * @param {string} url
 * @param {unknown} error
 */
const connectError = (url, error) => new EnvironmentError(
  `cannot connect to the PostgreSQL store ${redact(url)} (${errorMessage(error)}); check --store (or $HISTORY_STORE) and that the server accepts this user${
    errorCode(error) === 'ERR_INVALID_URL' ? '; percent-encode "/", "?", "#", "@" and ":" in the password, or leave it out of the URL: PGPASSWORD or ~/.pgpass' : ''}`,
  { cause: error },
);

/** @returns {Promise<any>} any: the pg module (it ships no types; @types/pg is not installed) */
// @ts-ignore -- any: pg ships no types
const driver = async () => (await import('pg')).default;

/**
 * @param {string} url
 * @returns {Promise<import('./store.js').Backend>}
 */
export async function openPostgres(url) {
  const pg = await driver();
  let client;
  try {
    client = new pg.Client({ connectionString: url }); // throws on a URL it cannot parse
    await client.connect();
  } catch (error) {
    throw connectError(url, error);
  }
  await client.query('SET client_min_messages = warning');
  return {
    kind: 'postgres',
    where: redact(url),
    async query(sql, params = []) { return (await client.query(numbered(sql), bindable(sql, params))).rows; },
    async run(sql, params = []) { return { changes: (await client.query(numbered(sql), bindable(sql, params))).rowCount ?? 0 }; },
    async exec(sql) { await client.query(sql); },
    async begin() { await client.query('BEGIN'); },
    async commit() { await client.query('COMMIT'); },
    async rollback() { await client.query('ROLLBACK'); },
    async lockSchema() { await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]); },
    async close() { await client.end(); },
  };
}

/**
 * The store as `serve` reads it: one small pool, opened once, whose sessions are read-only
 * (default_transaction_read_only), so serving writes nothing and takes no lock; a connection that fails is
 * replaced by the pool at the next page.
 * @param {string} url
 * @returns {Promise<import('./store.js').Reader>}
 */
export async function openPostgresReader(url) {
  const pg = await driver();
  const pool = new pg.Pool({ connectionString: url, max: READER_CONNECTIONS, options: '-c default_transaction_read_only=on' });
  // An idle connection that the server drops is removed by the pool; without a listener the error would end serve.
  pool.on('error', () => {});
  try {
    await pool.query('SELECT 1');
  } catch (error) {
    await pool.end();
    throw connectError(url, error);
  }
  return {
    kind: 'postgres',
    where: redact(url),
    async query(sql, params = []) { return (await pool.query(numbered(sql), bindable(sql, params))).rows; },
    async close() { await pool.end(); },
  };
}

/**
 * The URL without its password, for messages and the dashboard. Parsed by hand, not with URL: a password may hold
 * "/", "?", "#", ":" or "@" unencoded, which cut a URL's authority short. The user info ends at the string's last "@"
 * (when that "@" is in the query instead, more than the password is hidden: never less), the password at its first
 * ":"; `password=` and `sslpassword=` parameters are hidden too.
 * @param {string} url
 */
export function redact(url) {
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(url)?.[0] ?? '';
  const rest = url.slice(scheme.length).replace(/([?&](?:ssl)?password=)[^&]*/gi, '$1***');
  const at = rest.lastIndexOf('@');
  const colon = rest.slice(0, Math.max(at, 0)).indexOf(':');
  return colon < 0 ? scheme + rest : `${scheme}${rest.slice(0, colon)}:***${rest.slice(at)}`;
}
