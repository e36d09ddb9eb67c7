// One page's WebSocket on the signaling server: its rate and join deadline, its join, and the relay of its offers,
// answers and candidates to the other pages (or to the SFU bridge). What it sends is untrusted: a bad message is
// refused and reported, never thrown.
import { messageTypeOf, validateMessage } from './messages.js';
import { errorMessage } from '../orchestrator/lib/system/errors.js';

export const MAX_MESSAGE_BYTES = 64 * 1024;
export const MAX_MESSAGES_PER_SECOND = 200;
/**
 * A page in a large room answers, trickles candidates for and samples every remote: its cap is this many per remote
 * when that is above MAX_MESSAGES_PER_SECOND (a 25-party SFU room's pages sent over 200 in their first second).
 */
export const MESSAGES_PER_REMOTE_PER_SECOND = 20;
/** A socket over the message rate this many seconds in a row is closed. */
export const FLOOD_CLOSE_AFTER_S = 3;
/** Chromium gathers a handful of candidates per connection; each one the relay registers holds a UDP socket. */
export const MAX_CANDIDATES_PER_PEER_PAIR = 32;
/** Per remote peer: a page samples once a second; 4× leaves room for a late tick catching up (or 250 ms sampling). */
export const MAX_SAMPLES_PER_REMOTE_PER_SECOND = 4;
/**
 * A starved page's samples reach the server together (a 4-peer mesh on 2 cores sent 13 in one second and its run was
 * failed for it): the budget saves up to this many seconds of that rate, a token bucket, full at the start.
 */
export const SAMPLE_BURST_S = 10;
/** All a refused join hears: nothing about the room, its peers or why. */
export const JOIN_REFUSED = 'join refused';
// A client that does not answer our close frame is cut off after this, not held for ws's 30 s.
const CLOSE_GRACE_MS = 1000;
// A client that does not read its replies must not make the server buffer them without end.
const MAX_BUFFERED_BYTES = 1024 * 1024;

/** @typedef {import('ws').WebSocket} WebSocket */
/** @typedef {{ members: Map<string, WebSocket>, candidates: Map<string, number> }} Room */
/** @typedef {{ room?: string|null, peer?: string|null, messageType?: string|null, reason: string }} RejectionInput */

/**
 * What every connection of one server shares.
 * @typedef {object} Hub
 * @property {Map<string, Room>} rooms
 * @property {Set<WebSocket>} unjoined  sockets that have not joined (yet): what a client can open without a secret
 * @property {ReturnType<typeof import('./admission.js').createAdmission>} admission
 * @property {import('node:events').EventEmitter} events
 * @property {import('./server.js').Bridge} [bridge]
 * @property {import('./server.js').RewriteCandidate} [rewriteCandidate]
 * @property {import('./server.js').SteerCandidate} [steerCandidate]
 * @property {number} joinTimeoutMs
 * @property {number} otherRemotes  remotes a page samples beside the room's peers (an SFU room's load participants)
 * @property {(rejection: RejectionInput) => void} reject
 */

/**
 * One socket's state and its two ways out.
 * @typedef {object} Connection
 * @property {Hub} hub
 * @property {WebSocket} socket
 * @property {{ room: string, peer: string } | null} member  once joined
 * @property {{ second: number, messages: number, secondsOver: number, sampleTokens: number, sampleRefillMs: number }} rate
 *   messages: this second's; sampleTokens and sampleRefillMs: the samples' token bucket (takeSampleToken)
 * @property {Set<string>} steered  the candidates it steered, by direction: an SFU that sends one again on each
 *   renegotiation (LiveKit) costs no more of the page's candidate budget, and the emulator's rewrite is the same
 * @property {NodeJS.Timeout} joinTimer
 * @property {(reason: string, messageType?: string|null) => void} refuse  the sender hears why; the message is dropped
 * @property {(reason: string, options?: { told?: string, messageType?: string|null }) => void} drop  closes the socket;
 *   told: what the client hears, if not the reason
 * @property {() => boolean} isDropped
 */

