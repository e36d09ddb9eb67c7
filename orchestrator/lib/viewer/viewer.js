// What the viewer saw (pure): from the frames each page presented (client-app/frame-reader.js: frame code and
// display time on the shared clock, per video) and the frames its camera delivered, to glass-to-glass delay, frames
// shown and skipped, freezes and the frame rate as the eye sees it, per receiving peer, remote and second; plus the
// picture-quality scores of the captured frames (run/picture-quality.js) per second.
import { describe, percentile } from '../stats/statistics.js';

/**
 * Whether VMAF could be scored, and by what (run/picture-quality.js finds it).
 * @typedef {{ available: boolean, reason: string, ffmpeg?: string, version?: string, model?: string }} VmafAvailability
 *   ffmpeg, version, model: which binary scored (or would have) and with which libvmaf model
 */

/** The W3C webrtc-stats freeze: a frame on screen for at least max(3 × avg, avg + 150 ms), avg over the last 30. */
export const FREEZE_AVERAGE_FRAMES = 30;
export const FREEZE_MIN_EXTRA_MS = 150;

/**
 * @typedef {{ peer: string, source: string, codes: number[], epochMs: number[], readMs: number }} FrameBatch
 *   what one page saw since its last drain: source 'local' (the frames its camera delivered, when they reached the
 *   page) or a remote's name (the frames its video presented, when they were to be displayed); codes -1 where unreadable
 * @typedef {{ fps: number, frames?: number, frameCode?: boolean }} SourceMedia  a sender's video: rate, loop length,
 *   whether its frames carry the code (media without these fields carry none)
 * @typedef {{ peer: string, remote: string, epochMs: number, code: number, width: number, height: number,
 *   psnrDb: number|null, ssim: number|null, vmaf?: number|null }} QualityScore  one captured frame scored against its source
 *   frame; vmaf absent or null where no libvmaf scored it
 * @typedef {{ epochMs: number, code: number|null }} Picture  a new picture on screen (repeats of a code merged)
 */

/**
 * Pictures from presented frames: consecutive frames with the same readable code are one picture, shown from the
 * first of them; an unreadable frame is a picture of its own.
 * @param {number[]} codes @param {number[]} epochMs in display order
 * @returns {Picture[]}
 */
export function pictures(codes, epochMs) {
  /** @type {Picture[]} */
  const shown = [];
  for (let i = 0; i < codes.length; i += 1) {
    const code = codes[i] >= 0 ? codes[i] : null;
    if (code !== null && shown.length && shown.at(-1).code === code) continue;
    shown.push({ epochMs: epochMs[i], code });
  }
  return shown;
}

/**
 * Freezes by the W3C definition over pictures' display times: picture i froze when it stayed on screen
 * (until picture i + 1) at least max(3 × avg, avg + FREEZE_MIN_EXTRA_MS), avg the mean time on screen of the up
 * to FREEZE_AVERAGE_FRAMES pictures before it (the first picture has no average and never counts). The last
 * picture has no end and never counts.
 * @param {number[]} epochMs ascending
 * @returns {Array<{ startEpochMs: number, endEpochMs: number, durationMs: number }>}
 */
export function findFreezes(epochMs) {
  const found = [];
  /** @type {number[]} */
  const recent = [];
  let recentSum = 0;
  for (let i = 0; i + 1 < epochMs.length; i += 1) {
    const durationMs = epochMs[i + 1] - epochMs[i];
    if (recent.length) {
      const averageMs = recentSum / recent.length;
      if (durationMs >= Math.max(3 * averageMs, averageMs + FREEZE_MIN_EXTRA_MS)) {
        found.push({ startEpochMs: epochMs[i], endEpochMs: epochMs[i + 1], durationMs });
      }
    }
    recent.push(durationMs);
    recentSum += durationMs;
    if (recent.length > FREEZE_AVERAGE_FRAMES) recentSum -= recent.shift();
  }
  return found;
}

/**
 * Matches each received picture to the sender's showing of the same source frame: the latest one at or before it,
 * within half the source's loop (the code repeats every loop). Returns the delay per picture (null: no match).
 * @param {Picture[]} received @param {Picture[]} sent the sender's camera frames ('local')
 * @param {number} loopMs
 * @returns {Array<number|null>}
 */
