// What the viewer sees: every frame a <video> presents (requestVideoFrameCallback) with its frame code
// (frame-code.js), stamped on the shared clock (every browser runs on one host: performance.timeOrigin + a page's
// clock is comparable across pages) at its expected display time; and every frame the camera delivers, stamped when
// it reaches the page (MediaStreamTrackProcessor): the sender's glass. Chromium shows the local preview ~28 ms after
// that, so display-to-display would understate the delay by as much. The code is read from the frame's own luma
// plane (WebCodecs VideoFrame.copyTo of the code strip: no colour conversion, a memcpy of the top sixth); where a
// frame has no CPU-readable planes, from a small canvas copy of the strip, which converts the whole frame to RGB and
// costs 5-7 times as much main-thread time (bench/frame-reading.js). Remote videos are also captured (decoded size,
// luma only) for picture-quality scoring: the frames whose code is a multiple of `captureEvery`, so every run
// captures the same source frames and runs compare frame for frame. The orchestrator pulls it all with drain()
// (orchestrator/run/viewer-collector.js), which keeps large captures off the signaling socket.
import { UNREAD_CODE, codeStripHeight, readFrameCode } from './frame-code.js';

// The strip is read at this size: 4x4 pixels per cell, a 2 KB getImageData.
const STRIP_WIDTH = 64;
const STRIP_HEIGHT = 8;
/** Bounds what a page holds if nobody drains it (a stalled orchestrator must not grow the page without end). */
const MAX_FRAMES_PER_SOURCE = 4000;
const MAX_CAPTURES = 16;
/** Planar formats whose first plane is full-resolution luma. */
const LUMA_FIRST_FORMATS = ['I420', 'I420A', 'I422', 'I444', 'NV12'];

/**
 * Videos whose frames come as RGB (Firefox hands a <video>'s frames over as BGRA): read through the canvas at once,
 * without first making a VideoFrame of each (~1.2 ms a frame in Firefox, as much as the canvas read itself).
 * @type {WeakSet<HTMLVideoElement>}
 */
const rgbVideos = new WeakSet();

/**
 * The luma of the top `rows` rows (all rows: null) of the frame `video` is about to show, or null when the frame's
 * planes cannot be read on the CPU.
 * @param {HTMLVideoElement} video @param {number|null} rows
 * @returns {Promise<{ luma: Uint8Array, width: number, height: number } | null>}
 */
async function lumaPlane(video, rows) {
  if (rgbVideos.has(video)) return null;
  let frame;
  try {
    frame = new VideoFrame(video);
  } catch {
    return null;
  }
  try {
    if (frame.format === null || !LUMA_FIRST_FORMATS.includes(frame.format)) {
      rgbVideos.add(video);
      return null;
    }
    return await frameLuma(frame, rows);
  } finally {
    frame.close();
  }
}

/**
 * The luma of the top `rows` rows (all rows: null) of a frame, or null when its planes cannot be read on the CPU.
 * @param {VideoFrame} frame @param {number|null} rows
 * @returns {Promise<{ luma: Uint8Array, width: number, height: number } | null>}
 */
async function frameLuma(frame, rows) {
  try {
    if (frame.format === null || frame.visibleRect === null || !LUMA_FIRST_FORMATS.includes(frame.format)) return null;
    const { x, y, width, height: visible } = frame.visibleRect;
    // Chroma-aligned: every plane of the rectangle must start and end on a whole sample.
    const height = rows === null ? visible : Math.min(visible, 2 * Math.ceil(rows / 2));
    const rect = { x, y, width, height };
    const buffer = new Uint8Array(frame.allocationSize({ rect }));
    const [plane] = await frame.copyTo(buffer, { rect });
    const luma = plane.stride === width ? buffer.subarray(plane.offset, plane.offset + width * height) : new Uint8Array(width * height);
    if (plane.stride !== width) {
      for (let row = 0; row < height; row += 1) {
        const from = plane.offset + row * plane.stride;
        luma.set(buffer.subarray(from, from + width), row * width);
      }
    }
    return { luma, width, height };
  } catch {
    return null;
  }
}

/**
 * @typedef {{ codes: number[], epochMs: number[], readMs: number }} FrameLog  codes: -1 where unreadable, UNREAD_CODE where
 *   presented between two callbacks; epochMs:
 *   when shown (a video) or delivered (the camera); readMs: time spent reading codes since the last drain
 * @typedef {{ source: string, epochMs: number, code: number, width: number, height: number, luma: string }} Capture
 *   luma: width × height bytes, base64
 */

/** @typedef {{ luma: Uint8Array, width: number, height: number }} LumaPlane */

/**
 * The canvas fallbacks where a frame's planes cannot be read on the CPU: the whole frame's luma, and the code from
 * the strip.
 */