/** @param {WebSocket} socket @param {object} message */
export const send = (socket, message) => socket.readyState === socket.OPEN && socket.send(JSON.stringify(message));

/**
 * Takes a new socket: it must join within the hub's joinTimeoutMs and stay under the message rate.
 * @param {Hub} hub @param {WebSocket} socket
 */
export function acceptConnection(hub, socket) {
  hub.unjoined.add(socket);
  // Set once the socket is being closed for cause: whatever it still sends is ignored.
  let dropped = false;
  const connectedAtMs = Date.now();
  /** @type {Connection} */
  const connection = {
    hub, socket, member: null, rate: { second: -1, messages: 0, secondsOver: 0, sampleTokens: Infinity, sampleRefillMs: connectedAtMs },
    steered: new Set(),
    joinTimer: setTimeout(() => connection.drop(`no join within ${hub.joinTimeoutMs} ms`), hub.joinTimeoutMs),
    refuse(reason, messageType = null) {
      if (socket.bufferedAmount < MAX_BUFFERED_BYTES) send(socket, { type: 'error', error: reason, inReplyTo: messageType });
      hub.reject({ room: connection.member?.room, peer: connection.member?.peer, messageType, reason });
    },
    drop(reason, { told = reason, messageType = null } = {}) {
      dropped = true;
      hub.reject({ room: connection.member?.room, peer: connection.member?.peer, messageType, reason: `${reason}; connection closed` });
      socket.close(1008, told.slice(0, 120));
      setTimeout(() => socket.terminate(), CLOSE_GRACE_MS).unref();
    },
    isDropped: () => dropped,
  };

  socket.on('error', (error) => {
    hub.reject({ room: connection.member?.room, peer: connection.member?.peer, reason: `malformed frame: ${errorMessage(error)}; connection closed` });
    socket.terminate();
  });
  socket.on('message', (data, isBinary) => {
    if (dropped || !withinRate(connection, Math.floor((Date.now() - connectedAtMs) / 1000))) return;
    // A listener of `events` that throws must not take the server down with it.
    onMessage(connection, /** @type {Buffer} */ (data), isBinary)
      .catch((error) => connection.refuse(`the server failed on this message: ${errorMessage(error)}`));
  });
  socket.on('close', () => {
    clearTimeout(connection.joinTimer);
    hub.unjoined.delete(socket);
    const { member } = connection;
    if (!member) return;
    const entry = hub.rooms.get(member.room);
    entry?.members.delete(member.peer);
    if (entry?.members.size === 0) hub.rooms.delete(member.room);
    hub.events.emit('leave', member);
  });
}

/**
 * The remotes a joined page talks to and samples: the room's other peers, the SFU node in an SFU call, and the
 * room's load participants (0 before its join).
 * @param {Connection} connection
 */
function remotesOf({ hub, member }) {
  const entry = member && hub.rooms.get(member.room);
  if (!entry) return 0;
  const sfuLeg = hub.bridge || hub.steerCandidate ? 1 : 0;
  return (hub.admission.peers ? hub.admission.peers.length - 1 : entry.members.size - 1) + sfuLeg + hub.otherRemotes;
}

/**
 * False when the message is over this socket's rate; a socket that stays over it is closed.
 * @param {Connection} connection @param {number} second  since the socket connected
 */
function withinRate(connection, second) {
  const { rate, refuse, drop } = connection;
  const cap = Math.max(MAX_MESSAGES_PER_SECOND, MESSAGES_PER_REMOTE_PER_SECOND * remotesOf(connection));
  if (second !== rate.second) {
    const wasOver = rate.messages > cap;
    rate.secondsOver = wasOver && second === rate.second + 1 ? rate.secondsOver : 0;
    Object.assign(rate, { second, messages: 0 });
  }
  rate.messages += 1;
  if (rate.messages <= cap) return true;
  if (rate.messages === cap + 1) {
    rate.secondsOver += 1;
    if (rate.secondsOver >= FLOOD_CLOSE_AFTER_S) drop(`over ${cap} messages/s for ${FLOOD_CLOSE_AFTER_S} s`);
    else refuse(`over ${cap} messages/s: the rest of this second is dropped; slow down`);
  }
  return false;
}

