// What the backends that shape in the kernel (netem, dummynet) share: set-up with the closer registered first, and a
// trace replayed as rate steps, since a kernel rate limiter takes rates, not delivery opportunities.
import { steppedNetwork } from '../lib/network/trace-steps.js';

/** Tearing down a netem topology is dozens of commands: more than a browser's closer needs. */
const TEARDOWN_TIMEOUT_MS = 60_000;

/** Without a registry the caller closes the emulator itself; a failed set-up still removes what it built. */
const closeOnly = (/** @type {string} */ _name, /** @type {() => Promise<unknown>} */ close) => async () => { await close(); };

/**
 * Sets up a kernel emulator with its closer registered first, removing whatever it made if set-up fails half-way;
 * a trace becomes rate steps (events, traceSteps) compared with the trace for the run.
 * any: each backend's own emulator object, a contract Emulator once the events are added below
 * @param {(options: import('./contract.js').EmulatorOptions) => any} create
 * @param {import('./contract.js').EmulatorOptions} options
 * @returns {Promise<import('./contract.js').Emulator>}
 */
export async function createSteppedEmulator(create, options) {
  const { compiled, traceSteps } = steppedNetwork(options.compiled, options.durationS ?? 0);
  const emulator = create({ ...options, compiled });
  const registerCleanup = options.registerCleanup ?? closeOnly;
  const release = registerCleanup(`${emulator.name} emulator`, () => emulator.close(), { timeoutMs: TEARDOWN_TIMEOUT_MS, closeNow: emulator.closeNow });
  try {
    await emulator.setup();
  } catch (error) {
    await release();
    throw error;
  }
  return Object.assign(emulator, { events: compiled.events, traceSteps });
}
