// Audio quality's pure parts (orchestrator/lib/audio/audio-windows.js) and the check of a page's audio drain
// (orchestrator/run/audio-input.js): finding a received window's place in the looping reference, the windows scored,
// silent windows left out, the MOS-LQO summed up and spread over the timeline, and what a hostile page may not hand over.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  MIN_SOUND_SHARE, alignWithLoop, bestRotation, loopSlice, mosSpread, readWavPcm, scoringWindows, soundShare, wavFile, withMosPerSecond,
} from '../../orchestrator/lib/audio/audio-windows.js';
import { MAX_DRAIN_S, RECORDING_RATE_HZ, checkAudioDrain } from '../../orchestrator/run/audio-input.js';

const RATE = 48000;

/** A speech-like loop: bursts of a gliding tone of uneven lengths, pauses between them. @param {number} seconds */
function talkLoop(seconds, seed = 7) {
  const samples = new Int16Array(seconds * RATE);
  let state = seed;
  const random = () => ((state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  for (let at = 0; at < samples.length;) {
    const burst = Math.round((0.2 + random() * 0.8) * RATE);
    const pause = Math.round((0.1 + random() * 0.6) * RATE);
    const pitch = 120 + random() * 200;
    for (let i = 0; i < burst && at + i < samples.length; i += 1) {
      samples[at + i] = Math.round(8000 * Math.sin((2 * Math.PI * pitch * i) / RATE));
    }
    at += burst + pause;
  }
  return samples;
}

test('a received window is found in the looping reference to the millisecond, across the loop\'s end', () => {
  const loop = talkLoop(10);
  for (const offset of [0, 123_456, 9 * RATE + 4_800]) {
    const received = loopSlice(loop, offset, 4 * RATE);
    const found = alignWithLoop(loop, received);
    assert.ok(Math.abs(found.offset - offset) <= 48, `offset ${offset}: found ${found.offset}`);
    assert.ok(found.correlation > 0.99, `correlation ${found.correlation}`);
  }
});

test('alignment survives what the network does to the window: a lost tenth zeroed and noise added', () => {
  const loop = talkLoop(10, 3);
  const offset = 222_222;
  const received = loopSlice(loop, offset, 10 * RATE);
  for (let at = 0; at < received.length; at += 9600) received.fill(0, at, at + 960);
  for (let i = 0; i < received.length; i += 1) received[i] += ((i * 7919) % 401) - 200;
  const found = alignWithLoop(loop, received);
  assert.ok(Math.abs(found.offset - offset) <= 48, `found ${found.offset} for ${offset}`);
});

test('bestRotation prefers the true lag and reduces it into the loop; a flat part correlates with nothing', () => {
  const loop = Float64Array.from([0, 1, 0, 0, 3, 0, 2, 0]);
  const part = Float64Array.from([3, 0, 2]);
  const best = bestRotation(loop, part, [-4, 0, 1, 2]);
  assert.equal(best.lag, 4);
  assert.ok(Math.abs(best.correlation - 1) < 1e-9, `correlation ${best.correlation}`);
  assert.equal(bestRotation(loop, Float64Array.from([1, 1, 1]), [0, 1]).correlation, 0);
});

test('soundShare counts the 10 ms hops above -40 dBFS', () => {
  const half = new Int16Array(RATE);
  half.fill(5000, 0, RATE / 2);
  assert.equal(soundShare(half), 0.5);
  assert.equal(soundShare(new Int16Array(RATE)), 0);
  assert.ok(MIN_SOUND_SHARE > 0 && MIN_SOUND_SHARE < 1);
});

test('scoringWindows: whole windows inside both the measurement range and the recording', () => {
  const windows = scoringWindows({ recordingStartS: -1.5, samples: 27 * RATE, rateHz: RATE, fromS: 5, toS: 26, windowS: 10 });
  assert.deepEqual(windows.map(({ startS, endS }) => [startS, endS]), [[5, 15], [15, 25]]);
  assert.equal(windows[0].fromSample, 6.5 * RATE);
  assert.equal(windows[0].toSample - windows[0].fromSample, 10 * RATE);
  // A recording that ends early: only what it holds.
  assert.deepEqual(scoringWindows({ recordingStartS: 2, samples: 14 * RATE, rateHz: RATE, fromS: 5, toS: 26, windowS: 10 })
    .map(({ startS }) => startS), [5]);
  assert.deepEqual(scoringWindows({ recordingStartS: 20, samples: 5 * RATE, rateHz: RATE, fromS: 5, toS: 26, windowS: 10 }), []);
});

test('mosSpread: mean and percentiles of the scored windows; null without any', () => {
  const windows = [{ mosLqo: 4 }, { mosLqo: null }, { mosLqo: 3 }, { mosLqo: 5 }];
  assert.deepEqual(mosSpread(windows), { mean: 4, p5: 3.1, p50: 4, p95: 4.9, windows: 3 });
  assert.equal(mosSpread([{ mosLqo: null }]), null);
});

test('withMosPerSecond: each timeline second carries the score of the window holding its middle, for its stream only', () => {
  const timeline = [4, 5, 6, 15, 16].map((t) => ({ t, peer: 'p1', remote: 'p0', audio: { recvKbps: 30 } }));
  timeline.push({ t: 6, peer: 'p0', remote: 'p1', audio: { recvKbps: 30 } });
  const windows = [{ startS: 5, endS: 15, mosLqo: 4.2 }, { startS: 15, endS: 25, mosLqo: null }];
  const out = withMosPerSecond(timeline, [{ peer: 'p1', remote: 'p0', windows }]);
  assert.deepEqual(out.map((entry) => entry.audio.mosLqo), [undefined, undefined, 4.2, 4.2, undefined, undefined]);
  assert.equal(out[2].audio.recvKbps, 30);
  assert.equal(withMosPerSecond(timeline, []), timeline);
});

test('wavFile and readWavPcm round-trip 16-bit mono; other formats are refused', () => {
  const samples = Int16Array.from([0, 1, -1, 32767, -32768]);
  const read = readWavPcm(wavFile(samples, RATE));
  assert.equal(read.rateHz, RATE);
  assert.deepEqual([...read.samples], [...samples]);
  const stereo = wavFile(samples, RATE);
  stereo.writeUInt16LE(2, 22);
  assert.throws(() => readWavPcm(stereo), /16-bit mono/);
  assert.throws(() => readWavPcm(Buffer.from('not a wav file at all, not at all')), /RIFF/);
});

const pcm = (samples) => Buffer.alloc(samples * 2, 1).toString('base64');
const drain = (streams, sampleRateHz = RECORDING_RATE_HZ) => ({ sampleRateHz, streams });

test('checkAudioDrain: a well-formed drain passes as its PCM bytes', () => {
  const checked = checkAudioDrain(drain({ p0: { firstSampleEpochMs: 5000, pcm: pcm(4800), droppedSamples: 0 } }), 'p1', ['p0']);
  assert.ok(checked.ok);
  assert.equal(checked.value[0].pcm.length, 9600);
  assert.equal(checked.value[0].remote, 'p0');
});

test('checkAudioDrain refuses what a hostile page may send: unknown remotes, names aimed at paths, floods, odd bytes, other rates, times', () => {
  const good = { firstSampleEpochMs: 5000, pcm: pcm(480), droppedSamples: 0 };
  /** @type {Array<[unknown, RegExp]>} */
  const cases = [
    [null, /must be/],
    [drain({ '../../etc/passwd': good }), /unknown remote/],
    [drain({ p1: good }), /unknown remote/], // itself
    [drain({ p0: good }, 44100), /sampleRateHz/],
    [drain({ p0: { ...good, pcm: pcm(MAX_DRAIN_S * RECORDING_RATE_HZ + 4) } }), /at most/],
    [drain({ p0: { ...good, pcm: Buffer.alloc(3).toString('base64') } }), /whole 16-bit/],
    [drain({ p0: { ...good, pcm: '<script>' } }), /base64/],
    [drain({ p0: { ...good, firstSampleEpochMs: 1 } }), /firstSampleEpochMs/],
    [drain({ p0: { ...good, droppedSamples: -1 } }), /droppedSamples/],
    [drain({ p0: 'x' }), /must be/],
  ];
  for (const [value, reason] of cases) {
    const checked = checkAudioDrain(value, 'p1', ['p0'], { fromEpochMs: 1000, toEpochMs: 10_000 });
    assert.equal(checked.ok, false, JSON.stringify(value)?.slice(0, 80));
    assert.match(/** @type {{ reason: string }} */ (checked).reason, reason);
  }
});
