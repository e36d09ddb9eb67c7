import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { createViewerCollector } from '../../orchestrator/run/viewer-collector.js';

const luma = Buffer.alloc(32 * 18, 7).toString('base64');
const goodDrain = () => ({
  frames: { local: { codes: [1, 2], epochMs: [1e12, 1e12 + 33], readMs: 0.4 }, p0: { codes: [], epochMs: [], readMs: 0 } },
  captures: [{ source: 'p0', epochMs: 1e12, code: 1, width: 32, height: 18, luma }],
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
  let next = 0;
  const pages = new Map([
    ['p0', { evaluate: async () => hostile[next++ % hostile.length] }],
    ['p1', { evaluate: async () => goodDrain() }],
    ['p2', { evaluate: async () => { throw new Error('Target closed'); } }],
  ]);
  /** @type {Array<[string, string]>} */
  const rejected = [];
  const collector = createViewerCollector({
    pages: /** @type {any} */ (pages), peers: ['p0', 'p1', 'p2'], runDir, changeTimesS: [], fps: 30,
    onRejected: (peer, reason) => rejected.push([peer, reason]),
  });
  await collector.start(Date.now());
  for (let i = 0; i < hostile.length; i++) await collector.stop();
  assert.equal(rejected.length, hostile.length, JSON.stringify(rejected));
  assert.ok(rejected.every(([peer, reason]) => peer === 'p0' && /frame reader of p0/.test(reason)), JSON.stringify(rejected));
  // Only p1's batches and captures were kept, each capture a file inside the run's captures folder.
  assert.ok(collector.batches.length > 0 && collector.batches.every((batch) => batch.peer === 'p1'), JSON.stringify(collector.batches[0]));
  assert.equal(collector.captures.length, hostile.length);
  const captureDir = path.join(runDir, 'captures');
  assert.deepEqual(readdirSync(runDir), ['captures']);
  assert.ok(collector.captures.every((capture) => path.dirname(capture.file) === captureDir && existsSync(capture.file)));
  await collector.removeCaptures();
  assert.equal(existsSync(captureDir), false);
});
