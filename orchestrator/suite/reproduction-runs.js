// The runs a suite directory holds for the published tables: per run, the few numbers a table takes
// (lib/scenario/reproductions.js reproductionValues) and what the run was made with. Read one result.json at a time:
// a nightly has 100+ results of a few MB each.
import path from 'node:path';
import { loadResult } from '../report/write.js';
import { reproductionValues } from '../lib/scenario/reproductions.js';
import { listScenarios, loadScenario } from '../lib/scenario/scenario-file.js';
import { hostLimitedOf } from './summary.js';
import { runFile } from '../lib/input/run-file.js';
import { hostEvidenceOf } from '../lib/scenario/reproductions/host-evidence.js';
import { audioLoopOf, congestionVariantOf } from '../lib/scenario/reproductions/run-kinds.js';
import { SPEECH_AUDIO_FILE } from '../../media/generate.js';

/**
 * @typedef {import('../lib/scenario/reproductions.js').ReproductionRun & {
 *   startedAt: string|null, commit: string|null, browser: string|null, video: string|null, cpus: number|null,
 *   mediaSource: string, emulator: string|null, audio?: string|null, hostLimited: boolean, emulatorBehind: boolean,
 *   behindSeconds?: { seconds: number, measuredSeconds: number, lateMaxMs: number|null, hostStallSeconds?: number|null }|null,
 *   hostEvidence?: import('../lib/scenario/reproductions/host-evidence.js').HostEvidence|null, treeDirty?: boolean|null,
 *   suiteDir?: string|null, variant?: string[] }} TableRun
 *   emulator: the network emulator and, for the relay, its packet path ("relay (native)");
 *   audio: the fake microphone's loop its peers sent, from the result's environment.media (run-kinds.js audioLoopOf:
 *   'speech', 'tone', or a loop file's name; null when the result names none; absent from runs published before it);
 *   hostLimited: the run's host, or an encoder the scenario does not constrain, was CPU-limited (the suite's verdict);
 *   emulatorBehind: its relay fell behind;
 *   behindSeconds: in how many of the call's seconds, and its latest datagram (absent from runs published before it; 0
 *   seconds where measured and none fell behind since 2026-11-29);
 *   hostEvidence: what the page's graded host verdicts are computed from (lib/scenario/reproductions/host-evidence.js;
 *   absent from runs published before it, null for a result without a measurement window);
 *   treeDirty: the checkout had uncommitted changes when the run started (null: unknown; absent from older runs);
 *   suiteDir: the suite directory the run's report is in (report is relative to it; absent from older runs);
 *   variant: how the run changed the browsers' congestion control from the shipped scenario ([] for none; run-kinds.js)
 */

/**
 * A run counts only when it ran the shipped scenario file of that name: a suite's own file of the same name is not
 * the paper's experiment.
 * @param {string} suiteDir
 * @param {{ runs: Array<{ scenario: string, repetition: number, dir: string, status: string, report: string|null,
 *   cpuLimited?: boolean, emulatorBehind?: boolean }> }} summary the suite's summary.json
 * @param {Set<string>} needed the scenarios of the tables
 * @returns {Promise<TableRun[]>}
 */
export async function collectTableRuns(suiteDir, summary, needed) {
  const shippedFile = new Map(listScenarios().map((s) => [s.name, s.file]));
  /** @type {Map<string, import('../lib/scenario/scenario-file.js').ResolvedScenario>} */
  const shipped = new Map();
  /** @param {string} name */
  const shippedScenario = (name) => {
    const known = shipped.get(name) ?? loadScenario(name);
    shipped.set(name, known);
    return known;
  };
  /** @type {TableRun[]} */
  const runs = [];
  for (const run of summary.runs) {
    if (!needed.has(run.scenario)) continue;
    const result = await loadResult(await runFile(suiteDir, run, 'result.json')).catch(() => null);
    if (result && result.scenario?.file !== shippedFile.get(run.scenario)) continue;
    /** @type {Partial<import('../report/result-file.js').ReportEnvironment>} */
    const env = result?.environment ?? {};
    runs.push({
      scenario: run.scenario, repetition: run.repetition, status: result ? run.status : 'missing', report: run.report,
      ...reproductionValues(result),
      startedAt: env.startedAt ?? null, commit: text(env.commit),
      browser: [text(env.browser?.name), text(env.browser?.version)].filter(Boolean).join(' ') || null,
      video: text(env.media?.preset), cpus: Number.isInteger(env.cpus) && Number(env.cpus) > 0 ? Number(env.cpus) : null,
      mediaSource: text(env.mediaSource) ?? 'browser',
      emulator: emulatorOf(result),
      audio: audioLoopOf(env.media, SPEECH_AUDIO_FILE),
      // From the result, not the suite's summary.json: a summary written before hostLimited counted a constrained device too.
      hostLimited: result ? hostLimitedOf(result) : run.cpuLimited === true, emulatorBehind: run.emulatorBehind === true,
      behindSeconds: behindSecondsOf(result),
      hostEvidence: result ? hostEvidenceOf(result) : null,
      treeDirty: typeof env.treeDirty === 'boolean' ? env.treeDirty : null,
      suiteDir: path.resolve(suiteDir),
      variant: result ? congestionVariantOf(result.scenario, shippedScenario(run.scenario)) : [],
    });
  }
  return runs;
}

/** A text field of a result as runs.json keeps it: anything else (a result is input) is not recorded. @param {unknown} value */
const text = (value) => (typeof value === 'string' ? value : null);

/**
 * How much the relay fell behind: one late datagram in 300 s and a minute of late ones are both "fell behind". Seconds
 * 0 where the relay measured itself and never fell behind; null where it did not measure (runs published before
 * 2026-11-29 have null for both).
 * @param {import('../report/result-file.js').ReportResult|null} result
 * @returns {TableRun['behindSeconds']}
 */
function behindSecondsOf(result) {
  const behind = result?.summary?.emulatorBehind;
  if (!behind) return null;
  const { seconds, measuredSeconds, lateMaxMs } = behind;
  return { seconds, measuredSeconds, lateMaxMs, hostStallSeconds: behind.hostStallSeconds ?? null };
}

/**
 * @param {import('../report/result-file.js').ReportResult|null} result
 * @returns {string|null}
 */
function emulatorOf(result) {
  const name = result?.network?.emulator;
  if (typeof name !== 'string') return null;
  const packetPath = result?.network?.emulatorLoad?.find((row) => typeof row?.packetPath === 'string')?.packetPath;
  return packetPath ? `${name} (${packetPath})` : name;
}

/**
 * Each scenario's reference (its published figures); null for one renamed since, whose row then shows none.
 * @param {Iterable<string>} names @returns {Record<string, unknown>}
 */
export function referencesOf(names) {
  return Object.fromEntries([...names].map((name) => {
    try {
      return [name, loadScenario(name).reference];
    } catch {
      return [name, null];
    }
  }));
}

/**
 * The media source a table's runs used when all used one (a known cause about it applies unless they did).
 * @param {TableRun[]} runs @returns {string|null}
 */
export function commonMediaSource(runs) {
  const used = new Set(runs.filter((run) => run.status !== 'missing').map((run) => run.mediaSource));
  return used.size === 1 ? [...used][0] : null;
}
