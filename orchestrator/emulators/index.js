// The emulator backends, each in its own folder and each implementing the contract in contract.js. Commands and the
// run reach a backend only through this registry: what it supports, whether it runs on this host, create().
import { EnvironmentError, InputError } from '../lib/system/errors.js';
import { unsupported } from './contract.js';
import { dummynetBackend } from './dummynet/backend.js';
import { netemCapabilities, unmetRequirements } from './netem/capabilities.js';
import { netemBackend } from './netem/backend.js';
import { nodeRelayBackend } from './node-relay/index.js';
import { relayBackend } from './relay/index.js';

// grid-node runs a node's relay (outside emulators/, code reaches a backend only through this file).
export { startNodeRelay } from './node-relay/control-server.js';

/** @type {import('./contract.js').EmulatorBackend[]} */
export const BACKENDS = [relayBackend, netemBackend, dummynetBackend, nodeRelayBackend];

/** What `--emulator` takes: every backend, and `auto` (netem where this kernel can run the network, else relay). */
export const EMULATORS = [...BACKENDS.map((backend) => backend.name), 'auto'];

/**
 * @param {string} name
 * @returns {import('./contract.js').EmulatorBackend}
 */
export function backendNamed(name) {
  const backend = BACKENDS.find((b) => b.name === name);
  if (!backend) throw new InputError(`--emulator ${name}: unknown emulator; use one of ${EMULATORS.join(', ')}`);
  return backend;
}

/**
 * Stops a run before anything starts when its emulator cannot carry what the scenario asks: by what the backend
 * declares (exit 2, naming the backends that can) and by what this host lacks for it (exit 3). `auto` is checked
 * as the relay, which it falls back to.
 * @param {string} name  one of EMULATORS
 * @param {import('./contract.js').EmulatorRequirements} requirements
 */
export function checkSupport(name, requirements) {
  const backend = backendNamed(name === 'auto' ? 'relay' : name);
  const unmet = unsupported(backend, requirements, BACKENDS);
  if (unmet.length) throw new InputError(unmet.join('; '));
  const missing = backend.preflight?.(requirements) ?? [];
  if (missing.length) throw new EnvironmentError(missing.join('; '));
}

/**
 * @param {string} name one of EMULATORS; `auto` picks netem when this kernel can run the scenario's network, else relay
 * @param {import('./contract.js').EmulatorOptions} options
 * @returns {Promise<import('./contract.js').Emulator>} with `choice` saying why when `auto` chose it; `events`, the
 *   schedule it applies (with a trace's rate steps where it cannot replay one) and `traceSteps`, their comparison
 */
export async function createEmulator(name, options) {
  if (name !== 'auto') return backendNamed(name).create(options);
  const unmet = unmetRequirements(options.compiled, await netemCapabilities());
  const emulator = await (unmet.length === 0 ? netemBackend : relayBackend).create(options);
  emulator.choice = unmet.length === 0 ? 'auto: netem (namespaces and tc can run this network)' : `auto: relay, because ${unmet.join('; ')}`;
  return emulator;
}
