// The shared store: a PostgreSQL database given by URL (postgres://user@host/db), for nightlies that run on
// several machines. Same schema as the embedded one; concurrent importers are serialised per row by the
// primary keys (ON CONFLICT), and migrations by an advisory lock.
import { EnvironmentError } from '../lib/system/errors.js';

/** Advisory lock key of schema migrations (any constant; "i25"). */
const MIGRATION_LOCK = 25_025;

/** `?` placeholders (the embedded store's) as PostgreSQL's `$n`; the store's SQL has no `?` in literals. @param {string} sql */
const numbered = (sql) => {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
};

/**
 * @param {string} url
 * @returns {Promise<import('./store.js').Backend>}
 */
export async function openPostgres(url) {
  // @ts-ignore -- any: pg ships no types (@types/pg is not installed)
  const pg = (await import('pg')).default;
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
  } catch (error) {
    throw new EnvironmentError(`cannot connect to the PostgreSQL store ${redact(url)} (${error.message}); check --store (or $HISTORY_STORE) and that the server accepts this user`, { cause: error });
  }
  await client.query('SET client_min_messages = warning');
  return {
    kind: 'postgres',
    where: redact(url),
    async query(sql, params = []) { return (await client.query(numbered(sql), params)).rows; },
    async run(sql, params = []) { return { changes: (await client.query(numbered(sql), params)).rowCount ?? 0 }; },
    async exec(sql) { await client.query(sql); },
    async begin() { await client.query('BEGIN'); },
    async commit() { await client.query('COMMIT'); },
    async rollback() { await client.query('ROLLBACK'); },
    async lockSchema() { await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]); },
    async close() { await client.end(); },
  };
}

/** The URL without its password, for messages and the dashboard. @param {string} url */
export function redact(url) {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return url.replace(/:[^:@/]*@/, ':***@');
  }
}
