// Suite files (orchestrator/suites/<name>.json or any path): which scenarios, how often, how long, on which
// emulator. Format: docs/suites.md "Suite files". Every scenario is resolved here, so a bad suite fails
// before any browser starts.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PRESETS } from '../lib/media/media-presets.js';
import { runEmulators } from '../emulators/index.js';
import { checkSfuSupport, defaultSfu, sfuNamed, sfuNames } from '../sfu/index.js';
import { builtinNames, isFilePath, resolveBuiltin } from '../lib/input/builtin-file.js';
import { InputError } from '../lib/system/errors.js';
import { describeValue, expectFileName, expectNumber, expectObject, expectText, isOneOf, isRecord } from '../lib/input/validate.js';
import { listScenarios, loadScenario } from '../lib/scenario/scenario-file.js';
import { groupsOf, shippedScenarios } from '../lib/scenario/scenario-groups.js';
import { DEFAULT_ASSERTIONS_FILE } from './assertions.js';
import { resolveRegressionOptions } from './baseline.js';
import { displayPath, readJsonFile } from '../lib/input/json-file.js';

export const SUITE_DIR = fileURLToPath(new URL('../suites/', import.meta.url));

const SUITE_FIELDS = ['$comment', 'name', 'description', 'emulator', 'sfu', 'video', 'repetitions', 'timeScale', 'durationS', 'warmupS',
  'assertions', 'regression', 'scenarios'];
const ENTRY_FIELDS = ['scenario', 'sfu', 'repetitions', 'timeScale', 'durationS', 'warmupS'];

/**
 * @typedef {object} SuiteEntry
 * @property {string} name         the scenario's name, `<scenario>.<sfu>` for an entry naming its SFUs: runs and baselines are
 *   keyed by it, assertions by it or else by the scenario's name (entryAssertions)
 * @property {string} source       as written in the suite (a scenario or group name, or a path)
 * @property {string} [sfu]        the SFU the entry names for its run, over the suite's
 * @property {number} repetitions
 * @property {import('../lib/scenario/scenario-file.js').ResolvedScenario} scenario
 *
 * @typedef {object} Suite
 * @property {string} name
 * @property {string} description
 * @property {string} file               as the user sees it
 * @property {string} emulator
 * @property {string} [sfu]          the SFU of its SFU calls (sfu/index.js; --sfu over the file's `sfu`, else the default)
 * @property {string|undefined} video    preset or .y4m path; undefined = the harness default
 * @property {string|null} assertionsFile  absolute; null = no assertions
 * @property {import('./baseline.js').RegressionOptions} regression
 * @property {SuiteEntry[]} entries
 */

/**
 * Built-in suites with their descriptions.
 * @returns {{ name: string, description: string, file: string }[]}
 */
export function listSuites() {
  return builtinNames(SUITE_DIR).map((name) => {
    const file = path.join(SUITE_DIR, `${name}.json`);
    const raw = readJsonFile(file, 'suite', 'reinstall the harness');
    return { name, description: String((isRecord(raw) ? raw.description : undefined) ?? ''), file: displayPath(file) };
  });
}

/**
 * @param {Record<string, unknown>} raw the suite (or entry) object
 * @param {(field: string) => string} where names a field in messages
 * @returns {{ repetitions?: number, timeScale?: number, durationS?: number, warmupS?: number }}
 */
function runSettings(raw, where) {
  /** @type {{ repetitions?: number, timeScale?: number, durationS?: number, warmupS?: number }} */
  const settings = {};
  if (raw.repetitions !== undefined) settings.repetitions = expectNumber(raw.repetitions, where('repetitions'), { min: 1, integer: true });
  if (raw.timeScale !== undefined) settings.timeScale = expectNumber(raw.timeScale, where('timeScale'), { above: 0 });
  if (raw.durationS !== undefined) settings.durationS = expectNumber(raw.durationS, where('durationS'), { above: 0 });
  if (raw.warmupS !== undefined) settings.warmupS = expectNumber(raw.warmupS, where('warmupS'), { min: 0 });
  return settings;
}

