/**
 * Parent side of relay-process.js: the UdpRelay API as promises over IPC.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { EnvironmentError, HarnessError, InputError } from '../../lib/system/errors.js';

const RELAY_PROCESS_PATH = fileURLToPath(new URL('./relay-process.js', import.meta.url));
const START_TIMEOUT_MS = 10_000;
const EXIT_TIMEOUT_MS = 3_000;
const ERROR_CLASSES = { InputError, EnvironmentError, HarnessError };
/**
 * The relay child's V8 flags. Of the GC tuning flags, none: added delay p99 at 55 900 packets/s of 1200 bytes (50 % of saturation, native
 * path, median of 4 steps of 3 s in one session on a noisy machine, 2026-11-26; README "Load and saturation"): while
 * each datagram allocated a Buffer view, a packet and queue entries, 15.1 ms by default, 7.0 with --single-threaded-gc
 * (GC on the SCHED_FIFO main thread, not waiting for helper threads the scheduler does not run), 8.4 with
 * --max-semi-space-size=64, 4.6 with both. Without those allocations 2.7 ms by default, 3.1 and 9.1 with those flags:
 * scavenges take ~0.2 ms and no mark-compact runs in a step, so the flags no longer buy anything.
 * (--single-threaded, to keep GC off helper threads, made the timers 4x later at p99: V8 tasks then run inline.)
 * --no-memory-reducer: 8 s after start, and whenever it looks idle, V8 shrinks the heap with two mark-compacts
 * (pauses of 1.2 and 4.3 ms at a 2-party call's ~600 p/s): datagrams that came meanwhile left 3-5 ms late. The
 * relay's heap is a few MB; it has nothing to gain from shrinking it. This one stays.
 * --no-parallel-scavenge: a scavenge shared with V8's helper threads waits for them, and they run at normal priority
 * beside the browsers: one took 16.5 ms in a 2-party call (--trace-gc), against 0.3-0.5 ms for the others. On the
 * main thread alone they take up to ~1 ms; at 50 % of saturation the added delay p99 read 0.80-0.91 ms in three steps
 * with it (0.77-3.30 without, the same day).
 */
/** @type {readonly string[]} */
export const RELAY_NODE_FLAGS = Object.freeze(['--no-memory-reducer', '--no-parallel-scavenge']);

/**
 * @typedef {object} RelayProcess
 * @property {(config: {
 *   links?: Record<string, import('../../lib/network/link-model.js').LinkParams>,
 *   routes?: Record<string, string[]>,
 *   traces?: Record<string, import('../../lib/network/trace.js').Trace>,
 *   traceOriginEpochMs?: number,
 * }) => Promise<void>} configure  see UdpRelay.configure
 * @property {(epochMs: number) => Promise<void>} restartTraces  see UdpRelay.restartTraces
 * @property {(candidate: {peer: string, remotePeer: string, address: string, port: number, bindAddress?: string})
 *   => Promise<number>} register
 *   resolves to the proxy port
 * @property {(tunnel: {name: string, forward: string[], back: string[], left: {address: string, port: number},
 *   right: {address: string, port: number}}) => Promise<{leftPort: number, rightPort: number}>} registerTunnel
 *   see UdpRelay.registerTunnel
 * @property {() => Promise<import('./relay.js').LinkTruthRow[]>} truth
 * @property {() => Promise<import('./relay.js').TunnelTruthRow[]>} tunnelTruth
 * @property {() => Promise<import('./load-meter.js').LoadRow[]>} loadTruth  see UdpRelay.loadTruth
 * @property {() => Promise<ReturnType<import('./relay.js').UdpRelay['stats']> & {priority: 'realtime'|'nice'|'normal'}>} stats
 *   cpuUserUs/cpuSystemUs are the relay process's own; priority is the scheduling it got (see priority.js)
 * @property {() => Promise<void>} close  closes the relay and waits for the process to exit
 * @property {number} pid
 */

/**
 * Forks the relay process and resolves once it is ready.
 * @param {{host?: string, seed?: number, packetPath?: 'auto'|'native'|'dgram'}} [options]  passed to the UdpRelay constructor
 * @param {{nodeFlags?: readonly string[]}} [spawn]  nodeFlags: the relay's V8 and Node flags
 *   (default RELAY_NODE_FLAGS; benches compare others)
 * @returns {Promise<RelayProcess>}
 */
