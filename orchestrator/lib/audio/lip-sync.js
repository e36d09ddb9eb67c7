// Lip sync's pure part: each tone onset a page heard (client-app/lip-sync.js) paired with the time the page showed
// the mark's frame (the frame reader's log, run/viewer-collector.js), the offset per mark, and per stream its median,
// spread, drift over the call and ITU-R BT.1359's verdict.
//
// Sign: audio onset − display of the mark's frame, positive when the sound comes after the picture (audio late).
// BT.1359 writes it the other way round (positive: sound before picture); its thresholds here are in our sign:
// detectable beyond 45 ms audio early (−45) or 125 ms audio late (+125), unacceptable beyond −90 / +185.
// A receiver's `seenMs` is what its page measured. It carries the skew of the sender's fake camera and microphone
// (Chromium's file-backed devices start and loop apart: 2-140 ms here, stepping by about a frame at the loop's seam), which
// the sender's page measures on its own capture of the same mark (`captureSkewMs`, audio reaching its audio graph −
// frame reaching the page). `offsetMs` = seenMs − (captureSkewMs − audioDelayMs): the source's own skew (the media's
// audioDelayMs) plus what the call did to audio against video (audio mouth-to-ear delay − video glass-to-glass delay),
// the page's common measuring biases cancelled.
import { MARK_INTERVAL_S, MARK_PARAMETERS, markFrames } from './lip-sync-marks.js';
import { describe } from '../stats/statistics.js';

export const BT1359_MS = Object.freeze({
  detectable: { audioEarly: -45, audioLate: 125 }, acceptable: { audioEarly: -90, audioLate: 185 },
});
/** A mark's frame the page did not read (skipped, or presented unread) is placed from a read frame at most this many frames away. */
const MAX_ESTIMATE_FRAMES = 3;
/** Drift needs at least this many marks over at least this long (a few ms of scatter over seconds is no drift). */
const MIN_DRIFT_MARKS = 3;
const MIN_DRIFT_SPAN_S = 20;

/**
 * @typedef {{ peer: string, source: string, epochMs: number }} Onset  a tone onset `peer` heard in `source`'s audio
 *   ('local': its own microphone), on the shared clock
 * @typedef {{ atS: number, offsetMs: number, estimated: boolean }} MarkOffset  atS: when the mark's frame was shown (a
 *   sender's own capture: reached its page), on the media clock; estimated: that frame was not read, its display time is
 *   placed from a neighbour's
 * @typedef {{ atS: number, offsetMs: number|null, seenMs: number, captureSkewMs: number|null, estimated: boolean }} ReceivedMark
 *   seenMs: as the receiving page measured it; captureSkewMs: the sender's own capture of that mark (its latest one
 *   shown at most a mark interval before); offsetMs: corrected for the devices' skew (see above), null without a capture
 * @typedef {{ n: number, medianMs: number|null, meanMs: number|null, p95AbsMs: number|null, maxAbsMs: number|null,
 *   driftMsPerMin: number|null, verdict: 'undetectable'|'detectable'|'unacceptable'|null }} OffsetSummary  over the
 *   measurement window's marks; verdict: the median against BT1359_MS
 * @typedef {{ peer: string, remote: string, onsets: number, droppedOnsets: number, unpaired: number, expectedMarks: number,
 *   marks: MarkOffset[], summary: OffsetSummary }} CaptureStream  a peer's own capture (remote 'local': the camera's
 *   frames as they reach its page against its microphone's tones); onsets: heard and kept; droppedOnsets: by the page or
 *   the collector's cap; unpaired: onsets without a mark's frame shown within half a mark interval; expectedMarks: in
 *   the measurement window
 * @typedef {Omit<CaptureStream, 'marks'> & { marks: ReceivedMark[], seen: OffsetSummary }} LipSyncStream  a received
 *   stream: summary over offsetMs, seen over seenMs
 * @typedef {{ marks: typeof MARK_PARAMETERS, audioDelayMs: number, thresholdsMs: typeof BT1359_MS,
 *   streams: LipSyncStream[], capture: CaptureStream[], overall: OffsetSummary }} LipSyncResult  result.json `lipSync`;
 *   overall: every received stream's corrected marks together
 */

/**
 * @param {object} input
 * @param {Onset[]} input.onsets
 * @param {import('../viewer/viewer.js').FrameBatch[]} input.batches
 * @param {Record<string, { fps: number, frames?: number }>} input.media  each sending peer's video
 * @param {number} input.mediaStartEpochMs @param {number} input.warmupS @param {number} input.durationS
 * @param {number} input.audioDelayMs  the sources' audio delay against their video (scenario lipSync.audioDelayMs)
 * @param {Record<string, number>} [input.droppedOnsets]  per `peer\nsource`
 * @returns {LipSyncResult}
 */
