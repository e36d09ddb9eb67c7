// The processes kernel flows own (socat bridges, iperf3 servers and clients) and what the run learns about them
// from the kernel: the tools found, each spawned under pdeathsig in its own process group and told to the guardian,
// killed at close, and the sockets in /proc that say when a server listens and when its test began.
import { spawn } from 'node:child_process';
import dgram from 'node:dgram';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { findExecutable } from '../lib/system/paths.js';
import { shellJoin } from '../emulators/script.js';
import { supportsPdeathsig } from '../lib/system/pdeathsig.js';

export const POLL_MS = 10;
const READY_TIMEOUT_MS = 5_000;
const STDERR_LIMIT = 4_000;
export const INSTALL_HINT = 'install them with `npm run setup` (Debian packages iperf3, socat, util-linux, iproute2)';

/** @typedef {{iperf3: string, socat: string, setpriv: string}} KernelTools */
/** @typedef {{code: number|null, signal: string|null, stderr: string, spawnError?: string}} ProcessExit */
/**
 * @typedef {object} OwnedProcess
 * @property {import('node:child_process').ChildProcess} child
 * @property {Promise<ProcessExit>} exited
 * @property {string} cmd  the command line as a shell would take it
 * @property {number} atS  when it started, on the run's clock
 */

/**
 * The executables, or why kernel flows cannot run.
 * @param {{iperf3?: string, socat?: string, setpriv?: string}} executables
 * @returns {KernelTools|string}
 */
export function findTools(executables) {
  if (process.platform !== 'linux') return `kernel flows need Linux network namespaces (this is ${process.platform}); run TCP/UDP cross traffic on Linux`;
  if (process.getuid?.() !== 0) return 'kernel flows create network namespaces and TUN devices, which needs root; run as root';
  const searchPath = process.env.PATH ?? '';
  const iperf3 = executables.iperf3 ?? findExecutable('iperf3', searchPath);
  const socat = executables.socat ?? findExecutable('socat', searchPath);
  const setpriv = executables.setpriv ?? findExecutable('setpriv', searchPath);
  if (!iperf3 || !socat || !setpriv) {
    const missing = Object.entries({ iperf3, socat, setpriv }).filter(([, found]) => !found).map(([name]) => name);
    return `kernel flows need ${missing.join(', ')}, not found on PATH; ${INSTALL_HINT}`;
  }
  if (!supportsPdeathsig(setpriv)) {
    return `${setpriv} has no --pdeathsig (util-linux before 2.33); kernel flows need it so nothing outlives a killed run`;
  }
  return { iperf3, socat, setpriv };
}

/**
 * The processes of one run's kernel flows: each is killed with the orchestrator (pdeathsig), runs in its own
 * process group (Ctrl-C is the orchestrator's to handle) and is known to the guardian while it lives.
 * @param {object} options
 * @param {string} options.setpriv
 * @param {{own: (pid: number) => void, forget: (pid: number) => void}} options.guardian
 * @param {() => number} options.now  seconds on the run's clock
 */
export function createProcessOwner({ setpriv, guardian, now }) {
  /** @type {Set<import('node:child_process').ChildProcess>} */
  const children = new Set();

  /**
   * @param {string[]} argv
   * @param {{stdoutFile?: string, background?: boolean}} [options]  background: does not keep the event loop alive
   *   (bridges and servers wait for as long as the run wants them; a client is work in progress)
   * @returns {OwnedProcess}
   */
  const spawnOwned = (argv, { stdoutFile, background = false } = {}) => {
    const full = [setpriv, '--pdeathsig', 'KILL', '--', ...argv];
    const stdoutFd = stdoutFile ? openSync(stdoutFile, 'w') : 'ignore';
    /** @type {import('node:child_process').ChildProcess} */
    let child;
    try {
      child = spawn(full[0], full.slice(1), { stdio: ['ignore', stdoutFd, 'pipe'], detached: true });
    } finally {
      if (typeof stdoutFd === 'number') closeSync(stdoutFd);
    }
    children.add(child);
    if (child.pid) guardian.own(child.pid);
    // Reaped then: its pid may go to an unrelated process, which the guardian must never kill.
    child.once('exit', () => { if (child.pid) guardian.forget(child.pid); });
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (chunk) => { stderr = (stderr + chunk).slice(-STDERR_LIMIT); });
    /** @type {Promise<ProcessExit>} */
    const exited = new Promise((resolve) => {
      child.once('error', (error) => resolve({ code: null, signal: null, stderr, spawnError: error.message }));
      child.once('close', (code, signal) => resolve({ code, signal, stderr }));
    }).then((result) => { children.delete(child); return result; });
    if (background) {
      child.unref();
      // A piped stdio stream is a net.Socket, which can stop holding the loop.
      /** @type {import('node:net').Socket|null} */ (child.stderr)?.unref?.();
    }
    return { child, exited, cmd: shellJoin(full), atS: Number(now().toFixed(3)) };
  };

  /** Kills every process still running and waits until each is gone. */
  const killAll = async () => {
    await Promise.all([...children].map((child) => new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve(undefined);
      // Waited for now: a background process must keep the loop alive until it is gone.
      child.ref();
      /** @type {import('node:net').Socket|null} */ (child.stderr)?.ref?.();
      child.once('close', () => resolve(undefined));
      child.kill('SIGKILL');
    })));
  };

  /** Synchronous best effort (a forced exit). */
  const killNow = () => { for (const child of children) child.kill('SIGKILL'); };

  return { spawnOwned, killAll, killNow };
}

