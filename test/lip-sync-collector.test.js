// The lip-sync collector (orchestrator/run/lip-sync-collector.js) against hostile pages, without a browser: a drain
// over the bounds is refused in the page (DevTools never carries it), one of the wrong shape is refused by the check,
// and onsets past a stream's cap are counted as dropped, not kept.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLipSyncCollector } from '../orchestrator/run/lip-sync-collector.js';
import { MAX_DRAIN_ONSETS } from '../orchestrator/lib/audio/lip-sync-input.js';
import { fakePage as fakeHookPage } from './helpers/fake-page.js';

/** A page whose listener's drain answers each of `answers` in turn. @param {unknown[]} answers */
const fakePage = (answers) => fakeHookPage('lipSync', answers);

test('hostile lip-sync drains are refused with a reason; a flood is capped and counted as dropped', async () => {
  const now = Date.now();
  const onsets = (n, droppedOnsets = 0) => ({ onsetsEpochMs: Array.from({ length: n }, (_, i) => now + i), droppedOnsets });
  // p0 floods p1's stream: 4 full drains against a cap of 3 per mark interval of a 4 s call plus 30 (36).
  const p0 = fakePage(Array.from({ length: 4 }, () => ({ sources: { p1: onsets(MAX_DRAIN_ONSETS) } })));
  // p1: too many onsets at once, too many sources, a string time, a throwing drain, then a good one.
  const p1 = fakePage([
    { sources: { p0: onsets(MAX_DRAIN_ONSETS + 1) } },
    { sources: { p0: onsets(1), local: onsets(1), p2: onsets(1), p3: onsets(1) } },
    { sources: { p0: { onsetsEpochMs: [String(now)], droppedOnsets: 0 } } },
    () => { throw new Error('boom'); },
    { sources: { local: onsets(2, 1) } },
  ]);
  const rejections = [];
  const collector = createLipSyncCollector({
    pages: new Map([['p0', p0], ['p1', p1]]), peers: ['p0', 'p1', 'p2'], durationS: 4, startedAtEpochMs: now - 1000,
    onRejected: (peer, reason) => rejections.push({ peer, reason }),
  });
  collector.start();
  for (let i = 0; i < 5; i += 1) await collector.stop(); // each stop drains every page once
  assert.equal(rejections.length, 4, JSON.stringify(rejections));
  assert.ok(rejections.every(({ peer }) => peer === 'p1'));
  assert.match(rejections[0].reason, /^lip-sync listener of p1: drain refused in the page: a list of 101 items \(at most 100\) at sources\.p0\.onsetsEpochMs$/);
  assert.match(rejections[1].reason, /^lip-sync listener of p1: drain refused in the page: an object of more than 3 keys at sources$/);
  assert.match(rejections[2].reason, /must be epoch milliseconds/);
  assert.match(rejections[3].reason, /the drain threw/);
  const kept = (peer, source) => collector.onsets.filter((onset) => onset.peer === peer && onset.source === source).length;
  assert.equal(kept('p0', 'p1'), 36);
  assert.equal(kept('p1', 'local'), 2);
  assert.deepEqual(collector.dropped(), { 'p0\np1': 4 * MAX_DRAIN_ONSETS - 36, 'p1\nlocal': 1 });
});
