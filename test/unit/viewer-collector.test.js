import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createViewerCollector } from '../../orchestrator/run/viewer-collector.js';
import { fakePage } from '../helpers/fake-page.js';

const luma = Buffer.alloc(32 * 18, 7).toString('base64');
/** A drain of frames shown just now. */
const goodDrain = (nowMs = Date.now()) => ({
  frames: { local: { codes: [1, 2], epochMs: [nowMs - 40, nowMs - 7], readMs: 0.4 }, p0: { codes: [], epochMs: [], readMs: 0 } },
  captures: [{ source: 'p0', epochMs: nowMs - 40, code: 1, width: 32, height: 18, luma }],
});
/** What a hostile or broken page may hand back from its drain, one per drain. */
const hostile = [
  'not an object', 42, [], { frames: 'x' }, { frames: { p9: { codes: [1], epochMs: [1], readMs: 0 } }, captures: [] },
  { frames: { local: { codes: [1e9], epochMs: [1], readMs: 0 } }, captures: [] },
  { frames: {}, captures: [{ source: 'p0', epochMs: 1, code: 1, width: 32, height: 18, luma: '../../etc/passwd' }] },
  { frames: {}, captures: [{ source: '../../x', epochMs: 1, code: 1, width: 32, height: 18, luma }] },
  { frames: {}, captures: Array(1000).fill({ source: 'p0', epochMs: 1, code: 1, width: 32, height: 18, luma }) },
  { __proto__: { frames: {} } },
];

test('the viewer collector rejects every broken drain of a hostile page, keeps a good page\'s, and writes captures only in its folder', async () => {
  const runDir = mkdtempSync(path.join(os.tmpdir(), 'wtb-viewer-collector-'));
  /** @type {{ told: number[] }} */
  const seen = { told: [] };
  const pages = new Map(/** @type {Array<[string, any]>} */ ([
    ['p0', fakePage('viewer', [...hostile])],
    ['p1', fakePage('viewer', hostile.map(() => () => goodDrain()), seen)],
    ['p2', { evaluate: async () => { throw new Error('Target closed'); } }],
  ]));
  /** @type {Array<[string, string]>} */
  const rejected = [];
  const collector = createViewerCollector({
    pages: /** @type {any} */ (pages), peers: ['p0', 'p1', 'p2'], runDir, changeTimesS: [], fps: 30, startedAtEpochMs: Date.now() - 5000,
    onRejected: (peer, reason) => rejected.push([peer, reason]),
  });
  await collector.start(Date.now());
  for (let i = 0; i < hostile.length; i++) await collector.stop();
  assert.equal(rejected.length, hostile.length, JSON.stringify(rejected));
  assert.ok(rejected.every(([peer, reason]) => peer === 'p0' && /frame reader of p0/.test(reason)), JSON.stringify(rejected));
  // Only p1's batches and captures were kept, each capture a file inside the run's captures folder.
  assert.ok(collector.batches.length > 0 && collector.batches.every((batch) => batch.peer === 'p1'), JSON.stringify(collector.batches[0]));
  assert.equal(collector.captures.length, hostile.length);
  assert.deepEqual(seen.told, [30], 'told how often to capture once, then only on a change');
  const captureDir = path.join(runDir, 'captures');
  assert.deepEqual(readdirSync(runDir), ['captures']);
  assert.ok(collector.captures.every((capture) => path.dirname(capture.file) === captureDir && existsSync(capture.file)));
  await collector.removeCaptures();
  assert.equal(existsSync(captureDir), false);
});

/** A collector over stub pages (what page.evaluate returns or does), and the rejections it reported. */
function collectorOf(/** @type {Record<string, (...args: any[]) => Promise<unknown>>} */ evaluators, options = {}) {
  const runDir = mkdtempSync(path.join(os.tmpdir(), 'wtb-viewer-collector-'));
  /** @type {Array<[string, string]>} */
  const rejected = [];
  const pages = new Map(Object.entries(evaluators).map(([peer, evaluate]) => [peer, { evaluate }]));
  const collector = createViewerCollector({
    pages: /** @type {any} */ (pages), peers: ['p0', 'p1'], runDir, changeTimesS: [], fps: 30, startedAtEpochMs: Date.now() - 5000,
    onRejected: (peer, reason) => rejected.push([peer, reason]), ...options,
  });
  return { collector, rejected };
}

test('a page whose drain never answers holds up no other page, is reported, and the last drain gives up on it', async () => {
  let p1Drains = 0;
  const { collector, rejected } = collectorOf({
    p0: fakePage('viewer', [() => new Promise(() => {})]).evaluate,
    p1: fakePage('viewer', Array.from({ length: 10 }, () => () => { p1Drains += 1; return goodDrain(); })).evaluate,
  }, { drainTimeoutMs: 300 });
  await collector.start(Date.now());
  await sleep(2500);
  const started = Date.now();
  await collector.stop();
  assert.ok(Date.now() - started < 1000, `stop took ${Date.now() - started} ms`);
  assert.ok(p1Drains >= 3, `p1 drained ${p1Drains} times`);
  assert.equal(collector.batches.filter((batch) => batch.peer === 'p1' && batch.source === 'local').length, p1Drains);
  assert.deepEqual(rejected, [['p0', 'frame reader of p0: the drain has not answered for 0.3 s']]);
});

test('a drain dating its frames before the run or in the future, or throwing in the page, is rejected and counted', async () => {
  const drains = [
    () => ({ ...goodDrain(), frames: { local: { codes: [1], epochMs: [1], readMs: 0 } } }),
    () => ({ ...goodDrain(), frames: { local: { codes: [1], epochMs: [8.64e15], readMs: 0 } } }),
    () => ({ ...goodDrain(), captures: [{ ...goodDrain().captures[0], epochMs: 1 }] }),
    () => { throw new Error('tampered'); },
    () => goodDrain(),
  ];
  const { collector, rejected } = collectorOf({ p1: fakePage('viewer', [...drains]).evaluate });
  await collector.start(Date.now());
  for (let i = 0; i < drains.length; i++) await collector.stop();
  assert.deepEqual(rejected.map(([peer, reason]) => [peer, reason.replace(/\d{6,}/g, 'T')]), [
    ['p1', 'frame reader of p1: frames.local.epochMs must be epoch milliseconds from T to T'],
    ['p1', 'frame reader of p1: frames.local.epochMs must be epoch milliseconds from T to T'],
    ['p1', 'frame reader of p1: captures[0]: epochMs must be epoch milliseconds from T to T, code a frame code'],
    ['p1', 'frame reader of p1: the drain threw'],
  ]);
  assert.equal(collector.batches.length, 2, 'the good drain\'s two sources only');
  await collector.removeCaptures();
});
