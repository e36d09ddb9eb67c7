// The once-a-second drain of every page that the viewer, audio and lip-sync collectors share: a page still answering
// its last drain is not asked again, and the last drain at the end waits for a hanging page only so long.

const DRAIN_INTERVAL_MS = 1000;
/** How long the last drain waits for the running ones and for itself. */
export const DRAIN_TIMEOUT_MS = 5000;

/**
 * @param {Map<string, import('puppeteer').Page>} pages
 * @param {(peer: string, page: import('puppeteer').Page) => Promise<void>} drainPage  must not reject
 * @param {number} [timeoutMs]
 */
export function createPageDrains(pages, drainPage, timeoutMs = DRAIN_TIMEOUT_MS) {
  /** @type {NodeJS.Timeout|null} */
  let timer = null;
  /** @type {Map<string, Promise<void>>} */
  const inFlight = new Map();

  /** Drains every page not still answering the last drain; resolves when all have answered. */
  const drainAll = () => Promise.all([...pages].map(([peer, page]) => {
    if (!inFlight.has(peer)) inFlight.set(peer, drainPage(peer, page).finally(() => inFlight.delete(peer)));
    return inFlight.get(peer);
  })).then(() => {});

  return {
    start() {
      timer = setInterval(drainAll, DRAIN_INTERVAL_MS);
    },
    /** The last drain (the pages must still be open), after the running ones; a page that hangs is given up on. */
    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      await atMost(Promise.all(inFlight.values()).then(() => {}), timeoutMs);
      await atMost(drainAll(), timeoutMs);
    },
  };
}

/** Waits for `promise`, at most `ms`. @param {Promise<void>} promise @param {number} ms */
export function atMost(promise, ms) {
  /** @type {NodeJS.Timeout|undefined} */
  let timer;
  const timeout = new Promise((resolve) => { timer = setTimeout(resolve, ms); });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
