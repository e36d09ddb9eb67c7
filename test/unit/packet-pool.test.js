import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PacketPool } from '../../orchestrator/emulators/relay/packet-pool.js';

test('PacketPool hands a given-back packet out again, every field set anew', () => {
  const pool = new PacketPool();
  const [from, to] = [{ socket: { port: 1 } }, { address: '127.0.0.1', port: 2 }];
  const first = pool.take(7, 100, 128, ['a.up'], from, to, null, 5, 5.5);
  first.hop = 1;
  first.link = /** @type {any} any: a stand-in for the link that delivered it */ ({});
  first.linkArrivalMs = 6;
  pool.give(first);
  const again = pool.take(8, 200, 228, ['b.up', 'b.down'], from, to, null, 9, 9.25);
  assert.equal(again, first, 'reused, not allocated');
  assert.deepEqual({ ...again }, { payload: 8, payloadBytes: 200, sizeBytes: 228, route: ['b.up', 'b.down'], hop: -1, from, to, tunnelTruth: null, atMs: 9, link: null, linkArrivalMs: 9, readMs: 9.25, arrivalMs: 9 });
  assert.notEqual(pool.take(9, 1, 1, [], from, to, null, 0, 0), first, 'a packet in use is not handed out twice');
});
