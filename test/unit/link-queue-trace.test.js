// The relay's LinkQueue on a trace, on a fake clock: packets leave only at delivery opportunities, each carrying up
// to 1500 bytes (mahimahi's link_queue.cc), then the link's delay, loss and drop-tail queue apply as at a rate.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LinkQueue } from '../../orchestrator/emulators/relay/link-queue.js';
import { normalizeLinkParams } from '../../orchestrator/lib/network/link-model.js';

/** Opportunities at 10, 20, 30 and 40 ms, looping every 40 ms. */
const TRACE = { name: 'four', opportunitiesMs: [10, 20, 30, 40], periodMs: 40 };
/** @param {Record<string, unknown>} [overrides] */
const onTrace = (overrides = {}) => normalizeLinkParams({ trace: 'four', queuePackets: 100, ...overrides }, 'test');

/** Polls at every event time up to endMs, as the relay's timer does, and returns the delivery times. */
function deliveries(link, endMs) {
  const times = [];
  for (let nextMs = link.nextEventMs(); nextMs <= endMs; nextMs = link.nextEventMs()) {
    times.push(...link.poll(nextMs).map(({ packet, atMs }) => `${packet}@${atMs}`));
  }
  return times;
}

test('full-size packets leave one per opportunity, then cross the delay', () => {
  const link = new LinkQueue(onTrace({ oneWayDelayMs: 5 }), { trace: TRACE, traceOriginMs: 0 });
  for (const name of ['a', 'b', 'c']) assert.equal(link.enqueue(name, 1500, 0), null);
  assert.deepEqual(deliveries(link, 100), ['a@15', 'b@25', 'c@35']);
});

test('small packets share an opportunity; a large one spans two and its leftover serves the next', () => {
  const small = new LinkQueue(onTrace(), { trace: TRACE, traceOriginMs: 0 });
  for (const name of ['a', 'b', 'c', 'd']) small.enqueue(name, 500, 0);
  assert.deepEqual(deliveries(small, 100), ['a@10', 'b@10', 'c@10', 'd@20']);

  const large = new LinkQueue(onTrace(), { trace: TRACE, traceOriginMs: 0 });
  large.enqueue('big', 2000, 0);
  large.enqueue('next', 1000, 5);
  large.enqueue('late', 500, 25);
  assert.deepEqual(deliveries(large, 100), ['big@20', 'next@20', 'late@30']);
});

test('an opportunity with nothing queued before it is lost, as in mahimahi (an arrival at its instant misses it too)', () => {
  const link = new LinkQueue(onTrace(), { trace: TRACE, traceOriginMs: 0 });
  link.enqueue('a', 100, 12);
  link.enqueue('b', 100, 30);
  assert.deepEqual(deliveries(link, 100), ['a@20', 'b@40']);
});

test('the trace loops after its last timestamp, and starts at its origin', () => {
  const link = new LinkQueue(onTrace(), { trace: TRACE, traceOriginMs: 1000 });
  for (const name of ['a', 'b', 'c', 'd', 'e', 'f']) link.enqueue(name, 1500, 1000);
  assert.deepEqual(deliveries(link, 2000), ['a@1010', 'b@1020', 'c@1030', 'd@1040', 'e@1050', 'f@1060']);
  // Before the origin the trace's earlier loops serve: the clock is the same on both sides.
  const early = new LinkQueue(onTrace(), { trace: TRACE, traceOriginMs: 1000, nowMs: 0 });
  early.enqueue('x', 1500, 975);
  assert.deepEqual(deliveries(early, 2000), ['x@980']);
});

test('several opportunities in one millisecond each carry 1500 bytes', () => {
  const burst = { name: 'burst', opportunitiesMs: [5, 5, 5, 100], periodMs: 100 };
  const link = new LinkQueue(normalizeLinkParams({ trace: 'burst' }, 'test'), { trace: burst, traceOriginMs: 0 });
  for (const name of ['a', 'b', 'c', 'd']) link.enqueue(name, 1500, 0);
  assert.deepEqual(deliveries(link, 200), ['a@5', 'b@5', 'c@5', 'd@100']);
});

test('the drop-tail queue, loss and truth work as on a rate-limited link', () => {
  const link = new LinkQueue(onTrace({ queuePackets: 2 }), { trace: TRACE, traceOriginMs: 0 });
  assert.deepEqual(['a', 'b', 'c'].map((name) => link.enqueue(name, 1500, 0)), [null, null, 'queue']);
  assert.deepEqual(deliveries(link, 1000), ['a@10', 'b@20']);
  const [row] = link.takeTruth(1000);
  assert.deepEqual([row.packetsIn, row.packetsOut, row.dropsQueue, row.queueDelayMsP50], [3, 2, 1, 15]);

  const lossy = new LinkQueue(onTrace({ lossPct: 100 }), { trace: TRACE, traceOriginMs: 0 });
  assert.equal(lossy.enqueue('x', 100, 0), 'loss');
});

test('switching between a rate and a trace re-serves the queue from the switch; restartTrace moves the origin', () => {
  const link = new LinkQueue(normalizeLinkParams({ rateKbps: 12, queuePackets: 10 }, 'test'), { nowMs: 0 });
  link.enqueue('a', 1500, 0); // 1000 ms at 12 kbps
  link.enqueue('b', 1500, 0);
  link.configure(onTrace(), 15, { trace: TRACE, traceOriginMs: 0 });
  assert.deepEqual(deliveries(link, 100), ['a@20', 'b@30']);

  link.enqueue('c', 1500, 100);
  link.enqueue('d', 1500, 100);
  link.restartTrace(105, 101);
  // The loop before the new origin ends at 105 (its last line, 40 ms): that opportunity serves first.
  assert.deepEqual(deliveries(link, 200), ['c@105', 'd@115']);

  link.enqueue('e', 1500, 200);
  link.configure(normalizeLinkParams({ rateKbps: 1200 }, 'test'), 201);
  assert.deepEqual(deliveries(link, 300), ['e@211']);
});

test('a trace the params name must be given', () => {
  assert.throws(() => new LinkQueue(onTrace(), {}), /name trace four but no trace was given/);
});
