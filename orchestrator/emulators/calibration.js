/**
 * Emulator calibration: a paced UDP probe carrying its send time in the payload, sent through a pluggable
 * one-way path, and the arithmetic that turns what arrived into achieved rate, one-way delay and loss.
 * Each emulator supplies a ProbePath (the relay: relay/probe-path.js); everything else is shared.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { UDP_IPV4_OVERHEAD_BYTES, normalizeLinkParams } from '../lib/network/link-model.js';
import { percentile } from '../lib/stats/statistics.js';
import { OPPORTUNITY_BYTES, capacityKbps } from '../lib/network/trace.js';

/** @typedef {import('../lib/network/link-model.js').LinkParams} LinkParams */
/** @typedef {import('../lib/network/trace.js').Trace} Trace */

/**
 * @typedef {object} ProbePath  one direction through an emulator, between two UDP endpoints
 * @property {(params: LinkParams, trace?: {traces: Record<string, Trace>, traceOriginEpochMs: number}) => Promise<void>} configure
 *   sets the conditions of the probed direction; a path that replays traces takes the one params.trace names and
 *   when (wall clock, probeClockMs) it starts
 * @property {(payload: Buffer) => void} send
 * @property {(handler: (payload: Buffer, recvMs: number) => void) => void} onReceive
 *   replaces the receive handler; recvMs is on probeClockMs()
 * @property {() => Promise<void>} close
 */

/**
 * @typedef {object} ProbeSpec
 * @property {number} offeredKbps  on-the-wire load (payload + 28 bytes per datagram)
 * @property {number} payloadBytes  UDP payload per datagram (>= PROBE_HEADER_BYTES)
 * @property {number} durationMs  sending time
 * @property {number} warmupMs  received before this (from the first send) is left out of the rate
 */

/** @typedef {{name: string, params: LinkParams, probe: ProbeSpec}} CalibrationCase */

/**
 * @typedef {object} ProbeTrace
 * @property {number} startMs  first send, probeClockMs()
 * @property {number} endMs  last send
 * @property {number} packetsSent
 * @property {number} payloadBytes
 * @property {{seq: number, sendMs: number, recvMs: number}[]} received
 */

/** Sequence number (uint32) + send time (float64 ms). */
export const PROBE_HEADER_BYTES = 12;

/** Pass criteria: the relay's design targets, also asserted by test/relay.test.js. */
export const TOLERANCES = { rateErrorPct: 3, delayErrorMsP50: 2, delayErrorMsP99: 5 };

const Z_99 = 2.5758293035489004;
/** Stragglers arriving after the expected drain time are counted as lost; this margin covers timer slips. */
const DRAIN_MARGIN_MS = 300;

/** Wall-clock-aligned milliseconds with sub-ms resolution, comparable across processes on one host. */
export function probeClockMs() {
  return performance.timeOrigin + performance.now();
}

/** @param {number} seq @param {number} sendMs @param {number} payloadBytes @returns {Buffer} */
export function encodeProbe(seq, sendMs, payloadBytes) {
  const payload = Buffer.alloc(Math.max(payloadBytes, PROBE_HEADER_BYTES));
  payload.writeUInt32BE(seq, 0);
  payload.writeDoubleBE(sendMs, 4);
  return payload;
}

/** @param {Buffer} payload @returns {{seq: number, sendMs: number}} */
export function decodeProbe(payload) {
  return { seq: payload.readUInt32BE(0), sendMs: payload.readDoubleBE(4) };
}

/**
 * The standard set: delay 0/50/250 ms, rate caps 250 kbps to 20 Mbps offered 25 % above the cap, loss 5 % and 20 %.
 * @param {{durationScale?: number}} [options]  shortens or lengthens every probe (tests use < 1)
 * @returns {CalibrationCase[]}
 */
