// bench/simulcast.js's arithmetic (pure): a publishing browser's CPU and its encoder's layers from a result, the CPU
// ratio of each publishing to one encoding, whether a room ran without host limitation, and the largest such room.
import { cpuLimitedPeers } from '../orchestrator/lib/devices/cpu-limit.js';
import { SFU_NODE } from '../orchestrator/lib/network/topology.js';
import { describe } from '../orchestrator/lib/stats/statistics.js';

/** A room is carried when its median received frame rate is at least this share of the captured one (multiparty.js: the source's). */
export const MIN_FPS_SHARE = 0.8;

/** @typedef {{ cpuPct: { mean?: number|null } }} ProcessSummary  result.resources.summary's entry */
/** @typedef {{ t: number, peer: string, remote: string, video?: Record<string, unknown> }} Entry  a timeline entry */

/** @param {Array<unknown>} list */
const median = (list) => describe(list.map((value) => (typeof value === 'number' ? value : null))).median;

/**
 * Each sampled process's mean CPU over the measurement window (% of one core, its whole process tree): the browsers
 * (p0, p1, …) and the rest (the SFU, the relay).
 * @param {Record<string, ProcessSummary>} summary  result.resources.summary
 * @returns {{ browsers: Record<string, number|null>, others: Record<string, number|null> }}
 */
export function processCpu(summary) {
  /** @type {{ browsers: Record<string, number|null>, others: Record<string, number|null> }} */
  const cpu = { browsers: {}, others: {} };
  for (const [name, process] of Object.entries(summary)) {
    const mean = process.cpuPct?.mean;
    (/^p\d+$/.test(name) ? cpu.browsers : cpu.others)[name] = typeof mean === 'number' ? mean : null;
  }
  return cpu;
}

/**
 * What the publishers' encoders sent per layer over (fromS, toS], medians over publishers and seconds, highest layer
 * first: simulcast from result.layers.sent (per rid), one encoding from the publishers' SFU connections' video.
 * @param {{ layers?: { sent: Array<{ t: number, rid: string|null, widthPx: number|null, heightPx: number|null, fps: number|null,
 *   kbps: number|null }> }|null, timeline: Entry[] }} result
 * @param {[number, number]} windowS
 * @returns {Array<{ rid: string|null, widthPx: number|null, heightPx: number|null, fps: number|null, kbps: number|null }>}
 */
export function sentLayers({ layers, timeline }, [fromS, toS]) {
  /** @param {{ t: number }} row */
  const inWindow = (row) => row.t > fromS && row.t <= toS;
  if (layers?.sent.length) {
    const rows = layers.sent.filter(inWindow);
    const rids = [...new Set(rows.map((row) => row.rid))];
    return rids.map((rid) => {
      const mine = rows.filter((row) => row.rid === rid);
      return {
        rid, widthPx: median(mine.map((row) => row.widthPx)), heightPx: median(mine.map((row) => row.heightPx)),
        fps: median(mine.map((row) => row.fps)), kbps: median(mine.map((row) => row.kbps)),
      };
    }).sort((a, b) => (b.heightPx ?? 0) - (a.heightPx ?? 0));
  }
  const videos = timeline.filter((entry) => entry.remote === SFU_NODE && inWindow(entry)).map((entry) => entry.video ?? {});
  if (!videos.some((video) => typeof video.sendKbps === 'number')) return [];
  return [{
    rid: null, widthPx: median(videos.map((v) => v.sentWidth)), heightPx: median(videos.map((v) => v.sentHeight)),
    fps: median(videos.map((v) => v.sentFps)), kbps: median(videos.map((v) => v.sendKbps)),
  }];
}

/**
 * Each publishing's CPU per publisher beside one encoding's at the same video: the ratio of their means over the
 * browsers (null without a measured one-encoding call at that video).
 * @template {{ video: string, encodings: number, browserCpuPct: number|null }} T
 * @param {T[]} calls
 * @returns {Array<T & { ratio: number|null }>}
 */
export function ratiosToOneEncoding(calls) {
  return calls.map((call) => {
    const base = calls.find((other) => other.video === call.video && other.encodings === 1)?.browserCpuPct;
    const ratio = typeof base === 'number' && base > 0 && call.browserCpuPct !== null ? call.browserCpuPct / base : null;
    return { ...call, ratio };
  });
}

/**
 * Whether a room ran without host limitation, by the run's own verdicts (as bench/multiparty.js, plus the harness's
 * per-peer CPU verdict): the run passed, no peer CPU-limited (its encoder's reason `cpu`, or the harness's verdict, on
 * more than 20 % of its seconds), the host not saturated, and the median received frame rate at least MIN_FPS_SHARE
 * of the publishers' median captured one (livekit-client captures at its layer preset's 20 fps, not the source's 30;
 * the source's when none was reported). reasons: why not, in words; outcome `failed` when the run failed without a
 * CPU verdict or a saturated host (the room was not measured, e.g. a harness limit), else `limited` or `carried`.
 * @param {{ status: string, summary?: { cpuLimitation?: Parameters<typeof cpuLimitedPeers>[0] } | null,
 *   resources: { hostSaturation: { saturated: boolean, share: number|null } }, timeline: Entry[],
 *   environment: { media: { fps: number } } }} result
 * @param {number} warmupS
 * @returns {{ carried: boolean, outcome: 'carried'|'limited'|'failed', reasons: string[], recvFps: number|null, capturedFps: number|null,
 *   limitedPeers: string[] }}
 */
export function roomVerdict(result, warmupS) {
  // The SFU's publisher connection receives nothing: the frame rates are the received feeds'.
  const window = result.timeline.filter((entry) => entry.t > warmupS);
  const recvFps = median(window.filter((entry) => entry.remote !== SFU_NODE).map((entry) => entry.video?.recvFps));
  const capturedFps = median(window.filter((entry) => entry.remote === SFU_NODE).map((entry) => entry.video?.capturedFps));
  const limitedPeers = cpuLimitedPeers(result.summary?.cpuLimitation);
  const sourceFps = capturedFps ?? result.environment.media.fps;
  const { hostSaturation } = result.resources;
  const reasons = [
    ...(result.status === 'passed' ? [] : [`run ${result.status}`]),
    ...(limitedPeers.length ? [`CPU-limited: ${limitedPeers.join(', ')}`] : []),
    ...(hostSaturation.saturated ? [`host saturated in ${Math.round(100 * (hostSaturation.share ?? 0))} % of seconds`] : []),
    ...(recvFps !== null && recvFps >= MIN_FPS_SHARE * sourceFps ? [] : [`received ${recvFps?.toFixed(1) ?? 'no'} fps of ${Number(sourceFps.toFixed(1))} captured`]),
  ];
  const hostLimited = limitedPeers.length > 0 || hostSaturation.saturated;
  const outcome = result.status !== 'passed' && !hostLimited ? 'failed' : reasons.length ? 'limited' : 'carried';
  return { carried: outcome === 'carried', outcome, reasons, recvFps, capturedFps, limitedPeers };
}

/**
 * The largest room carried: the last of the rooms carried one after another from the smallest (a larger room carried
 * after a limited one does not count: the host was already the limit). Null when the smallest was not carried.
 * @param {Array<{ peers: number, carried: boolean }>} rooms
 */
export function largestCarried(rooms) {
  let largest = null;
  for (const room of [...rooms].sort((a, b) => a.peers - b.peers)) {
    if (!room.carried) break;
    largest = room.peers;
  }
  return largest;
}
