/**
 * Seeded pseudo-random numbers, so a run's loss and jitter draws can be replayed from its seed.
 */

/**
 * mulberry32: tiny, fast, and good enough for Bernoulli loss and uniform jitter draws.
 * @param {number} seed  any number; only its low 32 bits are used
 * @returns {() => number}  uniform in [0, 1)
 */
export function createRandom(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Derives an independent 32-bit seed from a base seed and labels (FNV-1a), e.g. one stream per link
 * and purpose, so one link's draws do not depend on how its packets interleave with another's.
 * @param {number} seed
 * @param {...string} labels
 * @returns {number}
 */
export function deriveSeed(seed, ...labels) {
  let hash = 0x811c9dc5;
  for (const char of `${seed >>> 0}:${labels.join(':')}`) {
    hash ^= char.charCodeAt(0);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}
