#!/usr/bin/env node
// Benchmark: does lip sync drift over a long call? One open-link `lip-sync` call (two Chromium peers through the
// relay, 360p30 unless --video) of --duration seconds; per received stream and over both, the offset per mark (audio
// onset − display of the mark's frame, corrected for the senders' capture skew: README "Lip sync") summarized as its
// median and p95, and the drift: the least-squares slope of the offset over the call in ms per minute
// (lib/audio/lip-sync.js driftMsPerMin, as result.json's lipSync summaries carry it). The same for what the pages saw
// (uncorrected) and for each sender's own capture skew, and the median per minute, so a step shows apart from a slope.
// Prints figures; asserts nothing.
//
// Usage: node bench/lip-sync-drift.js [--duration 300] [--warmup 10] [--video 360p30]
// (it starts browsers: on a machine others share, run it under the machine's lock, e.g. one-at-a-time)
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { driftMsPerMin } from '../orchestrator/lib/audio/lip-sync.js';
import { loadScenario } from '../orchestrator/lib/scenario/scenario-file.js';
import { describe } from '../orchestrator/lib/stats/statistics.js';
import { runScenario } from '../orchestrator/run/run.js';

const { values } = parseArgs({ options: {
  duration: { type: 'string', default: '300' }, warmup: { type: 'string', default: '10' }, video: { type: 'string', default: '360p30' } } });
const [durationS, warmupS] = [Number(values.duration), Number(values.warmup)];
if (!(Number.isFinite(durationS) && Number.isFinite(warmupS) && warmupS >= 0 && durationS >= warmupS + 30)) {
  throw new Error('--duration must be at least --warmup + 30 s (drift needs marks over at least 20 s), --warmup a number of seconds ≥ 0');
}
const fmt = (/** @type {number|null|undefined} */ value, digits = 1) => (typeof value === 'number' && Number.isFinite(value) ? value.toFixed(digits) : '–');

/**
 * One line of figures over `marks`: n, median, p95, p95 |offset|, drift, and the median per minute of the window.
 * @param {string} label @param {Array<{ atS: number, offsetMs: number }>} marks
 */
function line(label, marks) {
  const windowed = marks.filter(({ atS }) => atS >= warmupS && atS <= durationS);
  const offsets = describe(windowed.map(({ offsetMs }) => offsetMs));
  const absolute = describe(windowed.map(({ offsetMs }) => Math.abs(offsetMs)));
  const perMinute = [];
  for (let fromS = warmupS; fromS < durationS; fromS += 60) {
    perMinute.push(fmt(describe(windowed.filter(({ atS }) => atS >= fromS && atS < fromS + 60).map(({ offsetMs }) => offsetMs)).median));
  }
  const cells = [String(offsets.n).padStart(4), fmt(offsets.median).padStart(8), fmt(offsets.p95).padStart(8),
    fmt(absolute.p95).padStart(9), fmt(driftMsPerMin(windowed), 2).padStart(11)];
  console.log(`${label.padEnd(22)}${cells.join('')}   ${perMinute.join(' / ')}`);
}

const outDir = mkdtempSync(path.join(os.tmpdir(), 'wtb-bench-lip-sync-'));
const scenario = loadScenario('lip-sync', { durationS, warmupS });
const startedMs = Date.now();
const { result } = await runScenario({ scenario, video: values.video, emulator: 'relay', outDir, log: () => {} });
if (result.status !== 'passed') throw new Error(`the call ${result.status}: ${JSON.stringify(result.errors)}`);
// any: the lipSync section as result.json has it (lib/audio/lip-sync.js LipSyncResult).
const lipSync = /** @type {any} */ (result).lipSync;
console.log(`lip sync over one ${durationS} s open-link call (lip-sync, ${values.video}, relay), marks from ${warmupS} s, ` +
  `${((Date.now() - startedMs) / 1000).toFixed(0)} s in all`);
console.log('stream                   n  median ms  p95 ms  p95|·| ms  drift ms/min   median per minute (ms)');
/** @typedef {{ atS: number, offsetMs: number|null, seenMs: number }} Mark */
for (const stream of lipSync.streams) {
  const marks = /** @type {Mark[]} */ (stream.marks);
  line(`${stream.remote} → ${stream.peer}`, marks.flatMap(({ atS, offsetMs }) => (offsetMs === null ? [] : [{ atS, offsetMs }])));
  line(`  seen by ${stream.peer}`, marks.map(({ atS, seenMs }) => ({ atS, offsetMs: seenMs })));
}
for (const capture of lipSync.capture) line(`capture skew of ${capture.peer}`, capture.marks);
line('both directions', lipSync.streams.flatMap((/** @type {{ marks: Mark[] }} */ { marks }) =>
  marks.flatMap(({ atS, offsetMs }) => (offsetMs === null ? [] : [{ atS, offsetMs }]))));
const dropped = lipSync.streams.reduce((/** @type {number} */ sum, /** @type {{ droppedOnsets: number }} */ s) => sum + s.droppedOnsets, 0);
console.log(`expected marks per stream in the window: ${lipSync.streams[0]?.expectedMarks ?? '–'}; onsets dropped: ${dropped}`);
await rm(outDir, { recursive: true, force: true });
