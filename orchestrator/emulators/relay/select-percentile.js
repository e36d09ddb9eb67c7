/**
 * Percentiles of a second's delay samples without sorting them: the relay folds every link's second on its packet
 * path, and sorting ~10 000 samples per link there stalled it for tens of ms at each second's end. Pure.
 */

/**
 * The same value as statistics.js's percentile() of the sorted values (R type 7: linear interpolation between the
 * closest ranks), found by selection in O(n). Reorders `values`.
 * @param {number[]|Float64Array} values  finite numbers, in any order @param {number} p in [0, 100]
 * @returns {number|null}
 */
export function percentileInPlace(values, p) {
  if (values.length === 0) return null;
  const rank = (p / 100) * (values.length - 1);
  const lower = Math.floor(rank);
  selectRank(values, lower);
  // Everything after the selected rank is at least its value: the next rank is their minimum.
  let next = rank === lower ? values[lower] : Infinity;
  for (let i = lower + 1; rank !== lower && i < values.length; i++) if (values[i] < next) next = values[i];
  // The same arithmetic as percentile(), so even the sign of a zero agrees.
  return values[lower] + (next - values[lower]) * (rank - lower);
}

/**
 * Runs the selection on scratch samples until V8 has compiled it: the relay's first fold of a second otherwise ran it
 * in the interpreter (and compiled it on the spot) on ~8 000 samples per link, and held datagrams 3-5 ms at 60 000
 * packets/s. Pure; a few ms, once, at the relay's start.
 */
export function warmUpSelection() {
  const scratch = new Float64Array(4097);
  for (let round = 0; round < 40; round++) {
    // Both parities of length, so that both branches (a rank between two samples, or on one) are compiled.
    const samples = scratch.subarray(0, 4096 + (round % 2));
    for (let i = 0; i < samples.length; i++) samples[i] = ((i * 7919 + round) % 4096) / 8;
    percentileInPlace(samples, 50);
    percentileInPlace(samples, 95);
  }
}

/**
 * Wirth's selection: puts the k-th smallest value at index k, smaller or equal ones before it, larger or equal after.
 * @param {number[]|Float64Array} values @param {number} k
 */
function selectRank(values, k) {
  let left = 0;
  let right = values.length - 1;
  while (left < right) {
    const pivot = values[k];
    let i = left;
    let j = right;
    do {
      while (values[i] < pivot) i++;
      while (pivot < values[j]) j--;
      if (i <= j) {
        const swapped = values[i];
        values[i++] = values[j];
        values[j--] = swapped;
      }
    } while (i <= j);
    if (j < k) left = i;
    if (k < i) right = j;
  }
}
