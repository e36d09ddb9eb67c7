// What the viewer saw (pure): from the frames each page presented (client-app/frame-reader.js: frame code and
// display time on the shared clock, per video) and the frames its camera delivered, to glass-to-glass delay, frames
// shown and skipped, freezes and the frame rate as the eye sees it, per receiving peer, remote and second; plus the
// picture-quality scores of the captured frames (run/picture-quality.js) per second.
import { percentile } from '../stats/statistics.js';
import { addQualityPerSecond, overallSummary, round, streamSummary, sum } from './viewer-summary.js';
import { SCREEN_SUFFIX, sourceMedia } from '../media/screen-share.js';

/**
 * Whether VMAF could be scored, and by what (run/picture-quality.js finds it).
 * @typedef {{ available: boolean, reason: string, ffmpeg?: string, version?: string, model?: string }} VmafAvailability
 *   ffmpeg, version, model: which binary scored (or would have) and with which libvmaf model
 */

/** A frame's code where the page's callback came once for several presented frames: client-app/frame-code.js's
 * UNREAD_CODE (lib/ imports nothing from the page; test/unit/viewer.test.js checks they agree). */
export const UNREAD_CODE = -2;

/** The W3C webrtc-stats freeze: a frame on screen for at least max(3 × avg, avg + 150 ms), avg over the last 30. */
export const FREEZE_AVERAGE_FRAMES = 30;
export const FREEZE_MIN_EXTRA_MS = 150;

/**
 * @typedef {{ peer: string, source: string, codes: number[], epochMs: number[], readMs: number }} FrameBatch
 *   what one page saw since its last drain: source 'local' (the frames its camera delivered, when they reached the
 *   page) or a remote's name (the frames its video presented, when they were to be displayed); codes -1 where unreadable,
 *   UNREAD_CODE for a frame presented between two of the page's callbacks (shown, a picture of its own, never read)
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
    if (code !== null && shown.at(-1)?.code === code) continue;
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
    if (recent.length > FREEZE_AVERAGE_FRAMES) recentSum -= recent.shift() ?? 0;
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
    const times = byCode.get(code) ?? [];
    byCode.set(code, times);
    times.push(epochMs);
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
  // The loops that best fit the display gap, one fewer when the code stepped back (a picture read after a newer one,
  // 33 ms apart, is no skip of 298 frames): a step back counts none.
  const loops = Math.round((gapFrames - advance) / media.frames);
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

/**
 * @typedef {{ peer: string, source: string, codes: number[], epochMs: number[] }} FrameLog  every frame one page
 *   saw of one source, in drain order
 * @typedef {{ frames: number, pictures: number, skipped: number|null, delays: number[], freezes: number,
 *   freezeMs: number }} SecondBucket  one second of one stream
 * @typedef {{ t: number, peer: string, remote: string, video: Record<string, number|null> }} ViewerSecond
 * @typedef {{ peer: string, remote: string, atS: number|null, durationMs: number|null }} ViewerFreeze
 * @typedef {object} ViewerClock  the call's seconds: which a display time falls in, and which count
 * @property {(epochMs: number) => number} secondOf  1 for the call's first second
 * @property {(epochMs: number) => number|null} atS  seconds since media start, to the millisecond
 * @property {(t: number) => boolean} inRun
 * @property {(t: number) => boolean} inWindow  the measurement window (after the warm-up)
 */

/**
 * Everything result.json holds about what the viewers saw.
 * @param {object} input
 * @param {FrameBatch[]} input.batches  in drain order
 * @param {Record<string, SourceMedia & { screen?: SourceMedia }>} input.media  each sending peer's video (and screen)
 * @param {number} input.mediaStartEpochMs
 * @param {number} input.durationS
 * @param {number} input.warmupS
 * @param {QualityScore[]} [input.scores]
 * @returns {{ perSecond: ViewerSecond[], freezes: ViewerFreeze[],
 *   quality: Array<Omit<QualityScore, 'epochMs'> & { atS: number|null }>,
 *   readCost: Record<string, { framesRead: number, readMsPerFrame: number|null, cpuPct: number|null }>,
 *   streams: Record<string, ReturnType<typeof streamSummary>>,
 *   overall: ReturnType<typeof overallSummary> }}
 *   streams are keyed `${remote}->${peer}` (the route's name), over the measurement window; a shared screen (source
 *   `<remote>:screen`) has its per-second rows and scores only: its seconds go to the timeline's `screen` (withViewer)
 */
