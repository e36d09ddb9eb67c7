// The Grid's secrets (a node registration secret, the router's user name and password). grid-hub generates them into a
// 0600 file that the project's commands on this machine read without flags; elsewhere they come from a copy of that file
// (--grid-secrets) or the environment. Never logged, never on a command line.
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EnvironmentError, InputError, errorCode } from '../lib/system/errors.js';
import { readJsonFile } from '../lib/input/json-file.js';
import { isRecord } from '../lib/input/validate.js';
import { writeSecretFile } from '../lib/system/files.js';

/** @typedef {import('../lib/grid/grid-config.js').GridSecrets} GridSecrets */

export const SECRET_ENV = { registrationSecret: 'WTB_GRID_REGISTRATION_SECRET', username: 'WTB_GRID_USERNAME', password: 'WTB_GRID_PASSWORD' };

/**
 * The environment for a child process (a browser, Janus, the Grid's java and what it starts): this process's without
 * WTB_GRID_*, which no child needs and each would hold in its /proc/<pid>/environ for its whole life.
 * @param {Record<string, string|undefined>} [extra]  the child's own variables, added
 */
export const childEnvironment = (extra = {}) => ({
  ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('WTB_GRID_'))), ...extra,
});

/** Where grid-hub writes them on this machine. */
export function localSecretsFile(env = process.env) {
  const config = env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config');
  return path.join(config, 'webrtc-testbed', 'grid-secrets.json');
}

/** New secrets for a hub. @returns {GridSecrets} */
export const generateSecrets = () => ({
  registrationSecret: randomBytes(24).toString('hex'), username: 'wtb', password: randomBytes(24).toString('hex'),
});

/**
 * What is in this machine's secrets file, or null when it is missing or unreadable. @param {string} file
 * @returns {{ hubPid?: unknown, hubUrl?: unknown }|null}
 */
function readOwnFile(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

/** @param {unknown} pid */
function isRunning(pid) {
  if (!Number.isInteger(pid) || /** @type {number} */ (pid) < 1) return false;
  try {
    process.kill(/** @type {number} */ (pid), 0);
    return true;
  } catch (error) {
    return errorCode(error) === 'EPERM';
  }
}

/**
 * Writes them 0600, with this hub's pid, and returns the closer that removes the file if it is still this hub's. The
 * file of a grid-hub that still runs is left alone (its nodes and runs read it); one whose hub is gone is replaced.
 * @param {GridSecrets & { hubUrl: string }} secrets
 */
export async function writeLocalSecrets(secrets) {
  const file = localSecretsFile();
  const there = readOwnFile(file);
  if (there && isRunning(there.hubPid)) {
    throw new EnvironmentError(`another grid-hub (pid ${there.hubPid}, ${String(there.hubUrl).slice(0, 200)}) is running with its secrets in ${file}; `
      + 'stop it first (its nodes and runs use that file), or run this hub on another machine. If no grid-hub runs, remove the file');
  }
  rmSync(file, { force: true });
  const content = `${JSON.stringify({ ...secrets, hubPid: process.pid })}\n`;
  await writeSecretFile(file, content);
  const ours = () => { try { return readFileSync(file, 'utf8') === content; } catch { return false; } };
  return { file, remove: () => { if (ours()) rmSync(file, { force: true }); } };
}

/**
 * The secrets a command uses: --grid-secrets <file>, else the environment (all of SECRET_ENV), else this machine's
 * grid-hub file.
 * @param {string|undefined} file @param {Record<string, string|undefined>} [env]
 * @returns {GridSecrets}
 */
export function readSecrets(file, env = process.env) {
  if (!file && Object.values(SECRET_ENV).every((name) => env[name])) {
    return /** @type {GridSecrets} */ (Object.fromEntries(Object.entries(SECRET_ENV).map(([key, name]) => [key, env[name]])));
  }
  const where = file ?? localSecretsFile(env);
  // Bounded, regular files only, and no error quotes the file: --grid-secrets may name any file.
  const parsed = readJsonFile(where, "Grid's secrets file", `on the hub's machine \`grid-hub\` writes it, `
    + `elsewhere copy it and pass --grid-secrets <file>, or set ${Object.values(SECRET_ENV).join(', ')}`);
  const mode = statSync(where).mode & 0o777;
  if (mode & 0o077) {
    throw new InputError(`${where}: other users may read or change the Grid's secrets in it (mode ${mode.toString(8)}); run chmod 600 ${where}`);
  }
  const fields = isRecord(parsed) ? parsed : {};
  /** @param {keyof GridSecrets} key @returns {string} */
  const secret = (key) => {
    const value = fields[key];
    if (typeof value !== 'string' || !value) throw new InputError(`${where}: field ${key} is missing; copy the file grid-hub wrote again`);
    return value;
  };
  return { registrationSecret: secret('registrationSecret'), username: secret('username'), password: secret('password') };
}
