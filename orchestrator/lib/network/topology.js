// Where the nodes of a call sit, and per-peer totals of a multi-party call (pure): what each peer sends and receives
// summed over its remotes, second by second. A timeline entry describes one peer connection (peer, remote); in a full
// mesh a peer sends its stream on every connection, so its uplink carries n − 1 copies (J16 §8-3).
import { HarnessError } from '../system/errors.js';
import { byCodeUnit } from '../stats/order.js';

/** The SFU's name as a peer of the relay and of the pages (a page's publisher connection has this remote). */
export const SFU_NODE = 'sfu';

/** The main call's peers. @param {{ peers: number }} scenario */
export const scenarioPeers = (scenario) => Array.from({ length: scenario.peers }, (_, i) => `p${i}`);
/** Every browser of the run: the main call's peers, then two per extra call. @param {{ peers: number, allPeers?: number }} scenario */
export const allPeerNames = (scenario) => Array.from({ length: scenario.allPeers ?? scenario.peers }, (_, i) => `p${i}`);

/**
 * The two directions of a shared bottleneck, each a link of its own: which side its traffic comes from and goes to.
 * @type {Readonly<Record<string, {from: 'left'|'right', to: 'left'|'right'}>>}
 */
export const BOTTLENECK_LINKS = Object.freeze({
  'bottleneck.fwd': { from: 'left', to: 'right' },
  'bottleneck.back': { from: 'right', to: 'left' },
});

/** An SFU room's load participant (lib/media/load-participants.js names them load0, load1, …). @param {string} node */
export const isLoadNode = (node) => /^load\d+$/.test(node);

/**
 * The side of the bottleneck a node sits on: p0, p2, … left, p1, p3, … right, so every two-party call (p0, p1),
 * (p2, p3), … crosses it in both directions; the SFU sits on the right, and its load participants beside it (their
 * routes reach the SFU only and cross no bottleneck).
 * @param {string} peer  `p<i>`, SFU_NODE or `load<i>`
 * @returns {'left'|'right'}
 */
export function peerSide(peer) {
  if (peer === SFU_NODE || isLoadNode(peer)) return 'right';
  const match = /^p(\d+)$/.exec(peer);
  if (!match) throw new HarnessError(`peerSide: '${peer}' is neither p<i>, '${SFU_NODE}' nor load<i>`);
  return Number(match[1]) % 2 === 0 ? 'left' : 'right';
}

/**
 * The bottleneck link traffic from one node to another crosses, or null when both sit on the same side.
 * @param {string} from @param {string} to  `p<i>` or SFU_NODE
 * @returns {string|null}
 */
export function bottleneckBetween(from, to) {
  const [fromSide, toSide] = [peerSide(from), peerSide(to)];
  const crossing = Object.entries(BOTTLENECK_LINKS).find(([, sides]) => sides.from === fromSide && sides.to === toSide);
  return crossing ? crossing[0] : null;
}

/** A stream counts as flowing in a second when it carries at least this rate (a stalled encoder still sends padding). */
export const FLOWING_KBPS = 20;

/**
 * @typedef {object} PeerSecond
 * @property {number} t
 * @property {string} peer
 * @property {number} uplinkKbps        audio + video sent on all connections
 * @property {number} downlinkKbps      audio + video received on all connections
 * @property {number} videoStreamsSent      connections whose outbound video carries >= FLOWING_KBPS
 * @property {number} videoStreamsReceived  connections whose inbound video carries >= FLOWING_KBPS and shows frames
 * @property {number|null} intervalS  the time the second's sample covers (the longest of its entries' intervalS), null
 *   when no entry gives one
 */

/** @param {unknown} value */
const kbps = (value) => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

/**
 * any: getStats fields as the pages reported them (lib/result/result.js MediaMetrics, a layer above)
 * @param {Array<{t: number, peer: string, remote?: string, intervalS?: number, video?: any, audio?: any}>} timeline
 *   (any: getStats fields as the page reported them, checked where read)
 * @returns {PeerSecond[]} sorted by t, then peer
 */
export function peerSeconds(timeline) {
  /** @type {Map<string, PeerSecond>} */
  const rows = new Map();
  for (const entry of timeline) {
    if (!entry || typeof entry.peer !== 'string' || !Number.isFinite(entry.t)) continue;
    const t = Math.round(entry.t);
    const key = `${t} ${entry.peer}`;
    let row = rows.get(key);
    if (!row) {
      row = { t, peer: entry.peer, uplinkKbps: 0, downlinkKbps: 0, videoStreamsSent: 0, videoStreamsReceived: 0, intervalS: null };
      rows.set(key, row);
    }
    const { intervalS } = entry;
    if (typeof intervalS === 'number' && Number.isFinite(intervalS) && intervalS > 0) row.intervalS = Math.max(row.intervalS ?? 0, intervalS);
    const videoSentKbps = kbps(entry.video?.sendKbps);
    const videoReceivedKbps = kbps(entry.video?.recvKbps);
    row.uplinkKbps += videoSentKbps + kbps(entry.audio?.sendKbps);
    row.downlinkKbps += videoReceivedKbps + kbps(entry.audio?.recvKbps);
    if (videoSentKbps >= FLOWING_KBPS) row.videoStreamsSent += 1;
    if (videoReceivedKbps >= FLOWING_KBPS && kbps(entry.video?.recvFps) > 0) row.videoStreamsReceived += 1;
  }
  return [...rows.values()].sort((a, b) => a.t - b.t || byCodeUnit(a.peer, b.peer));
}

