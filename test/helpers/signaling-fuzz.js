// Seeded fuzz input for the signaling server: real messages of every type (as client-app/app.js sends them),
// mutated (type swaps, deleted fields, wrong types, huge numbers, nested junk, prototype keys, samples and
// events that claim to come from the remote peer), plus random bytes, binary frames and hand-made malformed
// frames. Same seed, same cases.
import { setTimeout as sleep } from 'node:timers/promises';
import { createRandom } from '../../orchestrator/lib/stats/random.js';
import { frame, rawClient, wsClient } from './signaling-clients.js';


/**
 * A sample as client-app/stats.js intervalMetrics makes it, with t, peer and remote (hostile tests pass wrong kinds).
 * @param {{ t?: unknown, peer?: unknown, remote?: unknown }} [fields]
 */
export function realSample({ t = 1, peer = 'p0', remote = 'p1' } = {}) {
  return {
    t, peer, remote, intervalS: 1.002,
    video: {
      sendKbps: 1834.2, recvKbps: 1790.5, sentWidth: 640, sentHeight: 360, sentFps: 30, recvWidth: 640, recvHeight: 360,
      recvFps: 29.94, qualityLimitationReason: 'none', codec: 'VP8', nackCount: 0, pliCount: 0, freezeCount: 0, lossPct: 0,
    },
    audio: { sendKbps: 32.1, recvKbps: 31.9, jitterMs: 1.2, lossPct: null },
    rttMs: 1.5, lossPct: 0, availableOutgoingKbps: 2500,
  };
}

/** One of each message the page sends. @param {{ room: string, peer: string, remote: string }} names */
export function realMessages({ room, peer, remote }) {
  const epochMs = Date.now();
  return [
    { type: 'join', room, peer },
    // A guess at the peer's secret: refused (and the socket closed) where a room has secrets.
    { type: 'join', room, peer, secret: 'guessed0guessed0guessed0guessed0guessed0gue' },
    { type: 'offer', to: remote, sdp: 'v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\na=group:BUNDLE 0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\na=mid:0\r\n' },
    { type: 'answer', to: remote, sdp: 'v=0\r\no=- 3 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n' },
    {
      type: 'candidate', to: remote,
      candidate: { candidate: 'candidate:1788174580 1 udp 2122194687 127.0.0.1 35344 typ host generation 0 ufrag qTDK network-id 3', sdpMid: '0', sdpMLineIndex: 0, usernameFragment: 'qTDK' },
    },
    { type: 'stats', sample: realSample({ peer, remote }) },
    { type: 'stats', sample: { ...realSample({ peer, remote }), data: { sentKbps: 2048.5 } } },
    { type: 'event', event: { type: 'media-ready', peer, epochMs, video: { width: 640, height: 360, frameRate: 30, deviceId: 'fake', resizeMode: 'none' } } },
    { type: 'event', event: { type: 'negotiated', peer, epochMs, remote } },
    { type: 'event', event: { type: 'ice-state', peer, epochMs, remote, state: 'checking' } },
    { type: 'event', event: { type: 'dtls-state', peer, epochMs, remote, state: 'connected' } },
    { type: 'event', event: { type: 'connection-state', peer, epochMs, remote, state: 'connected' } },
    { type: 'event', event: { type: 'first-rtp', peer, epochMs, remote } },
    { type: 'event', event: { type: 'first-frame', peer, epochMs, remote } },
    { type: 'event', event: { type: 'data-channel', peer, epochMs, remote, flow: 'bulk', state: 'open' } },
    // A handover's restart (client-app/ice-restart.js) and a codec report (client-app/app.js), mutated like the rest.
    { type: 'event', event: { type: 'ice-restart', peer, epochMs, remote, state: 'failed' } },
    {
      type: 'event',
      event: {
        type: 'codec', peer, epochMs, remote, direction: 'recv', mimeType: 'video/VP8', payloadType: 96, sdpFmtpLine: null,
        implementation: 'libvpx', powerEfficient: false, scalabilityMode: null, transportWideCc: false,
      },
    },
    { type: 'event', event: { type: 'error', peer, epochMs, message: 'getUserMedia: NotFoundError' } },
  ];
}

