// Drains every page's frame reader (client-app/frame-reader.js) once a second over the browser's DevTools
// connection: the frame codes and display times of every video, and the captured received frames, which go to
// <runDir>/captures/ until run/picture-quality.js scores them. What a page returns is checked (run/viewer-input.js);
// a bad drain is a rejected event, never the run's failure, and the drain is copied in the page within drainLimits
// (page-copy.js) before it crosses DevTools. The pages capture the source frames whose code is a
// multiple of the source's frame rate (one a second, the same frames in every run), and around each schedule change
// every sixth one (five a second).
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { MAX_CAPTURE_SIDE_PX, MAX_FRAMES_PER_SOURCE, checkDrain } from './viewer-input.js';
import { VALUE_CHARS, drainPageCopy } from './page-copy.js';
import { DRAIN_TIMEOUT_MS, createPageDrains } from './page-drains.js';

/** Frame times may be this far off the orchestrator's clock (a video's expected display time is a little ahead). */
const FRAME_CLOCK_MARGIN_MS = 1000;
const BURST_CAPTURES_PER_S = 5;
/** The burst around a change: from this long before it to this long after (the drain tick makes it start up to 1 s early). */
const BURST_BEFORE_S = 1.5;
const BURST_AFTER_S = 2;
/** Schedule changes closer than this are one change (a ramp's steps): its bursts are at its first and last step. */
const SAME_CHANGE_S = 2;

/**
 * The times around which to capture in bursts: every step change, and a ramp's first and last step.
 * @param {number[]} changeTimesS
 */
export function burstTimes(changeTimesS) {
  const times = [...new Set(changeTimesS)].sort((a, b) => a - b);
  return times.filter((t, i) => !(t - times[i - 1] < SAME_CHANGE_S && times[i + 1] - t < SAME_CHANGE_S));
}

/** Captures beyond this much luma on disk are dropped (and counted): a long 720p mesh would otherwise fill gigabytes. */
export const MAX_CAPTURE_BYTES = 512 * 1024 * 1024;

/**
 * @param {{ pages: Map<string, import('puppeteer').Page>, peers: string[], runDir: string, changeTimesS: number[],
 *   fps: number, startedAtEpochMs: number, onRejected: (peer: string, reason: string) => void, drainTimeoutMs?: number }} options
 *   peers: every page's possible remotes; changeTimesS: the schedule's change times on the media clock; fps: the
 *   source's frame rate; startedAtEpochMs: the run's start, before which no frame was shown
 */
export function createViewerCollector({
  pages, peers, runDir, changeTimesS, fps, startedAtEpochMs, onRejected, drainTimeoutMs = DRAIN_TIMEOUT_MS,
}) {
  const captureDir = path.join(runDir, 'captures');
  const bursts = burstTimes(changeTimesS);
  /** @type {import('../lib/viewer/viewer.js').FrameBatch[]} */
  const batches = [];
  /** @type {import('./picture-quality.js').StoredCapture[]} */
  const captures = [];
  let captureBytes = 0;
  let droppedCaptures = 0;
  let mediaStartEpochMs = 0;
  /** @type {Map<string, number>} the capture step each page was last told */
  const told = new Map();
  const limits = drainLimits(peers.length);

  /** Capture every this many source frames now. */
  const captureEveryNow = () => {
    const nowS = (Date.now() - mediaStartEpochMs) / 1000;
    const nearChange = bursts.some((atS) => nowS >= atS - BURST_BEFORE_S && nowS <= atS + BURST_AFTER_S);
    return Math.max(1, Math.round(nearChange ? fps / BURST_CAPTURES_PER_S : fps));
  };

  /** @param {string} peer @param {import('puppeteer').Page} page */
  async function drainPage(peer, page) {
    const every = captureEveryNow();
    const tell = told.get(peer) === every ? null : every;
    const answer = await drainPageCopy(page, { hook: 'viewer', tell: tell === null ? null : { method: 'setCaptureEvery', value: tell }, limits },
      { label: `frame reader of ${peer}`, onRejected: (reason) => onRejected(peer, reason), timeoutMs: drainTimeoutMs });
    // A page that is closing or crashed (the run's own checks report that), or has no frame reader (yet).
    if (answer === undefined) return;
    told.set(peer, every);
    if (!('drained' in answer)) return; // reported
    const within = { fromEpochMs: startedAtEpochMs - FRAME_CLOCK_MARGIN_MS, toEpochMs: Date.now() + FRAME_CLOCK_MARGIN_MS };
    const checked = checkDrain(answer.drained, peer, peers.filter((other) => other !== peer), within);
    if ('reason' in checked) {
      onRejected(peer, checked.reason);
      return;
    }
    batches.push(...checked.value.batches);
    for (const capture of checked.value.captures) {
      if (captureBytes + capture.luma.length > MAX_CAPTURE_BYTES) {
        droppedCaptures += 1;
        continue;
      }
      const file = path.join(captureDir, `${peer}-${capture.source}-${Math.round(capture.epochMs)}.gray`);
      await writeFile(file, capture.luma);
      captureBytes += capture.luma.length;
      const { source, luma, ...rest } = capture;
      captures.push({ peer, remote: source, ...rest, file });
    }
  }

  // A page whose drain has not answered for drainTimeoutMs is reported (once per drain) and, at the end, given up on.
  const drains = createPageDrains(pages, drainPage, drainTimeoutMs);

  return {
    batches,
    captures,
    get droppedCaptures() { return droppedCaptures; },
    /** @param {number} startEpochMs the media clock's zero */
    async start(startEpochMs) {
      mediaStartEpochMs = startEpochMs;
      await mkdir(captureDir, { recursive: true });
      drains.start();
    },
    /** The last drain (the pages must still be open), after the running ones; a page that hangs is given up on. */
    stop: drains.stop,
    /** Removes the captured frames once they are scored. */
    removeCaptures: () => rm(captureDir, { recursive: true, force: true }),
  };
}

/** @typedef {ReturnType<typeof createViewerCollector>} ViewerCollector */

/**
 * What one drain of a page may carry: the frame log of at most `sources` sources (its own camera and every remote) and
 * captures of at most MAX_CAPTURE_SIDE_PX a side, four of the largest in all (checkDrain bounds their count).
 * @param {number} sources @returns {import('./page-copy.js').CopyLimits}
 */
function drainLimits(sources) {
  const maxChars = 4 * Math.ceil((MAX_CAPTURE_SIDE_PX * MAX_CAPTURE_SIDE_PX) / 3);
  return {
    maxChars, maxKeys: Math.max(8, sources), maxItems: MAX_FRAMES_PER_SOURCE, maxDepth: 3,
    budgetChars: 4 * maxChars + sources * (2 * MAX_FRAMES_PER_SOURCE + 8) * VALUE_CHARS + 64 * 1024,
  };
}
