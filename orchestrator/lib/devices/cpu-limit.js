// When the host, not the network, limited the call (pure): the share of seconds in which a sender's encoder said
// its quality was limited by the CPU (qualityLimitationReason, the successor of J16's googCpuLimited). A starved
// 2-core host looks like a congested link in every rate chart; this flag keeps the two apart. Likewise the seconds in
// which the emulator itself fell behind its schedule (emulatorBehind): then the network was not the one configured.

import { byCodeUnit } from '../stats/order.js';

/** Above this share of CPU-limited seconds in the measurement window a result is marked CPU-limited. */
export const CPU_LIMITED_SHARE = 0.2;

/**
 * @param {Array<{t: number, peer: string, video?: {qualityLimitationReason?: string|null}}>} timeline
 * @param {[number, number]} windowS  (from, to]
 * @returns {{ share: number|null, byPeer: Record<string, number>, limited: boolean, thresholdShare: number, seconds: number[],
 *   peers: Record<string, { limitedS: number, episodes: Array<{ fromS: number, toS: number }> }> }}
 *   share: of the seconds with a sending video encoder, those limited by the CPU; seconds: when (any peer); peers: per
 *   peer, how many seconds any of its encoders was CPU-limited and when, as spans of consecutive seconds (fromS, toS]
 */
export function cpuLimitation(timeline, [fromS, toS]) {
  /** @type {Record<string, {cpu: number, all: number, seconds: Set<number>}>} */
  const counts = {};
  const seconds = new Set();
  for (const entry of timeline) {
    const reason = entry?.video?.qualityLimitationReason;
    if (typeof reason !== 'string' || !(entry.t > fromS && entry.t <= toS)) continue;
    const count = (counts[entry.peer] ??= { cpu: 0, all: 0, seconds: new Set() });
    count.all += 1;
    if (reason === 'cpu') {
      count.cpu += 1;
      seconds.add(Math.round(entry.t));
      count.seconds.add(Math.round(entry.t));
    }
  }
  const sorted = Object.entries(counts).sort(([a], [b]) => byCodeUnit(a, b));
  const byPeer = Object.fromEntries(sorted.map(([peer, c]) => [peer, c.cpu / c.all]));
  const peers = Object.fromEntries(sorted.map(([peer, c]) => [peer, { limitedS: c.seconds.size, episodes: episodes([...c.seconds]) }]));
  const all = Object.values(counts).reduce((sum, c) => sum + c.all, 0);
  const share = all ? Object.values(counts).reduce((sum, c) => sum + c.cpu, 0) / all : null;
  const limited = share !== null && share > CPU_LIMITED_SHARE;
  return { share, byPeer, limited, thresholdShare: CPU_LIMITED_SHARE, seconds: [...seconds].sort((a, b) => a - b), peers };
}

/**
 * A datagram leaves up to a timer grid step (0.25 ms) and its processing after the timer's wake-up: a second whose p99
 * lateness is within this of the time the host did not run the relay (its timer's own lateness while idle, or the time
 * off the CPU within a busy turn) was late because the relay was not run, not because of its own work.
 */
export const HOST_STALL_SLACK_MS = 0.5;

/**
 * @typedef {{ t: number|null, behind: boolean, lateMaxMs: number|null, lateP99Ms?: number|null, timerWakeMaxMs?: number|null,
 *   offCpuMaxMs?: number|null }} LoadEntry
 *   network.emulatorLoad's row
 */

/**
 * The host held the emulator off the CPU about as long as its datagrams were late: idle, its own timer woke that late;
 * busy, its thread did not run for that long within one turn of its loop. @param {LoadEntry} row
 */
export const hostStalled = (row) => {
  const heldMs = [row.timerWakeMaxMs, row.offCpuMaxMs].filter((ms) => typeof ms === 'number');
  return heldMs.length > 0 && typeof row.lateP99Ms === 'number' && Math.max(...heldMs) >= row.lateP99Ms - HOST_STALL_SLACK_MS;
};

/**
 * The seconds of the call in which the emulator fell behind its own schedule (network.emulatorLoad's `behind`: its
 * datagrams left late at p99 beyond its packet path's limit: 1 ms native, 2 ms dgram), as spans; null when the
 * emulator does not measure itself.
 * @param {LoadEntry[]|null} rows  on the media clock; a row covers (t − 1, t]
 * @param {[number, number]} windowS  (from, to]
 * @returns {{ behind: boolean, seconds: number, measuredSeconds: number, spans: Array<{ fromS: number, toS: number }>,
 *   lateMaxMs: number|null, hostStallSeconds: number|null }|null}  seconds: how many fell behind (rounded to the media
 *   clock's); lateMaxMs: the latest datagram; hostStallSeconds: of those, the ones in which the host held it off the
 *   CPU that long (its timer woke that late, or its thread did not run within a turn); null when the rows do not say
 */
