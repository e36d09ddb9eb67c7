import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describe as describeValues, jainIndex, percentile } from '../../orchestrator/lib/stats/statistics.js';

test('describe: mean, sample sd, interpolated percentiles (numpy default), nulls ignored', () => {
  const d = describeValues([4, null, 1, 3, 2, undefined, 5, Number.NaN]);
  assert.equal(d.n, 5);
  assert.equal(d.mean, 3);
  assert.equal(d.sd, Math.sqrt(2.5));
  assert.equal(d.median, 3);
  assert.equal(d.p5, 1.2); // numpy.percentile([1..5], 5)
  assert.equal(d.p95, 4.8);
});

test('describe of nothing is all null with n = 0; one value has sd 0', () => {
  assert.deepEqual(describeValues([]), { mean: null, sd: null, median: null, p5: null, p95: null, n: 0 });
  assert.equal(describeValues([7]).sd, 0);
  assert.equal(percentile([10, 20], 50), 15);
});

test("Jain's index: 1 for equal shares, 1/n when one flow has everything, J16's 2-flow example", () => {
  assert.equal(jainIndex([5, 5, 5]), 1);
  assert.equal(jainIndex([9, 0, 0]), 1 / 3);
  assert.ok(Math.abs(jainIndex([1408, 451]) - 0.79) < 0.01); // J16 tcp-cross-traffic: RTP 1408 vs TCP 451 -> 0.79
  assert.equal(jainIndex([0, 0]), null);
});