export function matchDelays(received, sent, loopMs) {
  /** @type {Map<number, number[]>} ascending display times per code */
  const byCode = new Map();
  for (const { code, epochMs } of sent) {
    if (code === null) continue;
    if (!byCode.has(code)) byCode.set(code, []);
    byCode.get(code).push(epochMs);
  }
  for (const times of byCode.values()) times.sort((a, b) => a - b);
  return received.map(({ code, epochMs }) => {
    const times = code === null ? undefined : byCode.get(code);
    if (!times) return null;
    let lo = 0;
    let hi = times.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (times[mid] <= epochMs) { found = mid; lo = mid + 1; } else hi = mid - 1;
    }
    const delayMs = found < 0 ? null : epochMs - times[found];
    return delayMs !== null && delayMs < loopMs / 2 ? delayMs : null;
  });
}

/**
 * Source frames that never reached the screen between two consecutive pictures: the code advance minus one, the
 * whole loops in between taken from the display gap (a freeze longer than the loop).
 * @param {Picture} a @param {Picture} b @param {{ fps: number, frames: number }} media
 */
export function skippedBetween(a, b, media) {
  if (a.code === null || b.code === null) return null;
  const advance = codeAdvance(a.code, b.code, media.frames);
  const gapFrames = ((b.epochMs - a.epochMs) / 1000) * media.fps;
  const loops = Math.max(0, Math.round((gapFrames - advance) / media.frames));
  return Math.max(0, advance + loops * media.frames - 1);
}

/**
 * How many frames the source advanced from code `from` to code `to` on a source that loops every `loopFrames`
 * frames (codes 0 … loopFrames − 1; media/y4m.js refuses a video too long for the code): 1 for the next frame, 0 for
 * the same one.
 * @param {number} from @param {number} to @param {number} loopFrames
 */
export function codeAdvance(from, to, loopFrames) {
  return (((to - from) % loopFrames) + loopFrames) % loopFrames;
}

const round = (value, digits = 1) => (value === null || !Number.isFinite(value) ? null : Number(value.toFixed(digits)));
const sum = (values) => values.reduce((total, value) => total + value, 0);

/**
 * Everything result.json holds about what the viewers saw.
 * @param {object} input
 * @param {FrameBatch[]} input.batches  in drain order
 * @param {Record<string, SourceMedia>} input.media  each sending peer's video
 * @param {number} input.mediaStartEpochMs
 * @param {number} input.durationS
 * @param {number} input.warmupS
 * @param {QualityScore[]} [input.scores]
 * @returns {{ perSecond: Array<{ t: number, peer: string, remote: string, video: Record<string, number|null> }>,
 *   freezes: Array<{ peer: string, remote: string, atS: number, durationMs: number }>,
 *   quality: Array<Omit<QualityScore, 'epochMs'> & { atS: number }>,
 *   readCost: Record<string, { framesRead: number, readMsPerFrame: number|null, cpuPct: number }>,
 *   streams: Record<string, ReturnType<typeof streamSummary>>,
 *   overall: ReturnType<typeof overallSummary> }}
 *   streams are keyed `${remote}->${peer}` (the route's name), over the measurement window
 */
