#!/usr/bin/env node
// Benchmark: what audio quality (--audio-quality, README "Audio quality") costs. In the call: pairs of real two-party
// `unconstrained` calls (Chromium, relay, 360p30), one without recording and one with --audio-quality speech, their
// order alternating from pair to pair; each browser's process tree CPU over the measurement window (result.json
// `resources`, % of one core) and its ratio with / without recording within the pair, and the ViSQOL seconds each
// recorded call took to score. After the call: the seconds scoring takes per minute of call and received stream, in
// speech and audio modes, as a run scores (run/audio-quality.js scoreAudio: six 10 s windows aligned with the loop,
// then ViSQOL in one Python process) on a minute of the default speech with every 25th 20 ms frame zeroed (lost packets
// nobody concealed); once first, which loads (or compiles) numba's cache, then --repeat times.
// Prints figures; asserts nothing.
//
// Usage: node bench/audio-quality.js [--pairs 2] [--duration 30] [--repeat 2] [--skip-calls] [--skip-scoring]
// (it starts browsers: on a machine others share, run it under the machine's lock, e.g. one-at-a-time)
import { mkdtempSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ensureMedia } from '../media/generate.js';
import { loopSlice, readWavPcm } from '../orchestrator/lib/audio/audio-windows.js';
import { loadScenario } from '../orchestrator/lib/scenario/scenario-file.js';
import { RECORDING_RATE_HZ } from '../orchestrator/run/audio-input.js';
import { scoreAudio, visqolAvailability } from '../orchestrator/run/audio-quality.js';
import { runScenario } from '../orchestrator/run/run.js';

const { values } = parseArgs({ options: {
  pairs: { type: 'string', default: '2' }, duration: { type: 'string', default: '30' }, repeat: { type: 'string', default: '2' },
  'skip-calls': { type: 'boolean', default: false }, 'skip-scoring': { type: 'boolean', default: false } } });
const [pairs, durationS, repeat] = [Number(values.pairs), Number(values.duration), Number(values.repeat)];
if (!(Number.isInteger(pairs) && pairs > 0 && durationS >= 20 && Number.isInteger(repeat) && repeat > 0)) {
  throw new Error('--pairs and --repeat must be positive integers, --duration at least 20 (s)');
}
const WARMUP_S = 10;
const PEERS = ['p0', 'p1'];
const scratch = mkdtempSync(path.join(os.tmpdir(), 'wtb-bench-audio-'));
const fmt = (/** @type {number} */ value, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : '–');
const mean = (/** @type {number[]} */ list) => list.reduce((sum, v) => sum + v, 0) / list.length;

/**
 * One call, with or without recording: each browser's mean CPU and, recorded, the scoring's seconds and windows.
 * @param {boolean} recorded @param {number} index
 */
async function call(recorded, index) {
  const scenario = loadScenario('unconstrained', { durationS, warmupS: WARMUP_S, ...(recorded ? { audioQuality: 'speech' } : {}) });
  const outDir = path.join(scratch, `call-${index}-${recorded ? 'on' : 'off'}`);
  const { result } = await runScenario({ scenario, video: '360p30', emulator: 'relay', outDir, log: () => {} });
  if (result.status !== 'passed') throw new Error(`call ${index} (${recorded ? 'recorded' : 'not recorded'}) ${result.status}: ${JSON.stringify(result.errors)}`);
  // any: the sections read here, as result.json has them (lib/result/result.js).
  const { resources, audio } = /** @type {any} */ (result);
  const cpu = Object.fromEntries(PEERS.map((peer) => [peer, resources.summary[peer]?.cpuPct.mean ?? NaN]));
  // any: result.json's audio streams and windows (lib/audio/audio-windows.js ScoredStream).
  const scored = (audio?.streams ?? []).flatMap((/** @type {any} */ s) => s.windows).filter((/** @type {any} */ w) => w.mosLqo !== null);
  const windows = scored.length;
  await rm(outDir, { recursive: true, force: true });
  return { cpu, scoringS: audio?.scoringS ?? NaN, windows, mos: audio?.overall?.mean ?? NaN };
}

