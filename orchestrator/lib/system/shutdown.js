import { errorMessage } from './errors.js';
// Everything a run starts (browsers, relay, servers, namespaces) registers its closer here, so it is undone on
// success, failure, Ctrl-C, SIGTERM and uncaught errors alike. Closers run last-registered first; each has a
// time limit, so one that hangs cannot keep the others (or the process) from finishing.

const DEFAULT_CLOSE_TIMEOUT_MS = 15_000;

/**
 * @typedef {object} Closer
 * @property {string} name
 * @property {() => Promise<unknown> | unknown} close
 * @property {number} timeoutMs
 * @property {(() => void) | undefined} closeNow  synchronous best effort for a forced exit (e.g. delete namespaces)
 * @property {boolean} running
 */

/** @type {Closer[]} */
const closers = [];
let installed = false;
/** @type {string|null} */
let interrupted = null;
/** @type {Set<(signal: string) => void>} */
const interruptListeners = new Set();

/**
 * Runs `close`, but gives up after `timeoutMs`.
 * @param {Closer} closer
 */
async function runCloser({ name, close, timeoutMs }) {
  let timer;
  const timedOut = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${name}: did not finish within ${timeoutMs / 1000} s; moved on`)), timeoutMs);
  });
  try {
    await Promise.race([Promise.resolve().then(close), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Registers a closer; returns a function that runs it (with its time limit) and unregisters it early.
 * @param {string} name
 * @param {() => Promise<unknown> | unknown} close
 * @param {{ timeoutMs?: number, closeNow?: () => void }} [options]
 * @returns {() => Promise<void>}
 */
export function onCleanup(name, close, { timeoutMs = DEFAULT_CLOSE_TIMEOUT_MS, closeNow } = {}) {
  /** @type {Closer} */
  const entry = { name, close, timeoutMs, closeNow, running: false };
  closers.push(entry);
  return async () => {
    if (entry.running || !closers.includes(entry)) return;
    await finish(entry);
  };
}

/**
 * Runs a closer; it stays registered while it runs, so a forced exit still gets its synchronous teardown.
 * @param {Closer} entry
 */
async function finish(entry) {
  entry.running = true;
  try {
    await runCloser(entry);
  } finally {
    const index = closers.indexOf(entry);
    if (index !== -1) closers.splice(index, 1);
  }
}

/** Runs every registered closer (each at most once), reporting but not stopping on failures or time-outs. */
export async function runCleanup(log = console.error) {
  for (let next = closers.findLast((c) => !c.running); next; next = closers.findLast((c) => !c.running)) {
    const closer = next;
    await finish(closer).catch((error) => log(`cleanup: ${closer.name}: ${errorMessage(error)}`));
  }
}

/** The synchronous best-effort teardown of whatever is still registered (a third signal: no time to wait). */
function closeAllNow(log = console.error) {
  for (const { name, closeNow } of closers.splice(0).reverse()) {
    try {
      closeNow?.();
    } catch (error) {
      log(`cleanup: ${name}: ${errorMessage(error)}`);
    }
  }
}

/**
 * Called with the signal name on the first SIGINT/SIGTERM; the run then finishes as "aborted".
 * @param {(signal: string) => void} listener
 * @returns {() => void} stops listening
 */
export function onInterrupt(listener) {
  interruptListeners.add(listener);
  if (interrupted) listener(interrupted);
  return () => { interruptListeners.delete(listener); };
}

/**
 * Installs process handlers once. A first SIGINT/SIGTERM asks the run to stop (it writes an aborted result and
 * cleans up); a second one, or an uncaught error, runs the closers (each time-limited) and exits; a third one
 * exits at once after the synchronous best-effort teardown (namespaces).
 */
export function installProcessHandlers() {
  if (installed) return;
  installed = true;
  // When the parent stops reading (a killed CI runner), every log line fails with EPIPE. Unhandled, each failure
  // became an uncaught error whose report failed again: an endless loop that never cleaned up.
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});
  let exiting = false;
  /** @param {number} code @param {string} why */
  const hardExit = async (code, why) => {
    if (exiting) return;
    exiting = true;
    console.error(why);
    await runCleanup();
    process.exit(code);
  };
  let signals = 0;
  for (const signal of /** @type {const} */ (['SIGINT', 'SIGTERM'])) {
    process.on(signal, () => {
      signals += 1;
      if (signals >= 3) {
        console.error(`${signal} a third time: removing what is left without waiting and exiting`);
        closeAllNow();
        process.exit(130);
      }
      if (interrupted) return hardExit(130, `${signal} again: cleaning up and exiting now (once more to exit without waiting)`);
      interrupted = signal;
      console.error(`\n${signal}: stopping the run; writing an aborted result and cleaning up (press Ctrl-C again to force)`);
      for (const listener of interruptListeners) listener(signal);
    });
  }
  process.on('uncaughtException', (error) => hardExit(1, `uncaught error: ${error.stack ?? error}`));
  process.on('unhandledRejection', (error) => hardExit(1, `unhandled rejection: ${/** @type {Error} */ (error)?.stack ?? error}`));
}
