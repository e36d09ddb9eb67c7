// `webrtc-testbed calibrate`: measures what the network emulator delivers against what it was asked for.
import { EnvironmentError, InputError } from '../lib/system/errors.js';
import { readTraceArgument } from '../lib/network/trace-file.js';
import { runCalibration, runTraceCalibration, standardCases, TOLERANCES } from '../emulators/calibration.js';
import { backendNamed, emulatorFlagsWith, emulatorsWith } from '../emulators/index.js';
import { raisePriority } from '../emulators/priority.js';
import { kernelTcpCheck } from '../cross/calibrate.js';
import { kernelFlowsUnavailable } from '../cross/kernel-flows.js';

/** @typedef {import('../emulators/contract.js').EmulatorBackend} EmulatorBackend */

/** The backends that can open a probe path: what `--emulator` takes here. @param {EmulatorBackend} backend */
const probed = (backend) => Boolean(backend.openProbePath);
/** Those that also replay a trace packet by packet: what `--trace` takes. @param {EmulatorBackend} backend */
const traceProbed = (backend) => probed(backend) && backend.supports.traceReplay;

/**
 * Opens a backend's probe path; where kernel flows can enter it (its tunnels), kernel TCP through its queues is
 * checked too, where this machine can run it.
 * @param {string} name
 * @returns {Promise<import('../emulators/contract.js').ProbeSession>}
 */
async function openProbeSession(name) {
  const backend = backendNamed(name);
  if (!backend.openProbePath) throw new InputError(`calibrate --emulator ${name}: this backend has no probe path; use one of ${emulatorsWith(probed).join(', ')}`);
  const session = await backend.openProbePath();
  const { tunnels } = session;
  if (!tunnels || session.extraChecks) return session;
  /** @param {{onResult?: (result: object) => void}} [options] */
  const extraChecks = async ({ onResult } = {}) => {
    const unavailable = kernelFlowsUnavailable();
    if (unavailable && onResult) console.log(`iperf3-tcp-kernel: skipped: ${unavailable}`);
    return unavailable ? [] : kernelTcpCheck(tunnels, { onResult });
  };
  return { ...session, extraChecks };
}

const CASE_NAMES = standardCases().map(({ name }) => name);

export const command = 'calibrate';
export const describe = 'Measure the emulator: achieved vs configured rate, one-way delay and loss (paced UDP probe)';

/** @param {import('yargs').Argv} yargs */
export const builder = (yargs) => yargs
  .option('emulator', { choices: emulatorsWith(probed), default: 'relay', describe: 'Network emulator to calibrate' })
  .option('case', { type: 'array', string: true, choices: CASE_NAMES, describe: 'Run only these cases (default: all)' })
  .option('json', { type: 'boolean', default: false, describe: 'Print the results as JSON on stdout' })
  .option('trace', { type: 'string', describe: `Replay this trace (a mahimahi file or synthetic:…) with a saturating probe instead of the cases: achieved vs trace capacity per second (${emulatorsWith(traceProbed).join(', ')})` })
  .option('duration', { type: 'number', default: 30, describe: 'With --trace: seconds to replay' })
  .check((argv) => {
    if (argv.trace !== undefined && !traceProbed(backendNamed(argv.emulator))) {
      throw new InputError(`--trace: replays delivery opportunities on ${emulatorFlagsWith(traceProbed)} only; ${argv.emulator} runs a trace as rate steps, whose error \`scenario\` reports in network.traceSteps`);
    }
    if (argv.trace !== undefined && argv.case) throw new InputError('--trace replaces the cases; drop --case');
    if (!(argv.duration >= 1 && argv.duration <= 3600)) throw new InputError(`--duration must be 1 to 3600 seconds, got ${argv.duration}`);
    return true;
  })
  .example('$0 calibrate --emulator relay', 'all cases, about 45 s')
  .example('$0 calibrate --trace synthetic:step-2000-500-10 --duration 20', 'a trace, second by second')
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

/**
 * A case's result, or an extra check's (kernel TCP through the relay's queues), which adds its round trip.
 * @typedef {import('../emulators/calibration.js').CalibrationResult & {rttMs?: {min: number, mean: number}}} CaseResult
 */

/**
 * An extra check's result as a case result: the contract types them as objects; the table reads these fields.
 * @param {object} result
 * @returns {CaseResult}
 */
function asCaseResult(result) {
  const fields = /** @type {Record<string, unknown>} */ (result);
  if (typeof fields.name !== 'string' || !Array.isArray(fields.failures) || !Array.isArray(fields.lossPctCi99)) {
    throw new TypeError(`calibrate: an extra check returned ${JSON.stringify(result)}, not a calibration result (name, failures, lossPctCi99)`);
  }
  return /** @type {CaseResult} */ (result);
}

