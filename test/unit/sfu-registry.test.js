// The SFU registry's conformance: every registered SFU declares what the contract asks (sfu/contract.js), in the
// shapes the run reads, and every place that reads the registry (the commands' --sfu, suite files, a run's check)
// takes a new one with no other edit. Nothing starts: no SFU, browser or emulator.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import yargs from 'yargs';
import * as reproduceCommand from '../../orchestrator/commands/reproduce.js';
import * as scenarioCommand from '../../orchestrator/commands/scenario.js';
import * as suiteCommand from '../../orchestrator/commands/suite.js';
import { CODEC_NAMES, normalizeCodec } from '../../orchestrator/lib/media/codec.js';
import { InputError } from '../../orchestrator/lib/system/errors.js';
import { loadScenario } from '../../orchestrator/lib/scenario/scenario-file.js';
import { runScenario } from '../../orchestrator/run/run.js';
import { CAPABILITY_FIELDS, LAYER_CHOICES, checkedVersion } from '../../orchestrator/sfu/contract.js';
import { SFUS, checkSfuSupport, defaultSfu, sfuNamed, sfuNames } from '../../orchestrator/sfu/index.js';
import { loadSuite } from '../../orchestrator/suite/suite-file.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SFU_DIR = path.join(ROOT, 'orchestrator', 'sfu');

/** @type {import('../../orchestrator/sfu/contract.js').SfuBackend} a test-only SFU: Janus's declarations under another name */
const twin = {
  ...SFUS[0],
  name: 'sfu-twin',
  summary: 'an SFU registered by a test only',
  capabilities: {
    simulcastCodecs: ['vp8'], svcCodecs: [], svcModes: [], layerChoice: 'sfu', ownStats: false, signalsItself: false, loadParticipants: false, iceTcp: false,
  },
};

test('every registered SFU declares the contract\'s capabilities, in shapes the run can read', () => {
  assert.ok(SFUS.length >= 1);
  assert.equal(new Set(sfuNames()).size, SFUS.length, 'names are unique');
  for (const sfu of SFUS) {
    const where = `SFU ${sfu.name}`;
    assert.match(sfu.name, /^[a-z][a-z0-9-]*$/, `${where}: a name typed on the command line`);
    assert.ok(typeof sfu.summary === 'string' && sfu.summary.length > 10, `${where}: a summary`);
    assert.equal(typeof sfu.start, 'function', `${where}: start()`);
    assert.deepEqual(Object.keys(sfu.capabilities).sort(), [...CAPABILITY_FIELDS].sort(), `${where}: every capability declared, no other`);
    const { simulcastCodecs, svcCodecs, svcModes, layerChoice, ownStats, loadParticipants } = sfu.capabilities;
    for (const codec of [...simulcastCodecs, ...svcCodecs]) assert.ok(CODEC_NAMES.includes(codec), `${where}: ${codec} is a codec the harness selects`);
    // A mode the scenario validation would refuse could never be asked for.
    for (const mode of svcModes) assert.doesNotThrow(() => normalizeCodec({ name: 'vp9', scalabilityMode: mode }, where), `${where}: ${mode}`);
    assert.equal(svcModes.length > 0, svcCodecs.length > 0, `${where}: SVC modes exactly when SVC codecs`);
    assert.ok(LAYER_CHOICES.includes(layerChoice), `${where}: layerChoice ${layerChoice}`);
    assert.equal(typeof ownStats, 'boolean', `${where}: ownStats`);
    assert.equal(typeof loadParticipants, 'boolean', `${where}: loadParticipants`);
  }
  assert.equal(defaultSfu(), SFUS[0].name);
});

test('each registered SFU has a folder under orchestrator/sfu/ named as it', () => {
  const dirs = readdirSync(SFU_DIR, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
  assert.deepEqual(sfuNames().filter((name) => !dirs.includes(name)), []);
});

/**
 * Where code (comments left out) branches on an SFU's name as a string literal: compared, a case label, in a list, or
 * passed to a call. A default or a value in data is none.
 * @param {string} text @param {string[]} names
 */
function nameBranches(text, names) {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, (comment) => comment.replace(/[^\n]/g, ' ')).replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
  const literal = `(['"\`])(?:${names.join('|')})\\1`;
  const contexts = [`[=!]==?\\s*${literal}`, `${literal}\\s*[=!]==?`, `\\bcase\\s+${literal}\\s*:`, `[[,]\\s*${literal}\\s*(?=[,\\]])`, `\\w\\s*\\(\\s*${literal}`];
  return contexts.flatMap((context) => [...code.matchAll(new RegExp(context, 'g'))].map((match) => code.slice(0, match.index).split('\n').length));
}

/** @param {string} dir @returns {string[]} */
const jsFiles = (dir) => readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
  const full = path.join(dir, entry.name);
  if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : jsFiles(full);
  return entry.name.endsWith('.js') ? [full] : [];
});

