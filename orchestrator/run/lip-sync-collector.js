// Drains every page's lip-sync listener (client-app/lip-sync.js) once a second over the browser's DevTools connection:
// the tone onsets each page heard per source. What a page returns is checked (lib/audio/lip-sync-input.js); a bad
// drain is a rejected event, never the run's failure. A page decides neither how many onsets are kept (at most a few
// per mark interval of the call per stream, beyond which they are counted as dropped) nor their times' range, nor
// what crosses DevTools: the drain is copied in the page within drainLimits (page-copy.js) before it is sent.
import { MAX_DRAIN_ONSETS, checkLipSyncDrain } from '../lib/audio/lip-sync-input.js';
import { MARK_INTERVAL_S } from '../lib/audio/lip-sync-marks.js';
import { VALUE_CHARS, drainPageCopy } from './page-copy.js';
import { DRAIN_TIMEOUT_MS, createPageDrains } from './page-drains.js';

/** Onsets kept per stream: one per mark is expected; a few times that, plus the time before the media clock, is plenty. */
const ONSETS_PER_MARK = 3;
const MARGIN_MARKS = 30;

/**
 * @param {{ pages: Map<string, import('puppeteer').Page>, peers: string[], durationS: number, startedAtEpochMs: number,
 *   onRejected: (peer: string, reason: string) => void, drainTimeoutMs?: number }} options
 *   drainTimeoutMs: a drain unanswered this long is reported (once per drain), and at the end given up on
 */
export function createLipSyncCollector({ pages, peers, durationS, startedAtEpochMs, onRejected, drainTimeoutMs = DRAIN_TIMEOUT_MS }) {
  const maxOnsets = Math.ceil((durationS / MARK_INTERVAL_S) * ONSETS_PER_MARK) + MARGIN_MARKS;
  /** @type {import('../lib/audio/lip-sync.js').Onset[]} */
  const onsets = [];
  /** @type {Map<string, { kept: number, dropped: number }>} per `peer\nsource` */
  const counts = new Map();

  /** @param {string} peer @param {import('puppeteer').Page} page */
  async function drainPage(peer, page) {
    const answer = await drainPageCopy(page, { hook: 'lipSync', tell: null, limits: drainLimits(peers.length) },
      { label: `lip-sync listener of ${peer}`, onRejected: (reason) => onRejected(peer, reason), timeoutMs: drainTimeoutMs });
    // Closing, crashed, no listener (yet), or already reported.
    if (answer === undefined || !('drained' in answer)) return;
    const checked = checkLipSyncDrain(answer.drained, peer, peers.filter((other) => other !== peer),
      { fromEpochMs: startedAtEpochMs - 1000, toEpochMs: Date.now() + 1000 });
    if ('reason' in checked) return onRejected(peer, checked.reason);
    for (const { source, onsetsEpochMs, droppedOnsets } of checked.value) {
      const count = counts.get(`${peer}\n${source}`) ?? { kept: 0, dropped: 0 };
      counts.set(`${peer}\n${source}`, count);
      const kept = onsetsEpochMs.slice(0, Math.max(0, maxOnsets - count.kept));
      onsets.push(...kept.map((epochMs) => ({ peer, source, epochMs })));
      count.kept += kept.length;
      count.dropped += droppedOnsets + onsetsEpochMs.length - kept.length;
    }
  }

  const drains = createPageDrains(pages, drainPage, drainTimeoutMs);

  return {
    onsets,
    /** Onsets the pages or the cap dropped, per `peer\nsource`. */
    dropped: () => Object.fromEntries([...counts].map(([key, count]) => [key, count.dropped])),
    start: drains.start,
    /** The last drain, while the pages are still open; a page that hangs is given up on. */
    stop: drains.stop,
  };
}

/** @typedef {ReturnType<typeof createLipSyncCollector>} LipSyncCollector */

/**
 * What one drain of a page may carry: `{ sources }` of at most `sources` sources (its own microphone and every remote),
 * each MAX_DRAIN_ONSETS times and a count, under names of at most 64 characters.
 * @param {number} sources @returns {import('./page-copy.js').CopyLimits}
 */
function drainLimits(sources) {
  return {
    maxChars: 64, maxKeys: Math.max(2, sources), maxItems: MAX_DRAIN_ONSETS, maxDepth: 3,
    budgetChars: sources * (3 * 64 + (MAX_DRAIN_ONSETS + 2) * VALUE_CHARS) + 1024,
  };
}
