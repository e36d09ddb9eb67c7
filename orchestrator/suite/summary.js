// summary.json of a suite (or a merge of shards): runs, assertion results, regression checks, outcome and
// exit code. Pure: results come in as objects. Format: docs/suites.md "summary.json".
import { evaluateAssertions } from './assertions.js';
import { compareScenario } from './baseline.js';
import { runValues } from '../lib/result/metric-values.js';
import { meanPeerUplinkKbps, ratiosToTwoParty } from '../lib/network/topology.js';
import { cpuLimitedPeers } from '../lib/devices/cpu-limit.js';
import { constrainedPeers } from '../lib/devices/devices.js';
import { sfuOf } from '../report/sfu-comparison.js';

export const SUMMARY_KIND = 'webrtc-testbed-suite';
export const SUMMARY_SCHEMA_VERSION = 1;

/** @typedef {'passed'|'failed'|'input-error'|'environment-error'|'crashed'|'aborted'} Outcome */

/**
 * Exit code per outcome (docs/suites.md "Exit codes").
 * @type {Record<Outcome, number>}
 */
export const EXIT_CODES = { passed: 0, failed: 1, 'input-error': 2, 'environment-error': 3, crashed: 4, aborted: 130 };

/**
 * The parts of a result.json a suite reads (compactResult keeps these). Read from disk, of any schema version: every
 * part may be missing.
 * @typedef {object} SuiteResult
 * @property {string} [status]
 * @property {Array<string|{ message?: string }>} [errors]
 * @property {{ name?: string, file?: string, group?: string|null, peers?: number, durationS?: number, warmupS?: number,
 *   devices?: Record<string, { cpuThrottlingRate?: number|null, cpuQuotaCores?: number|null, cpuCount?: number|null }> }} [scenario]
 * @property {SuiteEnvironment|null} [environment]
 * @property {Array<{ t: number, [field: string]: unknown }>} [timeline]
 * @property {SuiteResultSummary|null} [summary]
 * @property {{ hostSaturation?: { saturated?: boolean }|null,
 *   grid?: { nodes?: Record<string, { saturation?: { saturated?: boolean }|null }|null> } }|null} [resources]
 * @typedef {{ startedAt?: string|null, browser?: { name?: string|null, version?: string|null }|null, emulator?: string|null,
 *   mediaSource?: string|null, media?: { preset?: string|null, video?: string|null }|null, os?: string|null, cpus?: number|null,
 *   cpuModel?: string|null, node?: string|null, [field: string]: unknown }} SuiteEnvironment
 * @typedef {{ overall?: object, windowS?: number[],
 *   cpuLimitation?: { limited?: boolean, byPeer?: Record<string, number>,
 *     harness?: { limited?: boolean, peers?: Record<string, { limited?: boolean }> } }|null, emulatorBehind?: { behind?: boolean }|null,
 *   peerTotals?: Record<string, { uplinkKbps: number }>, [field: string]: unknown }} SuiteResultSummary
 */

/**
 * @typedef {{ scenario: string, repetition: number, dir: string, hasReport: boolean, result: SuiteResult|null }} RunInput
 *   dir is relative to the suite directory; result is null when the run left no readable result.json
 */

/**
 * The parts of a result.json a suite summary reads: status, errors, scenario, environment, timeline, summary and
 * whether the host or a Grid node was saturated.
 * Network truth and events are dropped so a merge of a whole nightly (100+ runs) stays small in memory.
 * @param {SuiteResult} result
 * @returns {SuiteResult}
 */
export function compactResult({ status, errors, scenario, environment, timeline, summary, resources }) {
  // A Grid run's nodes keep only their verdicts, in the result's shape.
  const nodes = Object.fromEntries(Object.entries(resources?.grid?.nodes ?? {})
    .map(([label, node]) => [label, { saturation: node?.saturation ?? null }]));
  return {
    status, errors, scenario, environment, timeline, summary,
    resources: { hostSaturation: resources?.hostSaturation ?? null, grid: { nodes } },
  };
}

/**
 * @typedef {{ browser: string|null, emulator: string|null, video: string|null, os: string|null, cpus: number|null,
 *   cpuModel: string|null, node: string|null }} SummaryEnvironment
 */

/** @param {Array<SuiteResult|null>} results @returns {SummaryEnvironment|null} */
function environmentOf(results) {
  const env = results.find(Boolean)?.environment;
  if (!env) return null;
  return {
    browser: [env.browser?.name, env.browser?.version].filter(Boolean).join(' ') || null,
    emulator: env.emulator ?? null, video: env.media?.preset ?? env.media?.video ?? null,
    os: env.os ?? null, cpus: env.cpus ?? null, cpuModel: env.cpuModel ?? null, node: env.node ?? null,
  };
}

/**
 * One run of the summary's `runs`.
 * @param {RunInput} run
 */