/**
 * Each peer's mean totals over a window, and the downlink/uplink ratio (an SFU's 2.00 for three peers, J16 §8-3; a full
 * mesh's 1.00). The rates are weighted by the time each sample covers, so they are the bytes sent and received over the
 * time sampled: on a starved host a page's samples come 0.06–5 s apart, and a plain mean over samples gave the short
 * ones (a burst of queued packets) the weight of a second (sfu-4 at 720p30: a mean ratio of 2.87 for 3.07 in bytes). Plain
 * means when a sample has no interval (results written before it was recorded).
 * @param {PeerSecond[]} seconds
 * @param {[number, number]} windowS  (from, to]: the summary's measurement window
 * @returns {Record<string, {uplinkKbps: number, downlinkKbps: number, downlinkToUplink: number|null,
 *   videoStreamsSent: number, videoStreamsReceived: number, n: number}>}
 */
export function peerTotals(seconds, [fromS, toS]) {
  /** @type {Record<string, PeerSecond[]>} */
  const byPeer = {};
  for (const row of seconds) if (row.t > fromS && row.t <= toS) (byPeer[row.peer] ??= []).push(row);
  /** @param {PeerSecond[]} rows @param {(row: PeerSecond) => number} weight @param {keyof PeerSecond} field */
  const meanOf = (rows, field, weight = () => 1) => rows.reduce((sum, row) => sum + weight(row) * Number(row[field]), 0)
    / rows.reduce((sum, row) => sum + weight(row), 0);
  return Object.fromEntries(Object.entries(byPeer).sort(([a], [b]) => byCodeUnit(a, b)).map(([peer, rows]) => {
    const timed = rows.every((row) => row.intervalS !== null);
    /** @param {PeerSecond} row */
    const covered = (row) => (timed ? Number(row.intervalS) : 1);
    const uplinkKbps = meanOf(rows, 'uplinkKbps', covered);
    const downlinkKbps = meanOf(rows, 'downlinkKbps', covered);
    return [peer, {
      uplinkKbps, downlinkKbps, downlinkToUplink: uplinkKbps > 0 ? downlinkKbps / uplinkKbps : null,
      videoStreamsSent: meanOf(rows, 'videoStreamsSent'), videoStreamsReceived: meanOf(rows, 'videoStreamsReceived'), n: rows.length,
    }];
  }));
}

/**
 * Each peer's mean uplink in a run (the mean over its peers of summary.peerTotals), or null.
 * @param {{ summary?: { peerTotals?: Record<string, { uplinkKbps: number }> } | null }} result
 */
export function meanPeerUplinkKbps(result) {
  const totals = Object.values(result?.summary?.peerTotals ?? {}).map((t) => t.uplinkKbps).filter(Number.isFinite);
  return totals.length ? totals.reduce((sum, v) => sum + v, 0) / totals.length : null;
}

/**
 * J16 §8-3's figure: how much more each peer sends in an n-party call than in the 2-party call of the same group
 * (×2.03 for three peers, ×2.77 for four in a mesh). Per group with a 2-party member: the ratio of the median of
 * the runs' mean peer uplinks.
 * @param {Array<{ scenario: string, group: string|null, peers: number, uplinkKbps: number|null }>} runs
 * @returns {Array<{ group: string, scenario: string, peers: number, uplinkKbps: number, twoPartyKbps: number, ratio: number,
 *   runs: number }>}
 */
export function ratiosToTwoParty(runs) {
  /** @param {number[]} values */
  const median = (values) => {
    const sorted = [...values].sort((a, b) => a - b);
    const mid = Math.floor(sorted.length / 2);
    return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  };
  /** @type {Map<string, Map<string, { peers: number, values: number[] }>>} group -> scenario */
  const groups = new Map();
  for (const run of runs) {
    if (!run.group || !Number.isFinite(run.uplinkKbps)) continue;
    const scenarios = groups.get(run.group) ?? new Map();
    groups.set(run.group, scenarios);
    const entry = scenarios.get(run.scenario) ?? { peers: run.peers, values: [] };
    scenarios.set(run.scenario, entry);
    entry.values.push(/** @type {number} */ (run.uplinkKbps));
  }
  const rows = [];
  for (const [group, scenarios] of [...groups].sort(([a], [b]) => byCodeUnit(a, b))) {
    const two = [...scenarios.values()].find((entry) => entry.peers === 2);
    if (!two) continue;
    const twoPartyKbps = median(two.values);
    if (!(twoPartyKbps > 0)) continue;
    for (const [scenario, entry] of [...scenarios].sort(([, a], [, b]) => a.peers - b.peers)) {
      if (entry.peers === 2) continue;
      const uplinkKbps = median(entry.values);
      const ratio = uplinkKbps / twoPartyKbps;
      rows.push({ group, scenario, peers: entry.peers, uplinkKbps, twoPartyKbps, ratio, runs: entry.values.length });
    }
  }
  return rows;
}
