// Audio quality's pure parts (run/audio-quality.js does the I/O and runs ViSQOL): the windows of a recording to
// score, each aligned with the looping reference by its loudness envelope, the windows that are mostly silence in
// the reference left out (ViSQOL scores silence 1.5-2 whatever the network did), and the MOS-LQO summed up per
// stream, over the call and per second of the timeline.
import { describe } from '../stats/statistics.js';

/**
 * @typedef {{ available: boolean, reason: string, python?: string, version?: string }} VisqolAvailability  whether ViSQOL
 *   could score (run/audio-quality.js visqolAvailability), and with which python
 * @typedef {{ startS: number, endS: number, offsetMs: number, correlation: number, soundShare: number, mosLqo: number|null,
 *   skipped?: string }} ScoredWindow  offsetMs: where in the reference loop the window starts; correlation: of the
 *   loudness envelopes there; soundShare: of the reference window; skipped: why it has no score
 * @typedef {{ peer: string, remote: string, recordedS: number, droppedSamples: number, windows: ScoredWindow[],
 *   mosLqo: ReturnType<typeof mosSpread> }} ScoredStream
 * @typedef {{ mode: string, windowS: number, scorer: VisqolAvailability, streams: ScoredStream[],
 *   overall: ReturnType<typeof mosSpread>, scoringS: number, failure: string|null }} AudioQuality  result.json `audio`;
 *   scoringS: the wall time ViSQOL took for all windows (its cost)
 */

/**
 * ViSQOL's modes: audio (48 kHz, its SVR model; the default) or speech (16 kHz, its polynomial mapping: the lattice
 * mapper that matches ViSQOL's C++ default needs TFLite, which setup does not install, and the polynomial one nears 5
 * on mildly degraded speech).
 */
export const AUDIO_QUALITY_MODES = /** @type {const} */ (['audio', 'speech']);
/** The length of a scored window. */
export const AUDIO_WINDOW_S = 10;
/** Envelope hops: 10 ms to find the reference's offset anywhere in its loop, then 1 ms around it. */
const COARSE_HOP = 480;
const FINE_HOP = 48;
/** A hop this loud (RMS, full scale 1) is sound; quieter is a pause. -40 dBFS. */
export const SOUND_RMS = 0.01;
/** Windows whose reference is sound for less than this share are not scored. */
export const MIN_SOUND_SHARE = 0.25;

/**
 * 16-bit PCM samples of a canonical mono WAV file (the harness's generated audio), as a view into its bytes.
 * @param {Buffer} wav @returns {{ rateHz: number, samples: Int16Array }}
 */
export function readWavPcm(wav) {
  if (wav.toString('ascii', 0, 4) !== 'RIFF' || wav.toString('ascii', 8, 12) !== 'WAVE') throw new Error('not a RIFF WAVE file');
  let at = 12;
  let format = null;
  while (at + 8 <= wav.length) {
    const id = wav.toString('ascii', at, at + 4);
    const size = wav.readUInt32LE(at + 4);
    if (id === 'fmt ') format = { tag: wav.readUInt16LE(at + 8), channels: wav.readUInt16LE(at + 10), rateHz: wav.readUInt32LE(at + 12), bits: wav.readUInt16LE(at + 22) };
    if (id === 'data') {
      if (!format || format.tag !== 1 || format.channels !== 1 || format.bits !== 16) throw new Error('expected 16-bit mono PCM');
      const data = wav.subarray(at + 8, at + 8 + Math.min(size, wav.length - at - 8));
      const copy = Buffer.from(data); // aligned for the Int16Array view
      return { rateHz: format.rateHz, samples: new Int16Array(copy.buffer, copy.byteOffset, Math.floor(copy.length / 2)) };
    }
    at += 8 + size + (size % 2);
  }
  throw new Error('no data chunk');
}

/**
 * A canonical 16-bit mono WAV file of samples.
 * @param {Int16Array} samples @param {number} rateHz @returns {Buffer}
 */
