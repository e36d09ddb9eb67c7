import { test } from 'node:test';
import assert from 'node:assert/strict';
import { byCodeUnit } from '../../orchestrator/lib/stats/order.js';

test('byCodeUnit orders names by code unit: capitals before lower case, p10 before p2, equal names 0', () => {
  assert.deepEqual(['p2', 'p10', 'b', 'B', 'a-b', 'a'].sort(byCodeUnit), ['B', 'a', 'a-b', 'b', 'p10', 'p2']);
  assert.equal(byCodeUnit('p0->p1', 'p0->p1'), 0);
  assert.ok(byCodeUnit('p0', 'p1') < 0 && byCodeUnit('p1', 'p0') > 0);
});
