#!/usr/bin/env node
// Benchmark: the largest full mesh (or SFU call, --topology sfu) this machine runs without CPU limitation, and what
// each peer costs. Runs an unconstrained N-party call for N = 2, 3, … (each --duration s after --warmup s) and
// prints per N: the share of measured seconds whose encoders said qualityLimitationReason cpu, the share in which the
// call's processes kept >= 90 % of all cores busy (host saturated), the median received video rate and frame rate per
// stream, each browser's CPU (% of one core, its whole process tree) and memory, the relay's and Janus's CPU. A size counts as running
// without limitation when the run passed, neither share is above 20 % and the median frame rate is at least 80 % of
// the source's. It stops after the first limited size unless --all.
// Usage: node bench/multiparty.js [--topology mesh|sfu] [--max 6] [--duration 40] [--warmup 10] [--video 360p30] [--all].
// Prints figures; asserts nothing. SFU calls ramp up over ~30 s: use --duration 60 --warmup 30.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { installProcessHandlers } from '../orchestrator/lib/system/shutdown.js';
import { runScenario } from '../orchestrator/run/run.js';
import { loadScenario } from '../orchestrator/lib/scenario/scenario-file.js';
import { describe } from '../orchestrator/lib/stats/statistics.js';

const { values } = parseArgs({
  options: {
    max: { type: 'string', default: '6' }, duration: { type: 'string', default: '40' },
    video: { type: 'string', default: '360p30' }, all: { type: 'boolean', default: false },
    topology: { type: 'string', default: 'mesh' }, warmup: { type: 'string', default: '10' },
  },
});
const maxPeers = Number(values.max);
const durationS = Number(values.duration);
if (!Number.isInteger(maxPeers) || maxPeers < 2 || maxPeers > 32) throw new RangeError(`--max must be an integer from 2 to 32, got ${values.max}`);
const warmupS = Number(values.warmup);
const { topology } = values;
if (!['mesh', 'sfu'].includes(topology)) throw new RangeError(`--topology must be mesh or sfu, got ${topology}`);
if (!(warmupS >= 0 && durationS > warmupS)) throw new RangeError(`--duration must be above --warmup, got ${values.duration} and ${values.warmup}`);
installProcessHandlers();

/** @param {Array<number|null|undefined>} list */
/** @param {Array<number|null|undefined>} list */
const median = (list) => describe(list).median;
/** @param {number|null|undefined} value @param {number} [decimals] */
const fixed = (value, decimals = 0) => (Number.isFinite(value) ? Number(value).toFixed(decimals) : '–');
/**
 * The mean of a process's per-second CPU % (result.resources.summary[name].cpuPct, a statistics describe()).
 * @param {{ cpuPct: object }|undefined} process
 */
const cpuMean = (process) => {
  const mean = process && 'mean' in process.cpuPct ? process.cpuPct.mean : undefined;
  return typeof mean === 'number' ? mean : null;
};

/** One unconstrained call of `peers` peers; its result. @param {number} peers */
async function call(peers) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'wtb-bench-mesh-'));
  try {
    const name = `bench-${topology}-${peers}`;
    const file = path.join(dir, `${name}.json`);
    writeFileSync(file, JSON.stringify({ name, description: `${peers}-party ${topology}, unconstrained`, peers, topology }));
    const scenario = loadScenario(file, { durationS, warmupS });
    const { result } = await runScenario({ scenario, video: values.video, outDir: path.join(dir, 'run') });
    return result;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

console.log(`${topology} at ${values.video}, ${durationS} s calls (${warmupS} s warm-up), ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown CPU'})`);
console.log(`${'peers'.padEnd(6)}${'status'.padEnd(8)}${'CPU-limited'.padStart(12)}${'saturated'.padStart(11)}${'video kbps'.padStart(12)}${'fps'.padStart(6)}`
  + `${'browser CPU %'.padStart(15)}${'browser MB'.padStart(12)}${'relay CPU %'.padStart(13)}${'Janus CPU %'.padStart(13)}`);
let largestUnlimited = null;
for (let peers = 2; peers <= maxPeers; peers += 1) {
  const result = await call(peers);
  // The SFU's publisher connection receives nothing: rates and frame rates are the received streams'.
  // any: timeline entries whose getStats fields depend on the browser
  /** @type {Array<Record<string, any>>} timeline entries (lib/result/result.js) */
  const window = result.timeline.filter((entry) => entry.t > warmupS && entry.remote !== 'sfu');
  const browsers = Object.entries(result.resources.summary).filter(([name]) => /^p\d+$/.test(name)).map(([, s]) => s);
  const cpu = result.summary?.cpuLimitation ?? { share: null, limited: false };
  const host = result.resources.hostSaturation;
  const fps = median(window.map((e) => e.video?.recvFps));
  /** @param {number|null} value */
  const share = (value) => `${fixed(value === null ? null : value * 100, 1)} %`;
  console.log(`${String(peers).padEnd(6)}${result.status.padEnd(8)}${share(cpu.share).padStart(12)}${share(host.share).padStart(11)}`
    + `${fixed(median(window.map((e) => e.video?.recvKbps))).padStart(12)}${fixed(fps, 1).padStart(6)}`
    + `${fixed(median(browsers.map(cpuMean))).padStart(15)}${fixed(median(browsers.map((s) => s.peakRssMb))).padStart(12)}`
    + `${fixed(cpuMean(result.resources.summary.relay), 1).padStart(13)}${fixed(cpuMean(result.resources.summary.janus), 1).padStart(13)}`);
  if (result.errors.length) console.log(`      ${result.errors[0].message}`);
  const sourceFps = result.environment.media.fps;
  if (result.status === 'passed' && !cpu.limited && !host.saturated && fps !== null && fps >= 0.8 * sourceFps) largestUnlimited = peers;
  else if (!values.all) break;
}
console.log(`\nlargest ${topology} call without CPU limitation here: ${largestUnlimited ?? 'none'} peers`);
