// The pool of browsers a suite keeps between runs (orchestrator/run/browser-pool.js), with stand-in browsers: only a
// connected browser of the same launch is given out, with a fresh context and blank page made while it waited; a full
// or closed pool closes what it is given.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createBrowserPool } from '../../orchestrator/run/browser-pool.js';

/**
 * A stand-in for a puppeteer Browser: connected until closed (or told otherwise); its contexts record whether they were
 * closed, and `failing` makes a context's page (or the context itself) fail.
 * @param {string} name @param {{ failing?: 'page'|'context' }} [options]
 */
const fakeBrowser = (name, { failing } = {}) => {
  /** @type {Array<{ closed: boolean }>} */
  const contexts = [];
  const browser = {
    name, connected: true, closes: 0, contexts,
    close: async () => { browser.connected = false; browser.closes += 1; },
    createBrowserContext: async () => {
      if (failing === 'context') throw new Error('no context');
      const context = {
        closed: false,
        close: async () => { context.closed = true; },
        newPage: async () => {
          if (failing === 'page') throw new Error('no page');
          return { url: () => 'about:blank' };
        },
      };
      contexts.push(context);
      return context;
    },
  };
  return browser;
};
/** @param {ReturnType<typeof fakeBrowser>} browser */
const asBrowser = (browser) => /** @type {import('puppeteer').Browser} */ (/** @type {unknown} */ (browser));

test('a kept browser goes to the next run of the same launch only, and only while it is connected', async () => {
  const pool = createBrowserPool();
  assert.equal(pool.take('a'), null, 'nothing kept yet');
  const first = fakeBrowser('first');
  await pool.give('a', asBrowser(first));
  assert.equal(pool.idle(), 1);
  assert.equal(pool.take('b'), null, 'another launch takes nothing');
  const taken = pool.take('a');
  assert.equal(taken?.browser, asBrowser(first));
  // Made while it waited: a context of its own (the last run's was closed before it was given back) with a blank page.
  const prepared = await taken?.prepared;
  assert.equal(prepared?.page.url(), 'about:blank');
  assert.deepEqual(first.contexts.map((c) => c.closed), [false]);
  assert.equal(prepared?.context, first.contexts[0]);
  assert.equal(pool.take('a'), null, 'given out once');
  // A context that gets no page is closed, and the run makes its own; so does one whose context cannot be made.
  for (const failing of /** @type {const} */ (['page', 'context'])) {
    const flaky = fakeBrowser(`no-${failing}`, { failing });
    await pool.give('a', asBrowser(flaky));
    const entry = pool.take('a');
    assert.equal(entry?.browser, asBrowser(flaky));
    assert.equal(await entry?.prepared, null);
    assert.deepEqual(flaky.contexts.map((c) => c.closed), failing === 'page' ? [true] : [], `${failing}: no context left open`);
  }

  const crashed = fakeBrowser('crashed');
  await pool.give('a', asBrowser(crashed));
  crashed.connected = false;
  assert.equal(pool.take('a'), null, 'a browser that disconnected while kept is not given out');
  const gone = fakeBrowser('gone');
  gone.connected = false;
  await pool.give('a', asBrowser(gone));
  assert.equal(pool.idle(), 0, 'a disconnected browser is not kept');
  assert.equal(gone.closes, 1);
});

test('a full pool closes what it is given; a closed one closes what it kept and all it is given later', async () => {
  const pool = createBrowserPool();
  const browsers = Array.from({ length: 5 }, (_, i) => fakeBrowser(`b${i}`));
  for (const browser of browsers) await pool.give(`key${browser.name}`, asBrowser(browser));
  assert.equal(pool.idle(), 4);
  assert.equal(browsers[4].closes, 1, 'the fifth is closed: a suite uses a few launches, on a host with two cores');
  await pool.close();
  assert.equal(pool.idle(), 0);
  assert.deepEqual(browsers.map((b) => b.closes), Array(5).fill(1), 'every browser closed once');
  const late = fakeBrowser('late');
  await pool.give('a', asBrowser(late));
  assert.equal(late.closes, 1, 'given after the pool closed: closed at once');
  assert.equal(pool.take('a'), null);
});
