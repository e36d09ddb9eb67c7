#!/usr/bin/env node
// Benchmark: the largest full mesh (or SFU call, --topology sfu) this machine runs without CPU limitation, and what
// each peer costs. Runs an unconstrained N-party call for N = 2, 3, … (each --duration s after --warmup s) and
// prints per N: the share of measured seconds whose encoders said qualityLimitationReason cpu, the share in which the
// call's processes kept >= 90 % of all cores busy (host saturated), the median received video rate and frame rate per
// stream, each browser's CPU (% of one core, its whole process tree) and memory, the relay's and Janus's CPU. A size counts as running
// without limitation when the run passed, neither share is above 20 % and the median frame rate is at least 80 % of
// the source's. It stops after the first limited size unless --all.
// --load (issue 41): how big an SFU room one host carries. On each SFU that declares loadParticipants, a room of 2
// measured browsers (publishing --publish, default simulcast=2) and N load participants (sfu/load-participants.js,
// subscribing --subscribe, default all as in a real room; the browsers receive them --browsers-receive, full or as
// thumbnails) for N in --sizes; per room the browsers' worst CPU-limited
// share, their received and captured frame rate, the host's saturated share and each process's CPU and peak memory
// (each browser, the SFU, the load participants summed and per participant, the relay). A room is carried by
// simulcast-figures.js roomVerdict; it stops at the first room not carried unless --all, and prints the largest per SFU.
// Usage: node bench/multiparty.js [--topology mesh|sfu] [--max 6] [--duration 40] [--warmup 10] [--video 360p30] [--all]
//   [--load [--sizes 0,4,8,13,18,23] [--subscribe all|speaker|none] [--browsers-receive full|thumbnail] [--publish simulcast=2]
//   [--sfus <those that take them>]].
// Prints figures; asserts nothing. SFU calls ramp up over ~30 s: use --duration 60 --warmup 30.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { installProcessHandlers } from '../orchestrator/lib/system/shutdown.js';
import { runScenario } from '../orchestrator/run/run.js';
import { loadScenario } from '../orchestrator/lib/scenario/scenario-file.js';
import { describe } from '../orchestrator/lib/stats/statistics.js';
import { LOAD_BROWSERS_RECEIVE, LOAD_SUBSCRIBE } from '../orchestrator/lib/media/load-participants.js';
import { parsePublishFlag } from '../orchestrator/lib/media/publish.js';
import { SFUS } from '../orchestrator/sfu/index.js';
import { DEFAULT_LOAD_SIZES, parseLoadSizes, roomCosts, worstCpuLimitedShare } from './load-room-figures.js';
import { largestCarried, roomVerdict } from './simulcast-figures.js';

const { values } = parseArgs({
  options: {
    max: { type: 'string', default: '6' }, duration: { type: 'string', default: '40' },
    video: { type: 'string', default: '360p30' }, all: { type: 'boolean', default: false },
    topology: { type: 'string' }, warmup: { type: 'string', default: '10' },
    load: { type: 'boolean', default: false }, sizes: { type: 'string', default: DEFAULT_LOAD_SIZES },
    subscribe: { type: 'string', default: 'all' }, publish: { type: 'string', default: 'simulcast=2' }, sfus: { type: 'string' },
    'browsers-receive': { type: 'string', default: 'full' },
  },
});
const maxPeers = Number(values.max);
const durationS = Number(values.duration);
if (!Number.isInteger(maxPeers) || maxPeers < 2 || maxPeers > 32) throw new RangeError(`--max must be an integer from 2 to 32, got ${values.max}`);
const warmupS = Number(values.warmup);
const topology = values.topology ?? (values.load ? 'sfu' : 'mesh');
if (!['mesh', 'sfu'].includes(topology)) throw new RangeError(`--topology must be mesh or sfu, got ${topology}`);
if (values.load && topology !== 'sfu') throw new RangeError('--load: load participants join an SFU room; drop --topology or give --topology sfu');
if (!(warmupS >= 0 && durationS > warmupS)) throw new RangeError(`--duration must be above --warmup, got ${values.duration} and ${values.warmup}`);
const loadSizes = parseLoadSizes(values.sizes);
const { subscribe } = values;
if (!LOAD_SUBSCRIBE.some((mode) => mode === subscribe)) throw new RangeError(`--subscribe must be one of ${LOAD_SUBSCRIBE.join(', ')}, got ${subscribe}`);
const browsersReceive = values['browsers-receive'];
if (!LOAD_BROWSERS_RECEIVE.some((mode) => mode === browsersReceive)) {
  throw new RangeError(`--browsers-receive must be one of ${LOAD_BROWSERS_RECEIVE.join(', ')}, got ${browsersReceive}`);
}
const publish = parsePublishFlag(values.publish);
const loadSfus = SFUS.filter((sfu) => sfu.capabilities.loadParticipants);
const wantedSfus = values.sfus?.split(',') ?? loadSfus.map((sfu) => sfu.name);
for (const name of wantedSfus) {
  if (!loadSfus.some((sfu) => sfu.name === name)) {
    throw new RangeError(`--sfus: ${name} is not an SFU that takes load participants; use some of ${loadSfus.map((sfu) => sfu.name).join(', ')}`);
  }
}
const roomSfus = loadSfus.filter((sfu) => wantedSfus.includes(sfu.name));
installProcessHandlers();

