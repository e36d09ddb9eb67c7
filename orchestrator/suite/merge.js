// Joins suite directories (the shards of a CI matrix, or repeated suite runs) into one suite directory:
// runs are copied and renumbered per scenario, then assertions and the baseline comparison are evaluated
// over all of them.
import { cp } from 'node:fs/promises';
import path from 'node:path';
import { InputError } from '../lib/system/errors.js';
import { parseAssertions } from './assertions.js';
import { checkMachineClass, resolveRegressionOptions } from './baseline.js';
import { machineClass } from '../lib/result/machine-class.js';
import { displayPath } from '../lib/input/json-file.js';
import { runDirName } from './plan.js';
import { buildSuiteSummary } from './summary.js';
import { defaultSuiteDir, readRuns, readSuiteSummary, writeSuiteOutputs } from './suite-dir.js';

/**
 * Shards a complete matrix would have but that are not among the inputs.
 * @param {({ index: number, count: number }|null)[]} shards
 * @returns {string[]} e.g. ["2/4"]
 */
export function missingShards(shards) {
  const present = shards.flatMap((shard) => (shard ? [shard] : []));
  if (!present.length) return [];
  const count = present[0].count;
  return Array.from({ length: count }, (_, i) => i + 1).filter((index) => !present.some((s) => s.index === index)).map((index) => `${index}/${count}`);
}

/**
 * @param {string[]} targets suite directories or their summary.json files
 * @param {object} [options]
 * @param {string} [options.outDir] default results/suites/<suite>/<UTC timestamp>
 * @param {{ map: Record<string, import('./assertions.js').Assertion[]>, file: string }} [options.assertions]
 *   instead of the ones the shards recorded
 * @param {{ file: string, data: import('./baseline.js').Baseline }|null} [options.baseline]
 * @param {Partial<import('./baseline.js').RegressionOptions>} [options.regression] from flags, over the shards' own
 * @param {boolean} [options.allowMachineMismatch] compare with a baseline of another machine class
 * @param {(line: string) => void} [options.log]
 * @param {import('./suite-dir.js').Remember|null} [options.remember] write the merge to the results store
 * @returns {Promise<{ summary: import('./summary.js').SuiteSummary, suiteDir: string, paths: Record<string, string> }>}
 */
export async function mergeSuiteDirs(targets, {
  outDir, assertions, baseline = null, regression: regressionFlags, allowMachineMismatch = false, log = () => {}, remember = null,
} = {}) {
  if (!targets.length) throw new InputError('merge needs at least one suite directory');
  const inputs = [];
  for (const target of targets) inputs.push(await readSuiteSummary(target));
  const [first] = inputs;
  for (const input of inputs) {
    if (input.summary.suite?.name !== first.summary.suite?.name) {
      throw new InputError(`${displayPath(input.file)}: suite.name: '${input.summary.suite?.name}' differs from '${first.summary.suite?.name}' in ${displayPath(first.file)}; merge directories of one suite`);
    }
    const twin = inputs.find((other) => other !== input && other.suiteDir === input.suiteDir);
    if (twin) throw new InputError(`${displayPath(input.file)}: given twice; pass each suite directory once`);
    const { shard } = input.summary;
    /** @param {{ summary: import('./summary.js').SuiteSummary }} other */
    const sameShard = (other) => other !== input
      && other.summary.shard?.index === shard?.index && other.summary.shard?.count === shard?.count;
    if (shard && inputs.some(sameShard)) {
      throw new InputError(`${displayPath(input.file)}: shard: ${shard.index}/${shard.count} appears in more than one input; pass each shard once`);
    }
  }
  const shardCounts = new Set(inputs.map((i) => i.summary.shard?.count).filter(Boolean));
  if (shardCounts.size > 1) throw new InputError(`shard: the inputs come from matrices of different sizes (${[...shardCounts].join(', ')} shards); merge the shards of one run`);

  // Every input, since shards may have run on different machines; before anything is copied.
  const machineNotes = !baseline ? [] : inputs.flatMap(({ summary: { environment }, suiteDir: dir }) => {
    const note = environment && checkMachineClass(
      baseline, machineClass(environment), { allowMismatch: allowMachineMismatch, what: `the runs in ${displayPath(dir)} are` },
    );
    return note ? [note] : [];
  });

  const suiteDir = path.resolve(outDir ?? defaultSuiteDir(first.summary.suite.name));
  if (inputs.some((input) => input.suiteDir === suiteDir)) throw new InputError(`--out ${suiteDir}: is one of the inputs; write the merge to a new directory`);

  const runs = [];
  /** @type {string[]} */
  const scenarios = [];
  const nextRepetition = new Map();
  for (const input of inputs) {
    for (const name of [...input.summary.runs.map((r) => r.scenario), ...(input.summary.notRun ?? [])]) {
      if (!scenarios.includes(name)) scenarios.push(name);
    }
    for (const run of await readRuns(input.suiteDir, input.summary)) {
      const repetition = (nextRepetition.get(run.scenario) ?? 0) + 1;
      nextRepetition.set(run.scenario, repetition);
      const dir = runDirName(run.scenario, repetition);
      await cp(path.join(input.suiteDir, run.dir), path.join(suiteDir, dir), { recursive: true }).catch((error) => log(`${run.dir} of ${displayPath(input.suiteDir)} not copied: ${error.message}`));
      runs.push({ ...run, repetition, dir });
    }
  }

  const assertionsMap = assertions?.map ?? Object.assign({}, ...[...inputs].reverse().map((i) => parseAssertions({ scenarios: i.summary.assertionDefinitions ?? {} }, `${displayPath(i.file)}: assertionDefinitions`)));
  const regression = resolveRegressionOptions(regressionFlags, 'flags', resolveRegressionOptions(first.summary.regression, `${displayPath(first.file)}: regression`));
  const outcomes = inputs.map((i) => i.summary.outcome);
  const missing = missingShards(inputs.map((i) => i.summary.shard));
  const problems = [
    ...machineNotes,
    ...(missing.length ? [`shard${missing.length > 1 ? 's' : ''} ${missing.join(', ')} missing: their scenarios are not in this merge`] : []),
    ...inputs.flatMap((i) => (i.summary.problems ?? []).map((p) => `${displayPath(i.suiteDir)}: ${p}`)),
  ];
  const summary = buildSuiteSummary({
    suite: first.summary.suite, regression, assertions: assertionsMap,
    assertionsFile: assertions?.file ?? first.summary.assertionsFile ?? null,
    scenarios, runs, baseline, shard: null, mergedFrom: inputs.map((i) => displayPath(i.suiteDir)),
    startedAt: inputs.map((i) => i.summary.startedAt).sort()[0], endedAt: inputs.map((i) => i.summary.endedAt).sort().reverse()[0],
    problems, halted: /** @type {Array<'input-error'|'environment-error'>} */ (['input-error', 'environment-error']).find((o) => outcomes.includes(o)) ?? null, interrupted: outcomes.includes('aborted'),
  });
  const paths = await writeSuiteOutputs(suiteDir, summary, { log, remember });
  return { summary, suiteDir, paths };
}
