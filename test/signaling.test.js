import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import WebSocket from 'ws';
import { MAX_MESSAGE_BYTES, startSignalingServer } from '../signaling/server.js';

let signaling;
const rewrites = [];
before(async () => {
  signaling = await startSignalingServer({
    rewriteCandidate: async ({ from, to, candidate }) => {
      rewrites.push({ from, to });
      return candidate.candidate.includes('drop-me') ? null : { ...candidate, candidate: `${candidate.candidate} rewritten` };
    },
  });
});
after(() => signaling.close());

/** A WebSocket client that queues incoming messages so tests can await them in order. */
async function client() {
  const socket = new WebSocket(signaling.wsUrl);
  const inbox = [];
  const waiters = [];
  socket.on('message', (data) => {
    const message = JSON.parse(data);
    const waiter = waiters.shift();
    if (waiter) waiter(message);
    else inbox.push(message);
  });
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  return {
    socket,
    send: (message) => socket.send(typeof message === 'string' ? message : JSON.stringify(message)),
    next: () => (inbox.length ? Promise.resolve(inbox.shift()) : new Promise((resolve) => waiters.push(resolve))),
  };
}

test('serves the client app over HTTP on 127.0.0.1 with an ephemeral port', async () => {
  assert.match(signaling.httpUrl, /^http:\/\/127\.0\.0\.1:\d+\/$/);
  const page = await (await fetch(signaling.httpUrl)).text();
  assert.match(page, /app\.js/);
  assert.equal((await fetch(`${signaling.httpUrl}stats.js`)).status, 200);
});

test('relays offer/answer between room members, rewrites candidates, strips SDP candidates, drops null rewrites', async () => {
  const a = await client();
  const b = await client();
  a.send({ type: 'join', room: 'r1', peer: 'p0' });
  assert.deepEqual(await a.next(), { type: 'joined', room: 'r1', peers: [] });
  b.send({ type: 'join', room: 'r1', peer: 'p1' });
  assert.deepEqual(await b.next(), { type: 'joined', room: 'r1', peers: ['p0'] });
  assert.deepEqual(await a.next(), { type: 'peer-joined', peer: 'p1' });

  b.send({ type: 'offer', to: 'p0', sdp: 'v=0\r\na=candidate:1 1 udp 1 192.0.2.1 9 typ host\r\na=mid:0\r\n' });
  assert.deepEqual(await a.next(), { type: 'offer', from: 'p1', sdp: 'v=0\r\na=mid:0\r\n' });
  b.send({ type: 'candidate', to: 'p0', candidate: { candidate: 'candidate:1 1 udp 1 192.0.2.1 9 typ host drop-me' } });
  b.send({ type: 'candidate', to: 'p0', candidate: { candidate: 'candidate:1 1 udp 1 127.0.0.1 9 typ host', sdpMid: '0' } });
  assert.deepEqual(await a.next(), { type: 'candidate', from: 'p1', candidate: { candidate: 'candidate:1 1 udp 1 127.0.0.1 9 typ host rewritten', sdpMid: '0' } });
  assert.deepEqual(rewrites.slice(-2), [{ from: 'p1', to: 'p0' }, { from: 'p1', to: 'p0' }]);
  a.socket.close();
  b.socket.close();
});

test('bad messages get an error reply and the connection stays usable', async () => {
  const c = await client();
  c.send('{not json');
  assert.match((await c.next()).error, /^malformed JSON/);
  c.send({ type: 'teleport' });
  assert.match((await c.next()).error, /unknown message type "teleport"/);
  c.send({ type: 'offer', to: 'p9', sdp: '' });
  assert.match((await c.next()).error, /join a room before sending "offer"/);
  c.send('x'.repeat(MAX_MESSAGE_BYTES + 1));
  assert.match((await c.next()).error, /over the 65536-byte limit/);
  c.send({ type: 'join', room: 'r2' });
  assert.match((await c.next()).error, /join needs string fields/);
  c.send({ type: 'join', room: 'r2', peer: 'p0' });
  assert.equal((await c.next()).type, 'joined');
  c.send({ type: 'offer', to: 'nobody', sdp: '' });
  assert.match((await c.next()).error, /no peer "nobody" in room "r2"/);
  const d = await client();
  d.send({ type: 'join', room: 'r2', peer: 'p0' });
  assert.match((await d.next()).error, /already in room/);
  assert.equal(c.socket.readyState, WebSocket.OPEN);
  c.socket.close();
  d.socket.close();
});

test('stats samples and peer events reach the orchestrator as they are sent', async () => {
  const c = await client();
  c.send({ type: 'join', room: 'r3', peer: 'p0' });
  await c.next();
  const gotSample = new Promise((resolve) => signaling.events.once('stats', resolve));
  const gotEvent = new Promise((resolve) => signaling.events.once('event', resolve));
  c.send({ type: 'stats', sample: { t: 1, peer: 'p0', rttMs: 3 } });
  c.send({ type: 'event', event: { type: 'first-frame', peer: 'p0' } });
  assert.deepEqual(await gotSample, { t: 1, peer: 'p0', rttMs: 3 });
  assert.deepEqual(await gotEvent, { type: 'first-frame', peer: 'p0' });
  c.socket.close();
});