export function viewerSection({ batches, media, mediaStartEpochMs, durationS, warmupS, scores = [] }) {
  /** @type {ViewerClock} */
  const clock = {
    secondOf: (epochMs) => Math.ceil((epochMs - mediaStartEpochMs) / 1000),
    atS: (epochMs) => round((epochMs - mediaStartEpochMs) / 1000, 3),
    inRun: (t) => t >= 1 && t <= durationS,
    inWindow: (t) => t > warmupS && t <= durationS,
  };
  const { logs, cost } = frameLogs(batches);
  /** @type {ViewerSecond[]} */
  const perSecond = [];
  /** @type {ViewerFreeze[]} */
  const freezes = [];
  /** @type {Record<string, ReturnType<typeof streamSummary>>} */
  const streams = {};
  /** @type {number[]} */
  const windowDelays = [];
  /** @type {QualityScore[]} */
  const windowScores = [];
  for (const log of [...logs.values()].filter(({ source }) => source !== 'local').sort(byPeerSource)) {
    const stream = viewedStream(log, sourceMedia(media, log.source), logs.get(`${log.source}\nlocal`), scores, clock);
    // One by one: a spread of a long call's frames would overflow the stack.
    for (const row of stream.perSecond) perSecond.push(row);
    // A screen's slides stand still by design: its frames are not the camera's streams, freezes or delays.
    if (log.source.endsWith(SCREEN_SUFFIX)) continue;
    for (const freeze of stream.freezes) freezes.push(freeze);
    for (const delay of stream.summary.delays) windowDelays.push(delay);
    for (const score of stream.summary.scores) windowScores.push(score);
    streams[`${log.source}->${log.peer}`] = streamSummary(stream.summary);
  }

  const quality = scores.filter((score) => clock.inRun(clock.secondOf(score.epochMs)))
    .map(({ epochMs, ...score }) => ({ atS: clock.atS(epochMs), ...score }))
    // null as 0, as the subtraction always took it
    .sort((a, b) => (a.atS ?? 0) - (b.atS ?? 0) || a.peer.localeCompare(b.peer) || a.remote.localeCompare(b.remote));
  addQualityPerSecond(perSecond, quality);

  const readCost = Object.fromEntries([...cost].sort(([a], [b]) => a.localeCompare(b)).map(([peer, { readMs, frames }]) => [peer, {
    framesRead: frames,
    readMsPerFrame: frames ? round(readMs / frames, 3) : null,
    // Of one core, over the call: the share of the page's time spent reading codes.
    cpuPct: round((100 * readMs) / (durationS * 1000), 2),
  }]));
  return { perSecond, freezes, quality, readCost, streams, overall: overallSummary(Object.values(streams), windowDelays, windowScores) };
}

/**
 * The drained batches joined per page and source, and each page's time spent reading frame codes.
 * @param {FrameBatch[]} batches  in drain order
 */
function frameLogs(batches) {
  /** @type {Map<string, FrameLog>} */
  const logs = new Map();
  /** @type {Map<string, { readMs: number, frames: number }>} */
  const cost = new Map();
  for (const batch of batches) {
    const key = `${batch.peer}\n${batch.source}`;
    const log = logs.get(key) ?? { peer: batch.peer, source: batch.source, codes: [], epochMs: [] };
    logs.set(key, log);
    log.codes.push(...batch.codes);
    log.epochMs.push(...batch.epochMs);
    const spent = cost.get(batch.peer) ?? { readMs: 0, frames: 0 };
    cost.set(batch.peer, { readMs: spent.readMs + batch.readMs, frames: spent.frames + batch.codes.length });
  }
  return { logs, cost };
}

/**
 * What one page saw of one remote's video: its seconds and freezes in the run, and the stream's measures over the
 * window (streamSummary's input).
 * @param {FrameLog} log  @param {SourceMedia|undefined} sender  the remote's video
 * @param {FrameLog|undefined} local  the frames the remote's camera delivered
 * @param {QualityScore[]} scores  @param {ViewerClock} clock
 */
function viewedStream(log, sender, local, scores, clock) {
  const { peer, source: remote } = log;
  const order = log.epochMs.map((_, i) => i).sort((a, b) => log.epochMs[a] - log.epochMs[b]);
  const codes = order.map((i) => log.codes[i]);
  const times = order.map((i) => log.epochMs[i]);
  const shown = pictures(codes, times);
  const loop = sender?.frameCode && sender.frames !== undefined && sender.frames > 0 ? { fps: sender.fps, frames: sender.frames } : null;
  const loopMs = loop ? (loop.frames / loop.fps) * 1000 : 0;
  const delays = loop && local ? matchDelays(shown, pictures(local.codes, local.epochMs), loopMs) : shown.map(() => null);
  const streamFreezes = findFreezes(shown.map((picture) => picture.epochMs));
  const seconds = streamSeconds({ times, shown, delays, streamFreezes, loop, secondOf: clock.secondOf });
  /** @type {ViewerFreeze[]} */
  const freezes = streamFreezes.filter((freeze) => clock.inRun(clock.secondOf(freeze.endEpochMs)))
    .map((freeze) => ({ peer, remote, atS: clock.atS(freeze.startEpochMs), durationMs: round(freeze.durationMs) }));
  const perSecond = [...seconds].filter(([t]) => clock.inRun(t)).sort((a, b) => a[0] - b[0])
    .map(([t, bucket]) => secondRow(t, peer, remote, bucket));

  const windowed = (/** @type {number} */ epochMs) => clock.inWindow(clock.secondOf(epochMs));
  const windowSeconds = [...seconds].filter(([t]) => clock.inWindow(t)).map(([, bucket]) => bucket);
  const readable = (/** @type {number[]} */ list) => list.some((code) => code >= 0);
  // Why this stream has no glass-to-glass delay, said rather than left as a bare null.
  const unavailable = !loop ? `no frame code in ${remote}'s media`
    : !readable(codes) ? `${peer} read no frame code from the ${codes.length} frames it presented`
      : !local || !readable(local.codes) ? `${remote} read no frame code from its own camera's frames`
        : delays.every((delay) => delay === null) ? `no frame ${peer} presented matched a camera frame of ${remote}` : null;
  const summary = {
    delays: delays.flatMap((delay, i) => (delay !== null && windowed(shown[i].epochMs) ? [delay] : [])),
    freezes: streamFreezes.filter((freeze) => windowed(freeze.endEpochMs)),
    framesShown: sum(windowSeconds.map((bucket) => bucket.frames)),
    framesSkipped: loop ? sum(windowSeconds.map((bucket) => bucket.skipped ?? 0)) : null,
    unreadable: codes.filter((code, i) => code < 0 && code !== UNREAD_CODE && windowed(times[i])).length,
    scores: scores.filter((score) => score.peer === peer && score.remote === remote && windowed(score.epochMs)),
    frameCode: loop !== null,
    unavailable,
  };
  return { perSecond, freezes, summary };
}

