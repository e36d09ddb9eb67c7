// Drains every page's audio recorder (client-app/audio-recorder.js) once a second over the browser's DevTools
// connection into <runDir>/audio/<peer>-<remote>.pcm (16-bit mono at 48 kHz), until run/audio-quality.js scores
// them. What a page returns is checked (run/audio-input.js); a bad drain is a rejected event, never the run's failure.
// A page decides neither a file's name (the orchestrator's peer names) nor its size: each recording stops at the
// call's length plus a margin, and all of them at MAX_AUDIO_BYTES; samples past either are counted as dropped.
import { appendFile, mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { RECORDING_RATE_HZ, checkAudioDrain } from './audio-input.js';
import { DRAIN_TIMEOUT_MS, atMost } from './viewer-collector.js';
import { errorMessage } from '../lib/system/errors.js';

const DRAIN_INTERVAL_MS = 1000;
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
 *   startedAtEpochMs: number, onRejected: (peer: string, reason: string) => void }} options
 */
export function createAudioCollector({ pages, peers, runDir, durationS, startedAtEpochMs, onRejected }) {
  const dir = path.join(runDir, 'audio');
  const maxSamples = Math.ceil((durationS + RECORDING_MARGIN_S) * RECORDING_RATE_HZ);
  /** @type {Map<string, Recording>} */
  const recordings = new Map();
  let bytes = 0;
  /** @type {NodeJS.Timeout|null} */
  let timer = null;
  /** @type {Map<string, Promise<void>>} */
  const inFlight = new Map();

  /** @param {string} peer @param {import('puppeteer').Page} page */
  async function drainPage(peer, page) {
    const answer = await evaluateDrain(page);
    if (answer === undefined || answer === null) return; // closing, crashed, or no recorder (yet)
    const checked = checkAudioDrain(answer, peer, peers.filter((other) => other !== peer),
      { fromEpochMs: startedAtEpochMs - 1000, toEpochMs: Date.now() + 1000 });
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

  const drainAll = () => Promise.all([...pages].map(([peer, page]) => {
    if (!inFlight.has(peer)) {
      inFlight.set(peer, drainPage(peer, page).catch((error) => onRejected(peer, `writing the audio ${peer} played: ${errorMessage(error)}`))
        .finally(() => inFlight.delete(peer)));
    }
    return inFlight.get(peer);
  })).then(() => {});

  return {
    recordings,
    dir,
    async start() {
      await mkdir(dir, { recursive: true });
      timer = setInterval(drainAll, DRAIN_INTERVAL_MS);
    },
    /** The last drain, while the pages are still open; a page that hangs is given up on. */
    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      await atMost(Promise.all(inFlight.values()).then(() => {}), DRAIN_TIMEOUT_MS);
      await atMost(drainAll(), DRAIN_TIMEOUT_MS);
    },
    /** Removes the recordings once scored. */
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

/** @typedef {ReturnType<typeof createAudioCollector>} AudioCollector */

/**
 * The page's recorder drained: undefined when the page is closing or crashed, null when it records nothing.
 * @param {import('puppeteer').Page} page @returns {Promise<unknown>}
 */
async function evaluateDrain(page) {
  try {
    return await page.evaluate(async () => {
      // any: the page's diagnostics hook (client-app/app.js), which the DOM types do not know.
      const recorder = await /** @type {any} */ (window).testbed?.audio;
      return recorder ? recorder.drain() : null;
    });
  } catch {
    return undefined;
  }
}