/** The browsers a load-participant room measures: the target room is 2 of them beside its load participants. */
const MEASURED_BROWSERS = 2;

/** @param {Array<number|null|undefined>} list */
const median = (list) => describe(list).median;
/** @param {number|null|undefined} value @param {number} [decimals] */
const fixed = (value, decimals = 0) => (Number.isFinite(value) ? Number(value).toFixed(decimals) : '–');
/** @param {number|null} value  a share from 0 to 1 */
const share = (value) => `${fixed(value === null ? null : value * 100, 1)} %`;
/**
 * The mean of a process's per-second CPU % (result.resources.summary[name].cpuPct, a statistics describe()).
 * @param {{ cpuPct: object }|undefined} process
 */
const cpuMean = (process) => {
  const mean = process && 'mean' in process.cpuPct ? process.cpuPct.mean : undefined;
  return typeof mean === 'number' ? mean : null;
};

/**
 * One unconstrained call of `peers` browsers; its result. With `sfu`, through that SFU with `load`'s participants and
 * every browser publishing `publishing`.
 * @param {{ peers: number, sfu?: string, load?: { participants: number, subscribe: string, browsersReceive: string }|null,
 *   publishing?: import('../orchestrator/lib/media/publish.js').Publish|null }} call
 */
async function call({ peers, sfu, load = null, publishing = null }) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'wtb-bench-mesh-'));
  try {
    const name = load ? `bench-load-${load.participants}` : `bench-${topology}-${peers}`;
    const file = path.join(dir, `${name}.json`);
    const what = load ? `${peers} browsers and ${load.participants} load participants through the SFU` : `${peers}-party ${topology}`;
    writeFileSync(file, JSON.stringify({ name, description: `${what}, unconstrained`, peers, topology, ...(load ? { load } : {}) }));
    const scenario = loadScenario(file, { durationS, warmupS, publish: publishing });
    const { result } = await runScenario({ scenario, video: values.video, outDir: path.join(dir, 'run'), ...(sfu ? { sfu } : {}) });
    return result;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** N = 2, 3, … browsers in a mesh or SFU call, until one is limited (unless --all). */
async function growCall() {
  console.log(`${topology} at ${values.video}, ${durationS} s calls (${warmupS} s warm-up), ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown CPU'})`);
  console.log(`${'peers'.padEnd(6)}${'status'.padEnd(8)}${'CPU-limited'.padStart(12)}${'saturated'.padStart(11)}${'video kbps'.padStart(12)}${'fps'.padStart(6)}`
    + `${'browser CPU %'.padStart(15)}${'browser MB'.padStart(12)}${'relay CPU %'.padStart(13)}${'Janus CPU %'.padStart(13)}`);
  let largestUnlimited = null;
  for (let peers = 2; peers <= maxPeers; peers += 1) {
    const result = await call({ peers });
    // The SFU's publisher connection receives nothing: rates and frame rates are the received streams'.
    // any: timeline entries whose getStats fields depend on the browser
    /** @type {Array<Record<string, any>>} timeline entries (lib/result/result.js) */
    const window = result.timeline.filter((entry) => entry.t > warmupS && entry.remote !== 'sfu');
    const browsers = Object.entries(result.resources.summary).filter(([name]) => /^p\d+$/.test(name)).map(([, s]) => s);
    const cpu = result.summary?.cpuLimitation ?? { share: null, limited: false };
    const host = result.resources.hostSaturation;
    const fps = median(window.map((e) => e.video?.recvFps));
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
}

/** @param {{ cpuPct: number|null, peakRssMb: number|null }} cost */
const costText = (cost) => `${fixed(cost.cpuPct, 1)} % ${fixed(cost.peakRssMb)} MB`;

/** --load: on each SFU that takes load participants, rooms of 2 browsers and N load participants for N in --sizes. */
async function growLoadRoom() {
  console.log(`load-participant rooms at ${values.video}: ${MEASURED_BROWSERS} measured browsers publishing ${values.publish}, load participants `
    + `subscribing ${subscribe}, the browsers receiving them ${browsersReceive}; ${durationS} s calls (${warmupS} s warm-up), ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown CPU'})`);
  console.log(`SFUs that take load participants (capabilities.loadParticipants): ${loadSfus.map((sfu) => sfu.name).join(', ') || 'none'}; `
    + `measured: ${roomSfus.map((sfu) => sfu.name).join(', ') || 'none'}; CPU in % of one core (mean), memory the peak RSS in MB`);
  console.log(`${'sfu'.padEnd(8)}${'room'.padEnd(6)}${'load'.padEnd(6)}${'outcome'.padEnd(9)}${'CPU-limited'.padStart(12)}${'saturated'.padStart(11)}`
    + `${'fps recv/captured'.padStart(19)}`);
  /** @type {string[]} */
  const largest = [];
  for (const sfu of roomSfus) {
    /** @type {Array<{ peers: number, carried: boolean, outcome: string, error: string|undefined }>} */
    const rooms = [];
    for (const participants of loadSizes) {
      const load = participants ? { participants, subscribe, browsersReceive } : null;
      const result = await call({ peers: MEASURED_BROWSERS, sfu: sfu.name, load, publishing: publish });
      // A run that failed before its call was built has no media to judge: a failed room.
      const verdict = result.environment.media ? roomVerdict(result, warmupS)
        : { carried: false, outcome: 'failed', reasons: [`run ${result.status}`], recvFps: null, capturedFps: null };
      const peers = MEASURED_BROWSERS + participants;
      rooms.push({ peers, carried: verdict.carried, outcome: verdict.outcome, error: result.errors[0]?.message });
      const costs = roomCosts(result.resources.summary, {
        browsers: Object.keys(result.environment.browsers ?? {}), sfu: sfu.name, relay: result.environment.emulator,
        load: result.load?.participants ?? [],
      });
      console.log(`${sfu.name.padEnd(8)}${String(peers).padEnd(6)}${String(participants).padEnd(6)}${verdict.outcome.padEnd(9)}`
        + `${share(worstCpuLimitedShare(result.summary?.cpuLimitation)).padStart(12)}${share(result.resources.hostSaturation.share).padStart(11)}`
        + `${`${fixed(verdict.recvFps, 1)}/${fixed(verdict.capturedFps, 1)}`.padStart(19)}${verdict.reasons.length ? `  (${verdict.reasons.join('; ')})` : ''}`);
      const each = costs.load.sampled ? `, load ${costs.load.sampled} × ${fixed(costs.load.cpuPctEach, 1)} % ${fixed(costs.load.peakRssMbEach)} MB`
        + ` = ${costText(costs.load)}${costs.load.sampled < costs.load.participants ? ` (${costs.load.participants} started)` : ''}` : '';
      console.log(`${''.padEnd(20)}${Object.entries(costs.browsers).map(([name, cost]) => `${name} ${costText(cost)}`).join(', ')}`
        + `, ${sfu.name} ${costText(costs.sfu)}${each}, ${result.environment.emulator} ${costText(costs.relay)}`);
      if (result.errors.length) console.log(`${''.padEnd(20)}${result.errors[0].message}`);
      if (!verdict.carried && !values.all) break;
    }
    const carried = largestCarried(rooms);
    const stop = rooms.find((room) => !room.carried);
    // A failed room says nothing of the host: the rooms above it are unmeasured.
    const note = stop?.outcome === 'failed' ? ` (the ${stop.peers}-party room failed: ${stop.error ?? 'no error given'})` : stop ? '' : ' (the largest size given)';
    largest.push(`largest room on ${sfu.name} without limitation here: ${carried === null ? 'none'
      : `${carried} parties (${MEASURED_BROWSERS} browsers + ${carried - MEASURED_BROWSERS} load participants)`}${note}`);
  }
  console.log(`\n${largest.join('\n')}`);
}

if (values.load) await growLoadRoom();
else await growCall();