if (!values['skip-calls']) {
  console.log(`recording's cost per peer: ${pairs} pairs of ${durationS} s calls (unconstrained, 360p30, relay), CPU over ${WARMUP_S}-${durationS} s`);
  console.log('pair  order    p0 %core off → on (×)      p1 %core off → on (×)      scoring: windows, s, s/window, MOS-LQO');
  /** @type {number[]} */
  const ratios = [];
  for (let pair = 0; pair < pairs; pair += 1) {
    const order = pair % 2 ? [true, false] : [false, true];
    const [first, second] = [await call(order[0], pair), await call(order[1], pair)];
    const [off, on] = order[0] ? [second, first] : [first, second];
    const cells = PEERS.map((peer) => {
      const ratio = on.cpu[peer] / off.cpu[peer];
      ratios.push(ratio);
      return `${fmt(off.cpu[peer]).padStart(5)} → ${fmt(on.cpu[peer]).padStart(5)} (×${fmt(ratio, 3)})`.padEnd(27);
    });
    const scoring = `${on.windows}, ${fmt(on.scoringS)} s, ${fmt(on.scoringS / on.windows, 2)} s, ${fmt(on.mos, 2)}`;
    console.log(`${String(pair + 1).padEnd(6)}${(order[0] ? 'on,off' : 'off,on').padEnd(9)}${cells.join('')}${scoring}`);
  }
  console.log(`mean ratio with / without recording: ×${fmt(mean(ratios), 3)} (range ×${fmt(Math.min(...ratios), 3)}–×${fmt(Math.max(...ratios), 3)})`);
}

if (!values['skip-scoring']) {
  const scorer = await visqolAvailability();
  if (!scorer.available) throw new Error(scorer.reason);
  const media = await ensureMedia('360p30');
  const reference = readWavPcm(await readFile(media.audio));
  // A minute of received speech starting mid-loop, every 25th 20 ms frame lost (4 %), as a recording file.
  const frame = RECORDING_RATE_HZ / 50;
  const received = loopSlice(reference.samples, 12_345, 60 * RECORDING_RATE_HZ);
  for (let at = 0; at < received.length; at += 25 * frame) received.fill(0, at, at + frame);
  const file = path.join(scratch, 'p1-p0.pcm');
  await writeFile(file, Buffer.from(received.buffer, received.byteOffset, received.byteLength));
  const recording = { peer: 'p1', remote: 'p0', file, firstSampleEpochMs: 0, samples: received.length, droppedSamples: 0 };
  console.log(`\nscoring one received stream of 60 s (${scorer.reason}): seconds per minute of call and stream`);
  console.log('mode     run     windows  ViSQOL s  whole s (alignment too)  MOS-LQO');
  for (const mode of ['speech', 'audio']) {
    for (let run = 0; run <= repeat; run += 1) {
      const startedMs = Date.now();
      const quality = await scoreAudio({
        recordings: [recording], media: { p0: { audio: media.audio } }, mode, mediaStartEpochMs: 0, fromS: 0, toS: 60, workDir: scratch,
        scorer, logCommand: () => {}, clockS: () => 0,
      });
      const wholeS = (Date.now() - startedMs) / 1000;
      if (quality.failure) throw new Error(quality.failure);
      const figures = [String(quality.overall?.windows ?? 0).padEnd(9), fmt(quality.scoringS).padEnd(10), fmt(wholeS).padEnd(25)];
      console.log(`${mode.padEnd(9)}${(run ? String(run) : 'first').padEnd(8)}${figures.join('')}${fmt(quality.overall?.mean ?? NaN, 2)}`);
    }
  }
}
await rm(scratch, { recursive: true, force: true });