export function lipSyncSection({ onsets, batches, media, mediaStartEpochMs, warmupS, durationS, audioDelayMs, droppedOnsets = {} }) {
  const frames = frameTimelines(batches);
  const keys = [...new Set(onsets.map(({ peer, source }) => `${peer}\n${source}`))].sort();
  const expectedMarks = Math.max(0, Math.floor((durationS - warmupS) / MARK_INTERVAL_S));
  const all = keys.map((key) => {
    const [peer, remote] = key.split('\n');
    const sender = media[remote === 'local' ? peer : remote];
    const heard = onsets.filter((onset) => onset.peer === peer && onset.source === remote).map((onset) => onset.epochMs);
    const marks = sender?.frames ? pairOnsets(heard, frames.get(key) ?? [], sender.fps, sender.frames) : [];
    const inMs = (/** @type {number} */ epochMs) => Math.round((epochMs - mediaStartEpochMs) / 100) / 10;
    const offsets = marks.map(({ displayMs, offsetMs, estimated }) => ({ atS: inMs(displayMs), offsetMs, estimated }));
    const windowed = offsets.filter(({ atS }) => atS >= warmupS && atS <= durationS);
    return {
      peer, remote, onsets: heard.length, droppedOnsets: droppedOnsets[key] ?? 0, unpaired: heard.length - marks.length, expectedMarks,
      marks: offsets, summary: summarizeOffsets(windowed),
    };
  });
  const capture = all.filter(({ remote }) => remote === 'local');
  const inWindow = (/** @type {{ atS: number }} */ { atS }) => atS >= warmupS && atS <= durationS;
  const streams = all.filter(({ remote }) => remote !== 'local').map((stream) => {
    const marks = correctedMarks(stream.marks, capture.find(({ peer }) => peer === stream.remote)?.marks ?? [], audioDelayMs);
    return { ...stream, marks, summary: summarizeOffsets(corrected(marks.filter(inWindow))), seen: stream.summary };
  });
  const overall = summarizeOffsets(corrected(streams.flatMap(({ marks }) => marks.filter(inWindow))));
  return { marks: MARK_PARAMETERS, audioDelayMs, thresholdsMs: BT1359_MS, streams, capture, overall };
}

/**
 * A received stream's marks with the sender's capture skew of each (its latest capture mark at most a mark interval
 * before) taken out, the media's own audio delay kept.
 * @param {MarkOffset[]} received @param {MarkOffset[]} captured  by time @param {number} audioDelayMs @returns {ReceivedMark[]}
 */
export function correctedMarks(received, captured, audioDelayMs) {
  return received.map(({ atS, offsetMs: seenMs, estimated }) => {
    const before = captured.filter((mark) => mark.atS <= atS && atS - mark.atS < MARK_INTERVAL_S).at(-1);
    const captureSkewMs = before?.offsetMs ?? null;
    const offsetMs = captureSkewMs === null ? null : Math.round((seenMs - captureSkewMs + audioDelayMs) * 10) / 10;
    return { atS, offsetMs, seenMs, captureSkewMs, estimated };
  });
}

/** The marks with a corrected offset. @param {ReceivedMark[]} marks @returns {MarkOffset[]} */
const corrected = (marks) => marks.flatMap(({ atS, offsetMs, estimated }) => (offsetMs === null ? [] : [{ atS, offsetMs, estimated }]));

/**
 * Each page's frames per source, by display time.
 * @param {import('../viewer/viewer.js').FrameBatch[]} batches @returns {Map<string, Array<{ epochMs: number, code: number }>>}
 */
function frameTimelines(batches) {
  /** @type {Map<string, Array<{ epochMs: number, code: number }>>} */
  const byKey = new Map();
  for (const { peer, source, codes, epochMs } of batches) {
    const key = `${peer}\n${source}`;
    const list = byKey.get(key) ?? [];
    byKey.set(key, list);
    codes.forEach((code, i) => { if (code >= 0) list.push({ epochMs: epochMs[i], code }); });
  }
  for (const list of byKey.values()) list.sort((a, b) => a.epochMs - b.epochMs);
  return byKey;
}

/**
 * Each onset paired with the display of the nearest mark's frame within half a mark interval (offsets beyond that
 * alias onto the next mark); an onset without one is left out.
 * @param {number[]} onsetsMs @param {Array<{ epochMs: number, code: number }>} frames  readable, by display time
 * @param {number} fps @param {number} loopFrames
 * @returns {Array<{ displayMs: number, offsetMs: number, estimated: boolean }>}
 */