/**
 * An entry's own SFUs: one name or several, each of the registry (sfu/index.js); null when it names none (the suite's).
 * @param {unknown} value the entry's `sfu` @param {string} where "file: scenarios[i].sfu"
 * @returns {string[]|null}
 */
function entrySfus(value, where) {
  if (value === undefined) return null;
  const names = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(names) || names.length === 0) {
    throw new InputError(`${where}: must be an SFU name or a non-empty array of them (${sfuNames().join(', ')}), got ${describeValue(value)}`);
  }
  names.forEach((name, index) => {
    const at = typeof value === 'string' ? where : `${where}[${index}]`;
    sfuNamed(expectText(name, at, { what: `an SFU name (${sfuNames().join(', ')})` }), at);
  });
  const twice = names.find((name, index) => names.indexOf(name) !== index);
  if (twice !== undefined) throw new InputError(`${where}: ${describeValue(twice)} is listed twice; raise the entry's repetitions instead`);
  return names;
}

/**
 * The name of a scenario's runs on an SFU its entry names: its own directory, assertions of the scenario, a baseline of its own.
 * @param {string} scenario @param {string} sfu
 */
export const sfuEntryName = (scenario, sfu) => `${scenario}.${sfu}`;

/**
 * The assertions of a suite's entries: an entry that names its SFU (`<scenario>.<sfu>`) takes its scenario's unless the
 * file has some of its own name.
 * @template T
 * @param {Record<string, T[]>} assertions by name @param {SuiteEntry[]} entries
 * @returns {Record<string, T[]>}
 */
export function entryAssertions(assertions, entries) {
  const own = entries.filter(({ sfu, name }) => sfu && !Object.hasOwn(assertions, name))
    .filter(({ scenario }) => Object.hasOwn(assertions, scenario.name)).map(({ name, scenario }) => [name, assertions[scenario.name]]);
  return { ...assertions, ...Object.fromEntries(own) };
}

/**
 * Loads a built-in suite by name, or a suite file by path (contains '/' or ends in .json).
 * Scenario paths and the assertions path are relative to the suite file.
 * @param {string} nameOrPath
 * @param {{ repetitions?: number, durationS?: number, warmupS?: number, video?: string, emulator?: string, sfu?: string,
 *   publish?: import('../lib/media/publish.js').Publish|null,
 *   codec?: import('../lib/media/codec.js').RequestedCodec|null, traceDirs?: string[], fieldTrials?: string,
 *   bandwidthEstimation?: string }} [overrides] from flags
 * @returns {Suite}
 */
