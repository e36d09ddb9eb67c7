// A throwaway PostgreSQL cluster for tests: Debian's server binaries, initdb'd in a temp folder as the `postgres`
// user (the server refuses root), listening only on a unix socket in that folder; stop() removes it all.
import { spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const BIN = ['/usr/lib/postgresql/17/bin', '/usr/lib/postgresql/16/bin', '/usr/lib/postgresql/15/bin'].find((dir) => existsSync(path.join(dir, 'initdb')));
const USER = 'postgres';

/** Why a cluster cannot start here, or null. */
export function postgresUnavailable() {
  if (!BIN) return 'PostgreSQL server binaries not found under /usr/lib/postgresql/*/bin (apt-get install postgresql; npm run setup does)';
  if (process.getuid?.() !== 0) return 'starting a throwaway cluster as the postgres user needs root (runuser)';
  if (spawnSync('id', ['-u', USER]).status !== 0) return 'no postgres user (apt-get install postgresql creates it)';
  return null;
}

function asPostgres(args) {
  const run = spawnSync('runuser', ['-u', USER, '--', ...args], { encoding: 'utf8', timeout: 60_000 });
  if (run.status !== 0) throw new Error(`${args.join(' ')} failed (${run.status}): ${run.stderr}${run.stdout}`);
  return run.stdout;
}

/**
 * Starts a cluster; returns the URL of a database factory and the stop function.
 * @returns {Promise<{ url: (database: string) => string, createDatabase: (name: string) => string, stop: () => void }>}
 */
export async function startPostgres() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'wtb-pg-'));
  const uid = Number(spawnSync('id', ['-u', USER], { encoding: 'utf8' }).stdout);
  const gid = Number(spawnSync('id', ['-g', USER], { encoding: 'utf8' }).stdout);
  chownSync(dir, uid, gid);
  const data = path.join(dir, 'data');
  asPostgres([path.join(BIN, 'initdb'), '-D', data, '-A', 'trust', '-U', USER, '--no-sync', '-E', 'UTF8']);
  asPostgres([path.join(BIN, 'pg_ctl'), '-D', data, '-w', '-t', '30', '-l', path.join(dir, 'server.log'),
    '-o', `-k ${dir} -c listen_addresses='' -c fsync=off`, 'start']);
  const url = (database) => `postgresql://${USER}@localhost/${database}?host=${encodeURIComponent(dir)}`;
  return {
    url,
    createDatabase(name) {
      asPostgres([path.join(BIN, 'psql'), '-h', dir, '-U', USER, '-d', 'postgres', '-q', '-c', `CREATE DATABASE "${name}"`]);
      return url(name);
    },
    stop() {
      try {
        asPostgres([path.join(BIN, 'pg_ctl'), '-D', data, '-w', '-t', '30', '-m', 'fast', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