test('outside sfu/, code reaches an SFU only through sfu/index.js and sfu/contract.js and never branches on its name', () => {
  const names = sfuNames();
  const found = [];
  // The page (client-app/) acts on the protocol its config names, which may be spelled as an SFU: only callers are checked.
  const outside = jsFiles(path.join(ROOT, 'orchestrator')).filter((f) => !f.startsWith(SFU_DIR + path.sep));
  for (const file of outside) {
    const text = readFileSync(file, 'utf8');
    for (const line of nameBranches(text, names)) found.push(`${path.relative(ROOT, file)}:${line}`);
    for (const [, specifier] of text.matchAll(/(?:\bfrom\s*|\bimport\(\s*)['"]([^'"]+)['"]/g)) {
      const target = path.resolve(path.dirname(file), specifier);
      const reached = specifier.startsWith('.') && target.startsWith(SFU_DIR + path.sep);
      if (reached && ![path.join(SFU_DIR, 'index.js'), path.join(SFU_DIR, 'contract.js')].includes(target)) found.push(`${path.relative(ROOT, file)} -> ${specifier}`);
    }
  }
  assert.deepEqual(found, [], 'declare it in the SFU (sfu/contract.js SfuCapabilities) and read that, through sfu/index.js');
  assert.deepEqual(nameBranches("if (argv.sfu === 'janus') x(); const y = { sfu: 'janus' }; f('janus');", ['janus']), [1, 1]);
});

test('a version as the server reports it is kept only when it is a short version string', () => {
  assert.equal(checkedVersion('1.1.2'), '1.1.2');
  assert.equal(checkedVersion('v1.9.11'), 'v1.9.11');
  for (const hostile of [null, 12, '', '1.1 <script>', 'x'.repeat(41), '1.1\n2', { toString: () => '1' }]) assert.equal(checkedVersion(hostile), null);
});

test('a registered SFU is one more --sfu for scenario, suite and reproduce; an unknown one is refused before anything starts', async () => {
  SFUS.push(twin);
  try {
    /** @param {{ builder: (y: import('yargs').Argv) => import('yargs').Argv }} command @param {string[]} [args] */
    const parser = (command, args = []) => command.builder(yargs(args)).exitProcess(false)
      .fail((message, error) => { throw error ?? new Error(message); });
    const commands = [scenarioCommand, suiteCommand, reproduceCommand];
    for (const command of commands) assert.deepEqual(parser(command).getOptions().choices.sfu, [...sfuNames()]);
    assert.equal(sfuNames().at(-1), 'sfu-twin');
    assert.equal(parser(scenarioCommand, ['x']).parse().sfu, defaultSfu());
    assert.equal(parser(scenarioCommand, ['x', '--sfu', 'sfu-twin']).parse().sfu, 'sfu-twin');
    assert.throws(() => parser(scenarioCommand, ['x', '--sfu', 'sfu-triplet']).parse(), /Invalid values:[\s\S]*sfu-triplet/);
    assert.equal(loadSuite('smoke', { sfu: 'sfu-twin' }).sfu, 'sfu-twin');
    assert.equal(loadSuite('smoke').sfu, defaultSfu());
    assert.throws(() => loadSuite('smoke', { sfu: 'sfu-triplet' }), (error) => error instanceof InputError
      && /^--sfu sfu-triplet: unknown SFU; use one of .*sfu-twin$/.test(error.message));
    assert.equal(sfuNamed('sfu-twin'), twin);
    assert.doesNotThrow(() => checkSfuSupport('sfu-twin', { topology: 'sfu' }));
  } finally {
    SFUS.splice(SFUS.indexOf(twin), 1);
  }
  await assert.rejects(runScenario({ scenario: loadScenario('sfu-3'), sfu: 'sfu-twin' }),
    (error) => error instanceof InputError && /^--sfu sfu-twin: unknown SFU; use one of /.test(error.message));
});

test('load participants are asked of an SFU by what it declares: one without them stops the run before anything starts', async () => {
  const scenario = loadScenario('sfu-load-4');
  assert.deepEqual(scenario.load, { participants: 2, subscribe: 'all', speaker: null, browsersReceive: 'full', names: ['load0', 'load1'] });
  const takers = SFUS.filter((sfu) => sfu.capabilities.loadParticipants);
  assert.ok(takers.length >= 1, 'at least one SFU takes load participants');
  for (const sfu of takers) assert.doesNotThrow(() => checkSfuSupport(sfu.name, scenario));
  SFUS.push(twin);
  try {
    assert.throws(() => checkSfuSupport('sfu-twin', scenario), (error) => error instanceof InputError
      && error.message === `${scenario.file}: load: --sfu sfu-twin takes no load participants; drop load or use ${takers.map((sfu) => `--sfu ${sfu.name}`).join(' or ')}`);
    // Refused by runScenario itself, before an emulator, SFU or browser starts (nothing to stop: no closer ran).
    await assert.rejects(runScenario({ scenario, sfu: 'sfu-twin' }), (error) => error instanceof InputError && /takes no load participants/.test(error.message));
    // A mesh call asks nothing of the SFU.
    assert.doesNotThrow(() => checkSfuSupport('sfu-twin', { ...scenario, topology: 'mesh' }));
  } finally {
    SFUS.splice(SFUS.indexOf(twin), 1);
  }
});