const TYPES = ['join', 'offer', 'answer', 'candidate', 'stats', 'event', 'joined', 'error', 'start', '', 'EVENT', '__proto__'];
const HUGE = [1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, -0, 2 ** 64, 1e-320, 86_401, 70_000, -1];

/** @param {() => number} random */
function junk(random, depth = 0) {
  const pick = Math.floor(random() * 12);
  switch (pick) {
    case 0: return null;
    case 1: return HUGE[Math.floor(random() * HUGE.length)];
    case 2: return random() * 1e6 - 5e5;
    case 3: return 'x'.repeat(Math.floor(random() * 5000));
    case 4: return random() < 0.5;
    case 5: return depth > 40 ? [] : [junk(random, depth + 1)];
    case 6: return depth > 40 ? {} : { [TYPES[Math.floor(random() * TYPES.length)] || 'k']: junk(random, depth + 1) };
    case 7: return TYPES[Math.floor(random() * TYPES.length)];
    case 8: return 'p1';
    case 9: return JSON.parse('{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":1}}}');
    case 10: return '\u0000\ud800';
    default: return depth > 40 ? 0 : Array.from({ length: 3 }, () => junk(random, depth + 1));
  }
}

/** Paths to every field of a JSON value (objects and arrays), the root excluded. */
function fieldPaths(value, prefix = []) {
  if (value === null || typeof value !== 'object') return [];
  return Object.keys(value).flatMap((key) => [[...prefix, key], ...fieldPaths(value[key], [...prefix, key])]);
}

/**
 * Mutates one field of a copy of message, or makes it speak for the remote peer.
 * @param {any} message @param {() => number} random @param {string} remote
 */
function mutate(message, random, remote) {
  const copy = structuredClone(message);
  if (random() < 0.1) {
    for (const body of [copy.sample, copy.event]) if (body && typeof body === 'object') body.peer = remote;
    return copy;
  }
  const paths = fieldPaths(copy);
  if (paths.length === 0) return { type: TYPES[Math.floor(random() * TYPES.length)] };
  const path = paths[Math.floor(random() * paths.length)];
  const parent = path.slice(0, -1).reduce((object, key) => object[key], copy);
  const key = path.at(-1);
  const kind = Math.floor(random() * 6);
  if (kind === 0) copy.type = TYPES[Math.floor(random() * TYPES.length)];
  else if (kind === 1) delete parent[key];
  else if (kind === 2) parent[key] = junk(random);
  else if (kind === 3) parent[key] = HUGE[Math.floor(random() * HUGE.length)];
  else if (kind === 4) parent[`extra${Math.floor(random() * 3)}`] = junk(random);
  else parent[key] = { deeper: { still: { deeper: parent[key] } } };
  return copy;
}

/** @param {() => number} random @param {number} length */
const randomBytes = (random, length) => Buffer.from(Array.from({ length }, () => Math.floor(random() * 256)));

/**
 * @typedef {{ kind: 'text', data: string } | { kind: 'bytes-as-text', data: Buffer } | { kind: 'binary', data: Buffer }
 *   | { kind: 'raw', data: Buffer }} FuzzCase
 * text: a JSON-ish string; bytes-as-text: random bytes in a text frame (often invalid UTF-8, which closes the
 * socket); binary: a binary frame; raw: a hand-made frame with random header bits, for a raw TCP client.
 */

/**
 * @param {{ seed: number, count: number, room: string, peer: string, remote: string }} options
 * @returns {FuzzCase[]}
 */
