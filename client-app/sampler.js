// The page's drift-free sampler: once per interval, each connection's getStats() over the interval (stats.js) and
// its data flows' rates, sent to the orchestrator as one sample per remote.
import { encodingMetrics } from './publish.js';
import { dataMetrics, intervalMetrics } from './stats.js';

/** @typedef {import('./stats.js').Snapshot} Snapshot */

/**
 * Ticks are anchored to the orchestrator's media start, so every peer samples at the same instants and a slow tick
 * does not push the later ones back.
 * @param {object} options
 * @param {number} options.mediaStartEpochMs
 * @param {number} options.intervalMs
 * @param {() => Promise<Array<[string, Snapshot]>>} options.snapshotAll  every connection's counters now, by remote
 * @param {Pick<ReturnType<typeof import('./data-flows.js').createDataFlows>, 'readCounters'|'followRate'>} options.dataFlows
 * @param {(t: number, remote: string, metrics: Record<string, unknown>) => void} options.sendSample  t: the tick's number
 * @returns {Promise<{ stop: () => void }>}
 */
export async function startSampler({ mediaStartEpochMs, intervalMs, snapshotAll, dataFlows, sendSample }) {
  let previous = new Map(await snapshotAll());
  let previousData = dataFlows.readCounters();
  let previousTickMs = performance.now();
  let tick = 1;
  /** @type {ReturnType<typeof setTimeout>|undefined} */
  let timer;
  const next = () => {
    timer = setTimeout(async () => {
      const t = tick++;
      next();
      // The data counters at the tick itself: getStats() below takes a while.
      const dataCounters = dataFlows.readCounters();
      const dataIntervalS = (performance.now() - previousTickMs) / 1000;
      previousTickMs = performance.now();
      const dataBefore = previousData;
      previousData = dataCounters;
      const snapshots = await snapshotAll();
      const before = previous;
      previous = new Map(snapshots);
      for (const [remote, snapshot] of snapshots) {
        const counters = dataCounters.get(remote);
        const data = counters && dataMetrics(dataBefore.get(remote) ?? null, counters, dataIntervalS);
        if (data) dataFlows.followRate(remote, data.sentKbps);
        const last = before.get(remote);
        if (!last || snapshot.timestampMs <= last.timestampMs) continue;
        // A publisher's encodings (simulcast rids, an SVC stream) beside the connection's sums.
        const intervalS = (snapshot.timestampMs - last.timestampMs) / 1000;
        const encodings = snapshot.encodings && encodingMetrics(last.encodings ?? [], snapshot.encodings, intervalS);
        sendSample(t, remote, { ...intervalMetrics(last, snapshot), ...(data ? { data } : {}), ...(encodings ? { encodings } : {}) });
      }
    }, Math.max(0, mediaStartEpochMs + tick * intervalMs - Date.now()));
  };
  next();
  return { stop: () => clearTimeout(timer) };
}
