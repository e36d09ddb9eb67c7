#!/usr/bin/env node
// Benchmark: what the nightly regression gate detects. One compressed scenario (a 1500 kbps cap, 360p30, 30 s
// with 10 s warm-up) is run unchanged and with its cap tightened by each effect (10, 20, 30 %), R times each in
// interleaved rounds (so a drift of the machine is spread over all configurations), plus extra unchanged runs
// so the false-alarm draws can take two disjoint samples. Then the gate's own decision (suite/baseline.js
// compareMetric, default thresholds, 5 vs 5 runs) is resampled (suite/power.js) and a table printed.
// Usage (starts browsers: run it alone on the machine):
//   node bench/regression-power.js [--repetitions 8] [--effects 0.1,0.2,0.3] [--cap 1500] [--duration 30]
//     [--warmup 10] [--video 360p30] [--draws 2000] [--seed 1] [--out dir]
//   node bench/regression-power.js --from <dir>/values.json   re-analyse measured runs, no browser
//   node bench/regression-power.js --dry-run                   the plan, and the analysis of synthetic runs
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { InputError } from '../orchestrator/lib/system/errors.js';
import { createRandom } from '../orchestrator/lib/stats/random.js';
import { loadScenario } from '../orchestrator/lib/scenario/scenario-file.js';
import { installProcessHandlers } from '../orchestrator/lib/system/shutdown.js';
import { expectNumber } from '../orchestrator/lib/input/validate.js';
import { runScenario } from '../orchestrator/run/run.js';
import { DEFAULT_REGRESSION, MIN_RUNS_PER_SIDE } from '../orchestrator/suite/baseline.js';
import { runValues } from '../orchestrator/lib/result/metric-values.js';
import { estimatePower, formatPowerTable, smallestDetected } from '../orchestrator/suite/power.js';

const { values: flags } = parseArgs({
  options: {
    repetitions: { type: 'string', default: '8' },
    effects: { type: 'string', default: '0.1,0.2,0.3' },
    cap: { type: 'string', default: '1500' },
    duration: { type: 'string', default: '30' },
    warmup: { type: 'string', default: '10' },
    video: { type: 'string', default: '360p30' },
    draws: { type: 'string', default: '2000' },
    seed: { type: 'string', default: '1' },
    out: { type: 'string' },
    from: { type: 'string' },
    'dry-run': { type: 'boolean', default: false },
  },
});
const repetitions = expectNumber(Number(flags.repetitions), '--repetitions', { min: MIN_RUNS_PER_SIDE, integer: true });
const effects = flags.effects.split(',').map((text) => expectNumber(Number(text), `--effects ${text}`, { above: 0, max: 0.9 }));
const capKbps = expectNumber(Number(flags.cap), '--cap', { above: 0 });
const durationS = expectNumber(Number(flags.duration), '--duration', { above: 0 });
const warmupS = expectNumber(Number(flags.warmup), '--warmup', { min: 0 });
const draws = expectNumber(Number(flags.draws), '--draws', { min: 1, integer: true });
const seed = expectNumber(Number(flags.seed), '--seed', { integer: true });
// The false-alarm draws take two disjoint samples of the unchanged runs.
const unchangedRuns = Math.max(repetitions, 2 * MIN_RUNS_PER_SIDE);

/** @typedef {{ capKbps: number, effect: number, label: string }} Config */
/** @type {Config[]} */
const configs = [0, ...effects].map((effect) => ({ effect, capKbps: Math.round(capKbps * (1 - effect)), label: `cap ${Math.round(capKbps * (1 - effect))}` }));

/** Rounds of one run per configuration; the extra unchanged runs come last. */
function plan() {
  return Array.from({ length: unchangedRuns }, (_, round) => configs.filter((config) => config.effect === 0 || round < repetitions)).flat();
}

/**
 * Synthetic runs for --dry-run: the rate follows the cap (80 % of it, 3 % run-to-run noise), the rest is flat.
 * @param {Config} config @param {() => number} random
 */
function syntheticRun(config, random) {
  const noise = () => 1 + 0.03 * (random() + random() + random() - 1.5) * 2;
  return { 'video.recvKbps': 0.8 * config.capKbps * noise(), 'audio.recvKbps': 40 * noise(), rttMs: 3 * noise(), lossPct: 0, 'video.recvFps': 30 * noise() };
}

/** @param {Config} config @param {string} dir */
function writeScenarioFile(config, dir) {
  const name = `power-cap-${config.capKbps}`;
  const file = path.join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify({ name, description: `regression-power: ${config.capKbps} kbps cap each direction`, durationS, network: { link: { rateKbps: config.capKbps } } }));
  return loadScenario(file, { durationS, warmupS });
}