export function emulatorBehind(rows, [fromS, toS]) {
  if (!rows) return null;
  const inWindow = rows.filter((row) => row.t !== null && row.t > fromS && row.t <= toS);
  const behindRows = inWindow.filter((row) => row.behind);
  const seconds = [...new Set(behindRows.map((row) => Math.round(/** @type {number} */ (row.t))))];
  const late = inWindow.map((row) => row.lateMaxMs).filter((ms) => typeof ms === 'number');
  const stalled = [...new Set(behindRows.filter(hostStalled).map((row) => Math.round(/** @type {number} */ (row.t))))];
  return {
    behind: seconds.length > 0, seconds: seconds.length, measuredSeconds: inWindow.length, spans: episodes(seconds),
    lateMaxMs: late.length ? Math.max(...late) : null,
    hostStallSeconds: inWindow.some((row) => row.timerWakeMaxMs !== undefined || row.offCpuMaxMs !== undefined) ? stalled.length : null,
  };
}

/**
 * The end-of-run warning for a run whose emulator fell behind (emulatorBehind), or null.
 * @param {ReturnType<typeof emulatorBehind>|undefined} behind @param {string} emulator  its name
 */
export function emulatorBehindWarning(behind, emulator) {
  if (!behind?.behind) return null;
  const spans = behind.spans.map((span) => `${span.fromS}–${span.toS} s`).join(', ');
  const stalls = behind.hostStallSeconds
    ? `; in ${behind.hostStallSeconds} of those seconds the host held it off the CPU as long (other processes `
      + 'on its cores, a VM\'s vCPU not scheduled, a kernel that does not preempt; `cyclictest -p 10 -i 1000` shows the host\'s own wake-up delays)' : '';
  return `the ${emulator} emulator fell behind its schedule in ${behind.seconds} of ${behind.measuredSeconds} s of the call (${spans}; `
    + `datagrams late at p99 beyond its limit (relay: 1 ms native, 2 ms dgram), the latest ${behind.lateMaxMs} ms${stalls}): `
    + 'in those seconds the links were not the configured ones, as on a saturated host; see network.emulatorLoad in result.json, '
    + 'and run fewer peers, a smaller video preset or on a larger machine';
}

/** Consecutive seconds joined into spans: [3, 4, 5, 9] → (2, 5], (8, 9]. @param {number[]} seconds */
function episodes(seconds) {
  /** @type {Array<{ fromS: number, toS: number }>} */
  const spans = [];
  for (const t of seconds.sort((a, b) => a - b)) {
    const last = spans.at(-1);
    if (last && last.toS === t - 1) last.toS = t;
    else spans.push({ fromS: t - 1, toS: t });
  }
  return spans;
}

/**
 * The harness's own CPU verdict, beside the browser's reason (which a throttled Chromium kept at `none` while it
 * encoded at 90-313 ms a frame and sent ~6 of 30 fps). A sender second is CPU-limited when
 * - its encode time per frame exceeds ENCODE_SHARE_OF_INTERVAL × the captured frame interval (the encoder cannot keep
 *   up with the camera), or
 * - it sent fewer than SENT_SHARE_OF_CAPTURED × the captured frames while the link was not the limit: the browser
 *   said neither `bandwidth` (its rate estimate held it back, which also drops frames) nor was it sending at
 *   LINK_SHARE_OF_ESTIMATE × its estimate of the available rate or more.
 * A peer is CPU-limited when more than CPU_LIMITED_SHARE of its sender seconds in the window are.
 */
export const HARNESS_THRESHOLDS = Object.freeze({
  encodeShareOfInterval: 1.0, sentShareOfCaptured: 0.7, linkShareOfEstimate: 0.8, share: CPU_LIMITED_SHARE,
});

/**
 * Why one sender second is CPU-limited by the harness's rules ('encode', 'frameRate'), or null; undefined when the
 * second cannot be judged (no captured frame rate).
 * any: getStats fields as the pages reported them, which depend on the browser
 * @param {{ video?: Record<string, any>, audio?: Record<string, any>, availableOutgoingKbps?: number|null }} entry
 * @returns {'encode'|'frameRate'|null|undefined}
 */
export function harnessCpuReason(entry) {
  const video = entry.video ?? {};
  const capturedFps = video.capturedFps;
  if (!(capturedFps > 0) || typeof video.sentFps !== 'number') return undefined;
  if (video.encodeMsPerFrame > HARNESS_THRESHOLDS.encodeShareOfInterval * (1000 / capturedFps)) return 'encode';
  const sendKbps = (video.sendKbps ?? 0) + (entry.audio?.sendKbps ?? 0);
  const availableKbps = entry.availableOutgoingKbps;
  const linkBound = video.qualityLimitationReason === 'bandwidth'
    || (typeof availableKbps === 'number' && availableKbps > 0 && sendKbps >= HARNESS_THRESHOLDS.linkShareOfEstimate * availableKbps);
  return !linkBound && video.sentFps < HARNESS_THRESHOLDS.sentShareOfCaptured * capturedFps ? 'frameRate' : null;
}

