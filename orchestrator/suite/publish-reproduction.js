// Publishes a reproduction suite directory into the repository (docs/reproduction/): runs.json, one record per run
// with what the tables take from it, and README.md rendered from runs.json alone, so a test can re-derive every
// figure. Runs are merged by scenario and repetition: a chunk published later replaces its own runs only.
import { access, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic, writeJsonAtomic } from '../lib/system/files.js';
import { InputError } from '../lib/system/errors.js';
import { displayPath, readJsonFile } from '../lib/input/json-file.js';
import { isRecord } from '../lib/input/validate.js';
import { REPRODUCTIONS, tableScenarios } from '../lib/scenario/reproductions.js';
import { collectTableRuns, referencesOf } from './reproduction-runs.js';
import { renderReproductionMarkdown } from './render-reproduction-md.js';
import { readSuiteSummary } from './suite-dir.js';
import { runDirName } from './plan.js';

export const PUBLISHED_KIND = 'webrtc-testbed-reproduction-runs';

/** @typedef {import('./reproduction-runs.js').TableRun} TableRun */

/** @param {TableRun} run */
const runKey = (run) => runDirName(run.scenario, run.repetition);

/**
 * The runs already published there (none when the file does not exist yet).
 * @param {string} file @returns {Promise<TableRun[]>}
 */
async function readPublished(file) {
  if (!(await access(file).then(() => true, () => false))) return [];
  const data = readJsonFile(file, 'published reproduction', 'publish into a new folder');
  /** @param {unknown} run @returns {run is TableRun} */
  const valid = (run) => isRecord(run) && typeof run.scenario === 'string' && Number.isInteger(run.repetition);
  if (!isRecord(data) || data.kind !== PUBLISHED_KIND || !Array.isArray(data.runs) || !data.runs.every(valid)) {
    throw new InputError(`${displayPath(file)}: not a published reproduction (kind ${PUBLISHED_KIND}, runs with scenario and repetition): `
      + 'publish into another folder, or restore the file from git');
  }
  return data.runs;
}

/**
 * `reproduce --skip-published`: the runs already in the reproduction in this folder are not run again, so a
 * reproduction goes on from its committed page when the suite directory that made it is gone; a run published shorter
 * than the plan runs it (a scenario lengthened to its paper's duration since) is run again, and replaces it.
 * @param {string} toDir e.g. docs/reproduction
 * @returns {Promise<(scenario: string, repetition: number, durationS: number) => string|null>} why a run is skipped, or null
 */
export async function skipPublished(toDir) {
  const file = path.join(toDir, 'runs.json');
  if (!(await access(file).then(() => true, () => false))) {
    throw new InputError(`--skip-published ${displayPath(toDir)}: no runs.json there: name the folder of a published reproduction (docs/reproduction)`);
  }
  const published = new Map((await readPublished(file)).map((run) => [runKey(run), run]));
  return (scenario, repetition, durationS) => {
    const run = published.get(runDirName(scenario, repetition));
    const ranS = run?.clock?.durationS;
    if (!run || (typeof ranS === 'number' && ranS < durationS)) return null;
    return `published in ${displayPath(file)} (started ${run.startedAt ?? 'at an unknown time'})`;
  };
}

/**
 * @param {TableRun[]} runs @returns {TableRun[]} sorted as the tables list them
 */
function ordered(runs) {
  const order = [...new Set(REPRODUCTIONS.flatMap(tableScenarios))];
  return [...runs].sort((a, b) => order.indexOf(a.scenario) - order.indexOf(b.scenario) || a.repetition - b.repetition);
}

/**
 * @param {string} suiteDir a `reproduce` suite directory
 * @param {string} toDir e.g. docs/reproduction
 * @param {{ planned: number }} plan how many runs the whole reproduction has
 * @returns {Promise<{ runs: number, added: number, files: string[] }>}
 */
export async function publishReproduction(suiteDir, toDir, { planned }) {
  const { summary } = await readSuiteSummary(suiteDir);
  const needed = new Set(REPRODUCTIONS.flatMap(tableScenarios));
  // Only finished runs: a missing or aborted one is still to do, not a figure. Each keeps its report's path in its suite directory.
  const fresh = (await collectTableRuns(suiteDir, summary, needed)).filter((run) => run.status === 'passed' || run.status === 'failed');
  const variants = fresh.filter((run) => run.variant?.length);
  if (variants.length) {
    throw new InputError(`${displayPath(suiteDir)}: ${variants.map((run) => `${run.scenario} run ${run.repetition} ran with ${run.variant?.join(' and ')}`).join('; ')}: `
      + 'an experiment on the paper\'s scenario, not its set-up, so it is not published; publish a suite run without --field-trials and --bandwidth-estimation');
  }
  const runsFile = path.join(toDir, 'runs.json');
  const byKey = new Map((await readPublished(runsFile)).map((run) => [runKey(run), run]));
  const before = byKey.size;
  for (const run of fresh) byKey.set(runKey(run), run);
  const runs = ordered([...byKey.values()]);
  await mkdir(toDir, { recursive: true });
  await writeJsonAtomic(runsFile, { kind: PUBLISHED_KIND, schemaVersion: 1, planned, runs });
  const readme = path.join(toDir, 'README.md');
  await writeFileAtomic(readme, renderReproductionMarkdown({ runs, references: referencesOf(needed), planned }));
  return { runs: runs.length, added: runs.length - before, files: [runsFile, readme] };
}
