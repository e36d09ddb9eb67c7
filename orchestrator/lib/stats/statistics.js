// Descriptive statistics for timeline metrics (pure).

/** A value read from a file or a page as a figure: a finite number, else null (a gap). @param {unknown} value */
export const finiteOrNull = (value) => (typeof value === 'number' && Number.isFinite(value) ? value : null);

/**
 * Percentile by linear interpolation between closest ranks (R type 7, numpy's default).
 * @param {number[]} sorted ascending values @param {number} p in [0, 100]
 */
export function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  const rank = (p / 100) * (sorted.length - 1);
  const lower = Math.floor(rank);
  const upper = Math.ceil(rank);
  return sorted[lower] + (sorted[upper] - sorted[lower]) * (rank - lower);
}

/**
 * The median of unsorted values (null for none).
 * @param {number[]} values
 */
export const median = (values) => percentile([...values].sort((a, b) => a - b), 50);

/**
 * mean, sample standard deviation (n − 1), median, p5, p95 and n of the finite values; null fields when there are none.
 * @param {unknown[]} values  anything else than a finite number is left out
 * @returns {{ mean: number|null, sd: number|null, median: number|null, p5: number|null, p95: number|null, n: number }}
 */
export function describe(values) {
  const finite = values.filter(/** @returns {v is number} */ (v) => typeof v === 'number' && Number.isFinite(v)).sort((a, b) => a - b);
  const n = finite.length;
  if (n === 0) return { mean: null, sd: null, median: null, p5: null, p95: null, n: 0 };
  const mean = finite.reduce((sum, v) => sum + v, 0) / n;
  const sd = n > 1 ? Math.sqrt(finite.reduce((sum, v) => sum + (v - mean) ** 2, 0) / (n - 1)) : 0;
  return { mean, sd, median: percentile(finite, 50), p5: percentile(finite, 5), p95: percentile(finite, 95), n };
}

/**
 * Jain's fairness index (Σx)² / (n·Σx²): 1 when all equal, 1/n when one flow takes everything.
 * @param {number[]} rates
 */
export function jainIndex(rates) {
  const sum = rates.reduce((a, b) => a + b, 0);
  const sumOfSquares = rates.reduce((a, b) => a + b * b, 0);
  return sumOfSquares === 0 ? null : (sum * sum) / (rates.length * sumOfSquares);
}
