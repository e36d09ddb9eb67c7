// A stand-in for a Puppeteer page whose `window.testbed[hook]` drain answers each of `answers` in turn (a function is
// called: it may throw or hang), then has no such hook; the collector's own in-page function (run/page-copy.js
// copyInPage) runs on it as page.evaluate would run it in the page, without a browser.

/**
 * @param {'audio'|'lipSync'|'viewer'} hook @param {unknown[]} answers
 * @param {{ told?: number[] }} [seen]  told: every value the collector passed to the hook's setCaptureEvery
 * @returns {import('puppeteer').Page}
 */
// any: only the evaluate the collectors call; and the page's window.
export const fakePage = (hook, answers, seen = {}) => /** @type {any} */ ({
  evaluate: async (/** @type {(...args: any[]) => unknown} */ inPage, /** @type {any[]} */ ...args) => {
    const next = answers.shift();
    const drain = () => (typeof next === 'function' ? next() : next);
    const setCaptureEvery = (/** @type {number} */ every) => seen.told?.push(every);
    const source = next === undefined ? null : Promise.resolve({ drain, setCaptureEvery });
    /** @type {any} */ (globalThis).window = { testbed: { [hook]: source } };
    return inPage(...args);
  },
});
