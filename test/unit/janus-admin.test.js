import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { parseHandleInfo } from '../../orchestrator/sfu/janus/janus-admin.js';

// handle_info from a real Janus 1.1.2 run (test/fixtures/janus/): one Chromium publishing 360p30 into a VideoRoom
// room with a 300 kbps cap, another subscribed to it, read after 12 s; SDPs and fingerprints trimmed.
const FIXTURE = JSON.parse(readFileSync(new URL('../fixtures/janus/handle-info.json', import.meta.url), 'utf8'));

test('a publisher handle gives one row per stream it receives from its browser, with the REMB cap', () => {
  const rows = parseHandleInfo(FIXTURE.publisher);
  assert.deepEqual(rows.map((row) => [row.kind, row.direction]), [['audio', 'fromPeer'], ['video', 'fromPeer']]);
  const video = rows[1];
  assert.equal(video.handleId, 3435248720613245);
  assert.equal(video.sessionId, 3351813202913961);
  assert.equal(video.role, 'publisher');
  assert.equal(video.room, 1);
  assert.equal(video.feedId, 4513246849333073);
  assert.equal(video.display, 'p0');
  assert.equal(video.mid, '1');
  assert.equal(video.bitrateKbps, (30763 * 8) / 1000);
  assert.equal(video.packets, 407);
  assert.equal(video.nacks, 0);
  assert.equal(video.retransmissions, 0);
  assert.equal(video.rembCapKbps, 300);
  assert.equal(rows[0].nacks, null, 'audio has no NACKs');
  assert.equal(rows[0].bitrateKbps, (4284 * 8) / 1000);
});

test('a subscriber handle gives rows Janus sends to its browser, named by the feed they carry', () => {
  const rows = parseHandleInfo(FIXTURE.subscriber);
  assert.deepEqual(rows.map((row) => [row.kind, row.direction, row.display, row.feedId]), [
    ['audio', 'toPeer', 'p0', 4513246849333073],
    ['video', 'toPeer', 'p0', 4513246849333073],
  ]);
  assert.equal(rows[1].role, 'subscriber');
  assert.equal(rows[1].bitrateKbps, (32779 * 8) / 1000);
  assert.equal(rows[1].packets, 400);
  assert.equal(rows[1].rembCapKbps, null);
});

test('a handle without media (not negotiated yet, another plugin) gives no rows; odd fields become nulls', () => {
  assert.deepEqual(parseHandleInfo({ session_id: 1, handle_id: 2, plugin: 'janus.plugin.videoroom', plugin_specific: { type: 'publisher' } }), []);
  assert.deepEqual(parseHandleInfo(undefined), []);
  const rows = parseHandleInfo({
    session_id: 1, handle_id: 2,
    webrtc: { media: { 0: { type: 'video', mid: '0', direction: { send: true, recv: true }, stats: { in: { bytes_lastsec: 1000 } } }, 1: { type: 'data' } } },
  });
  assert.deepEqual(rows.map((row) => [row.direction, row.bitrateKbps, row.role, row.display, row.lost]), [['fromPeer', 8, null, null, 0], ['toPeer', 0, null, null, 0]]);
});
