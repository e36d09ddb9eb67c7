/**
 * Janus's own view of the call through its Admin API: sessions, handles, and per-handle media statistics.
 * parseHandleInfo is pure; the rest are one request each.
 */
import { janusPost } from './janus-api.js';

/** @typedef {{adminUrl: string, adminSecret: string}} JanusAdmin */

/** @param {JanusAdmin} admin @returns {Promise<number[]>} session ids */
export async function listSessions({ adminUrl, adminSecret }) {
  return (await janusPost(adminUrl, { janus: 'list_sessions', admin_secret: adminSecret })).sessions;
}

/** @param {JanusAdmin} admin @param {number} sessionId @returns {Promise<number[]>} handle ids */
export async function listHandles({ adminUrl, adminSecret }, sessionId) {
  return (await janusPost(`${adminUrl}/${sessionId}`, { janus: 'list_handles', admin_secret: adminSecret })).handles;
}

/**
 * @param {JanusAdmin} admin @param {number} sessionId @param {number} handleId
 * @returns {Promise<any>} the answer's `info` (any: Janus's JSON has no published type)
 */
export async function handleInfo({ adminUrl, adminSecret }, sessionId, handleId) {
  return (await janusPost(`${adminUrl}/${sessionId}/${handleId}`, { janus: 'handle_info', admin_secret: adminSecret })).info;
}

/**
 * @typedef {object} HandleRow  one media stream of one Janus handle, as Janus saw it in the last second
 * @property {number} sessionId
 * @property {number} handleId
 * @property {'publisher'|'subscriber'|null} role  the VideoRoom participant type
 * @property {number|null} room
 * @property {number|null} feedId     the publisher's feed: its own for a publisher, the one it carries for a subscriber
 * @property {string|null} display    that feed's display name (the peer)
 * @property {string} mid
 * @property {'audio'|'video'} kind
 * @property {'fromPeer'|'toPeer'} direction  fromPeer: the browser's uplink into Janus; toPeer: Janus forwarding to it
 * @property {number} bitrateKbps     from Janus's bytes in the last second (RTP payload and headers, no UDP/IP)
 * @property {number} packets         total in that direction
 * @property {number|null} nacks      video: NACKs Janus sent (fromPeer) or received from the browser (toPeer)
 * @property {number|null} retransmissions  fromPeer video: retransmitted packets Janus received
 * @property {number|null} rttMs      from RTCP
 * @property {number} lost            packets Janus counted lost (fromPeer) or the browser reported lost (toPeer)
 * @property {number|null} rembCapKbps publisher: the room's bitrate cap, which VideoRoom sends the browser as REMB
 *   (Janus 1.1's handle_info shows no REMB it received or sent otherwise)
 */

/**
 * Janus's handle_info `info` object to one row per media stream (pure).
 * @param {any} info  any: Janus's JSON has no published type
 * @returns {HandleRow[]}
 */
export function parseHandleInfo(info) {
  const plugin = info?.plugin_specific ?? {};
  const role = plugin.type === 'publisher' || plugin.type === 'subscriber' ? plugin.type : null;
  /** @type {any[]} any: Janus's handle_info JSON has no published type */
  const streams = Array.isArray(plugin.streams) ? plugin.streams : [];
  return Object.values(info?.webrtc?.media ?? {}).flatMap((media) => {
    if (media.type !== 'audio' && media.type !== 'video') return [];
    const stream = streams.find((s) => s.mid === media.mid) ?? {};
    const directions = /** @type {const} */ (['fromPeer', 'toPeer']).filter((d) => (d === 'fromPeer' ? media.direction?.recv : media.direction?.send));
    return directions.map((direction) => {
      const stats = (direction === 'fromPeer' ? media.stats?.in : media.stats?.out) ?? {};
      const rtcp = media.rtcp?.main ?? {};
      return {
        sessionId: info.session_id,
        handleId: info.handle_id,
        role,
        room: plugin.room ?? null,
        feedId: (role === 'publisher' ? plugin.id : stream.feed_id) ?? null,
        display: (role === 'publisher' ? plugin.display : stream.feed_display) ?? null,
        mid: media.mid,
        kind: media.type,
        direction,
        bitrateKbps: ((stats.bytes_lastsec ?? 0) * 8) / 1000,
        packets: stats.packets ?? 0,
        nacks: stats.nacks ?? null,
        retransmissions: stats.retransmissions ?? null,
        rttMs: rtcp.rtt ?? null,
        lost: (direction === 'fromPeer' ? rtcp.lost : rtcp['lost-by-remote']) ?? 0,
        rembCapKbps: role === 'publisher' && plugin.bitrate > 0 ? plugin.bitrate / 1000 : null,
      };
    });
  });
}

/**
 * Every handle's rows (a handle that closes between the listing and its read is skipped).
 * @param {JanusAdmin} admin
 * @returns {Promise<HandleRow[]>}
 */
export async function readHandleRows(admin) {
  const rows = [];
  for (const sessionId of await listSessions(admin)) {
    const handles = await listHandles(admin, sessionId).catch(() => []);
    for (const handleId of handles) {
      const info = await handleInfo(admin, sessionId, handleId).catch(() => null);
      if (info) rows.push(...parseHandleInfo(info));
    }
  }
  return rows;
}
