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
import { messageTypeOf, validateCommand, validateMessage } from './messages.js';

const clientAppDir = fileURLToPath(new URL('../client-app/', import.meta.url));
export const MAX_MESSAGE_BYTES = 64 * 1024;
// A little over the limit still gets an error reply; beyond that ws closes the connection (1009) without buffering it.
const MAX_PAYLOAD_BYTES = MAX_MESSAGE_BYTES + 1024;
export const MAX_MESSAGES_PER_SECOND = 200;
/** A socket over the message rate this many seconds in a row is closed. */
export const FLOOD_CLOSE_AFTER_S = 3;
/** Chromium gathers a handful of candidates per connection; each one the relay registers holds a UDP socket. */
export const MAX_CANDIDATES_PER_PEER_PAIR = 32;
/** Per remote peer: a page samples once a second; 4× leaves room for a late tick catching up (or 250 ms sampling). */
export const MAX_SAMPLES_PER_REMOTE_PER_SECOND = 4;
export const DEFAULT_JOIN_TIMEOUT_MS = 5000;
/** All a refused join hears: nothing about the room, its peers or why. */
export const JOIN_REFUSED = 'join refused';
// A client that does not answer our close frame is cut off after this, not held for ws's 30 s.
const CLOSE_GRACE_MS = 1000;
// A client that does not read its replies must not make the server buffer them without end.
const MAX_BUFFERED_BYTES = 1024 * 1024;

/**
 * Rewrites (or drops, by returning null) a candidate on its way from one peer to another: this is how the relay
 * emulator puts itself on the media path. When given, candidates embedded in SDP are stripped so none bypass it.
 * It may throw or reject (e.g. the relay's InputError for a port out of range): the candidate is then refused.
 * @callback RewriteCandidate
 * @param {{ room: string, from: string, to: string, candidate: import('./messages.js').CandidateInit }} message
 * @returns {Promise<object|null>}
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
 * Limits: MAX_MESSAGE_BYTES per message, MAX_MESSAGES_PER_SECOND
 * per socket (the excess is dropped, with one error reply per second; FLOOD_CLOSE_AFTER_S seconds over it in a
 * row closes the socket), MAX_SAMPLES_PER_REMOTE_PER_SECOND per peer per other peer in the room,
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
 * it answers the pages through `sendTo`. A bridge that throws gets the message refused.
 *
 * @param {{ host?: string, port?: number, rewriteCandidate?: RewriteCandidate, room?: string,
 *   secrets?: Map<string, string>|Record<string, string>, joinTimeoutMs?: number, bridge?: Bridge,
 *   files?: Record<string, string> }} [options]
 * @returns {Promise<{ httpUrl: string, wsUrl: string, port: number, events: EventEmitter,
 *   broadcast: (room: string, message: object) => void, sendTo: (room: string, peer: string, message: object) => boolean,
 *   sendCommand: (room: string, peer: string, command: import('./messages.js').Command) => boolean, close: () => Promise<void> }>}
 */