/**
 * Whether one more sample fits the socket's budget: maxPerSecond a second, up to SAMPLE_BURST_S seconds of it saved.
 * @param {Connection['rate']} rate @param {number} maxPerSecond @param {number} nowMs
 */
function takeSampleToken(rate, maxPerSecond, nowMs) {
  const saved = rate.sampleTokens + ((nowMs - rate.sampleRefillMs) / 1000) * maxPerSecond;
  rate.sampleTokens = Math.min(maxPerSecond * SAMPLE_BURST_S, saved);
  rate.sampleRefillMs = nowMs;
  if (rate.sampleTokens < 1) return false;
  rate.sampleTokens -= 1;
  return true;
}

/** @param {Connection} connection @param {Buffer} data @param {boolean} isBinary */
async function onMessage(connection, data, isBinary) {
  const { hub, refuse, member } = connection;
  if (isBinary) return refuse('binary messages are not supported; send JSON text');
  if (data.length > MAX_MESSAGE_BYTES) return refuse(`message of ${data.length} bytes is over the ${MAX_MESSAGE_BYTES}-byte limit`);
  let parsed;
  try {
    parsed = JSON.parse(data.toString('utf8'));
  } catch (error) {
    return refuse(`malformed JSON: ${errorMessage(error)}`);
  }
  const messageType = messageTypeOf(parsed);
  if (messageType === 'join' && member) return refuse(`this socket already joined room "${member.room}" as "${member.peer}"; open another connection to join again`, 'join');
  const checked = validateMessage(parsed, member?.peer ?? null);
  if ('reason' in checked) return refuse(checked.reason, messageType);
  const message = checked.value;
  if (message.type === 'join') return join(connection, message);
  // validateMessage refuses every other type before a join, and a joined socket's room lasts as long as it does.
  const entry = member && hub.rooms.get(member.room);
  if (!member || !entry) return refuse(`join a room before sending "${message.type}"`, message.type);
  if (message.type === 'stats') {
    // In an SFU call a page also samples its connection to the SFU.
    const maxSamples = MAX_SAMPLES_PER_REMOTE_PER_SECOND * Math.max(1, remotesOf(connection));
    if (!takeSampleToken(connection.rate, maxSamples, Date.now())) {
      return refuse(`over ${maxSamples} samples/s (${MAX_SAMPLES_PER_REMOTE_PER_SECOND} per remote peer, ${SAMPLE_BURST_S} s of them at once): sample dropped`, 'stats');
    }
    return hub.events.emit('stats', message.sample);
  }
  if (message.type === 'event') return hub.events.emit('event', message.event);
  if (message.type === 'steer') return steer(connection, member, entry, message);
  return forward(connection, member, entry, message);
}

/**
 * False (and refused) when the sender is over its candidates on this way (to a remote, or a steer direction).
 * @param {Connection} connection @param {Room} entry @param {string} from @param {string} way
 */
function takeCandidate({ refuse }, entry, from, way) {
  const pair = `${from}\n${way}`;
  const count = (entry.candidates.get(pair) ?? 0) + 1;
  if (count > MAX_CANDIDATES_PER_PEER_PAIR) {
    refuse(`over ${MAX_CANDIDATES_PER_PEER_PAIR} candidates from "${from}" ${way}: candidate dropped`, 'candidate');
    return false;
  }
  entry.candidates.set(pair, count);
  return true;
}

/**
 * A candidate between the page and an SFU it signals to itself, through the emulator (hub.steerCandidate), back to
 * the page as `steered` with the message's id: null when dropped or refused, so the page never waits for it.
 * @param {Connection} connection @param {{ room: string, peer: string }} member @param {Room} entry
 * @param {import('./messages.js').SteerMessage} message
 */
