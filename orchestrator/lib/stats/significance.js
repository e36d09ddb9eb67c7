// Two-sample significance and effect size for comparing runs with a baseline (pure).
//
// Mann-Whitney U (Mann & Whitney 1947, Ann. Math. Statist. 18(1):50–60), two-sided:
// - exact null distribution when there are no ties and both samples have at most EXACT_MAX_N values
//   (the recursion of Mann & Whitney §2; what scipy.stats.mannwhitneyu computes with method="exact");
// - otherwise the normal approximation with tie-corrected variance and a 0.5 continuity correction
//   (Lehmann, Nonparametrics: Statistical Methods Based on Ranks, 1975, eq. 1.45; scipy's method="asymptotic").
// Cliff's delta (Cliff 1993, Psychol. Bull. 114(3):494–509): P(a > b) − P(a < b), from −1 to 1.

/** Largest sample size for the exact distribution: C(40, 20) ≈ 1.4e11 arrangements still count exactly in a double. */
export const EXACT_MAX_N = 20;

/**
 * @param {number[]} values
 * @param {string} name
 */
function finiteSample(values, name) {
  if (!Array.isArray(values) || values.length === 0 || !values.every(Number.isFinite)) {
    throw new TypeError(`${name} must be a non-empty array of finite numbers`);
  }
  return values;
}

/**
 * Average ranks (1-based) of the pooled sample, and the sizes of the tie groups.
 * @param {number[]} pooled
 * @returns {{ ranks: number[], tieSizes: number[] }}
 */
function rankWithTies(pooled) {
  const order = pooled.map((value, index) => ({ value, index })).sort((x, y) => x.value - y.value);
  const ranks = new Array(pooled.length);
  const tieSizes = [];
  for (let start = 0; start < order.length;) {
    let end = start + 1;
    while (end < order.length && order[end].value === order[start].value) end += 1;
    const averageRank = (start + 1 + end) / 2;
    for (let k = start; k < end; k += 1) ranks[order[k].index] = averageRank;
    if (end - start > 1) tieSizes.push(end - start);
    start = end;
  }
  return { ranks, tieSizes };
}

/**
 * Number of arrangements of m values of one sample among n of the other giving each U = 0 … m·n
 * (no ties): f(m, n, u) = f(m − 1, n, u − n) + f(m, n − 1, u).
 * @param {number} m @param {number} n
 * @returns {number[]} counts indexed by u
 */
function exactUCounts(m, n) {
  // previous[j] holds f(i − 1, j, ·); built up row by row over i.
  let previous = Array.from({ length: n + 1 }, () => [1]);
  for (let i = 1; i <= m; i += 1) {
    const current = [[1]];
    for (let j = 1; j <= n; j += 1) {
      const counts = new Array(i * j + 1).fill(0);
      previous[j].forEach((count, u) => { counts[u + j] += count; });
      current[j - 1].forEach((count, u) => { counts[u] += count; });
      current.push(counts);
    }
    previous = current;
  }
  return previous[n];
}

/**
 * Upper-tail probability of the standard normal distribution, P(Z > z).
 * erfc by the Chebyshev fit of Numerical Recipes in C, 2nd ed., §6.2 (fractional error below 1.2e-7).
 * @param {number} z
 */
export function normalSurvival(z) {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.5 * x);
  const erfc = t * Math.exp(-x * x - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418
    + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587
    + t * (-0.82215223 + t * 0.17087277)))))))));
  return z >= 0 ? erfc / 2 : 1 - erfc / 2;
}

/**
 * Two-sided Mann-Whitney U test of "a and b come from the same distribution".
 * @param {number[]} a @param {number[]} b
 * @returns {{ uA: number, uB: number, pValue: number, method: 'exact'|'normal', z: number|null }}
 *   uA counts pairs with a > b (ties count ½), uA + uB = |a|·|b|; z is null for the exact method
 */
export function mannWhitneyU(a, b) {
  finiteSample(a, 'a');
  finiteSample(b, 'b');
  const m = a.length;
  const n = b.length;
  const { ranks, tieSizes } = rankWithTies([...a, ...b]);
  const rankSumA = ranks.slice(0, m).reduce((sum, r) => sum + r, 0);
  const uA = rankSumA - (m * (m + 1)) / 2;
  const uB = m * n - uA;

  if (tieSizes.length === 0 && m <= EXACT_MAX_N && n <= EXACT_MAX_N) {
    const counts = exactUCounts(m, n);
    const total = counts.reduce((sum, c) => sum + c, 0);
    const lowerTail = counts.slice(0, Math.min(uA, uB) + 1).reduce((sum, c) => sum + c, 0);
    // The null distribution is symmetric about m·n/2, so the two-sided p doubles the smaller tail.
    return { uA, uB, pValue: Math.min(1, (2 * lowerTail) / total), method: 'exact', z: null };
  }

  const total = m + n;
  const tieTerm = tieSizes.reduce((sum, t) => sum + t ** 3 - t, 0) / (total * (total - 1));
  const variance = ((m * n) / 12) * (total + 1 - tieTerm);
  if (variance <= 0) return { uA, uB, pValue: 1, method: 'normal', z: 0 }; // every value tied: no evidence either way
  const z = Math.max(0, Math.max(uA, uB) - (m * n) / 2 - 0.5) / Math.sqrt(variance);
  return { uA, uB, pValue: Math.min(1, 2 * normalSurvival(z)), method: 'normal', z };
}

/**
 * Cliff's delta of a against b: (#(a > b) − #(a < b)) / (|a|·|b|). Equals 2·uA/(|a|·|b|) − 1.
 * |delta| ≥ 0.474 is "large" by the thresholds of Romano et al. (2006).
 * @param {number[]} a @param {number[]} b
 */
export function cliffsDelta(a, b) {
  finiteSample(a, 'a');
  finiteSample(b, 'b');
  let dominance = 0;
  for (const x of a) for (const y of b) dominance += Math.sign(x - y);
  return dominance / (a.length * b.length);
}