export async function startSignalingServer({
  host = '127.0.0.1', port = 0, rewriteCandidate, room: onlyRoom, secrets, joinTimeoutMs = DEFAULT_JOIN_TIMEOUT_MS, bridge, files = {},
} = {}) {
  const admission = createAdmission({ room: onlyRoom, secrets });
  const onlyPeers = admission.peers;
  const events = new EventEmitter();
  /** @type {Map<string, { members: Map<string, import('ws').WebSocket>, candidates: Map<string, number> }>} */
  const rooms = new Map();
  const app = express();
  app.use(express.static(clientAppDir));
  // sendFile answers Range requests: a <video> seeks back to the start of its loop with one.
  for (const [urlPath, file] of Object.entries(files)) app.get(urlPath, (request, response) => response.sendFile(file));
  const server = createServer(app);
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_PAYLOAD_BYTES });
  let origin = '';
  /** Sockets that have not joined (yet): what a client can open without a secret. */
  const unjoined = new Set();

  /** @param {{ room?: string|null, peer?: string|null, messageType?: string|null, reason: string }} rejection */
  const reject = ({ room = null, peer = null, messageType = null, reason }) => events.emit('rejected', { epochMs: Date.now(), room, peer, messageType, reason });
  /** @param {import('ws').WebSocket} socket @param {object} message */
  const sendTo = (socket, message) => socket.readyState === socket.OPEN && socket.send(JSON.stringify(message));

  wss.on('error', (error) => reject({ reason: `WebSocket server: ${error.message}` }));
  // A handshake ws itself refuses (no key, wrong version): ws leaves the answer to us once we listen.
  wss.on('wsClientError', (error, socket) => {
    reject({ reason: `upgrade refused: ${error.message}` });
    refuseUpgrade(socket, 400, error.message);
  });

  server.on('upgrade', (request, socket, head) => {
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
  });

  // handleUpgrade completes synchronously, so the caps above count every socket accepted before.
  wss.on('connection', (socket) => {
    unjoined.add(socket);
    /** @type {{ room: string, peer: string } | null} */
    let member = null;
    // Set once the socket is being closed for cause: whatever it still sends is ignored.
    let dropped = false;
    const rate = { second: -1, messages: 0, secondsOver: 0, samples: 0 };
    const connectedAtMs = Date.now();
    /** @param {string} reason @param {string|null} messageType */
    const refuse = (reason, messageType = null) => {
      if (socket.bufferedAmount < MAX_BUFFERED_BYTES) sendTo(socket, { type: 'error', error: reason, inReplyTo: messageType });
      reject({ room: member?.room, peer: member?.peer, messageType, reason });
    };
    /** @param {string} reason @param {{ told?: string, messageType?: string }} [options] told: what the client hears, if not the reason */
    const drop = (reason, { told = reason, messageType = null } = {}) => {
      dropped = true;
      reject({ room: member?.room, peer: member?.peer, messageType, reason: `${reason}; connection closed` });
      socket.close(1008, told.slice(0, 120));
      setTimeout(() => socket.terminate(), CLOSE_GRACE_MS).unref();
    };
    const joinTimer = setTimeout(() => drop(`no join within ${joinTimeoutMs} ms`), joinTimeoutMs);

    /** False when the message is over this socket's rate; a socket that stays over it is closed. */
    const withinRate = () => {
      const second = Math.floor((Date.now() - connectedAtMs) / 1000);
      if (second !== rate.second) {
        const wasOver = rate.messages > MAX_MESSAGES_PER_SECOND;
        rate.secondsOver = wasOver && second === rate.second + 1 ? rate.secondsOver : 0;
        Object.assign(rate, { second, messages: 0, samples: 0 });
      }
      rate.messages += 1;
      if (rate.messages <= MAX_MESSAGES_PER_SECOND) return true;
      if (rate.messages === MAX_MESSAGES_PER_SECOND + 1) {
        rate.secondsOver += 1;
        if (rate.secondsOver >= FLOOD_CLOSE_AFTER_S) drop(`over ${MAX_MESSAGES_PER_SECOND} messages/s for ${FLOOD_CLOSE_AFTER_S} s`);
        else refuse(`over ${MAX_MESSAGES_PER_SECOND} messages/s: the rest of this second is dropped; slow down`);
      }
      return false;
    };

    socket.on('error', (error) => {
      reject({ room: member?.room, peer: member?.peer, reason: `malformed frame: ${error.message}; connection closed` });
      socket.terminate();
    });

    socket.on('message', (data, isBinary) => {
      if (dropped || !withinRate()) return;
      // A listener of `events` that throws must not take the server down with it.
      onMessage(/** @type {Buffer} */ (data), isBinary).catch((error) => refuse(`the server failed on this message: ${error.message}`));
    });

    /** @param {Buffer} data @param {boolean} isBinary */
    async function onMessage(data, isBinary) {
      if (isBinary) return refuse('binary messages are not supported; send JSON text');
      if (data.length > MAX_MESSAGE_BYTES) return refuse(`message of ${data.length} bytes is over the ${MAX_MESSAGE_BYTES}-byte limit`);
      let parsed;
      try {
        parsed = JSON.parse(data.toString('utf8'));
      } catch (error) {
        return refuse(`malformed JSON: ${error.message}`);
      }
      const messageType = messageTypeOf(parsed);
      if (messageType === 'join' && member) return refuse(`this socket already joined room "${member.room}" as "${member.peer}"; open another connection to join again`, 'join');
      const checked = validateMessage(parsed, member?.peer ?? null);
      if ('reason' in checked) return refuse(checked.reason, messageType);
      const message = checked.value;

      if (message.type === 'join') return join(message);
      if (message.type === 'stats') {
        // In an SFU call a page also samples its connection to the SFU.
        const others = (onlyPeers ? onlyPeers.length - 1 : rooms.get(member.room).members.size - 1) + (bridge ? 1 : 0);
        const maxSamples = MAX_SAMPLES_PER_REMOTE_PER_SECOND * Math.max(1, others);
        if (++rate.samples > maxSamples) return refuse(`over ${maxSamples} samples/s (${MAX_SAMPLES_PER_REMOTE_PER_SECOND} per remote peer): sample dropped`, 'stats');
        return events.emit('stats', message.sample);
      }
      if (message.type === 'event') return events.emit('event', message.event);

      const entry = rooms.get(member.room);
      /** False (and refused) when the sender is over its candidates to this remote. */
      const countCandidate = () => {
        const pair = `${member.peer}\n${message.to}`;
        const count = (entry.candidates.get(pair) ?? 0) + 1;
        if (count > MAX_CANDIDATES_PER_PEER_PAIR) {
          refuse(`over ${MAX_CANDIDATES_PER_PEER_PAIR} candidates from "${member.peer}" to "${message.to}": candidate dropped`, 'candidate');
          return false;
        }
        entry.candidates.set(pair, count);
        return true;
      };
      if (bridge) {
        if (message.type === 'candidate' && !countCandidate()) return;
        try {
          return await bridge({ from: member.peer, ...message });
        } catch (error) {
          return refuse(`${message.type} to "${message.to}" refused: ${error.message}`, message.type);
        }
      }
      const target = entry.members.get(message.to);
      if (!target) return refuse(`no peer "${message.to}" in room "${member.room}"`, message.type);
      if (message.type === 'candidate') {
        if (!countCandidate()) return;
        let candidate = message.candidate;
        if (rewriteCandidate) {
          try {
            candidate = await rewriteCandidate({ room: member.room, from: member.peer, to: message.to, candidate });
          } catch (error) {
            return refuse(`candidate refused: ${error.message}`, 'candidate');
          }
          if (!candidate) return;
        }
        return sendTo(target, { type: 'candidate', from: member.peer, candidate });
      }
      // Candidates inside the SDP would bypass the rewrite.
      const sdp = rewriteCandidate ? message.sdp.split(/\r\n/).filter((line) => !line.startsWith('a=candidate:')).join('\r\n') : message.sdp;
      sendTo(target, { type: message.type, from: member.peer, sdp });
    }

    /** @param {import('./messages.js').JoinMessage} message */
    function join(message) {
      const { room, peer } = message;
      const entry = rooms.get(room) ?? { members: new Map(), candidates: new Map() };
      const refused = admission.refuseJoin(message, entry.members.has(peer));
      if (refused) {
        sendTo(socket, { type: 'error', error: JOIN_REFUSED, inReplyTo: 'join' });
        return drop(`join refused: ${refused}`, { told: JOIN_REFUSED, messageType: 'join' });
      }
      rooms.set(room, entry);
      clearTimeout(joinTimer);
      unjoined.delete(socket);
      sendTo(socket, { type: 'joined', room, peers: [...entry.members.keys()] });
      for (const other of entry.members.values()) sendTo(other, { type: 'peer-joined', peer });
      entry.members.set(peer, socket);
      member = { room, peer };
      events.emit('join', member);
    }

    socket.on('close', () => {
      clearTimeout(joinTimer);
      unjoined.delete(socket);
      if (!member) return;
      const entry = rooms.get(member.room);
      entry?.members.delete(member.peer);
      if (entry?.members.size === 0) rooms.delete(member.room);
      events.emit('leave', member);
    });
  });

  await new Promise((resolve, reject) => server.once('error', reject).listen(port, host, () => resolve(undefined)));
  const actualPort = /** @type {import('node:net').AddressInfo} */ (server.address()).port;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  const httpUrl = `http://${urlHost}:${actualPort}/`;
  origin = new URL(httpUrl).origin;
  /** @param {string} room @param {string} peer @param {object} message */
  const sendToPeer = (room, peer, message) => {
    const socket = rooms.get(room)?.members.get(peer);
    if (!socket || socket.readyState !== socket.OPEN) return false;
    sendTo(socket, message);
    return true;
  };
  return {
    httpUrl,
    wsUrl: `ws://${urlHost}:${actualPort}/ws`,
    port: actualPort,
    events,
    broadcast(room, message) {
      for (const socket of rooms.get(room)?.members.values() ?? []) sendTo(socket, message);
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