/**
 * @param {Map<string, import('../orchestrator/lib/scenario/scenario-file.js').ResolvedScenario>} scenarios @param {string} label
 */
function writtenScenario(scenarios, label) {
  const scenario = scenarios.get(label);
  if (!scenario) throw new Error(`no scenario written for ${label}: writeScenarioFile runs for every config first`);
  return scenario;
}

/** @param {string} outDir @returns {Promise<Record<string, Array<Record<string, number>>>>} label -> per-run values */
async function measure(outDir) {
  installProcessHandlers();
  const scenarios = new Map(configs.map((config) => [config.label, writeScenarioFile(config, outDir)]));
  const runs = plan();
  /** @type {Record<string, Array<Record<string, number>>>} */
  const pools = Object.fromEntries(configs.map((config) => [config.label, []]));
  const startedMs = Date.now();
  for (const [i, config] of runs.entries()) {
    const runDir = path.join(outDir, config.label.replace(' ', '-'), `run-${runs.slice(0, i + 1).filter((c) => c === config).length}`);
    const { result } = await runScenario({ scenario: writtenScenario(scenarios, config.label), video: flags.video, outDir: runDir });
    const values = runValues(result);
    if (result.status === 'passed') pools[config.label].push(values);
    // Written after every run, so an interrupted bench can still be analysed with --from.
    writeFileSync(path.join(outDir, 'values.json'), `${JSON.stringify({ configs, durationS, warmupS, video: flags.video, pools }, null, 1)}\n`);
    const elapsedMin = (Date.now() - startedMs) / 60_000;
    console.error(`[${i + 1}/${runs.length}] ${config.label}: ${result.status}, video ${values['video.recvKbps']?.toFixed(0) ?? '–'} kbps, rtt ${values.rttMs?.toFixed(1) ?? '–'} ms (${elapsedMin.toFixed(1)} min)`);
  }
  return pools;
}

let pools;
let measured = configs;
if (flags.from) {
  const saved = JSON.parse(readFileSync(flags.from, 'utf8'));
  if (!saved.pools || !Array.isArray(saved.configs)) throw new InputError(`--from ${flags.from}: pools or configs missing; pass a values.json written by this bench`);
  ({ pools, configs: measured } = saved);
} else if (flags['dry-run']) {
  console.log(`plan: ${plan().length} runs of ${durationS} s (${configs.map((c) => `${c.label}: ${c.effect === 0 ? unchangedRuns : repetitions}`).join(', ')}), about ${Math.round((plan().length * (durationS + 6)) / 60)} min; analysing synthetic runs instead`);
  const random = createRandom(seed);
  /** @param {{ effect: number }} config */
  const runsOf = (config) => (config.effect === 0 ? unchangedRuns : repetitions);
  pools = Object.fromEntries(configs.map((config) => [
    config.label, Array.from({ length: runsOf(config) }, () => syntheticRun(config, random)),
  ]));
} else {
  const outDir = path.resolve(flags.out ?? mkdtempSync(path.join(os.tmpdir(), 'wtb-regression-power-')));
  mkdirSync(outDir, { recursive: true });
  pools = await measure(outDir);
  console.log(`per-run values: ${path.join(outDir, 'values.json')}`);
}

const [unchanged, ...degraded] = measured.map((config) => ({
  label: config.label, effect: config.effect, runs: pools[config.label] ?? [],
}));
const rows = estimatePower({ unchanged, degraded, options: DEFAULT_REGRESSION, draws, seed });
console.log(`\nRegression rate of the gate (default thresholds: α ${DEFAULT_REGRESSION.alpha}, |δ| ≥ ${DEFAULT_REGRESSION.minEffectSize}, change ≥ ${DEFAULT_REGRESSION.minRelativeChange * 100} %), ${MIN_RUNS_PER_SIDE} vs ${MIN_RUNS_PER_SIDE} runs, ${draws} draws; runs per pool: ${[unchanged, ...degraded].map((p) => `${p.label} ${p.runs.length}`).join(', ')}`);
console.log(formatPowerTable(rows));
const smallest = smallestDetected(rows);
console.log('\nSmallest cap reduction detected with ≥ 80 % probability and < 5 % false alarms:');
for (const [metric, effect] of Object.entries(smallest)) console.log(`  ${metric.padEnd(16)} ${effect === null ? 'none of the measured sizes' : `${Math.round(effect * 100)} %`}`);
