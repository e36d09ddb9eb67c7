// Tiny signaling server: serves client-app/, keeps rooms of peers, relays offer/answer/candidates between them,
// and hands the peers' stats samples and events to the orchestrator. Anything a page (or anything else that can
// reach the port) sends is untrusted: a bad message or frame is refused and reported, never thrown, and the
// server goes on.
import { EventEmitter } from 'node:events';
import { createServer, STATUS_CODES } from 'node:http';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import express from 'express';
import { WebSocketServer } from 'ws';
import { createAdmission } from './admission.js';
import { MAX_MESSAGE_BYTES, acceptConnection, send } from './connection.js';
import { validateCommand } from './messages.js';

const clientAppDir = fileURLToPath(new URL('../client-app/', import.meta.url));
export {
  FLOOD_CLOSE_AFTER_S, JOIN_REFUSED, MAX_CANDIDATES_PER_PEER_PAIR, MAX_MESSAGE_BYTES, MAX_MESSAGES_PER_SECOND,
  MAX_SAMPLES_PER_REMOTE_PER_SECOND, MESSAGES_PER_REMOTE_PER_SECOND, SAMPLE_BURST_S,
} from './connection.js';
// A little over the limit still gets an error reply; beyond that ws closes the connection (1009) without buffering it.
const MAX_PAYLOAD_BYTES = MAX_MESSAGE_BYTES + 1024;
export const DEFAULT_JOIN_TIMEOUT_MS = 5000;

/**
 * Rewrites (or drops, by returning null) a candidate on its way from one peer to another: this is how the relay
 * emulator puts itself on the media path. When given, candidates embedded in SDP are stripped so none bypass it.
 * It may throw or reject (e.g. the relay's InputError for a port out of range): the candidate is then refused.
 * @callback RewriteCandidate
 * @param {{ room: string, from: string, to: string, candidate: import('./messages.js').CandidateInit }} message
 * @returns {Promise<import('./messages.js').CandidateInit|null>}
 */

/**
 * Steers a candidate between a page and an SFU the page signals to itself (LiveKit), which the harness carries no
 * other way: the page's own on their way to the SFU (`toSfu`), the SFU's before the page uses them (`fromSfu`). The
 * emulator's rewrite (or null: dropped). It may throw or reject: the candidate is then refused, and the page hears null.
 * @callback SteerCandidate
 * @param {{ room: string, peer: string, direction: 'toSfu'|'fromSfu', candidate: import('./messages.js').CandidateInit }} message
 * @returns {Promise<import('./messages.js').CandidateInit|null>}
 */

/**
 * Takes a page's offer, answer or candidate in place of the page it names.
 * @callback Bridge
 * @param {{ from: string } & (import('./messages.js').DescriptionMessage | import('./messages.js').CandidateMessage)} message
 * @returns {Promise<void>}
 */

/**
 * A message, frame or connection the server refused.
 * @typedef {{ epochMs: number, room: string|null, peer: string|null, messageType: string|null, reason: string }} Rejection
 */