/**
 * One stream's frames, pictures, skipped frames, delays and freezes by the second they fall in.
 * @param {{ times: number[], shown: Picture[], delays: Array<number|null>,
 *   streamFreezes: ReturnType<typeof findFreezes>, loop: { fps: number, frames: number }|null,
 *   secondOf: ViewerClock['secondOf'] }} stream  loop: the sender's coded video, null without frame codes
 * @returns {Map<number, SecondBucket>}
 */
function streamSeconds({ times, shown, delays, streamFreezes, loop, secondOf }) {
  /** @type {Map<number, SecondBucket>} */
  const seconds = new Map();
  /** @param {number} t */
  const second = (t) => {
    const bucket = seconds.get(t) ?? { frames: 0, pictures: 0, skipped: loop ? 0 : null, delays: [], freezes: 0, freezeMs: 0 };
    seconds.set(t, bucket);
    return bucket;
  };
  for (const epochMs of times) second(secondOf(epochMs)).frames += 1;
  /** the last picture whose code was read */
  let lastRead = -1;
  shown.forEach((picture, i) => {
    const bucket = second(secondOf(picture.epochMs));
    bucket.pictures += 1;
    const delay = delays[i];
    if (delay !== null) bucket.delays.push(delay);
    if (!loop || picture.code === null) return;
    // The pictures shown between two read ones, their codes unknown, were source frames too: not skipped.
    const skipped = lastRead >= 0 ? skippedBetween(shown[lastRead], picture, loop) : null;
    if (skipped !== null && bucket.skipped !== null) bucket.skipped += Math.max(0, skipped - (i - lastRead - 1));
    lastRead = i;
  });
  for (const freeze of streamFreezes) {
    // A freeze counts in the second it ends, as getStats counts it: when the next frame arrives.
    const bucket = second(secondOf(freeze.endEpochMs));
    bucket.freezes += 1;
    bucket.freezeMs += freeze.durationMs;
  }
  return seconds;
}

/** A second's row of perSecond. @param {number} t @param {string} peer @param {string} remote @param {SecondBucket} bucket */
function secondRow(t, peer, remote, bucket) {
  const sorted = [...bucket.delays].sort((a, b) => a - b);
  return {
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
  };
}

/** @param {FrameLog} a @param {FrameLog} b */
const byPeerSource = (a, b) => a.peer.localeCompare(b.peer) || a.source.localeCompare(b.source);

/**
 * Adds the per-second viewer values into the timeline entries of the same second, peer and remote (their `video`
 * object), and a received screen's frame rate as seen and picture quality into their `screen` object; a second
 * without a stats sample gets none.
 * @template {{ t: number, peer: string, remote: string, video?: object, screen?: object }} T
 * @param {T[]} timeline @param {ReturnType<typeof viewerSection>['perSecond']} perSecond
 * @returns {T[]}
 */
export function withViewer(timeline, perSecond) {
  const rows = new Map(perSecond.map((row) => [`${row.t}\n${row.peer}\n${row.remote}`, row.video]));
  return timeline.map((entry) => {
    const key = `${entry.t}\n${entry.peer}\n${entry.remote}`;
    const [video, screen] = [rows.get(key), rows.get(`${key}${SCREEN_SUFFIX}`)];
    const withVideo = video ? { ...entry, video: { ...entry.video, ...video } } : entry;
    if (!screen || !entry.screen) return withVideo;
    /** @type {Record<string, unknown>} */
    const seen = { shownFps: screen.shownFps };
    for (const field of /** @type {const} */ (['psnrDb', 'ssim', 'vmaf'])) if (field in screen) seen[field] = /** @type {Record<string, unknown>} */ (screen)[field];
    return { ...withVideo, screen: { ...entry.screen, ...seen } };
  });
}
