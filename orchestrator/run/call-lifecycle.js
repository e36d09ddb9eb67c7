// What every phase of a run (run.js, set-up.js, hold-call.js) shares: registering closers for tear-down, and
// waiting on the run's abort signal.
import { onCleanup } from '../lib/system/shutdown.js';

/**
 * Resolves after ms, or as soon as any signal aborts (at once if one already has): a timer left running would keep the
 * process alive after the run, up to the whole 45 s connect timeout.
 * @param {number} ms @param {...AbortSignal} signals
 */
export const sleep = (ms, ...signals) => new Promise((resolve) => {
  const timer = setTimeout(done, ms);
  function done() {
    clearTimeout(timer);
    for (const signal of signals) signal.removeEventListener('abort', done);
    resolve(undefined);
  }
  for (const signal of signals) {
    if (signal.aborted) return done();
    signal.addEventListener('abort', done, { once: true });
  }
});

/**
 * Registers a closer for the run (undone in reverse order by tearDown, or by the process handlers on a signal).
 * @param {import('./call-state.js').Call} call @param {string} name @param {() => unknown} close
 * @param {{ timeoutMs?: number, closeNow?: () => void }} [options]
 * @returns {() => Promise<void>} its early release
 */
export const hold = (call, name, close, options) => {
  const release = onCleanup(name, close, options);
  call.releases.push(release);
  return release;
};

/**
 * The registerCleanup that emulators, Janus, cgroups and kernel flows take: each closer held by the call.
 * @param {import('./call-state.js').Call} call
 * @returns {import('../emulators/contract.js').RegisterCleanup}
 */
export const holder = (call) => (name, close, options) => hold(call, name, close, options);
