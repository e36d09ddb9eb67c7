// Lip sync's pure parts: the marks in the generated audio (orchestrator/lib/audio/lip-sync-marks.js), the tone's onset
// found in PCM (client-app/tone-onset.js, which the page's AudioWorklet runs), each onset paired with its mark's frame
// and summed up with BT.1359's verdict (orchestrator/lib/audio/lip-sync.js), a hostile page's drain refused
// (lib/audio/lip-sync-input.js), the scenario field, and the report's table and chart.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { createToneDetector } from '../../client-app/tone-onset.js';
import { MARK_INTERVAL_S, TONE_HZ, markFrames, markedAudio } from '../../orchestrator/lib/audio/lip-sync-marks.js';
import {
  correctedMarks, driftMsPerMin, lipSyncSection, pairOnsets, summarizeOffsets, verdictOf, withLipSyncPerSecond,
} from '../../orchestrator/lib/audio/lip-sync.js';
import { MAX_DRAIN_ONSETS, checkLipSyncDrain } from '../../orchestrator/lib/audio/lip-sync-input.js';
import { loadScenario } from '../../orchestrator/lib/scenario/scenario-file.js';
import { metricByPath } from '../../orchestrator/lib/result/metric-catalogue.js';
import { buildLipSyncSection, renderLipSync } from '../../orchestrator/report/render-lip-sync.js';

const RATE = 48000;
const LOOP_S = 10;

/**
 * Speech-like audio: voiced bursts whose harmonics sit on 1 kHz (as the generated voices' do) and a 20 ms 3 kHz blip
 * in each, shorter than a mark's tone, with noise throughout. @param {number} seconds
 */