export function fuzzCases({ seed, count, room, peer, remote }) {
  const random = createRandom(seed);
  const base = realMessages({ room, peer, remote });
  /** @type {FuzzCase[]} */
  const cases = [];
  for (let i = 0; i < count; i++) {
    const roll = random();
    const message = base[Math.floor(random() * base.length)];
    if (roll < 0.55) cases.push({ kind: 'text', data: JSON.stringify(mutate(message, random, remote)) });
    else if (roll < 0.7) cases.push({ kind: 'text', data: JSON.stringify(mutate(mutate(mutate(message, random, remote), random, remote), random, remote)) });
    else if (roll < 0.76) cases.push({ kind: 'text', data: JSON.stringify(message) });
    else if (roll < 0.82) {
      const text = JSON.stringify(message);
      cases.push({ kind: 'text', data: text.slice(0, Math.floor(random() * text.length)) });
    } else if (roll < 0.87) cases.push({ kind: 'text', data: JSON.stringify(junk(random)) });
    else if (roll < 0.9) cases.push({ kind: 'bytes-as-text', data: randomBytes(random, 1 + Math.floor(random() * 200)) });
    else if (roll < 0.95) cases.push({ kind: 'binary', data: random() < 0.5 ? Buffer.from(JSON.stringify(message)) : randomBytes(random, Math.floor(random() * 300)) });
    else if (roll < 0.97) cases.push({ kind: 'text', data: `${'['.repeat(10_000)}${']'.repeat(10_000)}` });
    else {
      const opcode = Math.floor(random() * 16);
      cases.push({
        kind: 'raw',
        data: frame({
          opcode, payload: randomBytes(random, Math.floor(random() * 100)),
          fin: random() < 0.8, rsv1: random() < 0.3, masked: random() < 0.7,
        }),
      });
    }
  }
  return cases;
}

/**
 * A new connection, retried while the server answers 503 (its cap of sockets that have not joined is reached: the
 * fuzz's own lanes and raw connections count).
 * @param {string} wsUrl
 */
async function connect(wsUrl) {
  for (let attempt = 0; ; attempt++) {
    try {
      return await wsClient(wsUrl);
    } catch (error) {
      if (!/503/.test(error.message) || attempt >= 100) throw error;
      await sleep(50);
    }
  }
}

/**
 * A connection of a fuzz lane, joined as `join` when given (retrying while the server still holds the name of
 * the lane's previous, dropped connection: a refused join closes the socket, so each try is a new one).
 * @param {string} wsUrl @param {{ room: string, peer: string, secret?: string }|null} join
 */
async function laneClient(wsUrl, join) {
  if (!join) return connect(wsUrl);
  for (let attempt = 0; attempt < 50; attempt++) {
    const client = await connect(wsUrl);
    client.send({ type: 'join', ...join });
    for (;;) {
      const reply = await client.next();
      if (reply.type === 'joined') return client;
      if (reply.type === 'error' && reply.inReplyTo === 'join') break;
    }
    client.socket.close();
    await sleep(20);
  }
  throw new Error(`fuzz lane could not join ${join.room} as ${join.peer}`);
}

/**
 * Sends the cases over parallel lanes, each one WebSocket connection paced under the server's message cap; a
 * lane whose connection the server closed (invalid UTF-8, a mutated message it could not take) reconnects and
 * joins again. Raw cases go over a fresh raw TCP connection each.
 * @param {string} wsUrl @param {FuzzCase[]} cases
 * @param {{ lanes: Array<{ room: string, peer: string, secret?: string }|null>, perSecond?: number }} options  per lane: its
 *   join, or null
 * @returns {Promise<{ sent: number, reconnects: number, refusedUpgrades: number }>}
 */
export async function sendFuzz(wsUrl, cases, { lanes, perSecond = 150 }) {
  const batch = 10;
  const batchMs = (1000 * batch) / perSecond;
  let sent = 0;
  let reconnects = 0;
  let refusedUpgrades = 0;
  await Promise.all(lanes.map(async (join, lane) => {
    const mine = cases.filter((_, i) => i % lanes.length === lane);
    let client = await laneClient(wsUrl, join);
    for (let start = 0; start < mine.length; start += batch) {
      for (const fuzzCase of mine.slice(start, start + batch)) {
        if (fuzzCase.kind === 'raw') {
          // Over the server's cap the upgrade gets 503 and the frame is not written: counted in refusedUpgrades.
          const raw = await rawClient(wsUrl);
          if (raw.status === 101) raw.write(fuzzCase.data);
          else refusedUpgrades++;
          setTimeout(() => raw.socket.destroy(), 200);
        } else {
          if (client.socket.readyState !== client.socket.OPEN) {
            client = await laneClient(wsUrl, join);
            reconnects++;
          }
          client.socket.send(fuzzCase.data, { binary: fuzzCase.kind === 'binary' });
          client.pending();
        }
        sent++;
      }
      await sleep(batchMs);
    }
    client.socket.close();
  }));
  return { sent, reconnects, refusedUpgrades };
}
