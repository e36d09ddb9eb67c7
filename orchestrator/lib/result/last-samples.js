// When the call's last samples are in: every connection a page sampled during the call has sent its sample for the
// last second. The call then ends at once instead of after a fixed grace (the pages' getStats() takes 50-300 ms).

/**
 * Follows the samples as they arrive (an index into the recorder's list, so each is read once).
 * @param {readonly { t: number, peer: string, remote: string }[]} samples  the recorder's list, appended to while the call runs
 */
export function createLastSampleWatch(samples) {
  /** @type {Map<string, number>} `peer>remote` → the highest tick it has sent */
  const lastTick = new Map();
  let read = 0;
  return {
    /**
     * Whether every connection sampled so far has sent tick `finalTick` (false before any sample: nothing is known).
     * @param {number} finalTick
     */
    complete(finalTick) {
      for (; read < samples.length; read++) {
        const { t, peer, remote } = samples[read];
        const pair = `${peer}>${remote}`;
        if (!(t <= (lastTick.get(pair) ?? -Infinity))) lastTick.set(pair, t);
      }
      return lastTick.size > 0 && [...lastTick.values()].every((t) => t >= finalTick);
    },
  };
}
