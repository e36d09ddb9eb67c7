// The shape of what a page hands over when the orchestrator drains its lip-sync listener (client-app/lip-sync.js
// drain()), checked before anything uses it: the page is untrusted like every page message. Pure: a bad drain yields
// a reason, never a throw.

/** The most onsets one drain may carry per source: the page keeps 100 between drains (one every 2 s is expected). */
export const MAX_DRAIN_ONSETS = 100;
const MAX_DROPPED_ONSETS = 1e6;

/** @param {unknown} value @returns {value is Record<string, unknown>} */
const isObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * One page's drain: `{ sources: { [source]: { onsetsEpochMs: number[], droppedOnsets } } }`, sources among `remotes`
 * and 'local' (its own microphone), times within `within`.
 * @param {unknown} value @param {string} peer the page's peer @param {string[]} remotes the peers it may hear
 * @param {{ fromEpochMs: number, toEpochMs: number }} within
 * @returns {{ ok: true, value: Array<{ source: string, onsetsEpochMs: number[], droppedOnsets: number }> } | { ok: false, reason: string }}
 */
export function checkLipSyncDrain(value, peer, remotes, { fromEpochMs, toEpochMs }) {
  /** @param {string} reason */
  const fail = (reason) => ({ ok: /** @type {const} */ (false), reason: `lip-sync listener of ${peer}: ${reason}` });
  if (!isObject(value) || !isObject(value.sources)) return fail('drain must be { sources: {…} }');
  const sources = [];
  for (const [source, entry] of Object.entries(value.sources)) {
    if (source !== 'local' && !remotes.includes(source)) {
      return fail(`unknown source ${JSON.stringify(source.slice(0, 64))}; expected local or one of ${remotes.join(', ')}`);
    }
    if (!isObject(entry)) return fail(`sources.${source} must be { onsetsEpochMs, droppedOnsets }`);
    const { onsetsEpochMs, droppedOnsets } = entry;
    if (!Array.isArray(onsetsEpochMs) || onsetsEpochMs.length > MAX_DRAIN_ONSETS) {
      return fail(`sources.${source}.onsetsEpochMs must be an array of at most ${MAX_DRAIN_ONSETS} times`);
    }
    if (!onsetsEpochMs.every((epochMs) => typeof epochMs === 'number' && epochMs >= fromEpochMs && epochMs <= toEpochMs)) {
      return fail(`sources.${source}.onsetsEpochMs must be epoch milliseconds from ${fromEpochMs} to ${toEpochMs}`);
    }
    if (typeof droppedOnsets !== 'number' || !Number.isInteger(droppedOnsets) || droppedOnsets < 0 || droppedOnsets > MAX_DROPPED_ONSETS) {
      return fail(`sources.${source}.droppedOnsets must be an integer from 0 to ${MAX_DROPPED_ONSETS}`);
    }
    sources.push({ source, onsetsEpochMs: /** @type {number[]} */ (onsetsEpochMs), droppedOnsets });
  }
  return { ok: true, value: sources };
}
