// Runs one Selenium Grid process (hub or node) from the jars `npm run setup` cached: java in a process group of its own,
// so stopping it stops chromedriver and the browsers it started as well, and tied to this process (pdeathsig).
import { spawn } from 'node:child_process';
import { existsSync, openSync, closeSync, rmSync } from 'node:fs';
import path from 'node:path';
import { EnvironmentError } from '../lib/system/errors.js';
import { writeSecretFile } from '../lib/system/files.js';
import { findExecutable } from '../lib/system/paths.js';
import { supportsPdeathsig } from '../sfu/janus.js';
import { gridJarsDir } from './versions.js';

const READY_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 10_000;

/** The Grid's classpath, or an error that says to run the set-up. */
export function gridClasspath() {
  const dir = gridJarsDir();
  if (!existsSync(dir)) throw new EnvironmentError(`Selenium Grid's jars are not in ${dir}; run \`npm run setup\` (it copies them from Maven Central)`);
  if (!findExecutable('java', process.env.PATH ?? '')) throw new EnvironmentError('java is not on PATH; run `npm run setup` (it installs Java from Debian)');
  return `${dir}/*`;
}

/**
 * Starts `java … org.openqa.selenium.grid.Main <role> --config <file>` with the config (it holds secrets) in a 0600 file
 * of a 0700 folder named after the process, removed when it stops; the Grid's output goes to grid.log beside it (not to
 * the terminal). Resolves once `isReady` says so.
 * @param {{ role: 'hub'|'node', name: string, config: string, isReady: () => Promise<boolean>, log: (line: string) => void }} options
 * @returns {Promise<{ pid: number, stop: () => Promise<void>, exited: Promise<number|null>, logFile: string }>}
 */
export async function startGridProcess({ role, name, config, isReady, log }) {
  const classpath = gridClasspath();
  const dir = path.join(path.dirname(gridJarsDir()), `grid-${name}`);
  const configFile = path.join(dir, 'config.toml');
  const logFile = path.join(dir, 'grid.log');
  rmSync(configFile, { force: true });
  await writeSecretFile(configFile, config);
  const setpriv = findExecutable('setpriv', process.env.PATH ?? '');
  const javaArgv = ['java', '-cp', classpath, 'org.openqa.selenium.grid.Main', role, '--config', configFile];
  const argv = setpriv && supportsPdeathsig(setpriv) ? [setpriv, '--pdeathsig', 'KILL', '--', ...javaArgv] : javaArgv;
  log(`$ ${argv.join(' ')}  (log: ${logFile})`);
  const out = openSync(logFile, 'a', 0o600);
  const child = spawn(argv[0], argv.slice(1), { detached: true, stdio: ['ignore', out, out] });
  closeSync(out);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? (signal ? -1 : null))));
  /** @param {NodeJS.Signals} signal */
  const group = (signal) => {
    if (child.pid === undefined) return; // never started: no group to signal
    try { process.kill(-child.pid, signal); } catch { /* gone */ }
  };
  const stop = async () => {
    rmSync(configFile, { force: true });
    if (child.exitCode !== null || child.signalCode !== null) return group('SIGKILL');
    group('SIGTERM');
    const timer = setTimeout(() => group('SIGKILL'), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
    // chromedriver and browsers the node started stay in the group after java exits.
    group('SIGKILL');
  };
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new EnvironmentError(`the Grid ${role} exited before it was ready (${child.exitCode ?? child.signalCode}); see ${path.resolve(logFile)}`);
    }
    if (await isReady().catch(() => false)) break;
    if (Date.now() > deadline) {
      await stop();
      throw new EnvironmentError(`the Grid ${role} was not ready within ${READY_TIMEOUT_MS / 1000} s; see ${path.resolve(logFile)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  if (child.pid === undefined) {
    rmSync(configFile, { force: true });
    throw new EnvironmentError(`a Grid ${role} answered, but not the process started here (it has no process id); stop the other Grid and retry`);
  }
  return { pid: child.pid, stop, exited, logFile };
}

/**
 * Runs until SIGINT or SIGTERM or until the process exits on its own, then stops it.
 * @param {{ stop: () => Promise<void>, exited: Promise<number|null> }} grid @param {() => Promise<void>} [after]
 */
export async function serveUntilSignal(grid, after = async () => {}) {
  let onSignal = () => {};
  const signalled = new Promise((resolve) => { onSignal = () => resolve('signal'); });
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const why = await Promise.race([signalled, grid.exited.then((code) => `exited with ${code}`)]);
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
  await grid.stop();
  await after();
  return why;
}
