// What the regression gate can detect: its own decision (baseline.js compareMetric) resampled over pools of
// measured runs, per effect size and metric (pure). Used by bench/regression-power.js; method in docs/suites.md.
import { createRandom } from '../lib/stats/random.js';
import { median } from '../lib/stats/statistics.js';
import { MIN_RUNS_PER_SIDE, compareMetric } from './baseline.js';

/**
 * @typedef {Record<string, number>} RunValues one run's per-run values (lib/result/metric-values.js runValues)
 * @typedef {{ label: string, effect: number, runs: RunValues[] }} Pool the runs of one configuration;
 *   effect: the degradation it applies, 0 for the unchanged configuration
 * @typedef {{ label: string, effect: number, metric: string, draws: number, regressionRate: number,
 *   improvementRate: number, relativeChange: number|null }} PowerRow
 *   metric "any" is the gate as a whole (a regression in at least one compared metric);
 *   relativeChange: of the pools' medians, current vs unchanged
 */

/**
 * k distinct indices of 0..n-1, uniformly (partial Fisher-Yates).
 * @param {number} n @param {number} k @param {() => number} random
 */
export function drawIndices(n, k, random) {
  const order = Array.from({ length: n }, (_, i) => i);
  for (let i = 0; i < k; i += 1) {
    const j = i + Math.floor(random() * (n - i));
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order.slice(0, k);
}

/** @param {RunValues[]} runs @param {string} metric */
const valuesOf = (runs, metric) => runs.map((run) => run[metric]).filter((value) => Number.isFinite(value));

/**
 * Resamples the gate's decision: each draw takes `runsPerSide` runs of the unchanged pool as the baseline and
 * `runsPerSide` runs of a pool as the current sample (for the unchanged pool itself, a disjoint set of its
 * runs, so its regression rate is the false-alarm rate) and applies compareMetric to every metric.
 * @param {object} input
 * @param {Pool} input.unchanged effect 0: the baseline side of every draw
 * @param {Pool[]} input.degraded
 * @param {import('./baseline.js').RegressionOptions} input.options the gate's thresholds and metrics
 * @param {number} [input.draws]
 * @param {number} [input.seed]
 * @param {number} [input.runsPerSide] as the nightly's repetitions
 * @returns {PowerRow[]} per pool (unchanged first) the rows of each metric, then "any"
 */
export function estimatePower({ unchanged, degraded, options, draws = 2000, seed = 1, runsPerSide = MIN_RUNS_PER_SIDE }) {
  if (runsPerSide < MIN_RUNS_PER_SIDE) throw new RangeError(`runsPerSide ${runsPerSide}: the gate needs at least ${MIN_RUNS_PER_SIDE} runs a side`);
  if (unchanged.runs.length < 2 * runsPerSide) {
    throw new RangeError(`${unchanged.label}: ${unchanged.runs.length} runs; the false-alarm draws need ${2 * runsPerSide} (two disjoint samples)`);
  }
  const short = degraded.find((pool) => pool.runs.length < runsPerSide);
  if (short) throw new RangeError(`${short.label}: ${short.runs.length} runs; at least ${runsPerSide} are needed`);
  const random = createRandom(seed);
  return [unchanged, ...degraded].flatMap((pool) => {
    const counts = Object.fromEntries([...options.metrics, 'any'].map((metric) => [metric, { regression: 0, improvement: 0 }]));
    for (let draw = 0; draw < draws; draw += 1) {
      let baselineRuns;
      let currentRuns;
      if (pool === unchanged) {
        const picked = drawIndices(unchanged.runs.length, 2 * runsPerSide, random).map((i) => unchanged.runs[i]);
        baselineRuns = picked.slice(0, runsPerSide);
        currentRuns = picked.slice(runsPerSide);
      } else {
        baselineRuns = drawIndices(unchanged.runs.length, runsPerSide, random).map((i) => unchanged.runs[i]);
        currentRuns = drawIndices(pool.runs.length, runsPerSide, random).map((i) => pool.runs[i]);
      }
      let anyRegression = false;
      for (const metric of options.metrics) {
        const { verdict } = compareMetric(metric, valuesOf(baselineRuns, metric), valuesOf(currentRuns, metric), options);
        if (verdict === 'regression') { counts[metric].regression += 1; anyRegression = true; }
        if (verdict === 'improvement') counts[metric].improvement += 1;
      }
      if (anyRegression) counts.any.regression += 1;
    }
    return Object.entries(counts).map(([metric, { regression, improvement }]) => {
      const base = metric === 'any' ? [] : valuesOf(unchanged.runs, metric);
      const current = metric === 'any' ? [] : valuesOf(pool.runs, metric);
      const baseMedian = base.length ? median(base) : null;
      const currentMedian = current.length ? median(current) : null;
      return {
        label: pool.label, effect: pool.effect, metric, draws,
        regressionRate: regression / draws, improvementRate: improvement / draws,
        relativeChange: baseMedian && currentMedian !== null ? (currentMedian - baseMedian) / Math.abs(baseMedian) : null,
      };
    });
  });
}

/**
 * Per metric, the smallest effect the gate detects with at least `minDetection` while its false-alarm rate
 * (the unchanged pool's regression rate) stays below `maxFalseAlarm`; null when no measured effect does.
 * @param {PowerRow[]} rows @param {{ minDetection?: number, maxFalseAlarm?: number }} [criteria]
 * @returns {Record<string, number|null>}
 */
export function smallestDetected(rows, { minDetection = 0.8, maxFalseAlarm = 0.05 } = {}) {
  const metrics = [...new Set(rows.map((row) => row.metric))];
  return Object.fromEntries(metrics.map((metric) => {
    const mine = rows.filter((row) => row.metric === metric);
    const falseAlarm = mine.find((row) => row.effect === 0)?.regressionRate ?? 1;
    const detected = mine.filter((row) => row.effect > 0 && row.regressionRate >= minDetection).map((row) => row.effect);
    return [metric, falseAlarm < maxFalseAlarm && detected.length ? Math.min(...detected) : null];
  }));
}

/**
 * The table the bench prints: one line per metric, one column per pool, each "regression % (improvement %)".
 * @param {PowerRow[]} rows
 */
export function formatPowerTable(rows) {
  const pools = [...new Map(rows.map((row) => [row.label, row])).values()];
  const metrics = [...new Set(rows.map((row) => row.metric))];
  /** @param {number} value */
  const pct = (value) => `${(value * 100).toFixed(1)} %`;
  const header = `| metric | ${pools.map((p) => `${p.label} (${p.effect === 0 ? 'false alarms' : `−${Math.round(p.effect * 100)} %`})`).join(' | ')} |`;
  const lines = metrics.map((metric) => `| ${metric === 'any' ? 'any (the gate)' : `\`${metric}\``} | ${pools.map((pool) => {
    const row = rows.find((r) => r.label === pool.label && r.metric === metric);
    if (!row) return '—'; // a pool without this metric
    const change = row.relativeChange === null ? '' : `, median ${row.relativeChange < 0 ? '−' : '+'}${Math.abs(row.relativeChange * 100).toFixed(1)} %`;
    return `${pct(row.regressionRate)}${change}`;
  }).join(' | ')} |`);
  return [header, `|---|${pools.map(() => '---').join('|')}|`, ...lines].join('\n');
}