function createCanvasReader() {
  const strip = Object.assign(document.createElement('canvas'), { width: STRIP_WIDTH, height: STRIP_HEIGHT });
  const stripContext = strip.getContext('2d', { willReadFrequently: true });
  const whole = document.createElement('canvas');
  const wholeContext = whole.getContext('2d', { willReadFrequently: true });
  if (!stripContext || !wholeContext) throw new Error('this browser gives no 2D canvas context: the frame codes cannot be read');
  return {
    /**
     * The decoded luma as is, else from a canvas copy (BT.601 limited range, give or take the YUV->RGB->Y rounding).
     * @param {HTMLVideoElement} video @returns {Promise<LumaPlane>}
     */
    async wholeLuma(video) {
      const plane = await lumaPlane(video, null);
      if (plane) return plane;
      const { videoWidth: width, videoHeight: height } = video;
      if (whole.width !== width || whole.height !== height) Object.assign(whole, { width, height });
      wholeContext.drawImage(video, 0, 0);
      const rgba = wholeContext.getImageData(0, 0, width, height).data;
      const luma = new Uint8Array(width * height);
      for (let i = 0; i < luma.length; i += 1) {
        luma[i] = Math.round(16 + (65.738 * rgba[4 * i] + 129.057 * rgba[4 * i + 1] + 25.064 * rgba[4 * i + 2]) / 256);
      }
      return { luma, width, height };
    },
    /** The code of the frame `video` is about to show (-1: unreadable). @param {HTMLVideoElement} video */
    async readCode(video) {
      const stripRows = codeStripHeight(video.videoHeight);
      const plane = await lumaPlane(video, stripRows);
      if (plane) return readFrameCode(plane.luma, plane.width, plane.height)?.code ?? -1;
      stripContext.drawImage(video, 0, 0, video.videoWidth, stripRows, 0, 0, STRIP_WIDTH, STRIP_HEIGHT);
      return readFrameCode(stripContext.getImageData(0, 0, STRIP_WIDTH, STRIP_HEIGHT).data, STRIP_WIDTH, STRIP_HEIGHT, 4)?.code ?? -1;
    },
  };
}

/**
 * Reads the code of every frame a track delivers (MediaStreamTrackProcessor), stamped when it reaches the page.
 * @param {MediaStreamTrack} track @param {new (init: { track: MediaStreamTrack }) => { readable: ReadableStream<VideoFrame> }} Processor
 * @param {() => FrameLog} logOf  where the codes go, looked up per frame (a drain replaces it)
 * @returns {() => void} stops watching
 */
function watchTrackFrames(track, Processor, logOf) {
  const clone = track.clone();
  const reader = new Processor({ track: clone }).readable.getReader();
  let watching = true;
  const stop = () => {
    watching = false;
    reader.cancel().catch(() => {});
    clone.stop();
  };
  (async () => {
    while (watching) {
      const { value: frame, done } = await reader.read();
      if (done) return;
      const epochMs = Math.round((performance.timeOrigin + performance.now()) * 10) / 10;
      const log = logOf();
      const started = performance.now();
      try {
        if (log.codes.length >= MAX_FRAMES_PER_SOURCE) continue;
        const plane = await frameLuma(frame, codeStripHeight(frame.displayHeight));
        log.codes.push(plane ? readFrameCode(plane.luma, plane.width, plane.height)?.code ?? -1 : -1);
        log.epochMs.push(epochMs);
        log.readMs += performance.now() - started;
      } finally {
        frame.close();
      }
    }
  })().catch(stop);
  return stop;
}

/**
 * When the frames presented between two callbacks were to be shown, as far as the page can tell: evenly between the
 * two callbacks' display times (exclusive).
 * @param {number} fromMs @param {number} toMs @param {number} count  frames presented between them (none when < 1)
 * @returns {number[]}
 */
export function unreadTimes(fromMs, toMs, count) {
  const frames = Math.max(0, Math.floor(count));
  return Array.from({ length: frames }, (_, i) => Math.round((fromMs + ((i + 1) * (toMs - fromMs)) / (frames + 1)) * 10) / 10);
}

/**
 * When the first frame was decoded: for a WebRTC source, receiveTime (its last packet) plus processingDuration
 * (to decoded); the callback itself comes later, at the next paint.
 * @param {DOMHighResTimeStamp} now @param {VideoFrameCallbackMetadata & { receiveTime?: number, processingDuration?: number }} frame
 */
export function decodedEpochMs(now, frame) {
  const { receiveTime, processingDuration } = frame;
  const decodedAt = receiveTime !== undefined && processingDuration !== undefined ? receiveTime + processingDuration * 1000 : now;
  return Math.round(performance.timeOrigin + decodedAt);
}

