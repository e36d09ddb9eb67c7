import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PacketFifo } from '../../orchestrator/emulators/relay/packet-fifo.js';

/** @param {PacketFifo<string>} fifo */
const drain = (fifo) => {
  const out = [];
  while (fifo.length > 0) {
    out.push([fifo.headSizeBytes(), fifo.headArrivalMs(), fifo.headTimeMs()].join('/') + ` ${fifo.shift()}`);
  }
  return out;
};

test('PacketFifo keeps order and columns across wrap-around and growth', () => {
  const fifo = /** @type {PacketFifo<string>} */ (new PacketFifo(4));
  assert.equal(fifo.headTimeMs(), Infinity, 'empty: no event');
  for (let i = 0; i < 3; i++) fifo.push(`p${i}`, 100 + i, i, 10 + i);
  assert.deepEqual(drain(fifo), ['100/0/10 p0', '101/1/11 p1', '102/2/12 p2']);
  // The head is now at index 3 of 4: the next pushes wrap, the ring grows while wrapped, then grows again.
  for (let i = 3; i < 12; i++) fifo.push(`p${i}`, 100 + i, i, 10 + i);
  assert.equal(fifo.length, 9);
  fifo.setTimeMsAt(1, 99);
  assert.deepEqual([fifo.sizeBytesAt(2), fifo.timeMsAt(1)], [105, 99]);
  assert.deepEqual(drain(fifo), [
    '103/3/13 p3', '104/4/99 p4', '105/5/15 p5', '106/6/16 p6', '107/7/17 p7', '108/8/18 p8', '109/9/19 p9',
    '110/10/20 p10', '111/11/21 p11',
  ]);
  assert.equal(fifo.headTimeMs(), Infinity);
});
