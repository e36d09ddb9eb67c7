import assert from 'node:assert/strict';
import { test } from 'node:test';
import { estimateOffset, glassToGlassClockError, nodeClocks, offsetAt, onOrchestratorClock } from '../../orchestrator/lib/grid/clock-offset.js';

test('the offset is the node\'s reading minus the midpoint of the sample with the smallest round trip, ± half that round trip', () => {
  const samples = [
    { sentMs: 1000, remoteMs: 1530, receivedMs: 1040 }, // rtt 40: would say 510
    { sentMs: 2000, remoteMs: 2502, receivedMs: 2004 }, // rtt 4: 500 ± 2
    { sentMs: 3000, remoteMs: 3520, receivedMs: 3010 },
  ];
  assert.deepEqual(estimateOffset(samples), { offsetMs: 500, errorMs: 2, rttMs: 4, samples: 3, atMs: 2002 });
});

test('a sample that is not a number or runs backwards is left out; none usable is an error', () => {
  const samples = [
    { sentMs: 10, remoteMs: Number.NaN, receivedMs: 11 }, { sentMs: 20, remoteMs: 5, receivedMs: 19 },
    { sentMs: 30, remoteMs: 31, receivedMs: 32 },
  ];
  assert.deepEqual(estimateOffset(samples), { offsetMs: 0, errorMs: 1, rttMs: 2, samples: 1, atMs: 31 });
  assert.throws(() => estimateOffset(samples.slice(0, 2)), /no usable clock sample among 2/);
  assert.throws(() => estimateOffset([]), /no usable clock sample among 0/);
});

const offset = (offsetMs, errorMs, atMs) => ({ offsetMs, errorMs, rttMs: 2 * errorMs, samples: 5, atMs });

test('each node\'s clock is its most certain page\'s, at start and end, with the drift between them', () => {
  const nodeOfPeer = { p0: 'n1', p1: 'n2', p2: 'n2' };
  const start = { p0: offset(1, 0.5, 0), p1: offset(30, 2, 0), p2: offset(31, 0.25, 0) };
  const clocks = nodeClocks(nodeOfPeer, start, { p0: offset(3, 0.5, 60_000) });
  assert.deepEqual(Object.keys(clocks), ['n1', 'n2']);
  assert.equal(clocks.n1.driftMs, 2);
  assert.equal(clocks.n2.start.peer, 'p2');
  assert.equal(clocks.n2.start.offsetMs, 31);
  assert.equal(clocks.n2.end, null);
  assert.equal(clocks.n2.driftMs, null);
});

test('the offset is interpolated between the readings and held outside them', () => {
  const clock = { start: { ...offset(10, 1, 1000), peer: 'p0' }, end: { ...offset(20, 1, 2000), peer: 'p0' }, driftMs: 10 };
  assert.equal(offsetAt(clock, 500), 10);
  assert.equal(offsetAt(clock, 1500), 15);
  assert.equal(offsetAt(clock, 9000), 20);
  assert.equal(offsetAt({ ...clock, end: null }, 1500), 10);
});

test('frame times are put on the orchestrator\'s clock by their node\'s offset; a peer without a node clock is unchanged', () => {
  const clocks = { n2: { start: { ...offset(250, 1, 0), peer: 'p1' }, end: null, driftMs: null } };
  const batches = [{ peer: 'p1', source: 'p0', epochMs: [1250, 1283.3] }, { peer: 'p0', source: 'local', epochMs: [1000] }];
  const moved = onOrchestratorClock(batches, { p0: 'n1', p1: 'n2' }, clocks);
  assert.deepEqual(moved.map((batch) => batch.epochMs), [[1000, 1033.3], [1000]]);
  assert.equal(moved[0].source, 'p0');
});

test('a stream\'s glass-to-glass clock error: none on one node, both nodes\' larger errors added across two, unknown without a reading', () => {
  const clock = (startError, endError) => ({ start: { ...offset(0, startError, 0), peer: 'x' }, end: { ...offset(0, endError, 1), peer: 'x' }, driftMs: 0 });
  const errors = glassToGlassClockError(['p0->p1', 'p1->p2', 'p0->p3'], { p0: 'n1', p1: 'n2', p2: 'n2', p3: 'n3' }, { n1: clock(0.5, 1.5), n2: clock(0.25, 0.125) });
  assert.deepEqual(errors, {
    'p0->p1': { sameNode: false, clockErrorMs: 1.75 },
    'p1->p2': { sameNode: true, clockErrorMs: 0 },
    'p0->p3': { sameNode: false, clockErrorMs: null },
  });
});
