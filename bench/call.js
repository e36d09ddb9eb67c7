#!/usr/bin/env node
// Benchmark: call set-up time (browser launch -> first decoded video frame) with its breakdown per peer, and the
// orchestrator's own CPU share while it carries a full-rate call (unconstrained, 720p30). With --runs N it runs N
// calls one after another and prints medians. With --pool the calls share a pool of kept browsers, as a suite's runs
// do (run/browser-pool.js): the first launches them, the others reuse them, and the medians are the others'.
// Usage: node bench/call.js [--runs 5] [--duration 40] [--video 720p30] [--pool]. Prints figures; asserts nothing.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { installProcessHandlers } from '../orchestrator/lib/system/shutdown.js';
import { runScenario } from '../orchestrator/run/run.js';
import { createBrowserPool } from '../orchestrator/run/browser-pool.js';
import { loadScenario } from '../orchestrator/lib/scenario/scenario-file.js';
import { SETUP_MILESTONES } from '../orchestrator/lib/result/setup-breakdown.js';
import { describe } from '../orchestrator/lib/stats/statistics.js';
import { runValues } from '../orchestrator/lib/result/metric-values.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '1' }, duration: { type: 'string', default: '40' }, video: { type: 'string', default: '720p30' },
    pool: { type: 'boolean', default: false },
  },
});
const browserPool = values.pool ? createBrowserPool() : undefined;
const runs = Number(values.runs);
installProcessHandlers();
const scenario = loadScenario('unconstrained', { durationS: Number(values.duration) });

/** One call: its result and the orchestrator's CPU share over the measurement window (null if the call was shorter). */
async function benchOnce() {
  const out = mkdtempSync(path.join(os.tmpdir(), 'wtb-bench-call-'));
  // CPU is measured over the measurement window only (after warm-up), when the call runs at full rate.
  /** @type {{ start: { cpu: NodeJS.CpuUsage, wallMs: number }|null, end: { cpu: NodeJS.CpuUsage, wallMs: number }|null }} */
  const cpuWindow = { start: null, end: null };
  /** @param {{ t: number }} sample */
  const onSample = (sample) => {
    const now = { cpu: process.cpuUsage(), wallMs: performance.now() };
    if (sample.t === scenario.warmupS + 1 && !cpuWindow.start) cpuWindow.start = now;
    if (sample.t === scenario.durationS) cpuWindow.end = now;
  };
  try {
    const { result } = await runScenario({ scenario, video: values.video, outDir: out, onSample, browserPool });
    const { start, end } = cpuWindow;
    const cpuMs = start && end ? (end.cpu.user + end.cpu.system - start.cpu.user - start.cpu.system) / 1000 : null;
    return { result, cpuSharePct: start && end && cpuMs !== null ? (100 * cpuMs) / (end.wallMs - start.wallMs) : null };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/** @param {Array<number|null|undefined>} list */
const median = (list) => describe(list).median;
/** @param {number|null} value @param {number} width */
const cell = (value, width = 8) => (value === null ? '–' : value.toFixed(0)).padStart(width);

/** @type {Array<Awaited<ReturnType<typeof benchOnce>>>} */
const all = [];
for (let run = 1; run <= runs; run += 1) {
  const { result, cpuSharePct } = await benchOnce();
  all.push({ result, cpuSharePct });
  const { setupMs } = result.summary;
  const perPeer = Object.entries(setupMs).filter(([peer]) => peer !== 'max').map(([peer, ms]) => `${peer} ${cell(ms, 0)} ms`).join(', ');
  const reused = Object.values(result.environment.browsers).map((browser) => browser.reused);
  console.log(`run ${run}/${runs}: ${result.status}; set-up ${perPeer} (max ${cell(setupMs.max, 0)} ms)${browserPool ? `; browsers reused: ${reused.join(', ')}` : ''}`);
}
await browserPool?.close();
// With the pool, the runs that reused both browsers: what a suite's runs after its first cost.
/** @param {typeof all[number]} run */
const allReused = ({ result }) => Object.values(result.environment.browsers).every((browser) => browser.reused);
const measured = browserPool ? all.filter(allReused) : all;
if (!measured.length) throw new Error('--pool: no run reused its browsers; give --runs 2 or more');

const peers = Object.keys(measured[0].result.setup.peers);
// Milestones overlap (the page negotiates while getUserMedia runs), so a step is counted from the latest one reached before it.
const which = browserPool ? ' runs that reused their browsers' : '';
console.log(`\nset-up breakdown: ms since each peer's browser launch (median of ${measured.length}${which}); +ms: after the latest milestone before it`);
console.log(`${'milestone'.padEnd(18)}${peers.map((peer) => `${peer.padStart(8)}${'+ms'.padStart(8)}`).join('')}`);
for (const [index, name] of SETUP_MILESTONES.entries()) {
  const columns = peers.map((peer) => {
    /** @param {string} milestone */
    const sinceLaunch = (milestone) => median(measured.map(({ result }) => result.setup.peers[peer].sinceLaunchMs[milestone]));
    const ms = sinceLaunch(name);
    // Only read when this milestone was reached (ms not null).
    const before = SETUP_MILESTONES.slice(0, index).map(sinceLaunch)
      .flatMap((earlier) => (earlier !== null && ms !== null && earlier <= ms ? [earlier] : []));
    return `${cell(ms)}${cell(ms === null ? null : ms - Math.max(0, ...before))}`;
  });
  console.log(`${name.padEnd(18)}${columns.join('')}`);
}
const setupMax = measured.map(({ result }) => result.summary.setupMs.max);
console.log(`\nset-up time (launch -> frame), slowest peer: median ${cell(median(setupMax), 0)} ms; runs ${setupMax.map((ms) => cell(ms, 0)).join(', ')} ms`);
const recvKbps = median(measured.map(({ result }) => runValues(result)['video.recvKbps']));
console.log(`video preset                   ${values.video}`);
console.log(`video recvKbps median          ${cell(recvKbps, 0)} kbps (each direction)`);
const cpuSharePct = median(measured.map((m) => m.cpuSharePct));
console.log(`orchestrator CPU share         ${cpuSharePct === null ? `– (a call of at least ${scenario.warmupS + 2} s measures it)` : `${cpuSharePct.toFixed(2)} %`} of one core (${os.cpus().length} cores, ${os.cpus()[0].model})`);
