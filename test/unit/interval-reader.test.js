import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { readEvery } from '../../orchestrator/run/interval-reader.js';

test('readEvery: reads at once and then each interval, never two at a time; a failed reading is dropped; stop waits for the one in progress', async () => {
  let running = 0;
  let most = 0;
  let reads = 0;
  let finished = 0;
  const reader = readEvery(async () => {
    reads += 1;
    running += 1;
    most = Math.max(most, running);
    await sleep(35);
    running -= 1;
    finished += 1;
    if (reads === 2) throw new Error('a racing exit');
  }, 10);
  assert.equal(reads, 1, 'the first reading starts at once');
  await sleep(200);
  await reader.stop();
  const afterStop = reads;
  assert.ok(reads >= 3, `${reads} readings in 200 ms`);
  assert.equal(most, 1, 'an overrunning reading skips the ticks it overlaps');
  assert.equal(finished, reads, 'stop waited for the reading in progress');
  await sleep(50);
  assert.equal(reads, afterStop, 'no reading after stop');
});
