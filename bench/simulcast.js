#!/usr/bin/env node
// Benchmark: what simulcast costs the sender, and how many simulcast publishers one host carries on each SFU.
// 1. Sender cost: a 2-party SFU call (--sender-sfu, default janus) whose peers publish one encoding, then simulcast 2,
//    then 3, per video preset (--sender-videos): each publishing browser's CPU (% of one core, its whole process tree,
//    mean over the measurement window), the ratio to one encoding at the same video measured in the same run, and
//    what the encoder sent per layer. Chromium encodes 3 layers only from 960×540 up: at 360p30 the series stops at 2.
// 2. Publishers per host: a room of 2, 3, … peers all publishing --room-publish (default simulcast=2 at 360p30) on each
//    SFU (--sfus) until a room is host-limited (simulcast-figures.js roomVerdict: the run's CPU-limited seconds and
//    host-saturation verdict as bench/multiparty.js, the received frame rate against the captured one) or fails, with
//    each browser's and the SFU's CPU; prints the largest room carried per SFU. One emulator for all (--emulator,
//    default netem: LiveKit runs only on it, and it costs no process on the host).
// Usage: node bench/simulcast.js [--duration 35] [--warmup 10] [--sender-videos 720p30,360p30] [--room-video 360p30]
//   [--room-publish simulcast=2] [--sfus janus,livekit] [--max 6] [--skip-sender] [--skip-rooms]. Prints figures; asserts nothing.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { installProcessHandlers } from '../orchestrator/lib/system/shutdown.js';
import { runScenario } from '../orchestrator/run/run.js';
import { loadScenario } from '../orchestrator/lib/scenario/scenario-file.js';
import { parsePublishFlag, simulcastLayerLimit } from '../orchestrator/lib/media/publish.js';
import { PRESETS } from '../orchestrator/lib/media/media-presets.js';
import { sfuNamed } from '../orchestrator/sfu/index.js';
import { largestCarried, processCpu, ratiosToOneEncoding, roomVerdict, sentLayers } from './simulcast-figures.js';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '35' }, warmup: { type: 'string', default: '10' },
    'sender-videos': { type: 'string', default: '720p30,360p30' }, 'sender-sfu': { type: 'string', default: 'janus' },
    'room-video': { type: 'string', default: '360p30' }, 'room-publish': { type: 'string', default: 'simulcast=2' },
    sfus: { type: 'string', default: 'janus,livekit' }, max: { type: 'string', default: '6' },
    emulator: { type: 'string', default: 'netem' }, 'skip-sender': { type: 'boolean', default: false }, 'skip-rooms': { type: 'boolean', default: false },
  },
});
const durationS = Number(values.duration);
const warmupS = Number(values.warmup);
const maxPeers = Number(values.max);
if (!(warmupS >= 0 && durationS > warmupS)) throw new RangeError(`--duration must be above --warmup, got ${values.duration} and ${values.warmup}`);
if (!Number.isInteger(maxPeers) || maxPeers < 2 || maxPeers > 16) throw new RangeError(`--max must be an integer from 2 to 16, got ${values.max}`);
const senderVideos = values['sender-videos'].split(',');
for (const video of [...senderVideos, values['room-video']]) {
  if (!PRESETS[video]) throw new RangeError(`--sender-videos/--room-video: ${video} is not a preset; use one of ${Object.keys(PRESETS).join(', ')}`);
}
const sfus = values.sfus.split(',');
for (const name of [...sfus, values['sender-sfu']]) sfuNamed(name, '--sfus/--sender-sfu');
const roomPublish = parsePublishFlag(values['room-publish']);
installProcessHandlers();

/** @param {number|null|undefined} value @param {number} [decimals] */
const fixed = (value, decimals = 0) => (typeof value === 'number' && Number.isFinite(value) ? value.toFixed(decimals) : '–');

/**
 * One SFU call of `peers` peers, unconstrained, every peer publishing `publish` (null: one encoding); its result.
 * @param {{ peers: number, sfu: string, video: string, publish: import('../orchestrator/lib/media/publish.js').Publish|null }} call
 */