export function viewerSection({ batches, media, mediaStartEpochMs, durationS, warmupS, scores = [] }) {
  const secondOf = (epochMs) => Math.ceil((epochMs - mediaStartEpochMs) / 1000);
  const atS = (epochMs) => round((epochMs - mediaStartEpochMs) / 1000, 3);
  const inRun = (t) => t >= 1 && t <= durationS;
  const inWindow = (t) => t > warmupS && t <= durationS;
  /** @type {Map<string, { peer: string, source: string, codes: number[], epochMs: number[] }>} */
  const logs = new Map();
  /** @type {Map<string, { readMs: number, frames: number }>} */
  const cost = new Map();
  for (const batch of batches) {
    const key = `${batch.peer}\n${batch.source}`;
    if (!logs.has(key)) logs.set(key, { peer: batch.peer, source: batch.source, codes: [], epochMs: [] });
    const log = logs.get(key);
    log.codes.push(...batch.codes);
    log.epochMs.push(...batch.epochMs);
    const spent = cost.get(batch.peer) ?? { readMs: 0, frames: 0 };
    cost.set(batch.peer, { readMs: spent.readMs + batch.readMs, frames: spent.frames + batch.codes.length });
  }
  const localOf = (peer) => logs.get(`${peer}\nlocal`);

  const perSecond = [];
  const freezes = [];
  /** @type {Record<string, ReturnType<typeof streamSummary>>} */
  const streams = {};
  const windowDelays = [];
  /** @type {QualityScore[]} */
  const windowScores = [];
  for (const log of [...logs.values()].filter(({ source }) => source !== 'local').sort(byPeerSource)) {
    const { peer, source: remote } = log;
    const sender = media[remote];
    const order = log.epochMs.map((_, i) => i).sort((a, b) => log.epochMs[a] - log.epochMs[b]);
    const codes = order.map((i) => log.codes[i]);
    const times = order.map((i) => log.epochMs[i]);
    const shown = pictures(codes, times);
    const coded = Boolean(sender?.frameCode && sender.frames > 0);
    const local = localOf(remote);
    const loopMs = coded ? (sender.frames / sender.fps) * 1000 : 0;
    const delays = coded && local ? matchDelays(shown, pictures(local.codes, local.epochMs), loopMs) : shown.map(() => null);
    const streamFreezes = findFreezes(shown.map((picture) => picture.epochMs));

    /** @type {Map<number, { frames: number, pictures: number, skipped: number|null, delays: number[], freezes: number,
     *   freezeMs: number }>} */
    const seconds = new Map();
    const second = (t) => {
      if (!seconds.has(t)) seconds.set(t, { frames: 0, pictures: 0, skipped: coded ? 0 : null, delays: [], freezes: 0, freezeMs: 0 });
      return seconds.get(t);
    };
    for (const epochMs of times) second(secondOf(epochMs)).frames += 1;
    shown.forEach((picture, i) => {
      const bucket = second(secondOf(picture.epochMs));
      bucket.pictures += 1;
      if (delays[i] !== null) bucket.delays.push(delays[i]);
      const skipped = coded && i > 0 ? skippedBetween(shown[i - 1], picture, { fps: sender.fps, frames: sender.frames }) : null;
      if (skipped !== null) bucket.skipped += skipped;
    });
    for (const freeze of streamFreezes) {
      // A freeze counts in the second it ends, as getStats counts it: when the next frame arrives.
      const bucket = second(secondOf(freeze.endEpochMs));
      bucket.freezes += 1;
      bucket.freezeMs += freeze.durationMs;
      const t = secondOf(freeze.endEpochMs);
      if (inRun(t)) freezes.push({ peer, remote, atS: atS(freeze.startEpochMs), durationMs: round(freeze.durationMs) });
    }
    for (const [t, bucket] of [...seconds].filter(([t]) => inRun(t)).sort((a, b) => a[0] - b[0])) {
      const sorted = [...bucket.delays].sort((a, b) => a - b);
      perSecond.push({
        t, peer, remote,
        video: {
          glassToGlassMs: round(percentile(sorted, 50)),
          glassToGlassMeanMs: sorted.length ? round(sum(sorted) / sorted.length) : null,
          glassToGlassP95Ms: round(percentile(sorted, 95)),
          glassToGlassMaxMs: round(sorted.at(-1) ?? null),
          framesShown: bucket.frames,
          framesSkipped: bucket.skipped,
          shownFps: bucket.pictures,
          viewerFreezes: bucket.freezes,
          viewerFreezeMs: round(bucket.freezeMs),
        },
      });
    }
    const windowed = (epochMs) => inWindow(secondOf(epochMs));
    const streamDelays = delays.filter((delay, i) => delay !== null && windowed(shown[i].epochMs));
    for (const delay of streamDelays) windowDelays.push(delay); // a spread of a long call's frames would overflow the stack
    const windowSeconds = [...seconds].filter(([t]) => inWindow(t)).map(([, bucket]) => bucket);
    const readable = (list) => list.some((code) => code >= 0);
    // Why this stream has no glass-to-glass delay, said rather than left as a bare null.
    const unavailable = !coded ? `no frame code in ${remote}'s media`
      : !readable(codes) ? `${peer} read no frame code from the ${codes.length} frames it presented`
        : !local || !readable(local.codes) ? `${remote} read no frame code from its own camera's frames`
          : delays.every((delay) => delay === null) ? `no frame ${peer} presented matched a camera frame of ${remote}` : null;
    const streamScores = scores.filter((score) => score.peer === peer && score.remote === remote && windowed(score.epochMs));
    windowScores.push(...streamScores);
    streams[`${remote}->${peer}`] = streamSummary({
      delays: streamDelays,
      freezes: streamFreezes.filter((freeze) => windowed(freeze.endEpochMs)),
      framesShown: sum(windowSeconds.map((bucket) => bucket.frames)),
      framesSkipped: coded ? sum(windowSeconds.map((bucket) => bucket.skipped)) : null,
      unreadable: codes.filter((code, i) => code < 0 && windowed(times[i])).length,
      scores: streamScores,
      frameCode: coded,
      unavailable,
    });
  }

  const quality = scores.filter((score) => inRun(secondOf(score.epochMs)))
    .map(({ epochMs, ...score }) => ({ atS: atS(epochMs), ...score }))
    .sort((a, b) => a.atS - b.atS || a.peer.localeCompare(b.peer) || a.remote.localeCompare(b.remote));
  addQualityPerSecond(perSecond, quality);

  const readCost = Object.fromEntries([...cost].sort(([a], [b]) => a.localeCompare(b)).map(([peer, { readMs, frames }]) => [peer, {
    framesRead: frames,
    readMsPerFrame: frames ? round(readMs / frames, 3) : null,
    // Of one core, over the call: the share of the page's time spent reading codes.
    cpuPct: round((100 * readMs) / (durationS * 1000), 2),
  }]));
  return { perSecond, freezes, quality, readCost, streams, overall: overallSummary(Object.values(streams), windowDelays, windowScores) };
}

