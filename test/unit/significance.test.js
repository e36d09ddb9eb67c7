import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EXACT_MAX_N, cliffsDelta, mannWhitneyU, normalSurvival } from '../../orchestrator/lib/stats/significance.js';

const close = (actual, expected, tolerance, what) => assert.ok(Math.abs(actual - expected) <= tolerance, `${what}: ${actual} is not within ${tolerance} of ${expected}`);

test('normal survival function: P(Z > 1.959964) = 0.025, symmetric about 0', () => {
  close(normalSurvival(1.959964), 0.025, 1e-7, 'sf(1.96)');
  close(normalSurvival(0), 0.5, 1e-7, 'sf(0)');
  close(normalSurvival(-1.959964), 0.975, 1e-7, 'sf(-1.96)');
  close(normalSurvival(3.090232), 0.001, 1e-7, 'sf(3.09)');
});

test('exact U, complete separation: 3 vs 3 gives p = 2/C(6,3) = 0.1; 5 vs 5 gives p = 2/C(10,5) = 2/252', () => {
  const small = mannWhitneyU([1, 2, 3], [4, 5, 6]);
  assert.deepEqual({ uA: small.uA, uB: small.uB, method: small.method }, { uA: 0, uB: 9, method: 'exact' });
  close(small.pValue, 0.1, 1e-12, 'p 3v3');
  const five = mannWhitneyU([1, 2, 3, 4, 5], [6, 7, 8, 9, 10]);
  assert.equal(five.uA, 0);
  close(five.pValue, 2 / 252, 1e-12, 'p 5v5'); // 0.00794, scipy.stats.mannwhitneyu(method="exact") gives the same
});

test('exact U = 3 of 5 vs 5: P(U <= 3) = (1 + 1 + 2 + 3)/252, two-sided p = 14/252 ≈ 0.056 (not significant at 0.05)', () => {
  // a > b pairs: 8 > 5, 6, 7 -> U = 3; arrangements with U = 0, 1, 2, 3 are the partitions of u into at most 5 parts <= 5.
  const { uA, pValue, method } = mannWhitneyU([1, 2, 3, 4, 8], [5, 6, 7, 9, 10]);
  assert.equal(method, 'exact');
  assert.equal(uA, 3);
  close(pValue, 14 / 252, 1e-12, 'p');
  // The largest U still significant at 0.05 for 5 vs 5 is 2 (Mann-Whitney tables): p = 2·(1+1+2)/252 = 0.0317.
  close(mannWhitneyU([1, 2, 3, 4, 7], [5, 6, 8, 9, 10]).pValue, 8 / 252, 1e-12, 'p at U = 2');
});

test('ties switch to the normal approximation with tie-corrected variance and continuity correction', () => {
  // Pooled ranks: 1→1, 2,2,2→3, 3,3→5.5, 4→7, 5→8. R_a = 1+3+3+5.5 = 12.5, U_a = 12.5 − 10 = 2.5, U_b = 13.5.
  // σ² = (16/12)·(9 − (3³−3 + 2³−2)/(8·7)) = 11.2857; z = (13.5 − 8 − 0.5)/√11.2857 = 1.48835; p = 2·(1 − Φ(z)) = 0.13666.
  const result = mannWhitneyU([1, 2, 2, 3], [2, 3, 4, 5]);
  assert.equal(result.method, 'normal');
  assert.equal(result.uA, 2.5);
  assert.equal(result.uB, 13.5);
  close(result.z, 1.48835, 1e-5, 'z');
  close(result.pValue, 0.13666, 1e-4, 'p');
});

test('identical samples: p = 1 and Cliff\'s delta 0, also when every value is the same', () => {
  for (const sample of [[1, 2, 3, 4, 5], [7, 7, 7, 7, 7]]) {
    const result = mannWhitneyU(sample, [...sample]);
    assert.equal(result.pValue, 1);
    assert.equal(result.uA, result.uB);
    assert.equal(cliffsDelta(sample, [...sample]), 0);
  }
});

test('the test is symmetric, U_a + U_b = m·n, and large untied samples use the normal approximation', () => {
  const a = [3.1, 4.7, 1.2, 9.9, 5.5, 6.1];
  const b = [2.2, 8.8, 7.3, 0.4];
  const ab = mannWhitneyU(a, b);
  const ba = mannWhitneyU(b, a);
  assert.equal(ab.pValue, ba.pValue);
  assert.equal(ab.uA, ba.uB);
  assert.equal(ab.uA + ab.uB, a.length * b.length);
  const big = Array.from({ length: EXACT_MAX_N + 1 }, (_, i) => i);
  const shifted = big.map((v) => v + 0.5);
  assert.equal(mannWhitneyU(big, shifted).method, 'normal');
  assert.equal(mannWhitneyU(big.slice(1), shifted.slice(1)).method, 'exact');
  // Near the boundary both methods agree to about 0.01 for a moderate shift.
  const exact = mannWhitneyU(big.slice(1), shifted.slice(1).map((v) => v + 5)).pValue;
  const normal = mannWhitneyU(big, shifted.map((v) => v + 5)).pValue;
  assert.ok(Math.abs(exact - normal) < 0.02, `exact ${exact} vs normal ${normal}`);
});

test("Cliff's delta: dominance counts with ties as 0, and 2·U_a/(m·n) − 1", () => {
  // 1 vs (2,2,4): −3; 2 vs (2,2,4): −1; 3 vs (2,2,4): +1  ->  −3/9
  assert.equal(cliffsDelta([1, 2, 3], [2, 2, 4]), -3 / 9);
  assert.equal(cliffsDelta([6, 7, 8], [1, 2]), 1);
  assert.equal(cliffsDelta([1, 2], [6, 7, 8]), -1);
  const a = [1, 2, 2, 3];
  const b = [2, 3, 4, 5];
  assert.equal(cliffsDelta(a, b), (2 * mannWhitneyU(a, b).uA) / (a.length * b.length) - 1);
});

test('empty or non-numeric samples are refused', () => {
  assert.throws(() => mannWhitneyU([], [1]), TypeError);
  assert.throws(() => cliffsDelta([1, Number.NaN], [1]), TypeError);
});
