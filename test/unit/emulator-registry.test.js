// A new emulator backend is one folder and one line in emulators/index.js's BACKENDS. Here a test-only backend (the
// relay under another name, declaring a little otherwise) is registered as that line would register it, and every
// place that reads the registry takes it with no other edit: scenario and suite validation, the capability errors,
// `auto`'s choice and the commands' --emulator choices. Nothing is built: no emulator, browser or namespace starts.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import yargs from 'yargs';
import * as calibrateCommand from '../../orchestrator/commands/calibrate.js';
import * as exportScriptCommand from '../../orchestrator/commands/export-script.js';
import * as reproduceCommand from '../../orchestrator/commands/reproduce.js';
import * as scenarioCommand from '../../orchestrator/commands/scenario.js';
import * as suiteCommand from '../../orchestrator/commands/suite.js';
import { BACKENDS, checkSupport, chooseBackend, emulatorFlagsWith, runEmulators } from '../../orchestrator/emulators/index.js';
import { relayBackend } from '../../orchestrator/emulators/relay/index.js';
import { InputError } from '../../orchestrator/lib/system/errors.js';
import { loadScenario } from '../../orchestrator/lib/scenario/scenario-file.js';
import { runScenario } from '../../orchestrator/run/run.js';
import { loadSuite } from '../../orchestrator/suite/suite-file.js';

/** What the twin's host lacks for a network: `auto` passes it over while this is not empty. */
let twinLacks = [];

/** @type {import('../../orchestrator/emulators/contract.js').EmulatorBackend} */
const twin = {
  ...relayBackend,
  name: 'relay-twin',
  summary: 'the relay under another name, registered by a test only',
  supports: { ...relayBackend.supports, firefox: false },
  why: { firefox: 'which this test says it cannot carry' },
  gridNodes: true,
  auto: { fits: 'the test prefers it', unmet: async () => twinLacks },
  create: async (options) => ({ ...(await relayBackend.create(options)), name: 'relay-twin' }),
};

before(() => { BACKENDS.push(twin); });
after(() => { BACKENDS.splice(BACKENDS.indexOf(twin), 1); });

/** A scenario with a kernel flow: netem lacks kernel flows by declaration, so `auto` passes it over without probing the kernel. */
const flowAsks = { scenario: 's', sfu: false, directSfu: false, kernelFlow: { name: 'bulk', kind: 'tcp' }, firefoxPeers: [] };

test('a registered backend is one more --emulator for scenarios and suites; an unknown one is still refused', () => {
  assert.deepEqual(runEmulators(), ['relay', 'netem', 'dummynet', 'node-relay', 'relay-twin', 'auto']);
  assert.equal(loadSuite('smoke', { emulator: 'relay-twin' }).emulator, 'relay-twin');
  assert.throws(() => loadSuite('smoke', { emulator: 'relay-triplet' }),
    (error) => error instanceof InputError && /unknown emulator "relay-triplet"; use one of relay, netem, dummynet, node-relay, relay-twin, auto$/.test(error.message));
});

test('a scenario is checked against what the new backend declares, and the errors name it where it helps', async () => {
  assert.doesNotThrow(() => checkSupport('relay-twin', flowAsks));
  assert.throws(() => checkSupport('netem', flowAsks), (error) => error instanceof InputError && /; use --emulator relay or --emulator relay-twin$/.test(error.message));
  assert.throws(() => checkSupport('relay-twin', { ...flowAsks, firefoxPeers: ['p1'] }), (error) => error instanceof InputError
    && /^--emulator relay-twin: p1 runs Firefox, which this test says it cannot carry; use --emulator relay or --emulator netem$/.test(error.message));
  // A run checks it before anything starts.
  await assert.rejects(runScenario({ scenario: loadScenario('unconstrained'), browser: 'firefox', emulator: 'relay-twin' }),
    (error) => error instanceof InputError && /^--emulator relay-twin: p0, p1 run Firefox/.test(error.message));
  // What set-up says of an emulator without tunnels, and the Grid observer of one that cannot read the nodes' memory.
  assert.equal(emulatorFlagsWith((backend) => backend.supports.kernelFlows), '--emulator relay or --emulator relay-twin');
  assert.equal(emulatorFlagsWith((backend) => Boolean(backend.gridNodes)), '--emulator node-relay or --emulator relay-twin');
});

test('`auto` tries the new backend in the registry\'s order (fallbacks last), by what it declares and what this host lacks for it', async () => {
  const { compiled } = loadScenario('unconstrained');
  twinLacks = [];
  const chosen = await chooseBackend('auto', flowAsks, compiled);
  assert.equal(chosen.backend, twin);
  assert.match(chosen.choice ?? '', /^auto: relay-twin, because --emulator netem: scenario s has the kernel flow bulk \(tcp\), which /);
  twinLacks = ['the twin is switched off here'];
  const fellBack = await chooseBackend('auto', flowAsks, compiled);
  assert.equal(fellBack.backend, relayBackend);
  assert.match(fellBack.choice ?? '', /^auto: relay, because --emulator netem: .*; the twin is switched off here$/);
  // A scenario it does not carry (Firefox) passes it over by its declaration, before its host is asked.
  twinLacks = [];
  const firefox = await chooseBackend('auto', { ...flowAsks, firefoxPeers: ['p1'] }, compiled);
  assert.equal(firefox.backend, relayBackend);
  assert.match(firefox.choice ?? '', /; --emulator relay-twin: p1 runs Firefox, which this test says it cannot carry;/);
  assert.deepEqual(await chooseBackend('relay-twin', flowAsks, compiled), { backend: twin, choice: null });
});

test('the commands\' --emulator choices follow what each backend declares', () => {
  /** @param {{ builder: (y: import('yargs').Argv) => import('yargs').Argv }} command @param {string[]} [args] */
  const parser = (command, args = []) => command.builder(yargs(args)).exitProcess(false)
    .fail((message, error) => { throw error ?? new Error(message); });
  const choices = (command) => parser(command).getOptions().choices.emulator;
  for (const command of [scenarioCommand, suiteCommand, reproduceCommand]) assert.deepEqual(choices(command), runEmulators());
  // It has the relay's probe path, so `calibrate` takes it; it writes no scripts, so `export-script` does not.
  assert.deepEqual(choices(calibrateCommand), ['relay', 'netem', 'relay-twin']);
  assert.deepEqual(choices(exportScriptCommand), ['netem', 'dummynet']);
  // `calibrate --trace` takes a probed backend that replays traces packet by packet.
  const trace = ['--trace', 'synthetic:step-2000-500-10'];
  assert.equal(parser(calibrateCommand, ['--emulator', 'relay-twin', ...trace]).parse().emulator, 'relay-twin');
  assert.throws(() => parser(calibrateCommand, ['--emulator', 'netem', ...trace]).parse(), (error) => error instanceof InputError
    && /^--trace: replays delivery opportunities on --emulator relay or --emulator relay-twin only; netem runs a trace as rate steps/.test(error.message));
});
