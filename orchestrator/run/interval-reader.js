// One reading at a time, now and then once an interval: a reading that overruns its interval skips the ticks it
// overlaps instead of piling up, and stop() waits for the one in progress, so no row lands after the result is built.

/**
 * @param {() => Promise<void>} read  one reading; it handles its own failures (a rejection is dropped)
 * @param {number} intervalMs
 * @returns {{ stop: () => Promise<void> }}
 */
export function readEvery(read, intervalMs) {
  let busy = false;
  /** @type {Promise<void>} */
  let inFlight = Promise.resolve();
  const tick = async () => {
    if (busy) return;
    busy = true;
    inFlight = read().catch(() => {}).finally(() => { busy = false; });
    await inFlight;
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  void tick();
  return {
    async stop() {
      clearInterval(timer);
      await inFlight;
    },
  };
}
