// The Grid's secrets (a node registration secret, the router's user name and password). grid-hub generates them into a
// 0600 file that the project's commands on this machine read without flags; elsewhere they come from a copy of that file
// (--grid-secrets) or the environment. Never logged, never on a command line.
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { InputError } from '../lib/system/errors.js';
import { readJsonFile } from '../lib/input/json-file.js';
import { writeSecretFile } from '../lib/system/files.js';

/** @typedef {import('../lib/grid/grid-config.js').GridSecrets} GridSecrets */

export const SECRET_ENV = { registrationSecret: 'WTB_GRID_REGISTRATION_SECRET', username: 'WTB_GRID_USERNAME', password: 'WTB_GRID_PASSWORD' };

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
 * Writes them 0600 (replacing an older hub's file) and returns the closer that removes the file.
 * @param {GridSecrets & { hubUrl: string }} secrets
 */
export async function writeLocalSecrets(secrets) {
  const file = localSecretsFile();
  rmSync(file, { force: true });
  await writeSecretFile(file, `${JSON.stringify(secrets)}\n`);
  return { file, remove: () => rmSync(file, { force: true }) };
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
  // any: a parsed JSON file, checked field by field below
  const parsed = /** @type {any} */ (readJsonFile(where, "Grid's secrets file", `on the hub's machine \`grid-hub\` writes it, `
    + `elsewhere copy it and pass --grid-secrets <file>, or set ${Object.values(SECRET_ENV).join(', ')}`));
  for (const key of Object.keys(SECRET_ENV)) {
    if (typeof parsed?.[key] !== 'string' || !parsed[key]) throw new InputError(`${where}: field ${key} is missing; copy the file grid-hub wrote again`);
  }
  return { registrationSecret: parsed.registrationSecret, username: parsed.username, password: parsed.password };
}
