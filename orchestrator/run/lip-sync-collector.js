// Drains every page's lip-sync listener (client-app/lip-sync.js) once a second over the browser's DevTools connection:
// the tone onsets each page heard per source. What a page returns is checked (lib/audio/lip-sync-input.js); a bad
// drain is a rejected event, never the run's failure. A page decides neither how many onsets are kept (at most a few
// per mark interval of the call per stream, beyond which they are counted as dropped) nor their times' range.
import { MAX_DRAIN_ONSETS, checkLipSyncDrain } from '../lib/audio/lip-sync-input.js';
import { MARK_INTERVAL_S } from '../lib/audio/lip-sync-marks.js';
import { createPageDrains } from './page-drains.js';

/** Onsets kept per stream: one per mark is expected; a few times that, plus the time before the media clock, is plenty. */
const ONSETS_PER_MARK = 3;
const MARGIN_MARKS = 30;

/**
 * @param {{ pages: Map<string, import('puppeteer').Page>, peers: string[], durationS: number, startedAtEpochMs: number,
 *   onRejected: (peer: string, reason: string) => void }} options
 */
export function createLipSyncCollector({ pages, peers, durationS, startedAtEpochMs, onRejected }) {
  const maxOnsets = Math.ceil((durationS / MARK_INTERVAL_S) * ONSETS_PER_MARK) + MARGIN_MARKS;
  /** @type {import('../lib/audio/lip-sync.js').Onset[]} */
  const onsets = [];
  /** @type {Map<string, { kept: number, dropped: number }>} per `peer\nsource` */
  const counts = new Map();

  /** @param {string} peer @param {import('puppeteer').Page} page */
  async function drainPage(peer, page) {
    const answer = await evaluateDrain(page, peers.length);
    if (answer === undefined || 'none' in answer) return; // closing, crashed, or no listener (yet)
    if ('threw' in answer) return onRejected(peer, `lip-sync listener of ${peer}: the drain threw`);
    if ('refused' in answer) return onRejected(peer, `lip-sync listener of ${peer}: ${answer.refused}`);
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

  const drains = createPageDrains(pages, drainPage);

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
 * The page's listener drained, copied in the page within the bounds (at most `maxSources` sources of MAX_DRAIN_ONSETS
 * onsets, short names), so DevTools never carries more: undefined when the page is closing or crashed.
 * @param {import('puppeteer').Page} page @param {number} maxSources
 * @returns {Promise<{ none: true } | { threw: true } | { refused: string } | { drained: unknown } | undefined>}
 */
async function evaluateDrain(page, maxSources) {
  try {
    return await page.evaluate(async (most, maxOnsets) => {
      try {
        // any: the page's diagnostics hook (client-app/app.js), which the DOM types do not know; what it drains is unknown.
        const listener = await /** @type {any} */ (window).testbed?.lipSync;
        if (!listener) return { none: /** @type {const} */ (true) };
        const sources = listener.drain()?.sources;
        if (sources === null || typeof sources !== 'object') return { refused: 'drain must be { sources: {…} }' };
        /** @type {Record<string, { onsetsEpochMs: unknown[], droppedOnsets: unknown }>} */
        const copy = {};
        for (const name of Object.keys(sources).slice(0, most + 1)) {
          if (Object.keys(copy).length >= most || name.length > 64) return { refused: `more than ${most} sources, or a name over 64 characters` };
          const onsets = sources[name]?.onsetsEpochMs;
          if (!Array.isArray(onsets) || onsets.length > maxOnsets) return { refused: `sources.${name}.onsetsEpochMs must be an array of at most ${maxOnsets} times` };
          copy[name] = { onsetsEpochMs: Array.from(onsets, (v) => (typeof v === 'number' ? v : null)), droppedOnsets: Number(sources[name].droppedOnsets) };
        }
        return { drained: { sources: copy } };
      } catch {
        return { threw: /** @type {const} */ (true) };
      }
    }, maxSources, MAX_DRAIN_ONSETS);
  } catch {
    return undefined;
  }
}