export function pairOnsets(onsetsMs, frames, fps, loopFrames) {
  const marks = markFrames(fps, loopFrames).map(({ code }) => code);
  const halfMs = (MARK_INTERVAL_S * 1000) / 2;
  const paired = [];
  for (const onsetMs of onsetsMs) {
    /** @type {{ displayMs: number, frames: number }|null} */
    let best = null;
    for (let i = firstAtOrAfter(frames, onsetMs - halfMs); i < frames.length && frames[i].epochMs <= onsetMs + halfMs; i += 1) {
      for (const mark of marks) {
        const away = frames[i].code - mark;
        if (Math.abs(away) > MAX_ESTIMATE_FRAMES) continue;
        const displayMs = frames[i].epochMs - (away * 1000) / fps;
        const better = !best || Math.abs(away) < best.frames
          || (Math.abs(away) === best.frames && Math.abs(onsetMs - displayMs) < Math.abs(onsetMs - best.displayMs));
        if (better && Math.abs(onsetMs - displayMs) <= halfMs) best = { displayMs, frames: Math.abs(away) };
      }
    }
    if (!best) continue;
    paired.push({ displayMs: best.displayMs, offsetMs: Math.round((onsetMs - best.displayMs) * 10) / 10, estimated: best.frames > 0 });
  }
  return paired;
}

/** @param {Array<{ epochMs: number }>} sorted @param {number} epochMs */
function firstAtOrAfter(sorted, epochMs) {
  let [low, high] = [0, sorted.length];
  while (low < high) {
    const middle = (low + high) >> 1;
    if (sorted[middle].epochMs < epochMs) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * @param {Array<{ atS: number, offsetMs: number }>} marks @returns {OffsetSummary}
 */
export function summarizeOffsets(marks) {
  const offsets = describe(marks.map(({ offsetMs }) => offsetMs));
  const absolute = describe(marks.map(({ offsetMs }) => Math.abs(offsetMs)));
  const round = (/** @type {number|null} */ value) => (value === null ? null : Math.round(value * 10) / 10);
  return {
    n: offsets.n, medianMs: round(offsets.median), meanMs: round(offsets.mean), p95AbsMs: round(absolute.p95),
    maxAbsMs: round(marks.length ? Math.max(...marks.map(({ offsetMs }) => Math.abs(offsetMs))) : null),
    driftMsPerMin: round(driftMsPerMin(marks)), verdict: verdictOf(offsets.median),
  };
}

/**
 * The least-squares slope of the offsets over the call, in ms per minute; null with too few marks or too short a span.
 * @param {Array<{ atS: number, offsetMs: number }>} marks
 */
export function driftMsPerMin(marks) {
  if (marks.length < MIN_DRIFT_MARKS) return null;
  const times = marks.map(({ atS }) => atS);
  if (Math.max(...times) - Math.min(...times) < MIN_DRIFT_SPAN_S) return null;
  const meanT = times.reduce((sum, t) => sum + t, 0) / marks.length;
  const meanY = marks.reduce((sum, { offsetMs }) => sum + offsetMs, 0) / marks.length;
  let covariance = 0;
  let variance = 0;
  for (const { atS, offsetMs } of marks) {
    covariance += (atS - meanT) * (offsetMs - meanY);
    variance += (atS - meanT) ** 2;
  }
  return (covariance / variance) * 60;
}

/** @param {number|null} offsetMs @returns {OffsetSummary['verdict']} */
export function verdictOf(offsetMs) {
  if (offsetMs === null) return null;
  /** @param {{ audioEarly: number, audioLate: number }} range */
  const within = (range) => offsetMs >= range.audioEarly && offsetMs <= range.audioLate;
  if (within(BT1359_MS.detectable)) return 'undetectable';
  return within(BT1359_MS.acceptable) ? 'detectable' : 'unacceptable';
}

/**
 * The timeline with each received stream's mark offsets on the second they were shown in (an entry's second t covers
 * (t − 1, t]), as `audio.lipSyncOffsetMs`, so the summary, suites and history read them like any per-second metric.
 * @template {{ t: number, peer: string, remote: string, audio?: Record<string, unknown> }} Entry
 * @param {Entry[]} timeline @param {LipSyncStream[]} streams @returns {Entry[]}
 */
export function withLipSyncPerSecond(timeline, streams) {
  if (!streams.length) return timeline;
  return timeline.map((entry) => {
    const stream = streams.find((candidate) => candidate.peer === entry.peer && candidate.remote === entry.remote);
    const marks = corrected(stream?.marks.filter(({ atS }) => atS > entry.t - 1 && atS <= entry.t) ?? []);
    if (!marks.length) return entry;
    const offsetMs = Math.round((marks.reduce((sum, mark) => sum + mark.offsetMs, 0) / marks.length) * 10) / 10;
    return { ...entry, audio: { ...entry.audio, lipSyncOffsetMs: offsetMs } };
  });
}