/**
 * Starts the server on host:port (port 0: an ephemeral one).
 *
 * Only WebSocket upgrades to /ws whose Origin is the server's own (`new URL(httpUrl).origin`) are accepted; others
 * get a 403, and one over the cap of sockets that have not joined yet (with `secrets`: 2 per peer + 8) or of all
 * sockets gets a 503. A socket must join within joinTimeoutMs, joins once, and is then bound to that room and peer:
 * its stats and events are stamped with that peer, and it cannot speak for another. With `room` and `secrets`
 * (peer → secret, orchestrator/lib/system/peer-secrets.js) a join must name that room, one of those peers not joined yet,
 * and carry that peer's secret; any other join hears only `{ type: 'error', error: JOIN_REFUSED }` and its socket is
 * closed (admission.js). Without them (tests, manual experiments) any name joins any room, once at a time.
 * Limits: MAX_MESSAGE_BYTES per message, MAX_MESSAGES_PER_SECOND (or MESSAGES_PER_REMOTE_PER_SECOND per remote, when
 * more: a large room) per socket (the excess is dropped, with one error reply per second; FLOOD_CLOSE_AFTER_S seconds over it in a
 * row closes the socket), MAX_SAMPLES_PER_REMOTE_PER_SECOND per peer per other peer in the room (SAMPLE_BURST_S
 * seconds of them at once, for a starved page catching up; `otherRemotes` more: an SFU room's load participants),
 * MAX_CANDIDATES_PER_PEER_PAIR candidates per peer per remote peer while the room exists.
 *
 * `events` emits:
 * - 'join' `{ room, peer }` and 'leave' `{ room, peer }` (the peer name is free again);
 * - 'stats' a sample `{ t, peer, remote, ...metrics }` that passed validateSample, `peer` the sender's;
 * - 'event' a peer event `{ type, peer, epochMs, ...fields }` that passed validateEvent, `peer` the sender's;
 * - 'rejected' a {@link Rejection} for every refused message (bad JSON or shape, over a limit, refused join, not
 *   joined, failed candidate rewrite), malformed frame, refused upgrade (Origin, path, handshake, over a cap)
 *   and closed socket (flood, no join in time); never with a secret. The sender of a refused message also gets
 *   `{ type: 'error', error: reason, inReplyTo: messageType }`.
 *
 * `files` serves more files beside the client app, by URL path (a peer's media, client-app `source=media-element`).
 *
 * With `bridge` (an SFU call), every offer, answer and candidate goes to it instead of another page, unrewritten;
 * it answers the pages through `sendTo`. A bridge that throws gets the message refused. With `steerCandidate` (an SFU
 * the pages signal to themselves), a page's `steer` message `{ id, direction, candidate }` is answered with
 * `{ type: 'steered', id, candidate }` (null: dropped or refused); without it, `steer` is refused (and answered null).
 *
 * @param {{ host?: string, port?: number, rewriteCandidate?: RewriteCandidate, room?: string,
 *   secrets?: Map<string, string>|Record<string, string>, joinTimeoutMs?: number, bridge?: Bridge,
 *   steerCandidate?: SteerCandidate, files?: Record<string, string>, otherRemotes?: number }} [options]
 * @returns {Promise<{ httpUrl: string, wsUrl: string, port: number, events: EventEmitter,
 *   broadcast: (room: string, message: object) => void, sendTo: (room: string, peer: string, message: object) => boolean,
 *   sendCommand: (room: string, peer: string, command: import('./messages.js').Command) => boolean, close: () => Promise<void> }>}
 */
export async function startSignalingServer({
  host = '127.0.0.1', port = 0, rewriteCandidate, room: onlyRoom, secrets, joinTimeoutMs = DEFAULT_JOIN_TIMEOUT_MS, bridge, steerCandidate,
  files = {}, otherRemotes = 0,
} = {}) {
  const admission = createAdmission({ room: onlyRoom, secrets });
  const events = new EventEmitter();
  /** @type {Map<string, import('./connection.js').Room>} */
  const rooms = new Map();
  const app = express();
  app.use(express.static(clientAppDir));
  // sendFile answers Range requests: a <video> seeks back to the start of its loop with one.
  for (const [urlPath, file] of Object.entries(files)) app.get(urlPath, (request, response) => response.sendFile(file));
  const server = createServer(app);
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_PAYLOAD_BYTES });
  let origin = '';
  /** @type {Set<import('ws').WebSocket>} sockets that have not joined (yet): what a client can open without a secret */
  const unjoined = new Set();

  /** @param {import('./connection.js').RejectionInput} rejection */
  const reject = ({ room = null, peer = null, messageType = null, reason }) => events.emit('rejected', { epochMs: Date.now(), room, peer, messageType, reason });
  wss.on('error', (error) => reject({ reason: `WebSocket server: ${error.message}` }));
  // A handshake ws itself refuses (no key, wrong version): ws leaves the answer to us once we listen.
  wss.on('wsClientError', (error, socket) => {
    reject({ reason: `upgrade refused: ${error.message}` });
    refuseUpgrade(socket, 400, error.message);
  });

  server.on('upgrade', (request, socket, head) => upgrade({ request, socket, head }, { wss, admission, unjoined, origin, reject }));

  // handleUpgrade completes synchronously, so the caps above count every socket accepted before.
  wss.on('connection', (socket) => acceptConnection({
    rooms, unjoined, admission, events, bridge, rewriteCandidate, steerCandidate, joinTimeoutMs, reject, otherRemotes,
  }, socket));

  await new Promise((resolve, reject) => server.once('error', reject).listen(port, host, () => resolve(undefined)));
  const actualPort = /** @type {import('node:net').AddressInfo} */ (server.address()).port;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  const httpUrl = `http://${urlHost}:${actualPort}/`;
  origin = new URL(httpUrl).origin;
  /** @param {string} room @param {string} peer @param {object} message */
  const sendToPeer = (room, peer, message) => {
    const socket = rooms.get(room)?.members.get(peer);
    if (!socket || socket.readyState !== socket.OPEN) return false;
    send(socket, message);
    return true;
  };
  return {
    httpUrl,
    wsUrl: `ws://${urlHost}:${actualPort}/ws`,
    port: actualPort,
    events,
    broadcast(room, message) {
      for (const socket of rooms.get(room)?.members.values() ?? []) send(socket, message);
    },
    sendTo: sendToPeer,
    // A flow command (messages.js validateCommand); an invalid one is the orchestrator's bug and throws. False when
    // the page is not (or no longer) connected.
    sendCommand(room, peer, command) {
      const checked = validateCommand(command, peer);
      if ('reason' in checked) throw new TypeError(`sendCommand to ${peer}: ${checked.reason}`);
      return sendToPeer(room, peer, checked.value);
    },
    async close() {
      for (const socket of wss.clients) socket.terminate();
      await new Promise((resolve) => wss.close(() => resolve(undefined)));
      server.closeAllConnections?.();
      await new Promise((resolve) => server.close(() => resolve(undefined)));
    },
  };
}

