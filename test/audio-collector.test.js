// The audio collector (orchestrator/run/audio-collector.js) against hostile pages, without a browser: what a page's
// drain answers decides neither a file's name nor its size. Drains of the wrong shape are rejected, samples past a
// recording's cap are counted as dropped, samples the page dropped are written as silence, and nothing is written
// outside <runDir>/audio/.
import assert from 'node:assert/strict';
import { readdirSync, statSync } from 'node:fs';
import { test } from 'node:test';
import { createAudioCollector, drainLimits } from '../orchestrator/run/audio-collector.js';
import { MAX_DRAIN_S, RECORDING_RATE_HZ } from '../orchestrator/run/audio-input.js';
import { tempDir } from './helpers/cli.js';
import { fakePage as fakeHookPage } from './helpers/fake-page.js';

/** A page whose recorder's drain answers each of `answers` in turn. @param {unknown[]} answers */
const fakePage = (answers) => fakeHookPage('audio', answers);
const pcm = (seconds) => Buffer.alloc(Math.round(seconds * RECORDING_RATE_HZ) * 2, 1).toString('base64');

test('hostile drains: rejected or capped, files named by the orchestrator inside <runDir>/audio/ only', async () => {
  const runDir = tempDir('wtb-audio-collector-');
  const now = Date.now();
  const chunk = (seconds) => ({
    sampleRateHz: RECORDING_RATE_HZ, streams: { p0: { firstSampleEpochMs: now, pcm: pcm(seconds), droppedSamples: 0 } },
  });
  // p1 floods: a full drain every time, far past the call's length (2 s) plus the 30 s margin.
  const flood = Array.from({ length: 3 }, () => chunk(MAX_DRAIN_S));
  const p1 = fakePage([...flood]);
  // p2 names a remote that is a path, then itself, then sends another rate: all rejected.
  const hostile = (streams, sampleRateHz = RECORDING_RATE_HZ) => ({ sampleRateHz, streams });
  const p2 = fakePage([
    hostile({ '../escape': { firstSampleEpochMs: now, pcm: pcm(1), droppedSamples: 0 } }),
    hostile({ p2: { firstSampleEpochMs: now, pcm: pcm(1), droppedSamples: 0 } }),
    hostile({ p0: { firstSampleEpochMs: now, pcm: pcm(1), droppedSamples: 0 } }, 44100),
  ]);
  // p0 records 1 s, loses 0.5 s (the page says so), records 1 s more.
  const p0 = fakePage([hostile({ p1: { firstSampleEpochMs: now, pcm: pcm(1), droppedSamples: 0 } }),
    hostile({ p1: { firstSampleEpochMs: now + 500, pcm: pcm(1), droppedSamples: RECORDING_RATE_HZ / 2 } })]);
  const rejections = [];
  const collector = createAudioCollector({
    pages: new Map([['p0', p0], ['p1', p1], ['p2', p2]]), peers: ['p0', 'p1', 'p2'], runDir, durationS: 2,
    startedAtEpochMs: now - 1000, onRejected: (peer, reason) => rejections.push({ peer, reason }),
  });
  await collector.start();
  for (let i = 0; i < 3; i += 1) await collector.stop(); // each stop drains every page once
  assert.deepEqual(rejections.map((r) => r.peer), ['p2', 'p2', 'p2'], JSON.stringify(rejections));
  assert.match(rejections[0].reason, /unknown remote/);
  assert.match(rejections[2].reason, /sampleRateHz/);
  assert.deepEqual(readdirSync(runDir), ['audio']);
  assert.deepEqual(readdirSync(collector.dir).sort(), ['p0-p1.pcm', 'p1-p0.pcm']);
  const capSamples = (2 + 30) * RECORDING_RATE_HZ;
  const flooded = collector.recordings.get('p1\np0');
  assert.equal(flooded.samples, capSamples);
  assert.equal(statSync(flooded.file).size, capSamples * 2);
  assert.equal(flooded.droppedSamples, 3 * MAX_DRAIN_S * RECORDING_RATE_HZ - capSamples);
  const gapped = collector.recordings.get('p0\np1');
  assert.equal(gapped.samples, 2.5 * RECORDING_RATE_HZ, 'the dropped half second is kept as silence: the index stays a clock');
  assert.equal(gapped.droppedSamples, RECORDING_RATE_HZ / 2);
  await collector.remove();
  assert.deepEqual(readdirSync(runDir), []);
});

test('drains over the bounds are refused in the page, before DevTools carries them; a throw and a hang are counted', async () => {
  const runDir = tempDir('wtb-audio-collector-');
  const now = Date.now();
  const { maxChars, maxKeys } = drainLimits(1);
  const stream = (pcmValue) => ({
    sampleRateHz: RECORDING_RATE_HZ, streams: { p0: { firstSampleEpochMs: now, pcm: pcmValue, droppedSamples: 0 } },
  });
  let getterReads = 0;
  const p1 = fakePage([
    stream('A'.repeat(maxChars + 4)), // one oversized chunk
    { sampleRateHz: RECORDING_RATE_HZ, streams: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`p${i}`, null])) }, // too many chunks
    stream(new Float32Array(48_000)), // samples of the wrong type
    { sampleRateHz: RECORDING_RATE_HZ, streams: { ['x'.repeat(maxChars + 1)]: null } }, // a key as long as a chunk
    { get sampleRateHz() { getterReads += 1; throw { limit: 'y'.repeat(10_000) }; }, streams: {} }, // a getter throwing a long reason
    () => { throw new Error('tampered'); },
    stream(pcm(1)), // and a good chunk still counts
    () => new Promise(() => {}), // a drain that never answers
  ]);
  const rejections = [];
  const collector = createAudioCollector({
    pages: new Map([['p1', p1]]), peers: ['p0', 'p1'], runDir, durationS: 2, startedAtEpochMs: now - 1000, drainTimeoutMs: 200,
    onRejected: (peer, reason) => rejections.push(reason),
  });
  await collector.start();
  for (let i = 0; i < 8; i += 1) await collector.stop();
  const expected = [
    /^audio recorder of p1: drain refused in the page: a string of \d+ characters \(at most \d+/,
    new RegExp(`^audio recorder of p1: drain refused in the page: an object of more than ${maxKeys} keys at streams$`),
    /^audio recorder of p1: streams\.p0\.pcm must be base64/, // deeper than a drain's levels: copied as null
    /^audio recorder of p1: drain refused in the page: a string of \d+ characters/,
    /^audio recorder of p1: drain refused in the page: it could not be copied$/,
    /^audio recorder of p1: the drain threw$/,
    /^audio recorder of p1: the drain has not answered for 0.2 s$/,
  ];
  assert.equal(rejections.length, expected.length, rejections.join('\n'));
  rejections.forEach((reason, i) => assert.match(reason, expected[i]));
  assert.equal(getterReads, 1, 'the page\'s getter is read once');
  assert.equal(collector.recordings.get('p1\np0')?.samples, RECORDING_RATE_HZ, 'the good chunk between them is kept');
  await collector.remove();
});
