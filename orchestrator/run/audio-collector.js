// Drains every page's audio recorder (client-app/audio-recorder.js) once a second over the browser's DevTools
// connection into <runDir>/audio/<peer>-<remote>.pcm (16-bit mono at 48 kHz), until run/audio-quality.js scores
// them. What a page returns is checked (run/audio-input.js); a bad drain is a rejected event, never the run's failure.
// A page decides neither a file's name (the orchestrator's peer names) nor its size: each recording stops at the
// call's length plus a margin, and all of them at MAX_AUDIO_BYTES; samples past either are counted as dropped. Nor
// what crosses DevTools: the drain is copied in the page within bounds (boundedAudioDrain) before it is sent, so an
// oversized answer is refused there instead of being serialized whole into the orchestrator's memory.
import { appendFile, mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { MAX_DRAIN_S, RECORDING_RATE_HZ, checkAudioDrain } from './audio-input.js';
import { DRAIN_TIMEOUT_MS, createPageDrains } from './page-drains.js';
import { errorMessage } from '../lib/system/errors.js';

/** A recording may run this much longer than the call (it starts before the media clock and ends after it). */
const RECORDING_MARGIN_S = 30;
/** All recordings together: a 32-peer mesh would otherwise write gigabytes. */
export const MAX_AUDIO_BYTES = 512 * 1024 * 1024;

/**
 * @typedef {{ peer: string, remote: string, file: string, firstSampleEpochMs: number, samples: number, droppedSamples: number }} Recording
 *   samples: written to file (dropped ones as zeros, so the sample index stays a clock); droppedSamples: lost by the
 *   page or past the limits
 */

/**
 * @param {{ pages: Map<string, import('puppeteer').Page>, peers: string[], runDir: string, durationS: number,
 *   startedAtEpochMs: number, onRejected: (peer: string, reason: string) => void, drainTimeoutMs?: number }} options
 *   drainTimeoutMs: a drain unanswered this long is reported (once per drain), and at the end given up on
 */
export function createAudioCollector({ pages, peers, runDir, durationS, startedAtEpochMs, onRejected, drainTimeoutMs = DRAIN_TIMEOUT_MS }) {
  const dir = path.join(runDir, 'audio');
  const maxSamples = Math.ceil((durationS + RECORDING_MARGIN_S) * RECORDING_RATE_HZ);
  /** @type {Map<string, Recording>} */
  const recordings = new Map();
  let bytes = 0;
  /** @param {string} peer @param {import('puppeteer').Page} page */
  async function drainPage(peer, page) {
    const remotes = peers.filter((other) => other !== peer);
    const slow = setTimeout(() => onRejected(peer, `audio recorder of ${peer}: the drain has not answered for ${drainTimeoutMs / 1000} s`), drainTimeoutMs);
    const answer = await evaluateDrain(page, drainLimits(remotes.length)).finally(() => clearTimeout(slow));
    if (answer === undefined || 'none' in answer) return; // closing, crashed, or no recorder (yet)
    if ('threw' in answer) return onRejected(peer, `audio recorder of ${peer}: the drain threw`);
    if ('refused' in answer) return onRejected(peer, `audio recorder of ${peer}: ${answer.refused}`);
    const checked = checkAudioDrain(answer.drained, peer, remotes, { fromEpochMs: startedAtEpochMs - 1000, toEpochMs: Date.now() + 1000 });
    if ('reason' in checked) {
      onRejected(peer, checked.reason);
      return;
    }
    for (const chunk of checked.value) {
      const key = `${peer}\n${chunk.remote}`;
      const recording = recordings.get(key) ?? { peer, remote: chunk.remote, file: path.join(dir, `${peer}-${chunk.remote}.pcm`),
        firstSampleEpochMs: chunk.firstSampleEpochMs, samples: 0, droppedSamples: 0 };
      recordings.set(key, recording);
      const gap = recording.samples === 0 ? 0 : chunk.droppedSamples;
      const room = Math.max(0, Math.min(maxSamples - recording.samples, (MAX_AUDIO_BYTES - bytes) / 2));
      const kept = Math.min(room, gap + chunk.pcm.length / 2);
      recording.droppedSamples += chunk.droppedSamples + (gap + chunk.pcm.length / 2 - kept);
      if (kept <= 0) continue;
      const data = Buffer.concat([Buffer.alloc(2 * Math.min(gap, kept)), chunk.pcm]).subarray(0, 2 * kept);
      await appendFile(recording.file, data);
      recording.samples += kept;
      bytes += data.length;
    }
  }

  const drains = createPageDrains(pages, (peer, page) => drainPage(peer, page)
    .catch((error) => onRejected(peer, `writing the audio ${peer} played: ${errorMessage(error)}`)), drainTimeoutMs);

  return {
    recordings,
    dir,
    async start() {
      await mkdir(dir, { recursive: true });
      drains.start();
    },
    /** The last drain, while the pages are still open; a page that hangs is given up on. */
    stop: drains.stop,
    /** Removes the recordings once scored. */
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

/** @typedef {ReturnType<typeof createAudioCollector>} AudioCollector */

/**
 * @typedef {{ maxChars: number, maxKeys: number, budgetChars: number }} DrainLimits  maxChars: of one string; maxKeys: of one
 *   object; budgetChars: of every string and key of a drain together
 * @typedef {{ none: true } | { threw: true } | { refused: string } | { drained: unknown }} PageDrain
 */

/**
 * What one drain of a page hearing `remotes` remotes may carry: MAX_DRAIN_S of base64 PCM per remote, little else.
 * @param {number} remotes @returns {DrainLimits}
 */
export function drainLimits(remotes) {
  const maxChars = 4 * Math.ceil((MAX_DRAIN_S * RECORDING_RATE_HZ * 2) / 3);
  return { maxChars, maxKeys: Math.max(8, remotes), budgetChars: remotes * maxChars + 64 * 1024 };
}

/**
 * Runs in the page (page.evaluate): its recorder drained and copied within `limits`, or why not. The page's code may
 * have replaced any global, so the copy uses syntax only (for-in, typeof, a primitive string's length, object
 * literals, which define their keys without setters) and reads each value once; anything over a limit refuses the
 * whole drain. Objects deeper than a drain's three levels are copied as null (checkAudioDrain refuses them).
 * @param {DrainLimits} limits @returns {Promise<PageDrain>}
 */
export async function boundedAudioDrain({ maxChars, maxKeys, budgetChars }) {
  let budget = budgetChars;
  /** @param {string} text */
  const charge = (text) => {
    budget -= text.length;
    // A plain object, not an Error: the page may have replaced the Error classes.
    if (text.length > maxChars || budget < 0) throw { limit: `a string of ${text.length} characters (at most ${maxChars}, ${budgetChars} in all)` };
    return text;
  };
  /** @param {unknown} value @param {number} depth @returns {unknown} */
  const copy = (value, depth) => {
    if (typeof value === 'string') return charge(value);
    if (typeof value === 'number' || typeof value === 'boolean' || value === null) return value;
    if (typeof value !== 'object' || depth > 2) return null;
    /** @type {Record<string, unknown>} */
    let out = {};
    let keys = 0;
    for (const key in value) {
      keys += 1;
      if (keys > maxKeys) throw { limit: `an object of more than ${maxKeys} keys` };
      // any: a key for-in found on the page's object, read once.
      out = { ...out, [charge(key)]: copy(/** @type {any} */ (value)[key], depth + 1) };
    }
    return out;
  };
  let drained;
  try {
    // any: the page's diagnostics hook (client-app/app.js), which the DOM types do not know.
    const recorder = await /** @type {any} */ (window).testbed?.audio;
    if (!recorder) return { none: true };
    drained = await recorder.drain();
  } catch {
    return { threw: true };
  }
  try {
    return { drained: copy(drained, 0) };
  } catch (error) {
    // Read once: what a getter of the page's threw may carry nothing long.
    const limit = /** @type {{ limit?: unknown }|null} */ (error)?.limit;
    return { refused: `drain refused in the page: ${typeof limit === 'string' && limit.length <= 200 ? limit : 'it could not be copied'}` };
  }
}

/**
 * The page's recorder drained within `limits`: undefined when the page is closing or crashed.
 * @param {import('puppeteer').Page} page @param {DrainLimits} limits @returns {Promise<PageDrain|undefined>}
 */
async function evaluateDrain(page, limits) {
  try {
    return await page.evaluate(boundedAudioDrain, limits);
  } catch {
    return undefined;
  }
}
