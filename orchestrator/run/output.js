// Where a run writes: the directory is claimed and checked before any browser starts, so a bad --out costs
// nothing; the final write falls back to the OS temp dir, so a full disk does not lose the measurement.
import { randomBytes } from 'node:crypto';
import { access, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { EnvironmentError, InputError, errorCode, errorMessage } from '../lib/system/errors.js';
import { writeJsonAtomic } from '../lib/system/files.js';
import { RESULTS_ROOT } from '../lib/system/paths.js';

const RESULT_FILE = 'result.json';

/**
 * results/<scenario>/<UTC timestamp>, e.g. results/latency-500/2026-11-21T11-30-05Z
 * @param {string} scenarioName @param {Date} [date] @param {string} [root]
 */
export function defaultRunDir(scenarioName, date = new Date(), root = RESULTS_ROOT) {
  return path.join(root, scenarioName, date.toISOString().replace(/\.\d+Z$/, 'Z').replaceAll(':', '-'));
}

/**
 * Creates the run directory and proves it writable. With no --out, a run claims a fresh timestamped directory
 * (mkdir of the leaf is atomic, so two runs started in the same second get `…Z` and `…Z-2`); an --out that
 * already holds a result is refused unless `force`.
 * @param {{ outDir?: string, scenarioName: string, force?: boolean, now?: Date, resultsRoot?: string }} options
 * @returns {Promise<string>} the absolute run directory
 */
export async function prepareRunDir({ outDir, scenarioName, force = false, now = new Date(), resultsRoot = RESULTS_ROOT }) {
  const runDir = outDir ? path.resolve(outDir) : await claimFreshDir(defaultRunDir(scenarioName, now, resultsRoot));
  const flag = outDir ? `--out ${outDir}` : `results directory ${runDir}`;
  try {
    await mkdir(runDir, { recursive: true });
  } catch (error) {
    throw new InputError(`${flag}: cannot create the directory (${errorCode(error) ?? errorMessage(error)}); choose a writable --out.`, { cause: error });
  }
  if (outDir && !force && await exists(path.join(runDir, RESULT_FILE))) {
    throw new InputError(`--out ${outDir} already holds a ${RESULT_FILE}: pass --force to replace it, or choose another --out.`);
  }
  // A random name created exclusively: a symlink planted in the directory is never written through.
  const probe = path.join(runDir, `.write-check-${randomBytes(8).toString('hex')}`);
  try {
    await writeFile(probe, '', { flag: 'wx' });
    await rm(probe, { force: true });
  } catch (error) {
    throw new InputError(`${flag}: the directory is not writable (${errorCode(error) ?? errorMessage(error)}); choose a writable --out.`, { cause: error });
  }
  return runDir;
}

/** @param {string} base */
async function claimFreshDir(base) {
  await mkdir(path.dirname(base), { recursive: true }).catch(() => {}); // reported by prepareRunDir's own mkdir
  for (let n = 1; n < 1000; n += 1) {
    const candidate = n === 1 ? base : `${base}-${n}`;
    try {
      await mkdir(candidate);
      return candidate;
    } catch (error) {
      if (errorCode(error) !== 'EEXIST') return candidate;
    }
  }
  throw new EnvironmentError(`${base}: 999 runs already started in this second; wait a second and run again.`);
}

/**
 * Writes result.json; if that fails (disk full, directory removed), the result goes to a file in a new private
 * directory (mkdtemp: random name, mode 0700) in the OS temp dir, where nobody can have planted a symlink, and the
 * error names it.
 * @param {string} runDir @param {{ scenario: object }} result  result.json (its scenario names the temp dir)
 * @returns {Promise<string>} the file written
 */
export async function writeResultFile(runDir, result) {
  const file = path.join(runDir, RESULT_FILE);
  try {
    await writeJsonAtomic(file, result);
    return file;
  } catch (error) {
    const saved = await saveInTempDir(result).catch(() => null);
    throw new EnvironmentError(
      `cannot write ${file} (${errorCode(error) ?? errorMessage(error)}); ${saved ? `the result was saved to ${saved}` : 'the temp dir is not writable either, the result is lost'}. Free space or fix permissions, then move it back.`,
      { cause: error },
    );
  }
}

/** @param {{ scenario: object }} result @returns {Promise<string>} the file written */
async function saveInTempDir(result) {
  const dir = await mkdtemp(path.join(os.tmpdir(), `webrtc-testbed-${scenarioName(result.scenario)}-`));
  const file = path.join(dir, RESULT_FILE);
  await writeJsonAtomic(file, result);
  return file;
}

/** A result's scenario name (RunResult types the scenario as a plain object). @param {object} scenario */
const scenarioName = (scenario) => ('name' in scenario && typeof scenario.name === 'string' ? scenario.name : 'run');

/** @param {string} file */
const exists = (file) => access(file).then(() => true, () => false);
