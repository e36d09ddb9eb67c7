// Does a peer's measured RTT follow the configured RTT while the delay ramps? Pure: plain data in, a verdict out.
//
// The measured value lags the configured one: a timeline sample at t averages the RTCP round trips
// reported in (t - intervalS, t], and each of those was measured from a sender report sent earlier
// (video RTCP every ~1 s, audio's every ~5 s, plus the round trip itself). So a sample is compared
// with the configured RTT anywhere in [t - intervalS - lagS, t], not at t.
import { pathConditions } from '../../orchestrator/lib/network/link-model.js';
import { linksAt } from '../../orchestrator/lib/result/run-summary.js';

/**
 * Seconds of lag allowed beyond the sample's own interval. A latency-variation run at time scale 0.25 here
 * passes with 1 (0 fails); 2 leaves room for a loaded machine, and its measured RTT still fails against a
 * schedule missing any one ramp, or one shifted by 4 s.
 */
export const DEFAULT_LAG_S = 2;
/** Relative and absolute slack: the call's own RTT on an unshaped link is a few ms, and 1 s averages blur a ramp. */
export const DEFAULT_TOLERANCE_PCT = 15;
export const DEFAULT_TOLERANCE_MS = 25;
/** Share of a window's samples that must lie inside the lagged band (single RTCP outliers happen). */
export const DEFAULT_MIN_FRACTION = 0.8;
/** A window with fewer samples than this (after fromS) is too short to judge and is reported as skipped. */
export const DEFAULT_MIN_SAMPLES = 4;

/**
 * @typedef {{t: number, rttMs: number}} RttPoint  configured RTT in force from t (sampled, e.g. every second)
 * @typedef {{t: number, rttMs: number|null, intervalS?: number}} RttSample  one timeline entry of one peer
 * @typedef {{fromS: number, toS: number, label: string}} Window
 * @typedef {{label: string, fromS: number, toS: number, samples: number, within: number, fraction: number|null,
 *   verdict: 'pass'|'fail'|'skipped', misses: string[]}} WindowVerdict
 */

/**
 * The configured RTT between two peers at every time network.configured has a row: the one-way delays of
 * both routes summed (lib/network/link-model.js pathConditions).
 * @param {{configured: import('../../orchestrator/lib/result/run-summary.js').ConfiguredLink[],
 *   routes: Record<string, string[]>}} network  result.json's
 * @param {string} from @param {string} to
 * @returns {RttPoint[]}
 */
export function configuredRtt(network, from, to) {
  const forward = network.routes[`${from}->${to}`];
  const back = network.routes[`${to}->${from}`];
  if (!forward || !back) throw new Error(`configuredRtt: no route between ${from} and ${to} in ${Object.keys(network.routes).join(', ')}`);
  const times = [...new Set(network.configured.map((row) => row.t))].sort((a, b) => a - b);
  return times.map((t) => {
    const links = linksAt(network.configured, t);
    return { t, rttMs: pathConditions(links, forward).oneWayDelayMs + pathConditions(links, back).oneWayDelayMs };
  });
}

/**
 * Every ramp of a scenario's schedule on one field, in run seconds (scaled by the run's time scale).
 * @param {{timeScale: number, network: {schedule?: Array<{at: number, ramp?: {field: string, durationS: number}}>}}} scenario
 *   result.json's `scenario`
 * @param {string} field e.g. "oneWayDelayMs"
 * @returns {Array<Window & {scheduleIndex: number}>}
 */
export function rampWindows(scenario, field) {
  return (scenario.network.schedule ?? []).flatMap((entry, scheduleIndex) => (entry.ramp?.field === field
    ? [{ fromS: entry.at * scenario.timeScale, toS: (entry.at + entry.ramp.durationS) * scenario.timeScale, label: `schedule[${scheduleIndex}] ramp`, scheduleIndex }]
    : []));
}

/**
 * Lowest and highest configured RTT in [fromS, toS]. Between two sampled points the value lies between them,
 * so the point in force at fromS and the first point at or after toS bound the band as well.
 * @param {RttPoint[]} series sorted by t
 * @param {number} fromS @param {number} toS
 * @returns {[number, number]|null} null before the series starts
 */
function band(series, fromS, toS) {
  if (series.length === 0 || series[0].t > toS) return null;
  const start = Math.max(0, series.findLastIndex((point) => point.t <= fromS));
  const after = series.findIndex((point) => point.t >= toS);
  const values = series.slice(start, after === -1 ? series.length : after + 1).map((point) => point.rttMs);
  return [Math.min(...values), Math.max(...values)];
}

/**
 * Judges, window by window, whether the measured RTT tracks the configured RTT: a sample is within when it
 * lies in the configured band over [t - intervalS - lagS, t], widened by tolerancePct and toleranceMs. A
 * window passes when at least minFraction of its samples (those with fromS < t, a missing RTT counting as a
 * miss) are within. The whole check passes when some window was judged and every judged window passes.
 * @param {{measured: RttSample[], configured: RttPoint[], windows: Window[], fromS?: number, lagS?: number,
 *   tolerancePct?: number, toleranceMs?: number, minFraction?: number, minSamples?: number}} input
 *   fromS: samples at or before it (warm-up) are not judged
 * @returns {{ok: boolean, windows: WindowVerdict[], summary: string}}
 */
export function rttTracking({
  measured, configured, windows, fromS = 0, lagS = DEFAULT_LAG_S, tolerancePct = DEFAULT_TOLERANCE_PCT,
  toleranceMs = DEFAULT_TOLERANCE_MS, minFraction = DEFAULT_MIN_FRACTION, minSamples = DEFAULT_MIN_SAMPLES,
}) {
  const series = [...configured].sort((a, b) => a.t - b.t);
  const verdicts = windows.map(({ fromS: windowFromS, toS, label }) => {
    const samples = measured.filter((sample) => sample.t > Math.max(windowFromS, fromS) && sample.t <= toS);
    const misses = [];
    for (const sample of samples) {
      const limits = band(series, sample.t - (sample.intervalS ?? 1) - lagS, sample.t);
      const low = limits && limits[0] * (1 - tolerancePct / 100) - toleranceMs;
      const high = limits && limits[1] * (1 + tolerancePct / 100) + toleranceMs;
      if (typeof sample.rttMs !== 'number' || !limits || sample.rttMs < low || sample.rttMs > high) {
        const expected = limits ? `${Math.round(limits[0])}–${Math.round(limits[1])}` : 'nothing configured';
        misses.push(`t=${sample.t}: ${sample.rttMs ?? 'no RTT'} ms vs ${expected} ms`);
      }
    }
    const within = samples.length - misses.length;
    const judged = samples.length >= minSamples;
    const fraction = samples.length ? within / samples.length : null;
    /** @type {WindowVerdict['verdict']} */
    const verdict = !judged ? 'skipped' : fraction >= minFraction ? 'pass' : 'fail';
    return { label, fromS: windowFromS, toS, samples: samples.length, within, fraction, verdict, misses };
  });
  const judged = verdicts.filter((v) => v.verdict !== 'skipped');
  const ok = judged.length > 0 && judged.every((v) => v.verdict === 'pass');
  const summary = verdicts.map((v) => `${v.label} (${v.fromS}–${v.toS} s): ${v.verdict}, ${v.within}/${v.samples} within`
    + (v.misses.length ? ` [${v.misses.join('; ')}]` : '')).join('\n');
  return { ok, windows: verdicts, summary: judged.length ? summary : `no window had ${minSamples} samples after ${fromS} s\n${summary}` };
}
