import { test } from 'node:test';
import assert from 'node:assert/strict';
import { percentileInPlace } from '../../orchestrator/emulators/relay/select-percentile.js';
import { percentile } from '../../orchestrator/lib/stats/statistics.js';
import { createRandom } from '../../orchestrator/lib/stats/random.js';

test('percentileInPlace gives what percentile() gives on the sorted values, ties and sorted input included', () => {
  const random = createRandom(7);
  let compared = 0;
  for (let length = 1; length <= 300; length += 7) {
    const shapes = [
      Array.from({ length }, () => 25 + random() * 3),
      Array.from({ length }, () => Math.floor(random() * 4)),
      Array.from({ length }, (_, i) => i * 0.01),
      Array.from({ length }, (_, i) => -i),
    ];
    for (const values of shapes) {
      for (const p of [0, 37.5, 50, 95, 100]) {
        const expected = percentile([...values].sort((a, b) => a - b), p);
        assert.equal(percentileInPlace([...values], p), expected, `length ${length}, p${p}`);
        compared++;
      }
    }
  }
  assert.equal(compared, 43 * 4 * 5);
});

test('percentileInPlace of no values is null', () => assert.equal(percentileInPlace([], 50), null));