export function standardCases({ durationScale = 1 } = {}) {
  /** @param {ProbeSpec} probe */
  const scaled = (probe) => ({
    ...probe,
    durationMs: Math.round(probe.durationMs * durationScale),
    warmupMs: Math.round(probe.warmupMs * durationScale),
  });
  const delayProbe = { offeredKbps: 600, payloadBytes: 200, durationMs: 4000, warmupMs: 0 };
  const lossProbe = { offeredKbps: 2000, payloadBytes: 200, durationMs: 5000, warmupMs: 0 };
  // RFC 8867's 300 ms bottleneck queue: deep enough that a sender stall on a busy machine doesn't idle the link.
  /** @param {number} rateKbps @param {number} payloadBytes */
  const rateCase = (rateKbps, payloadBytes) => ({
    name: `rate-${rateKbps}kbps`,
    params: normalizeLinkParams({ rateKbps, queueMs: 300 }, `calibration case rate-${rateKbps}kbps`),
    probe: scaled({ offeredKbps: rateKbps * 1.25, payloadBytes, durationMs: 4000, warmupMs: 500 }),
  });
  return [
    ...[0, 50, 250].map((oneWayDelayMs) => ({
      name: `delay-${oneWayDelayMs}ms`, params: normalizeLinkParams({ oneWayDelayMs }, `calibration case delay-${oneWayDelayMs}ms`), probe: scaled(delayProbe),
    })),
    rateCase(250, 300),
    rateCase(1000, 1000),
    rateCase(5000, 1200),
    rateCase(20_000, 1200),
    ...[5, 20].map((lossPct) => ({
      name: `loss-${lossPct}pct`, params: normalizeLinkParams({ lossPct }, `calibration case loss-${lossPct}pct`), probe: scaled(lossProbe),
    })),
  ];
}

/**
 * How long after the last send the last accepted packet can still arrive.
 * @param {LinkParams} params @param {number} packetBits
 */
function drainMs(params, packetBits) {
  const { rateKbps, queuePackets, queueMs, oneWayDelayMs, jitterMs } = params;
  const queueDrainMs = rateKbps === null ? 0 : queueMs ?? ((queuePackets ?? 0) * packetBits) / rateKbps;
  return oneWayDelayMs + jitterMs + queueDrainMs + DRAIN_MARGIN_MS;
}

/**
 * Sends the probe at a steady pace and collects what arrives until the path has drained.
 * @param {ProbePath} path @param {ProbeSpec} probe @param {LinkParams} params  the path's current conditions
 * @returns {Promise<ProbeTrace>}
 */
export async function runProbe(path, probe, params) {
  const packetBits = (probe.payloadBytes + UDP_IPV4_OVERHEAD_BYTES) * 8;
  const intervalMs = packetBits / probe.offeredKbps;
  const total = Math.max(1, Math.floor(probe.durationMs / intervalMs));
  /** @type {ProbeTrace['received']} */
  const received = [];
  path.onReceive((payload, recvMs) => received.push({ ...decodeProbe(payload), recvMs }));
  const startMs = probeClockMs();
  let packetsSent = 0;
  while (packetsSent < total) {
    const dueCount = Math.min(total, Math.floor((probeClockMs() - startMs) / intervalMs) + 1);
    for (; packetsSent < dueCount; packetsSent++) path.send(encodeProbe(packetsSent, probeClockMs(), probe.payloadBytes));
    if (packetsSent < total) await sleep(1);
  }
  const endMs = probeClockMs();
  await sleep(drainMs(params, packetBits));
  path.onReceive(() => {});
  return { startMs, endMs, packetsSent, payloadBytes: probe.payloadBytes, received };
}

/**
 * Wilson score interval at 99 % for `successes` out of `trials`, as fractions.
 * @param {number} successes @param {number} trials @returns {[number, number]}
 */
export function binomialInterval99(successes, trials) {
  if (trials === 0) return [0, 1];
  const p = successes / trials;
  const z2 = Z_99 * Z_99;
  const centre = (p + z2 / (2 * trials)) / (1 + z2 / trials);
  const half = (Z_99 * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials))) / (1 + z2 / trials);
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}

/** @param {number} value @param {number} digits */
const roundTo = (value, digits) => Number(value.toFixed(digits));
/** @param {number|null} value @param {number} digits */
const round = (value, digits) => (value === null ? null : roundTo(value, digits));

/**
 * @typedef {object} ProbeSummary
 * @property {number|null} achievedKbps  at the receiver, from the first packet after warm-up to the last one sent in time
 * @property {number|null} oneWayDelayMsP50
 * @property {number|null} oneWayDelayMsP99
 * @property {number|null} delayErrorMsP50  of |delay - oneWayDelayMs|
 * @property {number|null} delayErrorMsP99
 * @property {number} packetsSent
 * @property {number} packetsReceived
 * @property {number} lossPct
 * @property {[number, number]} lossPctCi99
 */