/** Score fields of a QualityScore and their decimals. */
const SCORES = /** @type {const} */ ({ psnrDb: 2, ssim: 4, vmaf: 2 });
/** @param {QualityScore[]} scores @param {keyof typeof SCORES} field @returns {number[]} */
const valuesOf = (scores, field) => scores.map((score) => score[field]).filter((value) => typeof value === 'number');
const meanOf = (values, decimals) => (values.length ? round(sum(values) / values.length, decimals) : null);

/** Each second's mean PSNR, SSIM and VMAF over its captures, into the matching per-second rows. */
function addQualityPerSecond(perSecond, quality) {
  const rows = new Map(perSecond.map((row) => [`${row.t}\n${row.peer}\n${row.remote}`, row]));
  /** @type {Map<string, QualityScore[]>} */
  const bySecond = new Map();
  for (const score of quality) {
    const key = `${Math.ceil(score.atS)}\n${score.peer}\n${score.remote}`;
    if (!bySecond.has(key)) bySecond.set(key, []);
    bySecond.get(key).push(score);
  }
  for (const [key, scores] of bySecond) {
    const row = rows.get(key);
    if (!row) continue;
    for (const field of /** @type {Array<keyof typeof SCORES>} */ (Object.keys(SCORES))) {
      row.video[field] = meanOf(valuesOf(scores, field), SCORES[field]);
    }
  }
}

/**
 * Mean, p5, p50 and p95 of the captures' VMAF (the low percentile is the one a viewer remembers); null without scores.
 * @param {QualityScore[]} scores
 */
function vmafSpread(scores) {
  const sorted = valuesOf(scores, 'vmaf').sort((a, b) => a - b);
  if (!sorted.length) return null;
  const at = (p) => round(percentile(sorted, p), 2);
  return { mean: meanOf(sorted, 2), p5: at(5), p50: at(50), p95: at(95) };
}

