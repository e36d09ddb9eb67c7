// Per-peer totals of a multi-party call (pure): what each peer sends and receives summed over its remotes, second by
// second. A timeline entry describes one peer connection (peer, remote); in a full mesh a peer sends its stream on
// every connection, so its uplink carries n − 1 copies (J16 §8-3).

/** The SFU's name as a peer of the relay and of the pages (a page's publisher connection has this remote). */
export const SFU_NODE = 'sfu';

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
 */

/** @param {unknown} value */
const kbps = (value) => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

/**
 * @param {Array<{t: number, peer: string, remote: string, video?: any, audio?: any}>} timeline
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
      row = { t, peer: entry.peer, uplinkKbps: 0, downlinkKbps: 0, videoStreamsSent: 0, videoStreamsReceived: 0 };
      rows.set(key, row);
    }
    const videoSentKbps = kbps(entry.video?.sendKbps);
    const videoReceivedKbps = kbps(entry.video?.recvKbps);
    row.uplinkKbps += videoSentKbps + kbps(entry.audio?.sendKbps);
    row.downlinkKbps += videoReceivedKbps + kbps(entry.audio?.recvKbps);
    if (videoSentKbps >= FLOWING_KBPS) row.videoStreamsSent += 1;
    if (videoReceivedKbps >= FLOWING_KBPS && kbps(entry.video?.recvFps) > 0) row.videoStreamsReceived += 1;
  }
  return [...rows.values()].sort((a, b) => a.t - b.t || (a.peer < b.peer ? -1 : a.peer > b.peer ? 1 : 0));
}

/**
 * Each peer's mean per-second totals over a window, and the downlink/uplink ratio (an SFU's 2.00 for three peers,
 * J16 §8-3; a full mesh's 1.00).
 * @param {PeerSecond[]} seconds
 * @param {[number, number]} windowS  (from, to]: the summary's measurement window
 * @returns {Record<string, {uplinkKbps: number, downlinkKbps: number, downlinkToUplink: number|null,
 *   videoStreamsSent: number, videoStreamsReceived: number, n: number}>}
 */
export function peerTotals(seconds, [fromS, toS]) {
  /** @type {Record<string, PeerSecond[]>} */
  const byPeer = {};
  for (const row of seconds) if (row.t > fromS && row.t <= toS) (byPeer[row.peer] ??= []).push(row);
  /** @param {PeerSecond[]} rows @param {keyof PeerSecond} field */
  const meanOf = (rows, field) => rows.reduce((sum, row) => sum + Number(row[field]), 0) / rows.length;
  return Object.fromEntries(Object.entries(byPeer).sort(([a], [b]) => (a < b ? -1 : 1)).map(([peer, rows]) => {
    const uplinkKbps = meanOf(rows, 'uplinkKbps');
    const downlinkKbps = meanOf(rows, 'downlinkKbps');
    return [peer, {
      uplinkKbps, downlinkKbps, downlinkToUplink: uplinkKbps > 0 ? downlinkKbps / uplinkKbps : null,
      videoStreamsSent: meanOf(rows, 'videoStreamsSent'), videoStreamsReceived: meanOf(rows, 'videoStreamsReceived'), n: rows.length,
    }];
  }));
}