async function sfuCall({ peers, sfu, video, publish }) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'wtb-bench-simulcast-'));
  try {
    const name = `bench-simulcast-${peers}`;
    const file = path.join(dir, `${name}.json`);
    writeFileSync(file, JSON.stringify({ name, description: `${peers}-party SFU call, unconstrained`, peers, topology: 'sfu' }));
    const scenario = loadScenario(file, { durationS, warmupS, publish });
    const { result } = await runScenario({ scenario, video, sfu, emulator: values.emulator, outDir: path.join(dir, 'run') });
    return result;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** @param {ReturnType<typeof sentLayers>} layers */
const layerText = (layers) => layers.map((l) => `${l.rid ?? '–'} ${fixed(l.widthPx)}×${fixed(l.heightPx)} ${fixed(l.fps, 1)} fps ${fixed(l.kbps)} kbps`).join('; ');

/** Part 1: one encoding, then simulcast 2 and 3 (as many as the preset allows), per preset. */
async function senderCost() {
  const sfu = values['sender-sfu'];
  console.log(`\n1. Sender cost: 2-party call on ${sfu} (${values.emulator}), both peers publishing; CPU % of one core per publishing browser`);
  const calls = [];
  for (const video of senderVideos) {
    const limit = simulcastLayerLimit({ widthPx: PRESETS[video].width, heightPx: PRESETS[video].height });
    for (let encodings = 1; encodings <= Math.min(3, limit); encodings += 1) {
      const publish = encodings === 1 ? null : parsePublishFlag(`simulcast=${encodings}`);
      const result = await sfuCall({ peers: 2, sfu, video, publish });
      const { browsers } = processCpu(result.resources.summary);
      const cpus = Object.values(browsers).filter((cpu) => cpu !== null);
      calls.push({
        video, encodings, status: result.status, browsers,
        browserCpuPct: cpus.length ? cpus.reduce((sum, cpu) => sum + cpu, 0) / cpus.length : null,
        layers: sentLayers(result, [warmupS, durationS]), error: result.errors[0]?.message ?? null,
      });
    }
  }
  console.log(`${'video'.padEnd(8)}${'encodings'.padEnd(11)}${'status'.padEnd(8)}${'CPU %'.padStart(7)}${'ratio'.padStart(7)}  per browser   sent per layer (median)`);
  for (const call of ratiosToOneEncoding(calls)) {
    const each = Object.entries(call.browsers).map(([peer, cpu]) => `${peer} ${fixed(cpu)}`).join(' ');
    console.log(`${call.video.padEnd(8)}${String(call.encodings).padEnd(11)}${call.status.padEnd(8)}${fixed(call.browserCpuPct, 1).padStart(7)}`
      + `${fixed(call.ratio, 2).padStart(7)}  ${each.padEnd(14)}${layerText(call.layers)}`);
    if (call.error) console.log(`        ${call.error}`);
  }
}

/** Part 2: the largest room each SFU carries. */
async function rooms() {
  console.log(`\n2. Publishers per host: rooms of ${values['room-publish']} publishers at ${values['room-video']} (${values.emulator}); `
    + 'frame rate received/captured (median); CPU % of one core');
  /** @type {Record<string, string>} */
  const largest = {};
  for (const sfu of sfus) {
    const verdicts = [];
    for (let peers = 2; peers <= maxPeers; peers += 1) {
      const result = await sfuCall({ peers, sfu, video: values['room-video'], publish: roomPublish });
      const verdict = roomVerdict(result, warmupS);
      verdicts.push({ peers, carried: verdict.carried, outcome: verdict.outcome, error: result.errors[0]?.message });
      const { browsers, others } = processCpu(result.resources.summary);
      const cpu = [...Object.entries(browsers), ...Object.entries(others)].map(([name, pct]) => `${name} ${fixed(pct)}`).join(', ');
      const saturation = result.resources.hostSaturation.share;
      console.log(`${sfu.padEnd(8)}${String(peers).padEnd(3)}${verdict.outcome.padEnd(9)}${`${fixed(verdict.recvFps, 1)}/${fixed(verdict.capturedFps, 1)}`.padStart(10)} fps  `
        + `saturated ${fixed(saturation === null ? null : 100 * saturation)} %  CPU: ${cpu}${verdict.reasons.length ? `  (${verdict.reasons.join('; ')})` : ''}`);
      if (result.errors.length) console.log(`        ${result.errors[0].message}`);
      if (!verdict.carried) break;
    }
    const stop = verdicts.find((room) => !room.carried);
    // A failed room says nothing of the host: the rooms above it are unmeasured.
    const note = stop?.outcome === 'failed' ? ` (the ${stop.peers}-publisher room failed, larger ones not measured: ${stop.error ?? 'no error given'})` : '';
    const peers = largestCarried(verdicts);
    largest[sfu] = `${peers === null ? 'none' : `${peers} publishers`}${stop ? '' : ` (--max ${maxPeers} reached)`}${note}`;
  }
  for (const [sfu, text] of Object.entries(largest)) console.log(`largest ${values['room-publish']} room on ${sfu} without host limitation here: ${text}`);
}

console.log(`simulcast bench: ${durationS} s calls (${warmupS} s warm-up), ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown CPU'})`);
if (!values['skip-sender']) await senderCost();
if (!values['skip-rooms']) await rooms();
