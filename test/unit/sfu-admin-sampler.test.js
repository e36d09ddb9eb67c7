import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createAdminSampler, sfuRows } from '../../orchestrator/sfu/janus/admin-sampler.js';
import { parseHandleInfo } from '../../orchestrator/sfu/janus/janus-admin.js';

// handle_info from a real Janus 1.1.2 run: p0 publishing, another page (here p1) subscribed to p0's feed.
const FIXTURE = JSON.parse(readFileSync(new URL('../fixtures/janus/handle-info.json', import.meta.url), 'utf8'));
const PUBLISHER = FIXTURE.publisher.handle_id;
const SUBSCRIBER = FIXTURE.subscriber.handle_id;
/** @type {Map<number, import('../../orchestrator/sfu/janus/bridge.js').HandleOwner>} */
const OWNERS = new Map([
  [PUBLISHER, { peer: 'p0', feed: 'p0', role: 'publisher' }],
  [SUBSCRIBER, { peer: 'p1', feed: 'p0', role: 'subscriber' }],
]);
const HANDLE_ROWS = [...parseHandleInfo(FIXTURE.publisher), ...parseHandleInfo(FIXTURE.subscriber)];

test("each handle's rows are named by the page at its other end and the feed it carries, not by Janus's display", () => {
  const rows = sfuRows(HANDLE_ROWS, (id) => OWNERS.get(id), 1_000);
  assert.deepEqual(rows.map((row) => [row.peer, row.feed, row.role, row.kind, row.direction]), [
    ['p0', 'p0', 'publisher', 'audio', 'fromPeer'],
    ['p0', 'p0', 'publisher', 'video', 'fromPeer'],
    // Janus names a subscription by the feed's display (p0); the subscribing page comes from the bridge.
    ['p1', 'p0', 'subscriber', 'audio', 'toPeer'],
    ['p1', 'p0', 'subscriber', 'video', 'toPeer'],
  ]);
  assert.deepEqual(rows[1], {
    epochMs: 1_000, peer: 'p0', feed: 'p0', role: 'publisher', kind: 'video', direction: 'fromPeer', bitrateKbps: (30763 * 8) / 1000,
    packets: 407, nacks: 0, retransmissions: 0, rttMs: HANDLE_ROWS[1].rttMs, lost: HANDLE_ROWS[1].lost, rembCapKbps: 300,
  });
  assert.equal(rows[3].bitrateKbps, (32779 * 8) / 1000);
});

test('a handle the bridge did not attach is left out', () => {
  const rows = sfuRows(HANDLE_ROWS, (id) => (id === SUBSCRIBER ? OWNERS.get(id) : undefined), 1_000);
  assert.deepEqual([...new Set(rows.map((row) => row.peer))], ['p1']);
  assert.deepEqual(sfuRows(HANDLE_ROWS, () => undefined, 1_000), []);
});

test('the sampler reads once an interval, turns a failure into one warning per streak, and stops cleanly', async () => {
  const warnings = [];
  let calls = 0;
  const sampler = createAdminSampler({
    admin: { adminUrl: 'http://127.0.0.1:1/admin', adminSecret: 'x' },
    ownerOf: (id) => OWNERS.get(id),
    onWarning: (message) => warnings.push(message),
    intervalMs: 20,
    // Readings 2 and 3 fail alike, 4 succeeds, 5 fails again.
    readRows: async () => {
      calls += 1;
      if (calls === 2 || calls === 3 || calls === 5) throw new Error(`connection refused ${calls === 5 ? 'again' : ''}`.trim());
      return HANDLE_ROWS;
    },
  });
  assert.equal(sampler.unavailable, 'not sampled: the call did not start');
  sampler.start();
  while (calls < 6) await sleep(5);
  const rows = await sampler.stop();
  const after = calls;
  await sleep(60);
  assert.equal(calls, after, 'no reading after stop');
  assert.deepEqual(warnings, ["reading Janus's Admin API: connection refused", "reading Janus's Admin API: connection refused again"]);
  assert.equal(rows.length % 4, 0);
  assert.ok(rows.length >= 12, `${rows.length} rows from the successful readings`);
  assert.equal(sampler.unavailable, null);
});

test('a sampler with no rows says why', async () => {
  const base = { admin: { adminUrl: 'x', adminSecret: 'x' }, ownerOf: () => undefined, onWarning: () => {}, intervalMs: 10 };
  const failing = createAdminSampler({ ...base, readRows: async () => { throw new Error('HTTP 403'); } });
  failing.start();
  await sleep(40);
  await failing.stop();
  assert.equal(failing.unavailable, "Janus's Admin API failed: HTTP 403");
  const empty = createAdminSampler({ ...base, readRows: async () => [] });
  empty.start();
  await sleep(40);
  await empty.stop();
  assert.equal(empty.unavailable, 'Janus reported no media on any handle');
});