function runRecordOf({ scenario, repetition, dir, hasReport, result }) {
  return {
    scenario, repetition, dir, report: hasReport ? `${dir}/report.html` : null,
    status: result?.status ?? 'missing',
    startedAt: result?.environment?.startedAt ?? null,
    durationS: result?.scenario?.durationS ?? null,
    // An SFU call's SFU (environment.sfu): the suite page sets runs of one scenario on different SFUs side by side.
    sfu: sfuOf(result),
    errors: (result?.errors ?? []).map((e) => (typeof e === 'string' ? e : e.message ?? 'no message')),
    values: result ? runValues(result) : {},
    // A starved host looks like a congested network: runs whose encoders were CPU-limited are named as such.
    cpuLimited: cpuVerdict(result) || hostSaturated(result),
    // The host's doing, not the experiment's: a run CPU-limited only in the peers its scenario slows on purpose (a
    // constrained device) does not count.
    hostLimited: hostLimitedOf(result),
    // Likewise a run whose emulator fell behind its schedule: its links were not the configured ones.
    emulatorBehind: result?.summary?.emulatorBehind?.behind === true,
  };
}

/** @typedef {ReturnType<typeof runRecordOf>} RunRecord */

/**
 * The host, not the experiment, limited the run: it saturated, or a CPU verdict names a peer the scenario does not
 * constrain on purpose.
 * @param {SuiteResult|null|undefined} result
 */
export function hostLimitedOf(result) {
  return hostSaturated(result) || (cpuVerdict(result) && !onlyByDesign(result));
}

/** The browser's or the harness's CPU verdict. @param {SuiteResult|null|undefined} result */
function cpuVerdict(result) {
  return result?.summary?.cpuLimitation?.limited === true || result?.summary?.cpuLimitation?.harness?.limited === true;
}

/** Every peer the CPU verdicts name is one the scenario constrains. @param {SuiteResult|null|undefined} result */
function onlyByDesign(result) {
  const peers = cpuLimitedPeers(result?.summary?.cpuLimitation);
  const constrained = constrainedPeers(result?.scenario?.devices);
  return peers.length > 0 && peers.every((peer) => constrained.has(peer));
}

/** This machine or a Grid node used (nearly) every core for the call. @param {SuiteResult|null|undefined} result */
function hostSaturated(result) {
  return result?.resources?.hostSaturation?.saturated === true
    || Object.values(result?.resources?.grid?.nodes ?? {}).some((node) => node?.saturation?.saturated === true);
}

/**
 * One scenario of the summary's `scenarios`: its runs, assertions over the passed ones and the baseline comparison.
 * @param {string} name
 * @param {Array<{ run: RunInput, record: RunRecord }>} mine the scenario's runs
 * @param {{ assertions: Record<string, import('./assertions.js').Assertion[]>, regression: import('./baseline.js').RegressionOptions,
 *   baseline: { file: string, data: import('./baseline.js').Baseline }|null }} checks
 */
function scenarioSummaryOf(name, mine, { assertions, regression, baseline }) {
  // A passed run has a result: status is 'missing' without one.
  const passedResults = mine.filter(({ record }) => record.status === 'passed').flatMap(({ run }) => (run.result ? [run.result] : []));
  /** @type {Record<string, number[]>} */
  const currentValues = {};
  for (const { record } of mine) {
    if (record.status !== 'passed') continue;
    for (const [metric, value] of Object.entries(record.values)) (currentValues[metric] ??= []).push(value);
  }
  return {
    name,
    runs: mine.length,
    passedRuns: passedResults.length,
    cpuLimitedRuns: mine.filter(({ record }) => record.cpuLimited).length,
    hostLimitedRuns: mine.filter(({ record }) => record.hostLimited).length,
    emulatorBehindRuns: mine.filter(({ record }) => record.emulatorBehind).length,
    assertions: evaluateAssertions(assertions[name] ?? [], passedResults),
    regressions: baseline ? compareScenario(currentValues, baseline.data.scenarios[name], regression) : [],
  };
}

/** @typedef {ReturnType<typeof scenarioSummaryOf>} ScenarioSummary */

/**
 * @param {RunRecord[]} runRecords @param {ScenarioSummary[]} scenarioSummaries
 */
function countsOf(runRecords, scenarioSummaries) {
  const assertions = scenarioSummaries.flatMap((s) => s.assertions);
  const regressions = scenarioSummaries.flatMap((s) => s.regressions);
  return {
    runs: runRecords.length,
    passedRuns: runRecords.filter((r) => r.status === 'passed').length,
    crashedRuns: runRecords.filter((r) => r.status === 'failed' || r.status === 'missing').length,
    abortedRuns: runRecords.filter((r) => r.status === 'aborted').length,
    assertionErrors: assertions.filter((a) => a.level === 'error' && a.passed === false).length,
    assertionWarnings: assertions.filter((a) => a.level === 'warn' && a.passed === false).length,
    regressions: regressions.filter((c) => c.verdict === 'regression').length,
    improvements: regressions.filter((c) => c.verdict === 'improvement').length,
    inconclusive: regressions.filter((c) => c.verdict === 'inconclusive').length,
    cpuLimitedRuns: runRecords.filter((r) => r.cpuLimited).length,
    hostLimitedRuns: runRecords.filter((r) => r.hostLimited).length,
    emulatorBehindRuns: runRecords.filter((r) => r.emulatorBehind).length,
  };
}

