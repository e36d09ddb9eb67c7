// An SFU server as a process the run owns (Janus, livekit-server): started in its own process group with a death
// signal, optionally inside the emulator's namespace, stopped by its registered closer, its log's tail quoted when
// it fails to start.
import { spawn } from 'node:child_process';
import { constants, closeSync, openSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { childEnvironment } from '../grid/secrets.js';
import { EnvironmentError, errorMessage } from '../lib/system/errors.js';
import { findExecutable } from '../lib/system/paths.js';
import { supportsPdeathsig } from '../lib/system/pdeathsig.js';

const LOG_TAIL_LINES = 25;

/**
 * The command line that runs `argv` in the namespace (when given) under `setpriv --pdeathsig KILL` (on Linux), so the
 * kernel kills it when the orchestrator dies, SIGKILL included; `ip netns exec` execs it in the same process.
 * @param {string[]} argv @param {{ netns?: string, searchPath: string, what: string }} options  what: for messages
 */
export function ownedArgv(argv, { netns, searchPath, what }) {
  const ip = netns ? findExecutable('ip', searchPath) : null;
  if (netns && !ip) throw new EnvironmentError(`${what}: no \`ip\` executable on PATH (${searchPath || 'empty'}) to run it in namespace ${netns}; install iproute2.`);
  const inNamespace = [...(netns && ip ? [ip, 'netns', 'exec', netns] : []), ...argv];
  const setpriv = process.platform === 'linux' ? findExecutable('setpriv', searchPath) : null;
  return setpriv && supportsPdeathsig(setpriv) ? [setpriv, '--pdeathsig', 'KILL', '--', ...inNamespace] : inNamespace;
}

/**
 * @callback RegisterCleanup
 * @param {string} name @param {() => Promise<unknown>} close @param {{ timeoutMs?: number, closeNow?: () => void }} [options]
 * @returns {() => Promise<void>}
 */

/**
 * Starts the process, its closer registered before it exists so an interrupt during start-up still stops it.
 * Its own process group: a Ctrl-C at the terminal reaches the orchestrator, which stops it after writing the aborted
 * result, instead of the server vanishing mid-run.
 * @param {{ name: string, argv: string[], consoleFile: string, registerCleanup: RegisterCleanup, stopTimeoutMs: number,
 *   pipes?: boolean }} options  consoleFile: its stdout and stderr (exists, 0600); pipes: its stdin and stdout are the
 *   caller's to speak with it (a load participant), only stderr goes to consoleFile
 */
export function spawnOwned({ name, argv, consoleFile, registerCleanup, stopTimeoutMs, pipes = false }) {
  /** @type {import('node:child_process').ChildProcess|null} */
  let child = null;
  /** @type {Promise<void>} */
  let exited = Promise.resolve();
  const stop = async () => {
    const running = child;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    running.kill('SIGTERM');
    const timer = setTimeout(() => running.kill('SIGKILL'), stopTimeoutMs);
    await exited;
    clearTimeout(timer);
  };
  const closeNow = () => { if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL'); };
  const release = registerCleanup(name, stop, { timeoutMs: stopTimeoutMs + 2_000, closeNow });

  const consoleFd = openSync(consoleFile, constants.O_WRONLY | constants.O_APPEND | constants.O_NOFOLLOW);
  try {
    child = spawn(argv[0], argv.slice(1), { stdio: pipes ? ['pipe', 'pipe', consoleFd] : ['ignore', consoleFd, consoleFd], detached: true, env: childEnvironment() });
  } finally {
    closeSync(consoleFd);
  }
  const spawned = child;
  /** @type {string|null} */
  let exitReason = null;
  exited = new Promise((resolve) => spawned.once('close', (code, signal) => {
    exitReason = `exited with ${signal ?? `code ${code}`}`;
    resolve();
  }));
  spawned.once('error', (error) => { exitReason = `could not be started: ${errorMessage(error)}`; });
  spawned.unref();
  return { pid: spawned.pid, release, closeNow, exitReason: () => exitReason, stdin: spawned.stdin, stdout: spawned.stdout, exited };
}

/** A port free on the address now. @param {string} address @returns {Promise<number>} */
export function freePort(address) {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, address, () => {
      const { port } = /** @type {net.AddressInfo} */ (server.address());
      server.close(() => resolve(port));
    });
  });
}

/** The last lines of each file that has any, for a start-up failure's message. @param {string[]} files */
export function logTail(files) {
  return files.flatMap((file) => {
    let lines;
    try {
      lines = readFileSync(file, 'utf8').trimEnd().split('\n').filter(Boolean);
    } catch {
      return [];
    }
    return lines.length ? [`--- ${path.basename(file)}`, ...lines.slice(-LOG_TAIL_LINES)] : [];
  }).join('\n');
}
