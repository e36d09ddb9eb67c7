import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EVENT_TYPES } from '../../signaling/messages.js';
import { MAX_PAGE_EVENTS_PER_PEER, MAX_PAGE_EVENTS_PER_TYPE, createRecorder } from '../../orchestrator/run/recorder.js';

const START_MS = 1_790_000_000_000;

/** A recorder on a clock the test moves. */
function recorderAt(startMs = START_MS) {
  const clock = { nowMs: startMs };
  const recorder = createRecorder({ log: () => {}, startedAtEpochMs: startMs, now: () => clock.nowMs });
  return { recorder, clock };
}

test('a page flooding 200 000 events of every type cannot grow the events past its caps; the rest are counted per type', () => {
  const { recorder, clock } = recorderAt();
  for (const peer of ['p0', 'p1']) recorder.event({ type: 'launch-started', peer });
  const types = [...EVENT_TYPES, 'console-error'];
  for (let i = 0; i < 200_000; i++) {
    clock.nowMs += 0.01;
    recorder.pageEvent({ type: types[i % types.length], peer: 'p1', remote: 'p0', epochMs: clock.nowMs });
  }
  // The other page and the orchestrator still get every event of theirs in.
  recorder.pageEvent({ type: 'first-frame', peer: 'p0', remote: 'p1', epochMs: clock.nowMs });
  recorder.event({ type: 'flow-command', peer: 'p1', command: 'pause' });
  recorder.finish();

  const fromP1 = recorder.events.filter((event) => event.peer === 'p1' && types.includes(event.type));
  assert.equal(fromP1.length, MAX_PAGE_EVENTS_PER_PEER);
  for (const type of types) assert.ok(fromP1.filter((event) => event.type === type).length <= MAX_PAGE_EVENTS_PER_TYPE, type);
  assert.ok(recorder.events.some((event) => event.peer === 'p0' && event.type === 'first-frame'));
  assert.ok(recorder.events.some((event) => event.type === 'flow-command'));
  const dropped = recorder.events.filter((event) => event.type === 'events-dropped');
  assert.equal(dropped.length, 1, 'one count, for the flooding page only');
  assert.equal(dropped[0].peer, 'p1');
  assert.equal(dropped[0].dropped, 200_000 - MAX_PAGE_EVENTS_PER_PEER);
  const byType = /** @type {Record<string, number>} */ (dropped[0].droppedByType);
  assert.equal(Object.values(byType).reduce((a, b) => a + b, 0), dropped[0].dropped);
  assert.deepEqual(Object.keys(byType).sort(), [...types].sort());
});

test('a page cannot date its events before they were possible or after they arrived: epochMs 1 and 8.64e15 are bounded and counted', () => {
  const { recorder, clock } = recorderAt();
  clock.nowMs = START_MS + 2000;
  recorder.event({ type: 'launch-started', peer: 'p1' });
  clock.nowMs = START_MS + 3000;
  recorder.event({ type: 'joined', peer: 'p1' });
  clock.nowMs = START_MS + 4000;
  const at = (type, epochMs, fields = {}) => {
    recorder.pageEvent({ type, peer: 'p1', epochMs, ...fields });
    return recorder.events.at(-1)?.epochMs;
  };
  assert.equal(at('first-frame', 1, { remote: 'p0' }), START_MS + 3000, 'an event about a remote: not before the join');
  assert.equal(at('media-ready', 1), START_MS + 2000, 'any other: not before the launch');
  assert.equal(at('first-frame', 8.64e15, { remote: 'p0' }), START_MS + 4000, 'not after it arrived');
  assert.equal(at('first-rtp', START_MS + 3950, { remote: 'p0' }), START_MS + 3950, 'an honest time stays');
  assert.equal(at('console-error', undefined), START_MS + 4000, 'no time: when it arrived');
  recorder.finish();
  assert.deepEqual(recorder.events.filter((event) => event.type === 'events-dropped').map(({ epochMs, ...rest }) => rest),
    [{ type: 'events-dropped', peer: 'p1', dropped: 0, droppedByType: {}, timesBounded: 3 }]);
});

test('an honest page adds no events-dropped event', () => {
  const { recorder, clock } = recorderAt();
  recorder.event({ type: 'launch-started', peer: 'p0' });
  recorder.event({ type: 'joined', peer: 'p0' });
  clock.nowMs += 1500;
  recorder.pageEvent({ type: 'first-frame', peer: 'p0', remote: 'p1', epochMs: clock.nowMs - 20 });
  recorder.finish();
  assert.deepEqual(recorder.events.map((event) => event.type), ['launch-started', 'joined', 'first-frame']);
});