/**
 * J16 §8-3: each group's n-party calls against its 2-party call (passed runs only).
 * @param {RunInput[]} runs
 */
function twoPartyRatiosOf(runs) {
  return ratiosToTwoParty(runs.flatMap(({ scenario, result }) => (result?.status === 'passed' ? [{
    scenario, group: result.scenario?.group ?? null, peers: result.scenario?.peers ?? 2, uplinkKbps: meanPeerUplinkKbps(result),
  }] : [])));
}

/**
 * @param {object} input
 * @param {{ name: string, description: string, file: string, emulator: string, video?: string|null }} input.suite
 * @param {import('./baseline.js').RegressionOptions} input.regression
 * @param {Record<string, import('./assertions.js').Assertion[]>} input.assertions
 * @param {string|null} input.assertionsFile
 * @param {string[]} input.scenarios planned scenario names, in order
 * @param {RunInput[]} input.runs
 * @param {{ file: string, data: import('./baseline.js').Baseline }|null} [input.baseline]
 * @param {{ index: number, count: number }|null} [input.shard]
 * @param {string[]} [input.mergedFrom] shard directories of a merge
 * @param {string} input.startedAt @param {string} input.endedAt
 * @param {string[]} [input.problems] notes shown with the outcome (missing shards, an environment error …)
 * @param {'environment-error'|'input-error'|null} [input.halted] what stopped the suite before its last run
 * @param {boolean} [input.interrupted] SIGINT/SIGTERM stopped the suite
 */
export function buildSuiteSummary({
  suite, regression, assertions, assertionsFile, scenarios, runs, baseline = null, shard = null, mergedFrom,
  startedAt, endedAt, problems = [], halted = null, interrupted = false,
}) {
  const runRecords = runs.map(runRecordOf);
  const ran = scenarios.filter((name) => runs.some((run) => run.scenario === name));
  const scenarioSummaries = ran.map((name) => scenarioSummaryOf(
    name, runs.map((run, i) => ({ run, record: runRecords[i] })).filter(({ run }) => run.scenario === name),
    { assertions, regression, baseline },
  ));
  const counts = countsOf(runRecords, scenarioSummaries);
  /** @type {Outcome} */
  const outcome = interrupted || counts.abortedRuns ? 'aborted'
    : halted ?? (counts.crashedRuns ? 'crashed'
      : counts.assertionErrors || counts.regressions ? 'failed'
        : 'passed');

  return {
    kind: SUMMARY_KIND,
    schemaVersion: SUMMARY_SCHEMA_VERSION,
    suite: { name: suite.name, description: suite.description, file: suite.file, emulator: suite.emulator, video: suite.video ?? null },
    shard,
    ...(mergedFrom ? { mergedFrom } : {}),
    startedAt,
    endedAt,
    environment: environmentOf(runs.map((run) => run.result)),
    outcome,
    exitCode: EXIT_CODES[outcome],
    problems,
    // Notes that never fail the suite: the results store's slow drifts (`--history`, docs/history.md).
    /** @type {string[]} */
    warnings: [],
    counts,
    notRun: scenarios.filter((name) => !ran.includes(name)),
    regression,
    baseline: baseline
      ? { file: baseline.file, suite: baseline.data.suite, createdAt: baseline.data.createdAt ?? null,
        source: baseline.data.source ?? null }
      : null,
    assertionsFile,
    // Kept so a merge can re-evaluate without the original file.
    assertionDefinitions: Object.fromEntries(scenarios.filter((name) => assertions[name])
      .map((name) => [name, assertions[name].map(({ check, level, why }) => ({ check, level, why }))])),
    runs: runRecords,
    scenarios: scenarioSummaries,
    twoPartyRatios: twoPartyRatiosOf(runs),
  };
}

/** @typedef {ReturnType<typeof buildSuiteSummary>} SuiteSummary  summary.json (docs/suites.md) */

/**
 * The process exit code for a summary; --no-fail reports failed assertions, regressions and crashed runs
 * but exits 0 (an environment error or an interrupt still exit 3 / 130).
 * @param {{ outcome: Outcome }} summary @param {{ noFail?: boolean }} [options]
 */
export function suiteExitCode(summary, { noFail = false } = {}) {
  if (noFail && (summary.outcome === 'failed' || summary.outcome === 'crashed')) return 0;
  return EXIT_CODES[summary.outcome];
}
