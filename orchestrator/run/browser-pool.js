// Chromium browsers kept between the runs of a suite or a reproduction (issue 41): a run takes a kept browser whose
// launch matches its own (the same executable, arguments and environment) instead of launching one, opens its page in
// a browser context of its own (a fresh profile: nothing a page stored, cached or granted is carried between runs),
// and gives the browser back when its call is over. Only plain launches are kept: no emulator's wrapper (netem's
// namespace), no cgroup, no Grid session, no Firefox; a browser that crashed or disconnected is never given out again.
// Each kept browser is a child over a pipe, so it dies with the orchestrator however that ends. While it waits, the
// next run's browser context and its blank page are made (a renderer process starts), off that run's set-up: the
// context is made after the last run's was closed, and nothing is loaded in it before the run opens its page.

/** Kept browsers beyond this many are closed: a suite's runs use the same launches one after another, and a 2-core host
 * has no room for more idle ones. */
const MAX_IDLE = 4;

/**
 * @typedef {{ context: import('puppeteer').BrowserContext, page: import('puppeteer').Page }} PreparedPage
 * @typedef {{ browser: import('puppeteer').Browser, prepared: Promise<PreparedPage|null> }} KeptBrowser  prepared: a fresh
 *   context and its blank page, null when they could not be made (the run makes its own)
 * @typedef {object} BrowserPool
 * @property {(key: string) => KeptBrowser|null} take  a kept, connected browser launched with `key`, or null
 * @property {(key: string, browser: import('puppeteer').Browser) => Promise<void>} give  keeps it for a later run (closed
 *   instead when it is no longer connected, or the pool is full or closed)
 * @property {() => Promise<void>} close  closes every kept browser; later ones given are closed at once
 * @property {() => number} idle  how many browsers are kept now
 */

/**
 * A fresh browser context and a blank page in it, or null (a context that got no page is closed).
 * @param {import('puppeteer').Browser} browser @returns {Promise<PreparedPage|null>}
 */
async function preparePage(browser) {
  /** @type {import('puppeteer').BrowserContext|null} */
  let context = null;
  try {
    context = await browser.createBrowserContext();
    return { context, page: await context.newPage() };
  } catch {
    await context?.close().catch(() => {});
    return null;
  }
}

/** @returns {BrowserPool} */
export function createBrowserPool() {
  /** @type {Map<string, KeptBrowser[]>} */
  const kept = new Map();
  let closed = false;
  const count = () => [...kept.values()].reduce((sum, browsers) => sum + browsers.length, 0);
  return {
    take(key) {
      const browsers = kept.get(key) ?? [];
      while (browsers.length) {
        const entry = /** @type {KeptBrowser} */ (browsers.pop());
        if (entry.browser.connected) return entry;
      }
      return null;
    },
    async give(key, browser) {
      if (closed || !browser.connected || count() >= MAX_IDLE) {
        await browser.close().catch(() => {});
        return;
      }
      kept.set(key, [...(kept.get(key) ?? []), { browser, prepared: preparePage(browser) }]);
    },
    async close() {
      closed = true;
      const browsers = [...kept.values()].flat().map((entry) => entry.browser);
      kept.clear();
      await Promise.all(browsers.map((browser) => browser.close().catch(() => {})));
    },
    idle: count,
  };
}