export async function startRelayProcess(options = {}, { nodeFlags = RELAY_NODE_FLAGS } = {}) {
  // Not the parent's flags: --test, --input-type, --inspect … mean nothing to the relay.
  const child = fork(RELAY_PROCESS_PATH, [JSON.stringify(options)], { execArgv: [...nodeFlags], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  /** @type {Map<number, {resolve: (value: unknown) => void, reject: (error: Error) => void}>} */
  const pending = new Map();
  let nextId = 0;
  /** @type {Error|null} */
  let gone = null;
  const exited = new Promise((resolve) => child.once('exit', resolve));

  child.on('message', (/** @type {{ id: number, result?: unknown, error?: { name: string, message: string } }} */ message) => {
    const call = pending.get(message.id);
    if (!call) return;
    pending.delete(message.id);
    // The channel only keeps the parent alive while a call is outstanding.
    if (pending.size === 0) child.channel?.unref();
    const errorClass = message.error && Object.hasOwn(ERROR_CLASSES, message.error.name)
      ? ERROR_CLASSES[/** @type {keyof typeof ERROR_CLASSES} */ (message.error.name)] : HarnessError;
    if (message.error) call.reject(new errorClass(message.error.message));
    else call.resolve(message.result);
  });
  child.once('exit', (/** @type {number|null} */ code, /** @type {NodeJS.Signals|null} */ signal) => {
    gone = new HarnessError(`relay process ${child.pid} exited (${signal ?? `code ${code}`}); restart the run.`);
    for (const call of pending.values()) call.reject(gone);
    pending.clear();
  });

  await /** @type {Promise<void>} */ (new Promise((resolve, reject) => {
    /** @param {Error} [error] */
    const settle = (error) => {
      clearTimeout(timer);
      child.off('error', settle).off('exit', onExit).off('message', onReady);
      if (!error) return resolve();
      child.kill('SIGKILL');
      reject(new EnvironmentError(`relay process (${RELAY_PROCESS_PATH}) did not start: ${error.message}; its stderr above says why.`, { cause: error }));
    };
    const onExit = (/** @type {number|null} */ code, /** @type {NodeJS.Signals|null} */ signal) => settle(new Error(`exited with ${signal ?? `code ${code}`}`));
    const onReady = (/** @type {{ready?: boolean}|undefined} */ message) => { if (message?.ready) settle(); };
    const timer = setTimeout(() => settle(new Error(`no ready message within ${START_TIMEOUT_MS} ms`)), START_TIMEOUT_MS);
    child.on('error', settle).on('exit', onExit).on('message', onReady);
  }));
  child.channel?.unref();
  // Don't hold the parent's event loop open: if it exits without close(), the child sees the disconnect and exits.
  child.unref();

  /**
   * The relay process is the harness's own (relay-process.js): its answer to a method is what UdpRelay's method returns.
   * @template T @param {string} method @param {unknown} [params] @returns {Promise<T>}
   */
  const call = (method, params) => /** @type {Promise<T>} */ (new Promise((/** @type {(value: unknown) => void} */ resolve, reject) => {
    if (gone) return reject(gone);
    const id = nextId++;
    pending.set(id, { resolve, reject });
    child.channel?.ref();
    child.send({ id, method, params });
  }));

  return {
    // A child that sent its ready message was spawned, so it has a pid.
    pid: /** @type {number} */ (child.pid),
    configure: (config) => call('configure', config).then(() => undefined),
    restartTraces: (epochMs) => call('restartTraces', epochMs).then(() => undefined),
    register: (candidate) => call('register', candidate),
    registerTunnel: (tunnel) => call('registerTunnel', tunnel),
    truth: () => call('truth'),
    tunnelTruth: () => call('tunnelTruth'),
    loadTruth: () => call('loadTruth'),
    stats: () => call('stats'),
    async close() {
      if (gone) return;
      const timer = setTimeout(() => child.kill('SIGKILL'), EXIT_TIMEOUT_MS);
      try {
        await call('close');
        child.disconnect();
      } catch {
        child.kill('SIGKILL');
      } finally {
        await exited;
        clearTimeout(timer);
      }
    },
  };
}
