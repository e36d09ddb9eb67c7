// Runs one Selenium Grid process (hub or node) from the jars `npm run setup` cached: java in a process group of its own,
// so stopping it stops chromedriver and the browsers it started as well, and tied to this process (pdeathsig).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, openSync, closeSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { EnvironmentError } from '../lib/system/errors.js';
import { writeSecretFile } from '../lib/system/files.js';
import { findExecutable } from '../lib/system/paths.js';
import { supportsPdeathsig } from '../lib/system/pdeathsig.js';
import { childEnvironment } from './secrets.js';
import { gridJarsDir } from './versions.js';

const READY_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 10_000;
/** What a Selenium server logs when its port is taken; it then does not exit, and a node still registers with its hub. */
const BIND_FAILURE = 'java.net.BindException';

/** The Grid's classpath, or an error that says to run the set-up. */
export function gridClasspath() {
  const dir = gridJarsDir();
  if (!existsSync(dir)) throw new EnvironmentError(`Selenium Grid's jars are not in ${dir}; run \`npm run setup\` (it copies them from Maven Central)`);
  if (!findExecutable('java', process.env.PATH ?? '')) throw new EnvironmentError('java is not on PATH; run `npm run setup` (it installs Java from Debian)');
  return `${dir}/*`;
}

/**
 * Refuses a port something already listens on, before java starts: a second Selenium node on a taken port does not
 * exit, and still registers with the hub under the first one's address.
 * @param {string} host @param {{ port: number, what: string }[]} ports  what: the flag that chose it
 */
export async function checkPortsFree(host, ports) {
  for (const { port, what } of ports) {
    const server = createServer();
    /** @type {NodeJS.ErrnoException|null} */
    const error = await new Promise((resolve) => {
      server.once('error', resolve);
      server.listen({ host, port }, () => server.close(() => resolve(null)));
    });
    if (error?.code === 'EADDRINUSE') {
      throw new EnvironmentError(`${what}: port ${port} on ${host} is already in use (another grid-node or grid-hub, or another program, listens there); `
        + 'stop it, or choose another --port');
    }
    if (error) throw new EnvironmentError(`${what}: cannot listen on ${host}:${port} (${error.code ?? error.message}); give --host an address of this machine`);
  }
}

/**
 * Starts `java … org.openqa.selenium.grid.Main <role> --config <file>` once its ports are free, with the config (it
 * holds secrets) in a 0600 file of a new private folder of this process (mkdtemp, so two processes never share one),
 * removed when it stops; the Grid's output goes to grid.log beside it (not to the terminal). Resolves once `isReady`
 * says so while java runs and has not failed to listen.
 * @param {{ role: 'hub'|'node', name: string, host?: string, ports?: { port: number, what: string }[], config: string,
 *   isReady: () => Promise<boolean>, log: (line: string) => void }} options  ports: its listening ports, on host
 * @returns {Promise<{ pid: number, stop: () => Promise<void>, exited: Promise<number|null>, logFile: string, dir: string }>}
 */
export async function startGridProcess({ role, name, host = '127.0.0.1', ports = [], config, isReady, log }) {
  const classpath = gridClasspath();
  await checkPortsFree(host, ports);
  const dir = mkdtempSync(path.join(path.dirname(gridJarsDir()), `grid-${name}-`));
  const configFile = path.join(dir, 'config.toml');
  const logFile = path.join(dir, 'grid.log');
  await writeSecretFile(configFile, config);
  const setpriv = findExecutable('setpriv', process.env.PATH ?? '');
  const javaArgv = ['java', '-cp', classpath, 'org.openqa.selenium.grid.Main', role, '--config', configFile];
  const argv = setpriv && supportsPdeathsig(setpriv) ? [setpriv, '--pdeathsig', 'KILL', '--', ...javaArgv] : javaArgv;
  log(`$ ${argv.join(' ')}  (log: ${logFile})`);
  const out = openSync(logFile, 'a', 0o600);
  const child = spawn(argv[0], argv.slice(1), { detached: true, stdio: ['ignore', out, out], env: childEnvironment() });
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
  /** Why java cannot become ready, or null. */
  const failure = () => {
    if (readFileSync(logFile, 'utf8').includes(BIND_FAILURE)) {
      const taken = ports.length ? `port ${ports.map(({ port }) => port).join(' or ')}` : 'its port';
      return `the Grid ${role} could not listen: ${taken} on ${host} is already in use; stop what listens there, or choose another --port`;
    }
    return child.exitCode !== null || child.signalCode !== null ? `the Grid ${role} exited before it was ready (${child.exitCode ?? child.signalCode})` : null;
  };
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    const ready = await isReady().catch(() => false);
    // Checked after isReady: another process may have answered on java's port.
    const why = failure() ?? (!ready && Date.now() > deadline ? `the Grid ${role} was not ready within ${READY_TIMEOUT_MS / 1000} s` : null);
    if (why) {
      await stop();
      throw new EnvironmentError(`${why}; see ${path.resolve(logFile)}`);
    }
    if (ready) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  if (child.pid === undefined) {
    rmSync(configFile, { force: true });
    throw new EnvironmentError(`a Grid ${role} answered, but not the process started here (it has no process id); stop the other Grid and retry`);
  }
  return { pid: child.pid, stop, exited, logFile, dir };
}

/**
 * Runs until SIGINT or SIGTERM or until the process exits on its own, then stops it. Its folder is removed after a
 * stop asked for; a process that exited on its own leaves its log, which `why` names.
 * @param {{ stop: () => Promise<void>, exited: Promise<number|null>, logFile: string, dir: string }} grid
 * @param {() => Promise<void>} [after]
 */
export async function serveUntilSignal(grid, after = async () => {}) {
  let onSignal = () => {};
  const signalled = new Promise((resolve) => { onSignal = () => resolve('signal'); });
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const why = await Promise.race([signalled, grid.exited.then((code) => `exited with ${code}; see ${grid.logFile}`)]);
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
  await grid.stop();
  if (why === 'signal') rmSync(grid.dir, { recursive: true, force: true });
  await after();
  return why;
}