export function loadSuite(nameOrPath, overrides = {}) {
  const filePath = resolveBuiltin('suite', nameOrPath, SUITE_DIR,
    (known) => `built-in suites: ${known.join(', ')}, or give a path to a suite .json file`);
  const file = displayPath(filePath);
  const raw = expectObject(readJsonFile(filePath, 'suite', 'check the path, or give a built-in suite name (smoke, nightly)'), file, SUITE_FIELDS);
  const name = expectFileName(raw.name, path.basename(filePath, '.json'), file, 'suite');
  const description = expectText(raw.description, `${file}: description`);

  const emulator = overrides.emulator ?? raw.emulator ?? 'relay';
  if (!isOneOf(runEmulators(), emulator)) {
    throw new InputError(`${overrides.emulator ? '--emulator' : `${file}: emulator`}: unknown emulator ${describeValue(emulator)}; use one of ${runEmulators().join(', ')}`);
  }
  const sfu = overrides.sfu ?? (raw.sfu === undefined ? defaultSfu() : expectText(raw.sfu, `${file}: sfu`));
  sfuNamed(sfu, overrides.sfu ? '--sfu' : `${file}: sfu`);
  let video = overrides.video;
  if (video === undefined && raw.video !== undefined) {
    video = expectText(raw.video, `${file}: video`);
    if (!PRESETS[video]) {
      if (!video.endsWith('.y4m')) throw new InputError(`${file}: video: ${describeValue(video)} is neither a preset (${Object.keys(PRESETS).join(', ')}) nor a .y4m file`);
      video = path.resolve(path.dirname(filePath), video);
    }
  }

  /** @type {string|null} */
  let assertionsFile = DEFAULT_ASSERTIONS_FILE;
  if (raw.assertions === null) assertionsFile = null;
  else if (raw.assertions !== undefined) assertionsFile = path.resolve(path.dirname(filePath), expectText(raw.assertions, `${file}: assertions`));

  const regression = resolveRegressionOptions(raw.regression, `${file}: regression`);
  const suiteSettings = runSettings(raw, (field) => `${file}: ${field}`);
  // Flags win over the suite's and its entries' own (--repetitions, --duration, --warmup).
  const flagSettings = Object.fromEntries(['repetitions', 'durationS', 'warmupS'].flatMap((field) => {
    const value = overrides[/** @type {'repetitions'|'durationS'|'warmupS'} */ (field)];
    return value === undefined ? [] : [[field, value]];
  }));
  const written = raw.scenarios === 'all' ? listScenarios().map((s) => s.name) : raw.scenarios;
  if (!Array.isArray(written) || written.length === 0) {
    throw new InputError(`${file}: scenarios: must be "all" or a non-empty array of scenario or group names, paths or { "scenario": … } objects, got ${describeValue(raw.scenarios)}`);
  }

  /** @type {import('../lib/scenario/scenario-groups.js').ScenarioGroup[]|undefined} */
  let groups;
  const entries = written.flatMap((item, index) => {
    const where = `${file}: scenarios[${index}]`;
    const entry = typeof item === 'string' ? { scenario: item } : expectObject(item, where, ENTRY_FIELDS);
    const source = expectText(entry.scenario, typeof item === 'string' ? where : `${where}.scenario`);
    const settings = { repetitions: 1, ...suiteSettings, ...runSettings(entry, (field) => `${where}.${field}`), ...flagSettings };
    let targets = [path.resolve(path.dirname(filePath), source)];
    if (!isFilePath(source)) {
      groups ??= groupsOf(shippedScenarios());
      targets = groups.find((group) => group.name === source)?.members ?? [source];
    }
    const sfus = entrySfus(entry.sfu, `${where}.sfu`);
    return targets.flatMap((target) => {
      let scenario;
      try {
        const { timeScale, durationS, warmupS } = settings;
        const { codec, traceDirs, publish, fieldTrials, bandwidthEstimation } = overrides;
        scenario = loadScenario(target, { timeScale, durationS, warmupS, codec, traceDirs, publish, fieldTrials, bandwidthEstimation });
      } catch (error) {
        if (error instanceof InputError) throw new InputError(`${where}: ${error.message}`, { cause: error });
        throw error;
      }
      if (!sfus) {
        checkSfuSupport(sfu, scenario, overrides.sfu ? '--sfu' : `${file}: sfu`);
        return [{ name: scenario.name, source, repetitions: settings.repetitions, scenario }];
      }
      if (scenario.topology !== 'sfu') {
        throw new InputError(`${where}.sfu: ${scenario.name} is a ${scenario.topology} call, which no SFU carries; drop the entry's sfu, or list SFU scenarios only`);
      }
      return sfus.map((name) => {
        checkSfuSupport(name, scenario, `${where}.sfu`);
        return { name: sfuEntryName(scenario.name, name), source, sfu: name, repetitions: settings.repetitions, scenario };
      });
    });
  });
  const seen = new Set();
  for (const [index, entry] of entries.entries()) {
    if (seen.has(entry.name)) throw new InputError(`${file}: scenarios[${index}]: scenario '${entry.name}' is listed twice; raise its repetitions instead`);
    seen.add(entry.name);
  }
  return { name, description, file, emulator, sfu, video, assertionsFile, regression, entries };
}