/**
 * @param {ProbeTrace} trace @param {LinkParams} params @param {ProbeSpec} probe
 * @returns {ProbeSummary}
 */
export function summarizeProbe(trace, params, probe) {
  const delaysMs = trace.received.map(({ sendMs, recvMs }) => recvMs - sendMs).sort((a, b) => a - b);
  const errorsMs = delaysMs.map((delayMs) => Math.abs(delayMs - params.oneWayDelayMs)).sort((a, b) => a - b);
  const inWindow = trace.received
    .filter(({ recvMs }) => recvMs >= trace.startMs + probe.warmupMs && recvMs <= trace.endMs)
    .sort((a, b) => a.recvMs - b.recvMs);
  const packetBits = (trace.payloadBytes + UDP_IPV4_OVERHEAD_BYTES) * 8;
  const spanMs = inWindow.length >= 2 ? inWindow[inWindow.length - 1].recvMs - inWindow[0].recvMs : 0;
  // The first packet opens the window, so count the bits of the others.
  const achievedKbps = spanMs > 0 ? ((inWindow.length - 1) * packetBits) / spanMs : null;
  const lost = trace.packetsSent - trace.received.length;
  const [lowLoss, highLoss] = binomialInterval99(lost, trace.packetsSent);
  return {
    achievedKbps: round(achievedKbps, 1),
    oneWayDelayMsP50: round(percentile(delaysMs, 50), 3),
    oneWayDelayMsP99: round(percentile(delaysMs, 99), 3),
    delayErrorMsP50: round(percentile(errorsMs, 50), 3),
    delayErrorMsP99: round(percentile(errorsMs, 99), 3),
    packetsSent: trace.packetsSent,
    packetsReceived: trace.received.length,
    lossPct: roundTo((100 * lost) / trace.packetsSent, 3),
    lossPctCi99: [roundTo(100 * lowLoss, 3), roundTo(100 * highLoss, 3)],
  };
}

/**
 * Which TOLERANCES a case misses. Rate is judged where a cap is set; delay and loss where none is
 * (queueing adds delay and drops by design).
 * @param {LinkParams} params @param {ProbeSummary} summary @returns {string[]}  empty when it passes
 */
export function failedChecks(params, summary) {
  const failures = [];
  if (params.rateKbps !== null) {
    const errorPct = summary.achievedKbps === null ? Infinity : (100 * Math.abs(summary.achievedKbps - params.rateKbps)) / params.rateKbps;
    if (!(errorPct <= TOLERANCES.rateErrorPct)) failures.push(`rate off by ${errorPct.toFixed(1)} % (> ${TOLERANCES.rateErrorPct} %)`);
    return failures;
  }
  if (params.jitterMs === 0) {
    // No delay measured (nothing received) is judged by the loss check below.
    if (summary.delayErrorMsP50 !== null && !(summary.delayErrorMsP50 <= TOLERANCES.delayErrorMsP50)) failures.push(`median delay error ${summary.delayErrorMsP50} ms (> ${TOLERANCES.delayErrorMsP50})`);
    if (summary.delayErrorMsP99 !== null && !(summary.delayErrorMsP99 <= TOLERANCES.delayErrorMsP99)) failures.push(`p99 delay error ${summary.delayErrorMsP99} ms (> ${TOLERANCES.delayErrorMsP99})`);
  }
  const [low, high] = summary.lossPctCi99;
  if (params.lossPct < low || params.lossPct > high) failures.push(`configured loss ${params.lossPct} % outside measured 99 % interval [${low}, ${high}]`);
  return failures;
}

/**
 * @typedef {ProbeSummary & {name: string, configured: LinkParams, offeredKbps: number, failures: string[]}} CalibrationResult
 */

/**
 * Runs the cases one after another through one path.
 * @param {ProbePath} path @param {CalibrationCase[]} cases
 * @param {{onResult?: (result: CalibrationResult) => void}} [options]  called as each case finishes
 * @returns {Promise<CalibrationResult[]>}
 */
