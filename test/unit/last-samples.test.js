import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLastSampleWatch } from '../../orchestrator/lib/result/last-samples.js';

test('the last samples are in once every connection sampled so far has sent the final tick', () => {
  const samples = [{ t: 1, peer: 'p0', remote: 'p1' }, { t: 1, peer: 'p1', remote: 'p0' }];
  const watch = createLastSampleWatch(samples);
  assert.equal(watch.complete(2), false);
  samples.push({ t: 2, peer: 'p0', remote: 'p1' });
  assert.equal(watch.complete(2), false, 'p1 has not sent its tick 2');
  samples.push({ t: 2, peer: 'p1', remote: 'p0' });
  assert.equal(watch.complete(2), true);
});

test('before any sample nothing is known, so the last samples are not in', () => {
  assert.equal(createLastSampleWatch([]).complete(5), false);
});

test('a late tick arriving after a later one does not lower what a connection has sent', () => {
  const samples = [{ t: 5, peer: 'p0', remote: 'p1' }, { t: 4, peer: 'p0', remote: 'p1' }];
  assert.equal(createLastSampleWatch(samples).complete(5), true);
});

test('a connection that stopped sampling early (a peer that left) keeps the call waiting for it', () => {
  const samples = [{ t: 3, peer: 'p2', remote: 'p0' }, { t: 10, peer: 'p0', remote: 'p1' }, { t: 10, peer: 'p1', remote: 'p0' }];
  assert.equal(createLastSampleWatch(samples).complete(10), false);
});
