// Clients of the signaling server for tests: a well-behaved WebSocket client, and a raw TCP one that writes the
// upgrade and hand-made frames itself (what a hostile peer can send that no WebSocket library would).
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import WebSocket from 'ws';

/** The page origin the server accepts: its own (`http://host:port`). @param {string} wsUrl */
export const originOf = (wsUrl) => new URL(wsUrl.replace(/^ws/, 'http')).origin;

/**
 * A WebSocket client that queues incoming messages so tests can await them in order.
 * @param {string} wsUrl @param {{ origin?: string }} [options] origin defaults to the server's own
 */
export async function wsClient(wsUrl, { origin = originOf(wsUrl) } = {}) {
  const socket = new WebSocket(wsUrl, { origin });
  const inbox = [];
  const waiters = [];
  socket.on('message', (data) => {
    const message = JSON.parse(String(data));
    const waiter = waiters.shift();
    if (waiter) waiter(message);
    else inbox.push(message);
  });
  /** @type {Promise<{ code: number, reason: string }>} */
  const closed = new Promise((resolve) => socket.once('close', (code, reason) => resolve({ code, reason: String(reason) })));
  // Listening before the handshake too: a refused upgrade (503) can be followed by the reset of its connection, a
  // second error that would otherwise be thrown as uncaught. `closed` says how the socket ended.
  socket.on('error', () => {});
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  return {
    socket,
    closed,
    /** @param {object|string} message */
    send: (message) => socket.send(typeof message === 'string' ? message : JSON.stringify(message)),
    /** The next message; rejects after timeoutMs. */
    next(timeoutMs = 3000) {
      if (inbox.length) return Promise.resolve(inbox.shift());
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(waiter), 1);
          reject(new Error(`no message within ${timeoutMs} ms`));
        }, timeoutMs);
        const waiter = (message) => { clearTimeout(timer); resolve(message); };
        waiters.push(waiter);
      });
    },
    /** Messages received so far and not yet taken. */
    pending: () => inbox.splice(0),
    close: () => { socket.close(); return closed; },
  };
}

/**
 * Joins and returns the client once the server confirmed.
 * @param {string} wsUrl @param {string} room @param {string} peer @param {string} [secret] the peer's, for a run's room
 */
export async function joinedClient(wsUrl, room, peer, secret) {
  const client = await wsClient(wsUrl);
  client.send({ type: 'join', room, peer, ...(secret === undefined ? {} : { secret }) });
  const reply = await client.next();
  if (reply.type !== 'joined') throw new Error(`join ${room}/${peer} refused: ${JSON.stringify(reply)}`);
  return client;
}

/**
 * A join on a socket of its own, for one that should be refused: the server's reply, and how the socket ended.
 * @param {string} wsUrl @param {{ room: string, peer: string, secret?: string }} join
 * @returns {Promise<{ reply: any, closed: { code: number, reason: string } }>}
 */
export async function tryJoin(wsUrl, join) {
  const client = await wsClient(wsUrl);
  client.send({ type: 'join', ...join });
  const reply = await client.next();
  const closed = await Promise.race([client.closed, new Promise((resolve) => setTimeout(() => resolve({ code: -1, reason: 'still open' }), 3000))]);
  client.socket.terminate();
  return { reply, closed };
}

/**
 * One WebSocket frame, as raw bytes. Client frames are masked; `masked: false`, `rsv1` or an unknown opcode make
 * it malformed on purpose.
 * @param {{ opcode?: number, payload?: Buffer|string, fin?: boolean, rsv1?: boolean, masked?: boolean }} options
 */
export function frame({ opcode = 0x1, payload = '', fin = true, rsv1 = false, masked = true }) {
  const body = Buffer.from(payload);
  const length = body.length;
  const lengthBytes = length < 126 ? 0 : length < 65536 ? 2 : 8;
  const header = Buffer.alloc(2 + lengthBytes + (masked ? 4 : 0));
  header[0] = (fin ? 0x80 : 0) | (rsv1 ? 0x40 : 0) | (opcode & 0x0f);
  header[1] = (masked ? 0x80 : 0) | (lengthBytes === 0 ? length : lengthBytes === 2 ? 126 : 127);
  if (lengthBytes === 2) header.writeUInt16BE(length, 2);
  if (lengthBytes === 8) header.writeBigUInt64BE(BigInt(length), 2);
  if (!masked) return Buffer.concat([header, body]);
  const mask = randomBytes(4);
  mask.copy(header, 2 + lengthBytes);
  return Buffer.concat([header, body.map((byte, i) => byte ^ mask[i % 4])]);
}

/**
 * A TCP connection that did the WebSocket upgrade by hand. `status` is the HTTP status the server answered;
 * `closed` resolves when the server ends the connection.
 * @param {string} wsUrl @param {{ origin?: string|null, key?: string|null }} [options] null: no such header
 */
export async function rawClient(wsUrl, { origin = originOf(wsUrl), key = randomBytes(16).toString('base64') } = {}) {
  const url = new URL(wsUrl);
  const socket = net.connect({ host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port) });
  socket.on('error', () => {}); // a reset after the server drops us is the expected outcome
  const closed = new Promise((resolve) => socket.once('close', resolve));
  await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const headers = [
    `GET ${url.pathname} HTTP/1.1`, `Host: ${url.host}`, 'Upgrade: websocket', 'Connection: Upgrade',
    'Sec-WebSocket-Version: 13',
    ...(key === null ? [] : [`Sec-WebSocket-Key: ${key}`]),
    ...(origin === null ? [] : [`Origin: ${origin}`]),
  ];
  socket.write(`${headers.join('\r\n')}\r\n\r\n`);
  const response = await new Promise((resolve) => {
    let buffered = '';
    const onData = (chunk) => {
      buffered += chunk.toString('latin1');
      const end = buffered.indexOf('\r\n\r\n');
      if (end < 0) return;
      socket.off('data', onData);
      resolve(buffered.slice(0, end));
    };
    socket.on('data', onData);
    socket.once('close', () => resolve(buffered));
  });
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(response)?.[1] ?? 0);
  return { socket, status, response, closed, write: (bytes) => socket.write(bytes) };
}
