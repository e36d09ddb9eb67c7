// The emulator backends, each in its own folder and each implementing the contract in contract.js. Commands and the
// run reach a backend only through this registry, by what it declares (contract.js EmulatorBackend): what it supports,
// whether it runs on this host, what `auto` may make of it, create(). Nothing here or outside compares a backend's name.
import { EnvironmentError, HarnessError, InputError } from '../lib/system/errors.js';
import { emulatorFlags, requirementsOf, unsupported } from './contract.js';
import { dummynetBackend } from './dummynet/backend.js';
import { netemBackend } from './netem/backend.js';
import { nodeRelayBackend } from './node-relay/index.js';
import { relayBackend } from './relay/index.js';

/** @typedef {import('./contract.js').EmulatorBackend} EmulatorBackend */
/** @typedef {{ backend: EmulatorBackend, choice: string|null }} ChosenBackend  choice: with `auto`, which it chose and why */

// grid-node runs a node's relay (outside emulators/, code reaches a backend only through this file).
export { startNodeRelay } from './node-relay/control-server.js';

/**
 * The backends, one line each: `--emulator` lists them in this order, and `auto` tries those that declare it in this
 * order, fallbacks last.
 * @type {EmulatorBackend[]}
 */
export const BACKENDS = [relayBackend, netemBackend, dummynetBackend, nodeRelayBackend];

/** `--emulator auto`, no backend itself: the first that declares `auto` and can carry the scenario here (chooseBackend). */
export const AUTO = 'auto';

/**
 * The names of the backends that declare what `has` asks, in the registry's order. Read from the registry when asked,
 * so every `--emulator` list of the commands follows it.
 * @param {(backend: EmulatorBackend) => boolean} [has]
 * @returns {string[]}
 */
export const emulatorsWith = (has = () => true) => BACKENDS.filter(has).map((backend) => backend.name);

/** What a run's `--emulator` takes: every backend, and `auto`. @returns {string[]} */
export const runEmulators = () => [...emulatorsWith(), AUTO];

/**
 * What a message tells the user to pass for what `has` asks: `--emulator relay or --emulator …`.
 * @param {(backend: EmulatorBackend) => boolean} has
 */
export const emulatorFlagsWith = (has) => emulatorFlags(BACKENDS.filter(has));

/**
 * @param {string} name
 * @returns {EmulatorBackend}
 */
export function backendNamed(name) {
  const backend = BACKENDS.find((b) => b.name === name);
  if (!backend) throw new InputError(`--emulator ${name}: unknown emulator; use one of ${runEmulators().join(', ')}`);
  return backend;
}

/** `auto`'s candidates in the order it tries them: the registry's, every fallback after the others. */
const autoCandidates = () => [...BACKENDS.filter((b) => b.auto && !b.auto.fallback), ...BACKENDS.filter((b) => b.auto?.fallback)];

/** The fallback `auto` ends with, which runs anywhere. */
function autoFallback() {
  const fallback = autoCandidates().at(-1);
  if (!fallback?.auto?.fallback) throw new HarnessError('emulators/index.js: no backend declares auto.fallback, so `auto` could end with none');
  return fallback;
}

/**
 * Stops a run before anything starts when its emulator cannot carry what the scenario asks: by what the backend
 * declares (exit 2, naming the backends that can) and by what this host lacks for it (exit 3). `auto` is checked
 * as the fallback it ends with.
 * @param {string} name  one of runEmulators()
 * @param {import('./contract.js').EmulatorRequirements} requirements
 */
export function checkSupport(name, requirements) {
  // `auto` carries what one of its candidates declares (a TURN server: netem); which runs is chosen with the host.
  const backend = name === AUTO
    ? autoCandidates().find((candidate) => unsupported(candidate, requirements, BACKENDS).length === 0) ?? autoFallback()
    : backendNamed(name);
  const unmet = unsupported(backend, requirements, BACKENDS);
  if (unmet.length) throw new InputError(unmet.join('; '));
  const missing = backend.preflight?.(requirements) ?? [];
  if (missing.length) throw new EnvironmentError(missing.join('; '));
}

/**
 * Why a backend cannot carry a scenario here, by what it declares, what its preflight finds missing and what this host
 * lacks for the network (asked last: it may probe the host).
 * @param {EmulatorBackend} backend @param {import('./contract.js').EmulatorRequirements} requirements
 * @param {import('../lib/network/schedule.js').CompiledNetwork} compiled
 * @returns {Promise<string[]>} empty: it can
 */
async function cannotCarry(backend, requirements, compiled) {
  const unmet = unsupported(backend, requirements, BACKENDS);
  if (unmet.length) return unmet;
  const missing = backend.preflight?.(requirements) ?? [];
  if (missing.length) return missing;
  if (backend.auto?.unmet) return backend.auto.unmet(compiled);
  const unavailable = await backend.unavailable();
  return unavailable ? [unavailable] : [];
}

/**
 * The backend a run uses: the one named, or the one `auto` chooses (contract.js AutoChoice), saying why.
 * @param {string} name  one of runEmulators()
 * @param {import('./contract.js').EmulatorRequirements} requirements
 * @param {import('../lib/network/schedule.js').CompiledNetwork} compiled
 * @returns {Promise<ChosenBackend>}
 */
export async function chooseBackend(name, requirements, compiled) {
  if (name !== AUTO) return { backend: backendNamed(name), choice: null };
  /** @type {string[]} */
  const passedOver = [];
  for (const backend of autoCandidates()) {
    const why = await cannotCarry(backend, requirements, compiled);
    if (why.length === 0) {
      return { backend, choice: passedOver.length ? `auto: ${backend.name}, because ${passedOver.join('; ')}` : `auto: ${backend.name} (${backend.auto?.fits})` };
    }
    passedOver.push(...why);
  }
  throw new EnvironmentError(`--emulator auto: no backend can run this scenario here: ${passedOver.join('; ')}`);
}

/**
 * @param {ChosenBackend} chosen
 * @param {import('./contract.js').EmulatorOptions} options
 * @returns {Promise<import('./contract.js').Emulator>} with `choice` saying why when `auto` chose it; `events`, the
 *   schedule it applies (with a trace's rate steps where it cannot replay one) and `traceSteps`, their comparison
 */
export async function createChosen({ backend, choice }, options) {
  const emulator = await backend.create(options);
  if (choice) emulator.choice = choice;
  return emulator;
}

/**
 * An emulator by name, outside a run (tests, benches): `auto` chooses as for a scenario that asks nothing.
 * @param {string} name  one of runEmulators()
 * @param {import('./contract.js').EmulatorOptions} options
 */
export async function createEmulator(name, options) {
  return createChosen(await chooseBackend(name, requirementsOf({ name }, {}, []), options.compiled), options);
}