/** Whether watchCamera reads the camera's track itself (MediaStreamTrackProcessor), so needs no preview playing. */
// any: MediaStreamTrackProcessor is missing from TypeScript's DOM types (and from some browsers).
export const readsCameraFromTrack = () => typeof (/** @type {any} */ (window).MediaStreamTrackProcessor) === 'function';

/**
 * @param {{ unread?: string[] }} [options]  unread: sources whose frames are never read, an SFU room's load participants:
 *   their pre-encoded frames have no camera log to be timed against, and reading each frame of every one would cost the
 *   measured page main-thread time per frame
 */
export function createFrameReader({ unread = [] } = {}) {
  const unreadSources = new Set(unread);
  const canvas = createCanvasReader();
  /** @type {Map<string, FrameLog>} */
  let logs = new Map();
  /** @type {Capture[]} */
  let captures = [];
  /** The orchestrator sets it from the source's rate (one a second) and lowers it around schedule changes. */
  let captureEvery = 30;
  /** @type {Map<string, number>} the code captured last per source: a repeated picture is captured once */
  const lastCaptured = new Map();

  /** @param {string} source */
  const logOf = (source) => {
    let log = logs.get(source);
    if (!log) logs.set(source, log = { codes: [], epochMs: [], readMs: 0 });
    return log;
  };

  /** @param {HTMLVideoElement} video @param {string} source @param {number} epochMs @param {number} code */
  async function capture(video, source, epochMs, code) {
    const { luma, width, height } = await canvas.wholeLuma(video);
    let text = '';
    for (let row = 0; row < height; row += 1) text += String.fromCharCode(...luma.subarray(row * width, (row + 1) * width));
    if (captures.length < MAX_CAPTURES) captures.push({ source, epochMs, code, width, height, luma: btoa(text) });
  }

  /**
   * Reads every frame `video` presents from now on until it leaves the document or the returned function is called;
   * the frames presented between two callbacks (presentedFrames advanced by more than one) are logged as UNREAD_CODE.
   * @param {HTMLVideoElement} video @param {string} source 'local' for the page's own camera, else the remote's name
   * @returns {() => void} stops watching
   */
  function watch(video, source) {
    if (unreadSources.has(source)) return () => {};
    let watching = true;
    /** @type {{ presentedFrames: number, epochMs: number }|null} the last callback's frame */
    let last = null;
    /** @param {DOMHighResTimeStamp} now @param {VideoFrameCallbackMetadata} frame */
    const onFrame = (now, frame) => {
      if (!watching || !video.isConnected) return;
      video.requestVideoFrameCallback(onFrame);
      const log = logOf(source);
      if (log.codes.length >= MAX_FRAMES_PER_SOURCE || !video.videoHeight) return;
      const epochMs = Math.round((performance.timeOrigin + frame.expectedDisplayTime) * 10) / 10;
      if (last) {
        const unread = Math.min(frame.presentedFrames - last.presentedFrames - 1, MAX_FRAMES_PER_SOURCE - 1 - log.codes.length);
        for (const unreadMs of unreadTimes(last.epochMs, epochMs, unread)) {
          log.codes.push(UNREAD_CODE);
          log.epochMs.push(unreadMs);
        }
      }
      last = { presentedFrames: frame.presentedFrames, epochMs };
      const started = performance.now();
      canvas.readCode(video).then((code) => {
        log.readMs += performance.now() - started;
        log.codes.push(code);
        log.epochMs.push(epochMs);
        if (source === 'local' || code < 0 || code % captureEvery !== 0 || lastCaptured.get(source) === code) return undefined;
        lastCaptured.set(source, code);
        return capture(video, source, epochMs, code);
      }).catch(() => {});
    };
    video.requestVideoFrameCallback(onFrame);
    return () => { watching = false; };
  }

  /**
   * Reads the code of every frame the camera delivers, as source 'local', stamped when it reaches the page. Without
   * MediaStreamTrackProcessor (not in every browser), from the frames `preview` shows instead: the local preview, or
   * the <video> whose captureStream() is the track.
   * @param {MediaStreamTrack} track @param {HTMLVideoElement} preview
   * @returns {() => void} stops watching
   */
  function watchCamera(track, preview) {
    if (!readsCameraFromTrack()) return watch(preview, 'local');
    // any: MediaStreamTrackProcessor is missing from TypeScript's DOM types (and from some browsers).
    return watchTrackFrames(track, /** @type {any} */ (window).MediaStreamTrackProcessor, () => logOf('local'));
  }

  return {
    watch,
    watchCamera,
    /** Captures the frames whose code is a multiple of `frames`. @param {number} frames */
    setCaptureEvery(frames) {
      captureEvery = Math.max(1, Math.round(Number(frames)) || 30);
    },
    /** What was read since the last drain, handed over once. */
    drain() {
      const drained = { frames: Object.fromEntries(logs), captures };
      logs = new Map();
      captures = [];
      return drained;
    },
  };
}
