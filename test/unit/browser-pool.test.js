// The pool of browsers a suite keeps between runs (orchestrator/run/browser-pool.js), with stand-in browsers: only a
// connected browser of the same launch is given out, a full or closed pool closes what it is given.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createBrowserPool } from '../../orchestrator/run/browser-pool.js';

/** A stand-in for a puppeteer Browser: connected until closed (or told otherwise). */
const fakeBrowser = (name) => {
  const browser = { name, connected: true, closes: 0, close: async () => { browser.connected = false; browser.closes += 1; } };
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
  assert.equal(pool.take('a'), asBrowser(first));
  assert.equal(pool.take('a'), null, 'given out once');

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