/**
 * The harness's verdict per sender second and per peer over the window.
 * any: getStats fields as the pages reported them, which depend on the browser
 * @param {Array<{ t: number, peer: string, video?: Record<string, any>, audio?: Record<string, any>,
 *   availableOutgoingKbps?: number|null }>} timeline
 * @param {[number, number]} windowS  (from, to]
 * @returns {{ limited: boolean, thresholds: typeof HARNESS_THRESHOLDS, peers: Record<string, { limited: boolean, share: number|null,
 *   judgedS: number, limitedS: number, encodeS: number, frameRateS: number, seconds: number[],
 *   episodes: Array<{ fromS: number, toS: number }> }> }}
 *   per peer: the seconds judged (with a captured frame rate), those CPU-limited (by encode time, by frame rate) and when
 */
export function harnessCpuLimitation(timeline, [fromS, toS]) {
  /** @type {Map<string, { judged: Set<number>, encode: Set<number>, frameRate: Set<number> }>} */
  const byPeer = new Map();
  for (const entry of timeline) {
    if (!(entry.t > fromS && entry.t <= toS) || !(entry.video?.sendKbps > 0)) continue;
    const reason = harnessCpuReason(entry);
    if (reason === undefined) continue;
    const peer = byPeer.get(entry.peer) ?? { judged: new Set(), encode: new Set(), frameRate: new Set() };
    byPeer.set(entry.peer, peer);
    const t = Math.round(entry.t);
    peer.judged.add(t);
    if (reason) peer[reason].add(t);
  }
  const peers = Object.fromEntries([...byPeer].sort(([a], [b]) => byCodeUnit(a, b)).map(([name, p]) => {
    const seconds = [...new Set([...p.encode, ...p.frameRate])].sort((a, b) => a - b);
    const share = p.judged.size ? seconds.length / p.judged.size : null;
    return [name, {
      limited: share !== null && share > HARNESS_THRESHOLDS.share, share, judgedS: p.judged.size, limitedS: seconds.length,
      encodeS: p.encode.size, frameRateS: p.frameRate.size, seconds, episodes: episodes([...seconds]),
    }];
  }));
  return { limited: Object.values(peers).some((p) => p.limited), thresholds: HARNESS_THRESHOLDS, peers };
}

/** A second in which the sampled processes together kept this share of all cores busy counts as saturated. */
export const SATURATED_CORES_SHARE = 0.9;

/**
 * How often the call's own processes (browsers, relay, Janus) used (nearly) every core: an encoder that does not
 * say `cpu` (Chromium's overuse detector is slow to trip) still starves on a saturated host.
 * @param {Array<{ t: number, cpuPct: number }>} rows  the measurement window's
 * @param {number} cores
 * @returns {{ share: number|null, saturated: boolean, thresholdPct: number|null, cores: number|null }}
 */
export function hostSaturation(rows, cores) {
  if (!(cores > 0)) return { share: null, saturated: false, thresholdPct: null, cores: null };
  /** @type {Map<number, number>} */
  const bySecond = new Map();
  for (const row of rows) bySecond.set(Math.round(row.t), (bySecond.get(Math.round(row.t)) ?? 0) + row.cpuPct);
  const thresholdPct = SATURATED_CORES_SHARE * 100 * cores;
  const busy = [...bySecond.values()].filter((pct) => pct >= thresholdPct).length;
  const share = bySecond.size ? busy / bySecond.size : null;
  return { share, saturated: share !== null && share > CPU_LIMITED_SHARE, thresholdPct, cores };
}

/**
 * The peers a run's CPU verdicts name: the browser's reason on more than CPU_LIMITED_SHARE of a peer's seconds, or
 * the harness's own verdict for it.
 * @param {{ byPeer?: Record<string, number>, harness?: { peers?: Record<string, { limited?: boolean }> } }|null|undefined} cpuLimitation
 *   a result's summary.cpuLimitation
 * @returns {string[]}
 */
export function cpuLimitedPeers(cpuLimitation) {
  const browser = Object.entries(cpuLimitation?.byPeer ?? {}).filter(([, share]) => share > CPU_LIMITED_SHARE).map(([peer]) => peer);
  const harness = Object.entries(cpuLimitation?.harness?.peers ?? {}).filter(([, p]) => p?.limited === true).map(([peer]) => peer);
  return [...new Set([...browser, ...harness])].sort();
}
