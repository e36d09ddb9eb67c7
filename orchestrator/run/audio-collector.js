// Drains every page's audio recorder (client-app/audio-recorder.js) once a second over the browser's DevTools
// connection into <runDir>/audio/<peer>-<remote>.pcm (16-bit mono at 48 kHz), until run/audio-quality.js scores
// them. What a page returns is checked (run/audio-input.js); a bad drain is a rejected event, never the run's failure.
// A page decides neither a file's name (the orchestrator's peer names) nor its size: each recording stops at the
// call's length plus a margin, and all of them at MAX_AUDIO_BYTES; samples past either are counted as dropped. Nor
// what crosses DevTools: the drain is copied in the page within drainLimits (page-copy.js) before it is sent.
import { appendFile, mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { MAX_DRAIN_S, RECORDING_RATE_HZ, checkAudioDrain } from './audio-input.js';
import { drainPageCopy } from './page-copy.js';
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
    const answer = await drainPageCopy(page, { hook: 'audio', tell: null, limits: drainLimits(remotes.length) },
      { label: `audio recorder of ${peer}`, onRejected: (reason) => onRejected(peer, reason), timeoutMs: drainTimeoutMs });
    // Closing, crashed, no recorder (yet), or already reported.
    if (answer === undefined || !('drained' in answer)) return;
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
 * What one drain of a page hearing `remotes` remotes may carry: MAX_DRAIN_S of base64 PCM per remote, little else (no
 * list, nothing deeper than a stream's fields).
 * @param {number} remotes @returns {import('./page-copy.js').CopyLimits}
 */
export function drainLimits(remotes) {
  const maxChars = 4 * Math.ceil((MAX_DRAIN_S * RECORDING_RATE_HZ * 2) / 3);
  return { maxChars, maxKeys: Math.max(8, remotes), maxItems: 0, maxDepth: 2, budgetChars: remotes * maxChars + 64 * 1024 };
}