/**
 * Lets a WebSocket upgrade through to /ws from the server's own origin while the caps allow it; refuses (and
 * reports) any other with an HTTP error.
 * @param {{ request: import('node:http').IncomingMessage, socket: import('node:stream').Duplex, head: Buffer }} upgradeRequest
 * @param {{ wss: WebSocketServer, admission: ReturnType<typeof createAdmission>, unjoined: Set<import('ws').WebSocket>,
 *   origin: string, reject: (rejection: import('./connection.js').RejectionInput) => void }} server
 */
function upgrade({ request, socket, head }, { wss, admission, unjoined, origin, reject }) {
  socket.on('error', () => socket.destroy());
  // Plain string work: new URL() throws on request targets such as `//a:b`.
  const pathname = (request.url ?? '').split('?', 1)[0];
  if (pathname !== '/ws') {
    reject({ reason: `upgrade refused: path ${JSON.stringify(pathname.slice(0, 64))} is not /ws` });
    return refuseUpgrade(socket, 404, 'WebSocket endpoint is /ws');
  }
  // Any web page the browser opens could otherwise talk to us (cross-site WebSocket hijacking).
  if (request.headers.origin !== origin) {
    const got = request.headers.origin === undefined ? 'no Origin' : `Origin ${JSON.stringify(request.headers.origin.slice(0, 64))}`;
    reject({ reason: `upgrade refused: ${got}; only ${origin} may connect` });
    return refuseUpgrade(socket, 403, `only pages served from ${origin} may connect`);
  }
  const full = unjoined.size >= admission.maxUnjoined ? `${admission.maxUnjoined} sockets that have not joined`
    : wss.clients.size >= admission.maxConnections ? `${admission.maxConnections} sockets` : null;
  if (full) {
    reject({ reason: `upgrade refused: already ${full}` });
    return refuseUpgrade(socket, 503, 'too many connections; try again later');
  }
  wss.handleUpgrade(request, socket, head, (ws) => wss.emit('connection', ws, request));
}

/**
 * Answers an upgrade request with an HTTP error instead of a WebSocket.
 * @param {import('node:stream').Duplex} socket @param {number} status @param {string} text
 */
function refuseUpgrade(socket, status, text) {
  if (!socket.writable) return socket.destroy();
  socket.once('finish', () => socket.destroy());
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`);
}

// `node signaling/server.js [port]` runs it standalone for manual experiments.
if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const signaling = await startSignalingServer({ port: Number(process.argv[2] ?? 0) });
  console.log(`signaling on ${signaling.httpUrl} (WebSocket ${signaling.wsUrl})`);
}