/** @typedef {ReturnType<typeof createProcessOwner>['spawnOwned']} SpawnOwned */

/**
 * Polls `ready` until it is true; resolves to null then, or to why not (the process exited, a time-out).
 * @param {() => boolean} ready
 * @param {Promise<ProcessExit>} exited
 * @returns {Promise<string|null>}
 */
export async function waitFor(ready, exited) {
  /** @type {string|null} */
  let exitReason = null;
  exited.then(({ code, signal, stderr, spawnError }) => {
    exitReason = spawnError ? `could not be started (${spawnError})` : `exited with ${signal ?? `code ${code}`}${stderr.trim() ? `: ${stderr.trim()}` : ''}`;
  });
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (exitReason) return exitReason;
    if (ready()) return null;
    await sleep(POLL_MS);
  }
  return exitReason ?? `was not ready within ${READY_TIMEOUT_MS / 1000} s`;
}

/** iperf3 -J writes its errors into the JSON on stdout. @param {string} file */
export function iperf3Error(file) {
  try {
    const message = JSON.parse(readFileSync(file, 'utf8')).error;
    return typeof message === 'string' ? ` (iperf3: ${message})` : '';
  } catch {
    return '';
  }
}

/**
 * Sockets of /proc/<pid>/net/{tcp,udp} (the namespace the process is in) on a local port.
 * @param {number} pid @param {'tcp'|'udp'} protocol @param {number} port
 * @returns {{state: string, remote: string}[]}
 */
function socketsOnPort(pid, protocol, port) {
  let text;
  try {
    text = readFileSync(`/proc/${pid}/net/${protocol}`, 'utf8');
  } catch {
    return [];
  }
  const portHex = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  return text.split('\n').slice(1).map((line) => line.trim().split(/\s+/))
    .filter((fields) => fields.length > 3 && fields[1].endsWith(portHex))
    .map((fields) => ({ remote: fields[2], state: fields[3] }));
}

const TCP_LISTEN = '0A';
const TCP_ESTABLISHED = '01';

/** @param {number|undefined} pid @param {number} port */
export const listening = (pid, port) => pid !== undefined && socketsOnPort(pid, 'tcp', port).some(({ state }) => state === TCP_LISTEN);

/**
 * Whether the server has its data connection: iperf3 starts its test clock as soon as that stream is accepted.
 * TCP: a second established connection on the port (the first is the control connection); UDP: a connected socket.
 * @param {number} pid @param {number} port @param {'tcp'|'udp'} protocol
 */
export function dataConnected(pid, port, protocol) {
  if (protocol === 'tcp') return socketsOnPort(pid, 'tcp', port).filter(({ state }) => state === TCP_ESTABLISHED).length >= 2;
  return socketsOnPort(pid, 'udp', port).some(({ remote }) => remote !== '00000000:0000');
}

/** A free UDP port on loopback for a bridge to bind (the relay must know it before the bridge starts). */
export async function freeUdpPort() {
  const socket = dgram.createSocket('udp4');
  await new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.bind({ address: '127.0.0.1', port: 0 }, () => resolve(undefined));
  });
  const { port } = socket.address();
  await new Promise((resolve) => socket.close(() => resolve(undefined)));
  return port;
}