function speechLike(seconds) {
  const samples = new Int16Array(seconds * RATE);
  let state = 11;
  const random = () => ((state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  for (let i = 0; i < samples.length; i += 1) {
    const inBurst = (i / RATE) % 0.9 < 0.6;
    const voiced = inBurst ? 6000 * Math.sin((2 * Math.PI * 1000 * i) / RATE) + 3000 * Math.sin((2 * Math.PI * 200 * i) / RATE) : 0;
    const blip = (i / RATE) % 0.9 >= 0.3 && (i / RATE) % 0.9 < 0.32 ? 9000 * Math.sin((2 * Math.PI * TONE_HZ * i) / RATE) : 0;
    samples[i] = Math.round(voiced + blip + (random() - 0.5) * 400);
  }
  return samples;
}

/** The onsets (ms into the audio) found in `samples`, fed in 128-frame quanta as an AudioWorklet is. @param {Int16Array} samples */
function onsetsMs(samples) {
  /** @type {number[]} */
  const found = [];
  const detector = createToneDetector(RATE, TONE_HZ, (frame) => found.push((frame / RATE) * 1000));
  const floats = Float32Array.from(samples, (v) => v / 32768);
  for (let at = 0; at < floats.length; at += 128) detector.push(floats.subarray(at, at + 128), at);
  return found;
}

test('the marks are frames every 2 s from 1 s into the loop; the marked audio has a tone at each, later by the audio delay', () => {
  assert.deepEqual(markFrames(30, 300).map((mark) => mark.code), [30, 90, 150, 210, 270]);
  assert.deepEqual(markFrames(15, 150).map((mark) => mark.code), [15, 45, 75, 105, 135]);
  const speech = speechLike(LOOP_S);
  assert.deepEqual(onsetsMs(speech), [], 'speech with 1 kHz harmonics and short blips at the tone\'s frequency is no mark');
  for (const delayMs of [0, 300, -200]) {
    const found = onsetsMs(markedAudio(speech, RATE, delayMs));
    const expected = [1, 3, 5, 7, 9].map((atS) => (((atS * 1000 + delayMs) % 10_000) + 10_000) % 10_000).sort((a, b) => a - b);
    assert.equal(found.length, expected.length, `delay ${delayMs}: ${found.join(', ')}`);
    found.forEach((ms, i) => assert.ok(Math.abs(ms - expected[i]) <= 2, `delay ${delayMs}: onset at ${ms} ms, mark at ${expected[i]} ms`));
  }
  // The whole audio moves with the delay, not only the tones.
  const rotated = markedAudio(speech, RATE, 300);
  assert.equal(rotated[RATE * 2 + 14_400], speech[RATE * 2]);
});

test('a detector fed with a gap restarts its block at the new frame and still dates the onset by the frame given', () => {
  const marked = Float32Array.from(markedAudio(speechLike(LOOP_S), RATE, 0), (v) => v / 32768);
  /** @type {number[]} */
  const found = [];
  const detector = createToneDetector(RATE, TONE_HZ, (frame) => found.push(frame));
  detector.push(marked.subarray(0, 1000), 0);
  detector.push(marked.subarray(RATE / 2, RATE * 4), RATE / 2 + 7);
  assert.equal(found.length, 2);
  assert.ok(Math.abs(found[0] - (RATE + 7)) <= 96 && Math.abs(found[1] - (3 * RATE + 7)) <= 96, found.join(', '));
});

/** A page's frame log at 30 fps: every code of the loop shown from `startMs` on, optionally without some codes. */
function frameLog(startMs, seconds, { skip = /** @type {number[]} */ ([]) } = {}) {
  const frames = [];
  for (let i = 0; i < seconds * 30; i += 1) {
    const code = i % 300;
    if (!skip.includes(code)) frames.push({ epochMs: startMs + (i * 1000) / 30, code });
  }
  return frames;
}

test('an onset pairs with its mark\'s frame within half a mark interval; a skipped mark frame is placed from a neighbour', () => {
  const frames = frameLog(100_000, 20, { skip: [90] });
  // The mark at code 30 shown at 101000 ms, code 90 (skipped) due at 103000 ms, code 150 at 105000 ms.
  const paired = pairOnsets([101_040, 103_300, 104_200, 130_000], frames, 30, 300);
  assert.equal(paired.length, 3, 'the onset with no mark frame shown within 1 s is left out');
  assert.deepEqual(paired.map(({ offsetMs, estimated }) => [offsetMs, estimated]), [[40, false], [300, true], [-800, false]]);
  assert.deepEqual(pairOnsets([], frames, 30, 300), []);
  assert.deepEqual(pairOnsets([101_000], [], 30, 300), []);
});

test('offsets sum up with the median, p95 of |offset|, drift in ms per minute, and BT.1359\'s verdict in our sign', () => {
  const marks = [0, 10, 20, 30, 40].map((atS, i) => ({ atS, offsetMs: 10 + i * 5 }));
  const summary = summarizeOffsets(marks);
  assert.equal(summary.n, 5);
  assert.equal(summary.medianMs, 20);
  assert.equal(summary.maxAbsMs, 30);
  assert.equal(summary.driftMsPerMin, 30, '+5 ms every 10 s');
  assert.equal(summary.verdict, 'undetectable');
  assert.equal(driftMsPerMin(marks.slice(0, 2)), null, 'too few marks');
  assert.equal(driftMsPerMin([{ atS: 0, offsetMs: 0 }, { atS: 1, offsetMs: 1 }, { atS: 2, offsetMs: 9 }]), null, 'too short a span');
  assert.deepEqual([0, -45, 125, -46, 126, -90, 185, -91, 186, 300].map(verdictOf), [
    'undetectable', 'undetectable', 'undetectable', 'detectable', 'detectable', 'detectable', 'detectable', 'unacceptable', 'unacceptable',
    'unacceptable']);
  const none = { n: 0, medianMs: null, meanMs: null, p95AbsMs: null, maxAbsMs: null, driftMsPerMin: null, verdict: null };
  assert.deepEqual(summarizeOffsets([]), none);
});

test('the section pairs each page\'s onsets with its own frame log, and takes the sender\'s capture skew out of each mark', () => {
  const startMs = 1_000_000;
  const batches = [
    { peer: 'p1', source: 'p0', ...columns(frameLog(startMs + 80, 30)), readMs: 0 },
    { peer: 'p0', source: 'local', ...columns(frameLog(startMs, 30)), readMs: 0 },
    { peer: 'p1', source: 'local', ...columns(frameLog(startMs, 30)), readMs: 0 },
  ];
  const markTimes = [1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29].map((s) => startMs + s * 1000);
  // p0's media has its audio 300 ms late and its microphone 60 ms behind its camera; p1 shows p0's frames 80 ms after
  // capture and plays p0's audio 100-110 ms after capture: the call adds 20-30 ms to the source's 300.
  const onsets = [
    ...markTimes.map((ms) => ({ peer: 'p0', source: 'local', epochMs: ms + 360 })),
    ...markTimes.map((ms, i) => ({ peer: 'p1', source: 'p0', epochMs: ms + 360 + 100 + (i % 2) * 10 })),
    ...markTimes.map((ms) => ({ peer: 'p1', source: 'local', epochMs: ms + 5 })),
    { peer: 'p0', source: 'p1', epochMs: startMs + 5000 },
  ];
  const section = lipSyncSection({
    onsets, batches, media: { p0: { fps: 30, frames: 300 }, p1: { fps: 30, frames: 300 } }, mediaStartEpochMs: startMs,
    warmupS: 10, durationS: 30, audioDelayMs: 300, droppedOnsets: { 'p1\np0': 2 },
  });
  assert.deepEqual(section.streams.map(({ peer, remote }) => `${remote}->${peer}`), ['p1->p0', 'p0->p1']);
  const [unseen, p0ToP1] = section.streams;
  assert.deepEqual([unseen.onsets, unseen.unpaired, unseen.marks.length, unseen.summary.n], [1, 1, 0, 0], 'p0 showed no frames: its onset is unpaired');
  assert.equal(p0ToP1.marks.length, 15);
  assert.equal(p0ToP1.droppedOnsets, 2);
  assert.equal(p0ToP1.expectedMarks, (30 - 10) / MARK_INTERVAL_S);
  assert.equal(p0ToP1.summary.n, 10, 'the marks shown from 11 s to 29 s');
  assert.equal(p0ToP1.summary.medianMs, 325, 'the source\'s 300 ms and the call\'s 20-30 ms');
  assert.equal(p0ToP1.seen.medianMs, 385, 'as p1 saw it: with p0\'s devices\' 60 ms');
  assert.deepEqual(p0ToP1.marks[5], { atS: 11.1, offsetMs: 330, seenMs: 390, captureSkewMs: 360, estimated: false });
  assert.equal(p0ToP1.summary.verdict, 'unacceptable');
  assert.deepEqual(section.capture.map(({ peer, summary }) => [peer, summary.medianMs]), [['p0', 360], ['p1', 5]]);
  assert.equal(section.overall.n, 10);
  assert.equal(section.audioDelayMs, 300);
  const timeline = withLipSyncPerSecond([{ t: 12, peer: 'p1', remote: 'p0', audio: { recvKbps: 32 } }, { t: 13, peer: 'p1', remote: 'p0' },
    { t: 12, peer: 'p0', remote: 'p1' }], section.streams);
  assert.deepEqual(timeline.map((entry) => entry.audio), [{ recvKbps: 32, lipSyncOffsetMs: 330 }, undefined, undefined], 'the mark shown at 11.08 s');
  // The catalogue's per-run metrics read the summary buildResult writes (summary.lipSync: the overall summary).
  assert.equal(metricByPath('lipSyncP95AbsMs')?.fromSummary?.({ lipSync: section.overall }), section.overall.p95AbsMs);
  assert.equal(metricByPath('lipSyncDriftMsPerMin')?.fromSummary?.({ lipSync: null }), undefined);
  const html = renderLipSync({ lipSync: section });
  assert.match(html, /<th scope="row">p0 → p1<\/th><td>325<\/td>/);
  assert.match(html, /<td>385<\/td><\/tr>/);
  assert.match(html, /unacceptable/);
  assert.match(html, /the audio sent 300 ms late/);
  const chart = buildLipSyncSection({ lipSync: section }, { span: { startS: 0, endS: 30 }, colorOf: () => '#000000' });
  assert.equal(chart?.panels[0].series.filter((s) => s.points).length, 2, 'one stream with marks: its offsets and as its page saw them');
  // A mark whose sender's capture was not heard has no offset, only what the page saw.
  assert.deepEqual(correctedMarks([{ atS: 5, offsetMs: 90, estimated: true }], [{ atS: 2.9, offsetMs: 40, estimated: false }], 0),
    [{ atS: 5, offsetMs: null, seenMs: 90, captureSkewMs: null, estimated: true }]);
  assert.deepEqual(chart?.panels[0].series.filter((s) => !s.points).map((s) => s.y[0]), [125, -45, 185, -90]);
  assert.equal(renderLipSync({ lipSync: null }), '');
  assert.equal(buildLipSyncSection({}, { span: { startS: 0, endS: 30 }, colorOf: () => '#000000' }), null);
});

/** @param {Array<{ epochMs: number, code: number }>} frames */
function columns(frames) {
  return { codes: frames.map((frame) => frame.code), epochMs: frames.map((frame) => frame.epochMs) };
}

test('a page\'s lip-sync drain is checked: sources, counts, times and dropped counts; a bad one is refused with a reason', () => {
  const within = { fromEpochMs: 1000, toEpochMs: 2000 };
  const drain = { sources: { local: { onsetsEpochMs: [1500], droppedOnsets: 0 }, p1: { onsetsEpochMs: [], droppedOnsets: 3 } } };
  const ok = checkLipSyncDrain(drain, 'p0', ['p1'], within);
  assert.deepEqual(ok, { ok: true, value: [
    { source: 'local', onsetsEpochMs: [1500], droppedOnsets: 0 }, { source: 'p1', onsetsEpochMs: [], droppedOnsets: 3 }] });
  /** @param {unknown} drain @param {RegExp} reason */
  const refused = (drain, reason) => {
    const checked = checkLipSyncDrain(drain, 'p0', ['p1'], within);
    assert.ok('reason' in checked && reason.test(checked.reason), JSON.stringify(checked));
  };
  refused(null, /^lip-sync listener of p0: drain must be/);
  refused({ sources: { p9: { onsetsEpochMs: [], droppedOnsets: 0 } } }, /unknown source "p9"; expected local or one of p1/);
  refused({ sources: { p1: { onsetsEpochMs: Array(MAX_DRAIN_ONSETS + 1).fill(1500), droppedOnsets: 0 } } }, /at most 100 times/);
  refused({ sources: { p1: { onsetsEpochMs: [999], droppedOnsets: 0 } } }, /epoch milliseconds from 1000 to 2000/);
  refused({ sources: { p1: { onsetsEpochMs: [Number.NaN], droppedOnsets: 0 } } }, /epoch milliseconds/);
  refused({ sources: { p1: { onsetsEpochMs: ['1500'], droppedOnsets: 0 } } }, /epoch milliseconds/);
  refused({ sources: { p1: { onsetsEpochMs: [1500], droppedOnsets: 1.5 } } }, /droppedOnsets must be an integer/);
  refused({ sources: { p1: [1500] } }, /sources\.p1 must be/);
});

test('the scenario\'s lipSync: true, false or { audioDelayMs } within ±500 ms, validated with the file and field named; --lip-sync turns it on', () => {
  /** @param {unknown} lipSync */
  const file = (lipSync) => {
    const where = path.join(mkdtempSync(path.join(os.tmpdir(), 'wtb-lip-sync-')), 'ls.json');
    writeFileSync(where, JSON.stringify({ name: 'ls', description: 'd', ...(lipSync === undefined ? {} : { lipSync }) }));
    return where;
  };
  assert.deepEqual(loadScenario(file(true)).lipSync, { audioDelayMs: 0 });
  assert.equal(loadScenario(file(false)).lipSync, null);
  assert.equal(loadScenario(file(undefined)).lipSync, null);
  assert.deepEqual(loadScenario(file(undefined), { lipSync: true }).lipSync, { audioDelayMs: 0 });
  assert.deepEqual(loadScenario(file({ audioDelayMs: -120 })).lipSync, { audioDelayMs: -120 });
  assert.deepEqual(loadScenario(file({ audioDelayMs: 300 }), { lipSync: true }).lipSync, { audioDelayMs: 300 }, 'the flag keeps the file\'s delay');
  assert.throws(() => loadScenario(file('yes')), /ls\.json: lipSync: must be true, false or \{ "audioDelayMs": <ms> \}, got/);
  assert.throws(() => loadScenario(file({ audioDelayMs: 501 })), /ls\.json: lipSync\.audioDelayMs: must be an integer from -500 to 500, got 501/);
  assert.throws(() => loadScenario(file({ audioDelayMs: 1.5 })), /lipSync\.audioDelayMs: must be an integer/);
  assert.throws(() => loadScenario(file({ delayMs: 10 })), /ls\.json: lipSync: unknown field 'delayMs'; allowed: audioDelayMs/);
  assert.deepEqual(loadScenario('lip-sync-audio-300').lipSync, { audioDelayMs: 300 });
  assert.deepEqual(loadScenario('lip-sync').lipSync, { audioDelayMs: 0 });
});