/**
 * One received stream over the measurement window.
 * @param {{ delays: number[], freezes: Array<{ durationMs: number }>, framesShown: number, framesSkipped: number|null,
 *   unreadable: number, scores: QualityScore[], frameCode: boolean, unavailable: string|null }} input
 *   unavailable: why the run measured no glass-to-glass delay on this stream at all (null: it did)
 */
function streamSummary({ delays, freezes, framesShown, framesSkipped, unreadable, scores, frameCode, unavailable }) {
  const sorted = [...delays].sort((a, b) => a - b);
  return {
    frameCode,
    unavailable,
    glassToGlassMs: { ...describe(sorted), max: sorted.at(-1) ?? null },
    framesShown,
    framesSkipped,
    unreadableFrames: unreadable,
    freezes: { count: freezes.length, totalMs: round(sum(freezes.map((freeze) => freeze.durationMs))) },
    quality: {
      captures: scores.length,
      psnrDb: meanOf(valuesOf(scores, 'psnrDb'), 2),
      ssim: meanOf(valuesOf(scores, 'ssim'), 4),
      vmaf: vmafSpread(scores),
    },
  };
}

/**
 * Every stream together: glass-to-glass over every matched frame, freezes summed, quality over every capture.
 * @param {Array<ReturnType<typeof streamSummary>>} streams @param {number[]} delays @param {QualityScore[]} scores
 */
function overallSummary(streams, delays, scores) {
  const sorted = [...delays].sort((a, b) => a - b);
  const weighted = (field) => {
    const scored = streams.filter((stream) => stream.quality[field] !== null);
    const captures = sum(scored.map((stream) => stream.quality.captures));
    return captures ? sum(scored.map((stream) => stream.quality[field] * stream.quality.captures)) / captures : null;
  };
  return {
    glassToGlassMs: { ...describe(sorted), max: sorted.at(-1) ?? null },
    freezes: {
      count: sum(streams.map((stream) => stream.freezes.count)),
      totalMs: round(sum(streams.map((stream) => stream.freezes.totalMs))),
    },
    quality: { psnrDb: round(weighted('psnrDb'), 2), ssim: round(weighted('ssim'), 4), vmaf: vmafSpread(scores) },
  };
}

const byPeerSource = (a, b) => a.peer.localeCompare(b.peer) || a.source.localeCompare(b.source);

/**
 * The decoder's own freeze count and time (getStats freezeCount, totalFreezesDuration) per stream over the window,
 * beside what the viewer saw: the cross-check.
 * @param {ReturnType<typeof viewerSection>['streams']} streams
 * @param {Array<{ t: number, peer: string, remote: string, video?: Record<string, unknown> }>} timeline
 * @param {[number, number]} windowS
 */
export function withGetStatsFreezes(streams, timeline, [fromS, toS]) {
  return Object.fromEntries(Object.entries(streams).map(([key, stream]) => {
    const [remote, peer] = key.split('->');
    const mine = timeline.filter((entry) => entry.peer === peer && entry.remote === remote && entry.t > fromS && entry.t <= toS);
    // A browser without the fields gives null, not 0: no count is not a count of none.
    const total = (field) => {
      const values = mine.map((entry) => entry.video?.[field]).filter((value) => typeof value === 'number' && Number.isFinite(value));
      return values.length ? sum(values) : null;
    };
    return [key, { ...stream, getStatsFreezes: { count: total('freezeCount'), totalMs: round(total('freezeDurationMs')) } }];
  }));
}

/**
 * Adds the per-second viewer values into the timeline entries of the same second, peer and remote (their `video`
 * object); a second without a stats sample gets none.
 * @template {{ t: number, peer: string, remote: string, video?: object }} T
 * @param {T[]} timeline @param {ReturnType<typeof viewerSection>['perSecond']} perSecond
 * @returns {T[]}
 */
export function withViewer(timeline, perSecond) {
  const rows = new Map(perSecond.map((row) => [`${row.t}\n${row.peer}\n${row.remote}`, row.video]));
  return timeline.map((entry) => {
    const video = rows.get(`${entry.t}\n${entry.peer}\n${entry.remote}`);
    return video ? { ...entry, video: { ...entry.video, ...video } } : entry;
  });
}
