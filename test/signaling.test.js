import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, test } from 'node:test';
import { createPeerSecrets } from '../orchestrator/lib/system/peer-secrets.js';
import { JOIN_REFUSED, MAX_MESSAGE_BYTES, startSignalingServer } from '../signaling/server.js';
import { realSample } from './helpers/signaling-fuzz.js';
import { joinedClient, wsClient } from './helpers/signaling-clients.js';

let signaling;
const rewrites = [];
const rejected = [];
before(async () => {
  signaling = await startSignalingServer({
    rewriteCandidate: async ({ from, to, candidate }) => {
      rewrites.push({ from, to });
      return candidate.candidate.includes('drop-me') ? null : { ...candidate, candidate: `${candidate.candidate} rewritten` };
    },
  });
  signaling.events.on('rejected', (rejection) => rejected.push(rejection));
});
after(() => signaling.close());

/** A client of the shared server, with the server's own Origin. */
const client = () => wsClient(signaling.wsUrl);

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

test('steer: answered with the rewrite under the same id, null when dropped, refused and answered null where no SFU takes it', async () => {
  const steered = [];
  const server = await startSignalingServer({
    steerCandidate: async ({ peer, direction, candidate }) => {
      steered.push({ peer, direction });
      if (candidate.candidate.includes('throw')) throw new Error('port out of range');
      return candidate.candidate.includes('drop-me') ? null : { ...candidate, candidate: `${candidate.candidate} via-relay` };
    },
  });
  try {
    const page = await joinedClient(server.wsUrl, 'r', 'p0');
    const candidate = { candidate: 'candidate:1 1 udp 1 127.0.0.1 9 typ host', sdpMid: '0' };
    page.send({ type: 'steer', id: 3, direction: 'fromSfu', candidate });
    assert.deepEqual(await page.next(), { type: 'steered', id: 3, candidate: { ...candidate, candidate: `${candidate.candidate} via-relay` } });
    page.send({ type: 'steer', id: 4, direction: 'toSfu', candidate: { candidate: 'candidate:2 1 udp 1 127.0.0.1 9 typ host drop-me' } });
    assert.deepEqual(await page.next(), { type: 'steered', id: 4, candidate: null });
    page.send({ type: 'steer', id: 5, direction: 'toSfu', candidate: { candidate: 'candidate:3 throw' } });
    assert.deepEqual(await page.next(), { type: 'error', error: 'candidate toSfu refused: port out of range', inReplyTo: 'steer' });
    assert.deepEqual(await page.next(), { type: 'steered', id: 5, candidate: null });
    assert.deepEqual(steered, [{ peer: 'p0', direction: 'fromSfu' }, { peer: 'p0', direction: 'toSfu' }, { peer: 'p0', direction: 'toSfu' }]);
    // The SFU's candidates again in each renegotiation (LiveKit): the same one counts once against the page's budget,
    // 32 new ones a direction (2 toSfu above), the 33rd refused.
    for (let id = 10; id < 50; id++) page.send({ type: 'steer', id, direction: 'fromSfu', candidate });
    for (let id = 10; id < 50; id++) assert.notEqual((await page.next()).candidate, null);
    for (let n = 1; n <= 31; n++) page.send({ type: 'steer', id: 100 + n, direction: 'toSfu', candidate: { candidate: `candidate:${n} 1 udp 1 127.0.0.1 ${n} typ host` } });
    // A refusal is answered at once, a rewrite once the emulator answers: collected by id.
    const answers = await Promise.all(Array.from({ length: 32 }, () => page.next()));
    assert.deepEqual(answers.filter((m) => m.type === 'error').map((m) => m.error), ['over 32 candidates from "p0" toSfu: candidate dropped']);
    const byId = new Map(answers.filter((m) => m.type === 'steered').map((m) => [m.id, m.candidate]));
    assert.deepEqual([...byId.keys()].sort(), Array.from({ length: 31 }, (_, n) => 101 + n));
    assert.equal(byId.get(131), null);
    assert.equal([...byId.values()].filter((steered) => steered !== null).length, 30);
    page.socket.close();
  } finally {
    await server.close();
  }
  // The shared server has no SFU the pages signal to: a steer is refused, and still answered.
  const page = await joinedClient(signaling.wsUrl, 'r-steer', 'p0');
  page.send({ type: 'steer', id: 9, direction: 'toSfu', candidate: { candidate: 'candidate:1 1 udp 1 127.0.0.1 9 typ host' } });
  assert.match((await page.next()).error, /^no SFU of this run takes its pages' candidates directly/);
  assert.deepEqual(await page.next(), { type: 'steered', id: 9, candidate: null });
  page.socket.close();
});

test('bad messages get an error reply, are reported as rejected, and the connection stays usable', async () => {
  const c = await client();
  const before = rejected.length;
  c.send('{not json');
  assert.match((await c.next()).error, /^malformed JSON/);
  c.send({ type: 'teleport' });
  assert.match((await c.next()).error, /unknown message type "teleport"/);
  c.send({ type: 'offer', to: 'p9', sdp: '' });
  assert.deepEqual(await c.next(), { type: 'error', error: 'join a room before sending "offer"', inReplyTo: 'offer' });
  c.send('x'.repeat(MAX_MESSAGE_BYTES + 1));
  assert.match((await c.next()).error, /over the 65536-byte limit/);
  c.send({ type: 'join', room: 'r2' });
  assert.match((await c.next()).error, /join\.peer must be a name/);
  c.send({ type: 'join', room: 'r2', peer: 'p0', secret: 'not a secret' });
  const malformed = (await c.next()).error;
  assert.match(malformed, /join\.secret must be a string of up to 128 base64url characters/);
  assert.ok(!malformed.includes('not a secret'), 'the reply quotes what the client sent as its secret');
  c.send({ type: 'join', room: 'r2', peer: 'p0' });
  assert.equal((await c.next()).type, 'joined');
  c.send({ type: 'offer', to: 'nobody', sdp: '' });
  assert.match((await c.next()).error, /no peer "nobody" in room "r2"/);
  const d = await client();
  d.send({ type: 'join', room: 'r2', peer: 'p0' });
  assert.deepEqual(await d.next(), { type: 'error', error: JOIN_REFUSED, inReplyTo: 'join' });
  assert.deepEqual(await d.closed, { code: 1008, reason: JOIN_REFUSED });
  assert.equal(c.socket.readyState, c.socket.OPEN);
  assert.deepEqual(rejected.slice(before).map((r) => r.messageType), [null, null, 'offer', null, 'join', 'join', 'offer', 'join']);
  assert.deepEqual(rejected.at(-2), { epochMs: rejected.at(-2).epochMs, room: 'r2', peer: 'p0', messageType: 'offer', reason: 'no peer "nobody" in room "r2"' });
  assert.equal(rejected.at(-1).reason, 'join refused: peer "p0" is already in room "r2"; connection closed');
  assert.equal(rejected.at(-1).peer, null, 'a refused join is not attributed to the name it asked for');
  c.socket.close();
});

test('stats samples and peer events reach the orchestrator as they are sent, stamped with the sender', async () => {
  const c = await joinedClient(signaling.wsUrl, 'r3', 'p0');
  const gotSample = once(signaling.events, 'stats');
  const gotEvent = once(signaling.events, 'event');
  const { peer, ...anonymous } = realSample({ remote: 'p1' });
  c.send({ type: 'stats', sample: anonymous });
  c.send({ type: 'event', event: { type: 'first-frame', peer: 'p0', epochMs: 1_790_000_000_000, remote: 'p1' } });
  assert.deepEqual((await gotSample)[0], realSample({ peer: 'p0', remote: 'p1' }));
  assert.deepEqual((await gotEvent)[0], { type: 'first-frame', peer: 'p0', epochMs: 1_790_000_000_000, remote: 'p1' });
  c.socket.close();
});

test('a socket joins once, and only speaks for the peer it joined as', async () => {
  const c = await joinedClient(signaling.wsUrl, 'r4', 'p0');
  const emitted = [];
  const onData = (value) => emitted.push(value);
  signaling.events.on('stats', onData).on('event', onData);
  c.send({ type: 'join', room: 'r4', peer: 'p1' });
  assert.match((await c.next()).error, /this socket already joined room "r4" as "p0"; open another connection/);
  c.send({ type: 'stats', sample: realSample({ peer: 'p1', remote: 'p2' }) });
  assert.match((await c.next()).error, /sample\.peer must be this socket's own peer "p0", got "p1"/);
  c.send({ type: 'event', event: { type: 'connection-state', peer: 'p1', epochMs: 1, remote: 'p0', state: 'failed' } });
  assert.match((await c.next()).error, /event\.peer must be this socket's own peer/);
  signaling.events.off('stats', onData).off('event', onData);
  assert.deepEqual(emitted, []);
  c.socket.close();
});

test('a peer name is free again once its socket closes', async () => {
  const c = await joinedClient(signaling.wsUrl, 'r5', 'p0');
  const left = once(signaling.events, 'leave');
  await c.close();
  assert.deepEqual((await left)[0], { room: 'r5', peer: 'p0' });
  (await joinedClient(signaling.wsUrl, 'r5', 'p0')).socket.close();
});

test('a wrong join to a run\'s room hears "join refused" and nothing else, is closed, and is recorded without the secret', async () => {
  const secrets = createPeerSecrets(['p0', 'p1']);
  const run = await startSignalingServer({ room: 'run-1', secrets });
  const rejections = [];
  run.events.on('rejected', (rejection) => rejections.push(rejection));
  try {
    await joinedClient(run.wsUrl, 'run-1', 'p0', secrets.get('p0'));
    /** @type {Array<[object, string]>} */
    const wrongJoins = [
      [{ room: 'run-2', peer: 'p1', secret: secrets.get('p1') }, 'room "run-2" is not this run\'s'],
      [{ room: 'run-1', peer: 'p7', secret: secrets.get('p1') }, 'peer "p7" is not expected'],
      [{ room: 'run-1', peer: 'p1' }, 'no secret for "p1"'],
      [{ room: 'run-1', peer: 'p1', secret: 'A'.repeat(43) }, 'a wrong secret for "p1"'],
      [{ room: 'run-1', peer: 'p1', secret: secrets.get('p0') }, 'a wrong secret for "p1"'],
      [{ room: 'run-1', peer: 'p0', secret: secrets.get('p0') }, 'peer "p0" has already joined'],
    ];
    for (const [join, reason] of wrongJoins) {
      const c = await wsClient(run.wsUrl);
      c.send({ type: 'join', ...join });
      // Nothing of the room, its peers or the reason: the old answer named them all.
      assert.deepEqual(await c.next(), { type: 'error', error: JOIN_REFUSED, inReplyTo: 'join' }, JSON.stringify(join));
      assert.deepEqual(await c.closed, { code: 1008, reason: JOIN_REFUSED });
      assert.deepEqual(c.pending(), []);
      assert.deepEqual(rejections.at(-1), { epochMs: rejections.at(-1).epochMs, room: null, peer: null, messageType: 'join', reason: `join refused: ${reason}; connection closed` });
    }
    for (const secret of secrets.values()) assert.ok(!JSON.stringify(rejections).includes(secret), 'a secret in a rejection');
    const p1 = await joinedClient(run.wsUrl, 'run-1', 'p1', secrets.get('p1'));
    p1.socket.close();
  } finally {
    await run.close();
  }
});

test('a run\'s room needs a well-formed secret per peer; the error never quotes one', async () => {
  await assert.rejects(startSignalingServer({ room: 'a room', secrets: createPeerSecrets(['p0']) }), /room "a room" is not a name/);
  await assert.rejects(startSignalingServer({ room: 'run-1' }), /room "run-1" needs secrets \(peer → secret\)/);
  await assert.rejects(startSignalingServer({ room: 'run-1', secrets: { '': 'A'.repeat(43) } }), /secrets: peer "" is not a name/);
  const short = 'shortButSecret';
  await assert.rejects(startSignalingServer({ room: 'run-1', secrets: { p0: short } }), (/** @type {Error & { exitCode?: number }} */ error) => {
    assert.match(error.message, /secrets\.p0 is not 22-128 base64url characters/);
    assert.ok(!error.message.includes(short));
    return true;
  });
});

test('only the server\'s own Origin may open a WebSocket; others get a 403', async () => {
  const before = rejected.length;
  await assert.rejects(wsClient(signaling.wsUrl, { origin: 'http://evil.example' }), /Unexpected server response: 403/);
  await assert.rejects(wsClient(signaling.wsUrl, { origin: signaling.httpUrl.replace('127.0.0.1', 'localhost').slice(0, -1) }), /403/);
  const own = await client();
  assert.equal(own.socket.readyState, own.socket.OPEN);
  own.socket.close();
  assert.match(rejected[before].reason, /upgrade refused: Origin "http:\/\/evil\.example"; only http:\/\/127\.0\.0\.1:\d+ may connect/);
});

test('a socket that does not join within joinTimeoutMs is closed', async () => {
  const quick = await startSignalingServer({ joinTimeoutMs: 200 });
  try {
    const rejections = [];
    quick.events.on('rejected', (rejection) => rejections.push(rejection));
    const idle = await wsClient(quick.wsUrl);
    const joined = await joinedClient(quick.wsUrl, 'r', 'p0');
    assert.equal((await idle.closed).code, 1008);
    assert.deepEqual(rejections.map((r) => r.reason), ['no join within 200 ms; connection closed']);
    assert.equal(joined.socket.readyState, joined.socket.OPEN);
    joined.socket.close();
  } finally {
    await quick.close();
  }
});

test('sendCommand: a checked flow command reaches the one page it names; false for a peer not there; a malformed one throws', async () => {
  const a = await joinedClient(signaling.wsUrl, 'cmd', 'p2');
  const command = { type: 'call', remote: 'p3', direction: 'forward', role: 'offerer' };
  assert.equal(signaling.sendCommand('cmd', 'p2', command), true);
  assert.deepEqual(await a.next(), command);
  assert.equal(signaling.sendCommand('cmd', 'p3', { type: 'hang-up', remote: 'p2' }), false);
  assert.equal(signaling.sendCommand('nowhere', 'p2', { type: 'hang-up', remote: 'p3' }), false);
  assert.throws(() => signaling.sendCommand('cmd', 'p2', { type: 'hang-up', remote: 'p2' }), /sendCommand to p2: command\.remote names the sender itself/);
  assert.throws(() => signaling.sendCommand('cmd', 'p2', /** @type {any} */ ({ type: 'data-start', remote: 'p3' })), /command\.flow must be a name/);
  const left = once(signaling.events, 'leave');
  a.socket.close();
  await left;
  assert.equal(signaling.sendCommand('cmd', 'p2', command), false);
});