async function steer(connection, member, entry, message) {
  const { hub, socket, refuse } = connection;
  /** @param {import('./messages.js').CandidateInit|null} candidate */
  const answer = (candidate) => send(socket, { type: 'steered', id: message.id, candidate });
  if (!hub.steerCandidate) {
    refuse('no SFU of this run takes its pages\' candidates directly: send candidates to a peer with "candidate"', 'steer');
    return answer(null);
  }
  const key = `${message.direction}\n${message.candidate.candidate}`;
  if (!connection.steered.has(key) && !takeCandidate(connection, entry, member.peer, message.direction)) return answer(null);
  connection.steered.add(key);
  try {
    const { direction, candidate } = message;
    return answer(await hub.steerCandidate({ room: member.room, peer: member.peer, direction, candidate }));
  } catch (error) {
    refuse(`candidate ${message.direction} refused: ${errorMessage(error)}`, 'steer');
    return answer(null);
  }
}

/**
 * An offer, answer or candidate on to the page it names (or to the bridge, which speaks for every page in an SFU
 * call); with rewriteCandidate, candidates go through it and the SDP's own are stripped.
 * @param {Connection} connection @param {{ room: string, peer: string }} member @param {Room} entry
 * @param {import('./messages.js').DescriptionMessage | import('./messages.js').CandidateMessage} message
 */
async function forward(connection, member, entry, message) {
  const { hub, refuse } = connection;
  const countCandidate = () => takeCandidate(connection, entry, member.peer, `to "${message.to}"`);
  if (hub.bridge) {
    if (message.type === 'candidate' && !countCandidate()) return;
    try {
      return await hub.bridge({ from: member.peer, ...message });
    } catch (error) {
      return refuse(`${message.type} to "${message.to}" refused: ${errorMessage(error)}`, message.type);
    }
  }
  const target = entry.members.get(message.to);
  if (!target) return refuse(`no peer "${message.to}" in room "${member.room}"`, message.type);
  if (message.type === 'candidate') {
    if (!countCandidate()) return;
    /** @type {import('./messages.js').CandidateInit|null} */
    let candidate = message.candidate;
    if (hub.rewriteCandidate) {
      try {
        candidate = await hub.rewriteCandidate({ room: member.room, from: member.peer, to: message.to, candidate });
      } catch (error) {
        return refuse(`candidate refused: ${errorMessage(error)}`, 'candidate');
      }
      if (!candidate) return;
    }
    return send(target, { type: 'candidate', from: member.peer, candidate });
  }
  // Candidates inside the SDP would bypass the rewrite.
  const sdp = hub.rewriteCandidate ? message.sdp.split(/\r\n/).filter((line) => !line.startsWith('a=candidate:')).join('\r\n') : message.sdp;
  send(target, { type: message.type, from: member.peer, sdp });
}

/** @param {Connection} connection @param {import('./messages.js').JoinMessage} message */
function join(connection, message) {
  const { hub, socket } = connection;
  const { room, peer } = message;
  const entry = hub.rooms.get(room) ?? { members: new Map(), candidates: new Map() };
  const refused = hub.admission.refuseJoin(message, entry.members.has(peer));
  if (refused) {
    send(socket, { type: 'error', error: JOIN_REFUSED, inReplyTo: 'join' });
    return connection.drop(`join refused: ${refused}`, { told: JOIN_REFUSED, messageType: 'join' });
  }
  hub.rooms.set(room, entry);
  clearTimeout(connection.joinTimer);
  hub.unjoined.delete(socket);
  send(socket, { type: 'joined', room, peers: [...entry.members.keys()] });
  for (const other of entry.members.values()) send(other, { type: 'peer-joined', peer });
  entry.members.set(peer, socket);
  connection.member = { room, peer };
  hub.events.emit('join', connection.member);
}
