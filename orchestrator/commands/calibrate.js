// `webrtc-testbed calibrate`: measures what the network emulator delivers against what it was asked for.
import { EnvironmentError } from '../lib/errors.js';
import { runCalibration, standardCases, TOLERANCES } from '../emulators/calibration.js';
import { startRelayProcess } from '../emulators/relay/client.js';
import { raisePriority } from '../emulators/relay/priority.js';
import { createRelayProbePath } from '../emulators/relay/probe-path.js';
import { openNetemProbePath } from '../emulators/netem/calibrate.js';
import { kernelTcpCheck } from '../cross/calibrate.js';
import { kernelFlowsUnavailable } from '../cross/kernel-flows.js';

/**
 * Per emulator: opens a ProbePath and returns it with the emulator's own counters and a teardown.
 * @type {Record<string, () => Promise<{
 *   path: import('../emulators/calibration.js').ProbePath,
 *   stats: () => Promise<object>,
 *   close: () => Promise<void>,
 * }>>}
 */
/**
 * @type {Record<string, () => Promise<{ path: import('../emulators/calibration.js').ProbePath, stats: () => Promise<object>,
 *   close: () => Promise<void>, skipCase?: (c: object) => string|null, extraChecks?: (options?: object) => Promise<object[]> }>>}
 */
const PROBE_PATHS = {
  async relay() {
    const relay = await startRelayProcess();
    try {
      const path = await createRelayProbePath(relay);
      // Kernel TCP through the relay's queues (orchestrator/cross/), where this machine can run it.
      /** @param {{onResult?: (result: object) => void}} [options] */
      const extraChecks = async ({ onResult } = {}) => {
        const unavailable = kernelFlowsUnavailable();
        if (unavailable && onResult) console.log(`iperf3-tcp-kernel: skipped: ${unavailable}`);
        return unavailable ? [] : kernelTcpCheck(relay, { onResult });
      };
      return { path, stats: relay.stats, close: async () => { await path.close(); await relay.close(); }, extraChecks };
    } catch (error) {
      await relay.close();
      throw error;
    }
  },
  // Also returns skipCase (cases this kernel cannot run, e.g. delay without sch_netem) and extraChecks (iperf3).
  netem: openNetemProbePath,
};

const CASE_NAMES = standardCases().map(({ name }) => name);

export const command = 'calibrate';
export const describe = 'Measure the emulator: achieved vs configured rate, one-way delay and loss (paced UDP probe)';

/** @param {import('yargs').Argv} yargs */
export const builder = (yargs) => yargs
  .option('emulator', { choices: Object.keys(PROBE_PATHS), default: 'relay', describe: 'Network emulator to calibrate' })
  .option('case', { type: 'array', string: true, choices: CASE_NAMES, describe: 'Run only these cases (default: all)' })
  .option('json', { type: 'boolean', default: false, describe: 'Print the results as JSON on stdout' })
  .example('$0 calibrate --emulator relay', 'all cases, about 45 s')
  .example('$0 calibrate --case delay-50ms --case loss-5pct --json', 'two cases, machine-readable');

/** @param {import('../emulators/calibration.js').LinkParams} params */
function describeParams({ rateKbps, queueMs, queuePackets, oneWayDelayMs, lossPct }) {
  const parts = [];
  if (rateKbps !== null) parts.push(`${rateKbps} kbps, queue ${queueMs !== null ? `${queueMs} ms` : `${queuePackets} pkts`}`);
  if (oneWayDelayMs > 0 || rateKbps === null) parts.push(`delay ${oneWayDelayMs} ms`);
  if (lossPct > 0) parts.push(`loss ${lossPct} %`);
  return parts.join(', ');
}

const COLUMNS = [
  ['case', 15], ['configured', 26], ['achieved rate', 15], ['delay p50 / p99', 20], ['loss [99 % interval]', 24], ['verdict', 0],
];
/** @param {Array<string|number>} cells */
const formatRow = (cells) => cells.map((cell, i) => String(cell).padEnd(Number(COLUMNS[i][1]))).join(' ').trimEnd();

/** @param {import('../emulators/calibration.js').CalibrationResult & {rttMs?: {min: number, mean: number}}} result */
function tableRow(result) {
  const [low, high] = result.lossPctCi99;
  return formatRow([
    result.name,
    describeParams(result.configured),
    result.achievedKbps === null ? '-' : `${result.achievedKbps} kbps`,
    result.rttMs ? `RTT min ${result.rttMs.min} / mean ${result.rttMs.mean} ms`
      : result.oneWayDelayMsP50 === null ? '-' : `${result.oneWayDelayMsP50.toFixed(2)} / ${result.oneWayDelayMsP99.toFixed(2)} ms`,
    `${result.lossPct.toFixed(2)} % [${low.toFixed(2)}, ${high.toFixed(2)}]`,
    result.failures.length === 0 ? 'ok' : `FAIL: ${result.failures.join('; ')}`,
  ]);
}

/** @param {{emulator: string, case?: string[], json: boolean}} argv */
export async function handler(argv) {
  const cases = standardCases().filter(({ name }) => !argv.case || argv.case.includes(name));
  // The probe is the measuring instrument: its own scheduling delays would read as emulator error.
  await raisePriority(process.pid);
  const { path, stats, close, skipCase, extraChecks } = await PROBE_PATHS[argv.emulator]();
  const runnable = cases.filter((c) => !skipCase?.(c));
  let results;
  let emulatorStats;
  try {
    if (!argv.json) {
      console.log(`Calibrating the ${argv.emulator} emulator: ${cases.length} cases (probe p0 -> p1, conditions on p0.up).`);
      console.log(`Pass: rate within ${TOLERANCES.rateErrorPct} % of a cap; delay error median <= ${TOLERANCES.delayErrorMsP50} ms, p99 <= ${TOLERANCES.delayErrorMsP99} ms; configured loss inside the interval.`);
      console.log(formatRow(COLUMNS.map(([title]) => title)));
    }
    const onResult = argv.json ? undefined : (result) => console.log(tableRow(result));
    for (const c of cases) if (skipCase?.(c) && !argv.json) console.log(`${c.name}: skipped: ${skipCase(c)}`);
    results = await runCalibration(path, runnable, { onResult });
    if (extraChecks) results.push(...await extraChecks({ onResult }));
    emulatorStats = await stats();
  } finally {
    await close();
  }
  if (argv.json) console.log(JSON.stringify({ emulator: argv.emulator, tolerances: TOLERANCES, results, emulatorStats }, null, 2));
  else if (emulatorStats.sendLateMs) {
    const { p50, p99, max } = emulatorStats.sendLateMs;
    console.log(`Relay send lateness against schedule: p50 ${p50} ms, p99 ${p99} ms, max ${max} ms (timer and scheduling slack).`);
  }
  const failed = results.filter(({ failures }) => failures.length > 0);
  if (failed.length > 0) {
    throw new EnvironmentError(`calibrate --emulator ${argv.emulator}: ${failed.map(({ name }) => name).join(', ')} outside tolerance. `
      + 'Another load on this machine may be delaying the emulator; stop it and re-run, or read results under these conditions with care.');
  }
}