/**
 * The emulator's own counters, as far as calibrate prints them: the relay's send lateness.
 * @typedef {{ sendLateMs?: { p50: number, p99: number, max: number } }} EmulatorStats
 */

/** @param {CaseResult} result */
function tableRow(result) {
  const [low, high] = result.lossPctCi99;
  return formatRow([
    result.name,
    describeParams(result.configured),
    result.achievedKbps === null ? '-' : `${result.achievedKbps} kbps`,
    result.rttMs ? `RTT min ${result.rttMs.min} / mean ${result.rttMs.mean} ms`
      : result.oneWayDelayMsP50 === null ? '-' : `${result.oneWayDelayMsP50.toFixed(2)} / ${result.oneWayDelayMsP99?.toFixed(2) ?? '-'} ms`,
    `${result.lossPct.toFixed(2)} % [${low.toFixed(2)}, ${high.toFixed(2)}]`,
    result.failures.length === 0 ? 'ok' : `FAIL: ${result.failures.join('; ')}`,
  ]);
}

/**
 * Replays a trace through a backend that replays it packet by packet (the relay) with a saturating probe, and prints
 * achieved vs trace capacity per second.
 * @param {{emulator: string, trace: string, duration: number, json: boolean}} argv
 */
async function calibrateTrace(argv) {
  const trace = readTraceArgument(argv.trace, '--trace');
  await raisePriority(process.pid);
  const { path, stats, close } = await openProbeSession(argv.emulator);
  let result;
  /** @type {EmulatorStats} */
  let emulatorStats;
  try {
    if (!argv.json) console.log(`Replaying ${trace.name} for ${argv.duration} s through the ${argv.emulator} (probe p0 -> p1, trace on p0.up) ...`);
    result = await runTraceCalibration(path, trace, { durationS: argv.duration });
    emulatorStats = await stats();
  } finally {
    await close();
  }
  if (argv.json) {
    console.log(JSON.stringify({ emulator: argv.emulator, trace: result, emulatorStats }, null, 2));
  } else {
    console.log(`offered ${result.offeredKbps} kbps (saturating)\n${'second'.padEnd(8)}${'trace kbps'.padStart(12)}${'achieved kbps'.padStart(15)}`);
    for (const row of result.seconds) console.log(`${String(row.t).padEnd(8)}${row.traceKbps.toFixed(1).padStart(12)}${row.achievedKbps.toFixed(1).padStart(15)}`);
    console.log(`mean |achieved − trace|: ${result.meanAbsErrorKbps} kbps (${result.meanAbsErrorPct} % of the trace's mean)`);
    if (emulatorStats.sendLateMs) {
      const { p50, p99, max } = emulatorStats.sendLateMs;
      console.log(`Relay send lateness against schedule: p50 ${p50} ms, p99 ${p99} ms, max ${max} ms.`);
    }
  }
  if (result.failures.length > 0) {
    throw new EnvironmentError(`calibrate --trace ${trace.name}: ${result.failures.length} of ${result.seconds.length} seconds outside ${TOLERANCES.rateErrorPct} % (${result.failures.slice(0, 3).join('; ')}). `
      + `Another load on this machine may be delaying the ${argv.emulator} or the probe; stop it and re-run.`);
  }
}

/** @param {{emulator: string, case?: string[], json: boolean, trace?: string, duration: number}} argv */
export async function handler(argv) {
  if (argv.trace !== undefined) return calibrateTrace({ ...argv, trace: argv.trace });
  const cases = standardCases().filter(({ name }) => !argv.case || argv.case.includes(name));
  // The probe is the measuring instrument: its own scheduling delays would read as emulator error.
  await raisePriority(process.pid);
  const { path, stats, close, skipCase, extraChecks } = await openProbeSession(argv.emulator);
  const runnable = cases.filter((c) => !skipCase?.(c));
  /** @type {CaseResult[]} */
  let results;
  /** @type {EmulatorStats} */
  let emulatorStats;
  try {
    if (!argv.json) {
      console.log(`Calibrating the ${argv.emulator} emulator: ${cases.length} cases (probe p0 -> p1, conditions on p0.up).`);
      console.log(`Pass: rate within ${TOLERANCES.rateErrorPct} % of a cap; delay error median <= ${TOLERANCES.delayErrorMsP50} ms, p99 <= ${TOLERANCES.delayErrorMsP99} ms; configured loss inside the interval.`);
      console.log(formatRow(COLUMNS.map(([title]) => title)));
    }
    const onResult = argv.json ? undefined : (/** @type {object} */ result) => console.log(tableRow(asCaseResult(result)));
    for (const c of cases) if (skipCase?.(c) && !argv.json) console.log(`${c.name}: skipped: ${skipCase(c)}`);
    results = await runCalibration(path, runnable, { onResult });
    if (extraChecks) results.push(...(await extraChecks({ onResult })).map(asCaseResult));
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
