// A seeded synthetic history (pure) for the dashboard's screenshot test and bench/history.js: nights × scenarios ×
// runs with noisy metric values, a planted browser change, a planted slow drift and a planted gate regression.
import { createRandom, deriveSeed } from '../lib/stats/random.js';
import { headlinePaths, metricByPath } from '../lib/result/metric-catalogue.js';

/** Typical per-run values (a 2-core machine at 360p30), scaled per scenario so the series differ. */
/** @type {Record<string, number>} */
const TYPICAL = { 'audio.recvKbps': 32, 'video.recvKbps': 1500, rttMs: 40, lossPct: 1, 'video.recvFps': 28, utilization: 0.8, setupMs: 1500 };
/** What a nightly without opt-in measurements (--audio-quality) stores of the dashboard's metrics. */
export const SYNTHETIC_METRICS = [...headlinePaths('compared').filter((path) => !metricByPath(path)?.optIn), 'utilization', 'setupMs'];
const DAY_MS = 86_400_000;

/**
 * @param {object} options
 * @param {string[]} options.scenarios
 * @param {number} [options.nights] @param {number} [options.runsPerNight] @param {number} [options.seed]
 * @param {string} [options.start] ISO date of the first night
 * @param {string} [options.suite]
 * @param {{ scenario: string, metric: string, lastNights: number, pctPerNight: number }} [options.drift]
 *   the metric falls by pctPerNight % more each night over the last nights
 * @param {{ night: number, from: string, to: string }} [options.browserChange]
 * @param {{ night: number, scenario: string, metric: string }} [options.regression] a regression the gate found
 * @returns {Generator<Parameters<typeof import('./import.js').writeRecords>[1]>} one night at a time, as writeRecords takes it
 */
export function* syntheticNights({
  scenarios, nights = 365, runsPerNight = 5, seed = 25, start = '2026-01-01', suite = 'nightly',
  drift, browserChange = { night: Math.floor(nights / 2), from: 'chromium 156.0.8078.108', to: 'chromium 157.0.8123.4' }, regression,
}) {
  const random = createRandom(deriveSeed(seed, 'synthetic-history'));
  for (let night = 0; night < nights; night++) {
    const startedAt = new Date(Date.parse(start) + night * DAY_MS + 3_600_000).toISOString();
    const id = `${suite}@${startedAt}`;
    const browser = night < browserChange.night ? browserChange.from : browserChange.to;
    const runs = [];
    for (const [s, scenario] of scenarios.entries()) {
      for (let repetition = 1; repetition <= runsPerNight; repetition++) {
        const runId = `${scenario}@${new Date(Date.parse(startedAt) + (s * runsPerNight + repetition) * 60_000).toISOString()}`;
        const metrics = SYNTHETIC_METRICS.map((metric) => {
          let value = TYPICAL[metric] * (1 + (s % 7) / 10) * (1 + (random() - 0.5) * 0.1);
          const fromEnd = nights - night;
          if (drift && drift.scenario === scenario && drift.metric === metric && fromEnd <= drift.lastNights) {
            value *= 1 - (drift.pctPerNight / 100) * (drift.lastNights - fromEnd + 1);
          }
          return { run_id: runId, metric, median: value, mean: value, q1: value * 0.97, q3: value * 1.03, n: 280, reference: metric === 'video.recvKbps' ? 2000 : null };
        });
        runs.push({
          run: {
            id: runId, night_id: id, scenario, repetition, started_at: startedAt, status: 'passed', commit_sha: `c${night}`,
            browser, browser_version: browser.split(' ')[1], emulator: 'relay', machine_class: null, result_path: null,
            report: `${scenario}/run-${repetition}/report.html`,
          },
          metrics,
        });
      }
    }
    const regressed = regression?.night === night;
    yield {
      night: {
        id, suite, started_at: startedAt, ended_at: startedAt, outcome: regressed ? 'failed' : 'passed', exit_code: regressed ? 1 : 0,
        commit_sha: `c${night}`, browser, emulator: 'relay', machine_class: null, shard: null, suite_dir: null,
        report: `nights/${startedAt.slice(0, 10)}/report.html`, imported_at: startedAt,
      },
      comparisons: regressed ? [{
        night_id: id, scenario: regression.scenario, metric: regression.metric, verdict: 'regression', current_median: null,
        baseline_median: null, p_value: 0.008, cliffs_delta: -1, relative_change: -0.3,
      }] : [],
      runs,
    };
  }
}