export async function runCalibration(path, cases, { onResult } = {}) {
  const results = [];
  for (const { name, params, probe } of cases) {
    await path.configure(params);
    const summary = summarizeProbe(await runProbe(path, probe, params), params, probe);
    const result = { name, configured: params, offeredKbps: probe.offeredKbps, ...summary, failures: failedChecks(params, summary) };
    onResult?.(result);
    results.push(result);
  }
  return results;
}

/** The trace probe's queue: deep enough that a sender stall on a busy machine doesn't idle the link. */
const TRACE_QUEUE_PACKETS = 100;
/** Offered load over the trace's busiest second: the probe keeps the queue full. */
const TRACE_OVERLOAD = 1.25;
/** Opportunities are whole 1500-byte units and probe packets share them: a second may gain or lose about one. */
const TRACE_SLACK_KBPS = (2 * OPPORTUNITY_BYTES * 8) / 1000;

/**
 * @typedef {object} TraceCalibration
 * @property {string} name
 * @property {number} offeredKbps
 * @property {number} durationS
 * @property {{t: number, traceKbps: number, achievedKbps: number}[]} seconds  second t covers [t − 1, t) from the trace's start
 * @property {number|null} meanAbsErrorKbps  |achieved − trace| per second, mean
 * @property {number|null} meanAbsErrorPct  of the trace's mean capacity
 * @property {string[]} failures  seconds off by more than TOLERANCES.rateErrorPct % (at least TRACE_SLACK_KBPS)
 */

/**
 * Replays a trace on the path with a saturating probe (TRACE_OVERLOAD × its busiest second) and compares what arrived
 * each second with the trace's capacity in that second. The link charges payload + 28 bytes, so that is what counts.
 * @param {ProbePath} path @param {Trace} trace @param {{durationS: number, payloadBytes?: number}} options
 * @returns {Promise<TraceCalibration>}
 */
export async function runTraceCalibration(path, trace, { durationS, payloadBytes = 1200 }) {
  const seconds = Array.from({ length: Math.floor(durationS) }, (_, i) => capacityKbps(trace, 0, i * 1000, (i + 1) * 1000));
  const offeredKbps = Math.round(TRACE_OVERLOAD * Math.max(...seconds, 100));
  const params = normalizeLinkParams({ trace: trace.name, queuePackets: TRACE_QUEUE_PACKETS }, `calibration trace ${trace.name}`);
  const startMs = probeClockMs();
  await path.configure(params, { traces: { [trace.name]: trace }, traceOriginEpochMs: startMs });
  const probe = { offeredKbps, payloadBytes, durationMs: durationS * 1000 - (probeClockMs() - startMs), warmupMs: 0 };
  const received = await runProbe(path, probe, params);
  const bitsPerPacket = (received.payloadBytes + UDP_IPV4_OVERHEAD_BYTES) * 8;
  const bits = seconds.map(() => 0);
  for (const { recvMs } of received.received) {
    const second = Math.floor((recvMs - startMs) / 1000);
    if (second >= 0 && second < bits.length) bits[second] += bitsPerPacket;
  }
  const rows = seconds.map((traceKbps, i) => ({ t: i + 1, traceKbps: roundTo(traceKbps, 1), achievedKbps: roundTo(bits[i] / 1000, 1) }));
  const errors = rows.map((row) => Math.abs(row.achievedKbps - row.traceKbps));
  const meanKbps = seconds.reduce((a, b) => a + b, 0) / Math.max(1, seconds.length);
  const meanAbsErrorKbps = errors.length ? errors.reduce((a, b) => a + b, 0) / errors.length : null;
  const failures = rows.filter((row, i) => errors[i] > Math.max(TRACE_SLACK_KBPS, (TOLERANCES.rateErrorPct / 100) * row.traceKbps))
    .map((row) => `second ${row.t}: ${row.achievedKbps} kbps for ${row.traceKbps}`);
  return {
    name: trace.name, offeredKbps, durationS: seconds.length, seconds: rows,
    meanAbsErrorKbps: round(meanAbsErrorKbps, 1),
    meanAbsErrorPct: meanAbsErrorKbps === null || meanKbps === 0 ? null : round((100 * meanAbsErrorKbps) / meanKbps, 2),
    failures,
  };
}
