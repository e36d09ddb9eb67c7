// Everything a run starts (browsers, relay, servers, namespaces) registers its closer here, so it is undone on
// success, failure, Ctrl-C, SIGTERM and uncaught errors alike. Closers run last-registered first.

/** @type {Array<{ name: string, close: () => Promise<unknown> | unknown }>} */
const closers = [];
let installed = false;
let interrupted = null;
const interruptListeners = new Set();

/** Registers a closer; returns a function that runs and unregisters it early. */
export function onCleanup(name, close) {
  const entry = { name, close };
  closers.push(entry);
  return async () => {
    const index = closers.indexOf(entry);
    if (index === -1) return;
    closers.splice(index, 1);
    await close();
  };
}

/** Runs every registered closer (each at most once), reporting but not stopping on failures. */
export async function runCleanup(log = console.error) {
  while (closers.length) {
    const { name, close } = closers.pop();
    try {
      await close();
    } catch (error) {
      log(`cleanup: ${name}: ${error.message}`);
    }
  }
}

/** Called with the signal name on the first SIGINT/SIGTERM; the run then finishes as "aborted". */
export function onInterrupt(listener) {
  interruptListeners.add(listener);
  if (interrupted) listener(interrupted);
  return () => interruptListeners.delete(listener);
}

/**
 * Installs process handlers once. A first SIGINT/SIGTERM asks the run to stop (it writes an aborted result and
 * cleans up); a second one, or an uncaught error, cleans up and exits at once.
 */
export function installProcessHandlers() {
  if (installed) return;
  installed = true;
  // When the parent stops reading (a killed CI runner), every log line fails with EPIPE. Unhandled, each failure
  // became an uncaught error whose report failed again: an endless loop that never cleaned up.
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});
  let exiting = false;
  const hardExit = async (code, why) => {
    if (exiting) return;
    exiting = true;
    if (why) console.error(why);
    await runCleanup();
    process.exit(code);
  };
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, () => {
      if (interrupted) return hardExit(130, `${signal} again: cleaning up and exiting now`);
      interrupted = signal;
      console.error(`\n${signal}: stopping the run; writing an aborted result and cleaning up (press Ctrl-C again to force)`);
      for (const listener of interruptListeners) listener(signal);
    });
  }
  process.on('uncaughtException', (error) => hardExit(1, `uncaught error: ${error.stack ?? error}`));
  process.on('unhandledRejection', (error) => hardExit(1, `unhandled rejection: ${error?.stack ?? error}`));
}
