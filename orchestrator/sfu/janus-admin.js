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

/** @param {JanusAdmin} admin @param {number} sessionId @param {number} handleId @returns {Promise<any>} the answer's `info` */
export async function handleInfo({ adminUrl, adminSecret }, sessionId, handleId) {
  return (await janusPost(`${adminUrl}/${sessionId}/${handleId}`, { janus: 'handle_info', admin_secret: adminSecret })).info;
}