export function wavFile(samples, rateHz) {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + samples.length * 2, 4);
  header.write('WAVEfmt ', 8, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(rateHz, 24);
  header.writeUInt32LE(rateHz * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(samples.length * 2, 40);
  return Buffer.concat([header, Buffer.from(samples.buffer, samples.byteOffset, samples.length * 2)]);
}

/**
 * RMS per hop of `hop` samples (full scale 1).
 * @param {Int16Array} samples @param {number} hop @returns {Float64Array}
 */
export function envelope(samples, hop) {
  const out = new Float64Array(Math.floor(samples.length / hop));
  for (let i = 0; i < out.length; i += 1) {
    let sum = 0;
    for (let j = i * hop; j < (i + 1) * hop; j += 1) sum += samples[j] * samples[j];
    out[i] = Math.sqrt(sum / hop) / 32768;
  }
  return out;
}

/**
 * The rotation of the looping reference envelope that best matches `part` (Pearson correlation), among `lags`.
 * @param {Float64Array} loop @param {Float64Array} part @param {Iterable<number>} lags in hops, any integer
 * @returns {{ lag: number, correlation: number }}  lag reduced into [0, loop.length)
 */
export function bestRotation(loop, part, lags) {
  const n = part.length;
  const partMean = part.reduce((sum, v) => sum + v, 0) / n;
  const partDev = part.map((v) => v - partMean);
  const partNorm = Math.sqrt(partDev.reduce((sum, v) => sum + v * v, 0));
  let best = { lag: 0, correlation: -Infinity };
  for (const lag of lags) {
    const start = ((lag % loop.length) + loop.length) % loop.length;
    let sum = 0;
    let sumSq = 0;
    let dot = 0;
    for (let i = 0; i < n; i += 1) {
      const v = loop[(start + i) % loop.length];
      sum += v;
      sumSq += v * v;
      dot += v * partDev[i];
    }
    const loopNorm = Math.sqrt(Math.max(0, sumSq - (sum * sum) / n));
    const correlation = partNorm > 0 && loopNorm > 0 ? dot / (partNorm * loopNorm) : 0;
    if (correlation > best.correlation) best = { lag: start, correlation };
  }
  return best;
}

/**
 * Where in the looping reference a received window starts, to the millisecond (at 48 kHz: 48 samples): the best
 * 10 ms rotation over the whole loop, refined at 1 ms. ViSQOL's own alignment takes it from there.
 * @param {Int16Array} reference one loop @param {Int16Array} received the window
 * @returns {{ offset: number, correlation: number }}  offset: the reference sample matching received[0]
 */
export function alignWithLoop(reference, received) {
  const coarse = bestRotation(envelope(reference, COARSE_HOP), envelope(received, COARSE_HOP),
    Array.from({ length: Math.floor(reference.length / COARSE_HOP) }, (_, i) => i));
  const ratio = COARSE_HOP / FINE_HOP;
  const around = Array.from({ length: 2 * ratio + 1 }, (_, i) => coarse.lag * ratio - ratio + i);
  const fine = bestRotation(envelope(reference, FINE_HOP), envelope(received, FINE_HOP), around);
  return { offset: (fine.lag * FINE_HOP) % reference.length, correlation: fine.correlation };
}

/**
 * `length` samples of the looping reference from `offset` on.
 * @param {Int16Array} reference @param {number} offset @param {number} length @returns {Int16Array}
 */
export function loopSlice(reference, offset, length) {
  const out = new Int16Array(length);
  for (let i = 0; i < length; i += 1) out[i] = reference[(offset + i) % reference.length];
  return out;
}

/** The share of a signal's 10 ms hops that are sound (SOUND_RMS). @param {Int16Array} samples */
export function soundShare(samples) {
  const hops = envelope(samples, COARSE_HOP);
  return hops.length ? hops.filter((rms) => rms >= SOUND_RMS).length / hops.length : 0;
}

/**
 * The windows to score of a recording: consecutive `windowS` spans of the measurement range [fromS, toS] on the
 * media clock, each whole inside the recording.
 * @param {{ recordingStartS: number, samples: number, rateHz: number, fromS: number, toS: number, windowS: number }} input
 *   recordingStartS: its first sample on the media clock
 * @returns {Array<{ startS: number, endS: number, fromSample: number, toSample: number }>}
 */
export function scoringWindows({ recordingStartS, samples, rateHz, fromS, toS, windowS }) {
  const windows = [];
  const first = Math.max(fromS, recordingStartS);
  const last = Math.min(toS, recordingStartS + samples / rateHz);
  for (let startS = first; startS + windowS <= last + 1e-9; startS += windowS) {
    const fromSample = Math.round((startS - recordingStartS) * rateHz);
    const toSample = fromSample + Math.round(windowS * rateHz);
    windows.push({ startS: round3(startS), endS: round3(startS + windowS), fromSample, toSample });
  }
  return windows;
}

/** @param {number} value */
const round3 = (value) => Number(value.toFixed(3));
/** @param {number|null} value */
const round2 = (value) => (value === null ? null : Number(value.toFixed(2)));

/**
 * Mean, p5, p50, p95 and count of the windows' MOS-LQO (the low percentile is what a listener remembers); null
 * without any score.
 * @param {Array<{ mosLqo: number|null }>} windows
 */
export function mosSpread(windows) {
  const { mean, median, p5, p95, n } = describe(windows.map((window) => window.mosLqo));
  return n ? { mean: round2(mean), p5: round2(p5), p50: round2(median), p95: round2(p95), windows: n } : null;
}

/**
 * Each timeline second's MOS-LQO: that of the scored window holding the second's middle, as `audio.mosLqo` of the
 * receiver's entry for that sender (timeline second t covers (t − 1, t]).
 * @template {{ t: number, peer: string, remote: string, audio?: object }} Entry
 * @param {Entry[]} timeline
 * @param {Array<{ peer: string, remote: string, windows: Array<{ startS: number, endS: number, mosLqo: number|null }> }>} streams
 * @returns {Entry[]}
 */
export function withMosPerSecond(timeline, streams) {
  if (!streams.length) return timeline;
  return timeline.map((entry) => {
    const stream = streams.find((candidate) => candidate.peer === entry.peer && candidate.remote === entry.remote);
    const middleS = entry.t - 0.5;
    const window = stream?.windows.find((scored) => scored.mosLqo !== null && middleS >= scored.startS && middleS < scored.endS);
    return window ? { ...entry, audio: { ...entry.audio, mosLqo: window.mosLqo } } : entry;
  });
}
