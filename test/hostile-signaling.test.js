// A live signaling server under attack (issue 8, "Signaling"; issue 22: per-peer secrets): malformed frames over raw
// TCP, refused upgrades, wrong-shape messages, data from unjoined, cross-room and forged-peer sockets, joins without
// or with a wrong secret. After each the server still serves a well-behaved client, and nothing of the wrong shape or
// from the wrong peer reaches 'stats' or 'event'. Idle sockets, connection caps, floods and the fuzz:
// hostile-signaling-load.test.js.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { JOIN_REFUSED, MAX_MESSAGE_BYTES, SAMPLE_BURST_S, startSignalingServer } from '../signaling/server.js';
import { frame, joinedClient, originOf, rawClient } from './helpers/signaling-clients.js';
import { realSample } from './helpers/signaling-fuzz.js';
import { assertServes, eventually, hostileRun, watchedServer } from './helpers/hostile-signaling.js';

describe('malformed frames and refused upgrades', () => {
  let server;
  let seen;
  before(async () => ({ server, seen } = await watchedServer()));
  after(() => server.close());

  const frames = {
    'invalid UTF-8 in a text frame': frame({ payload: Buffer.from([0x7b, 0xff, 0xfe, 0x7d]) }),
    'a message over the ws max payload': frame({ payload: 'x'.repeat(MAX_MESSAGE_BYTES + 4096) }),
    'an unmasked client frame': frame({ payload: '{"type":"join","room":"r","peer":"p0"}', masked: false }),
    'RSV1 set': frame({ payload: '{}', rsv1: true }),
    'an unknown opcode (0x3)': frame({ opcode: 0x3, payload: 'x' }),
  };
  for (const [name, bytes] of Object.entries(frames)) {
    test(`${name}: the sender is dropped, reported, and the server goes on`, async () => {
      const before = seen.rejected.length;
      const raw = await rawClient(server.wsUrl);
      assert.equal(raw.status, 101, raw.response);
      raw.write(bytes);
      await raw.closed;
      await eventually(() => seen.rejected.length > before);
      assert.match(seen.rejected[before].reason, /^malformed frame: .+; connection closed$/);
      await assertServes(server);
    });
  }

  test('a frame split across writes and a half-written frame followed by a reset do not hurt', async () => {
    const raw = await rawClient(server.wsUrl);
    const bytes = frame({ payload: JSON.stringify({ type: 'join', room: 'split', peer: 'p0' }) });
    raw.write(bytes.subarray(0, 3));
    await sleep(20);
    raw.write(bytes.subarray(3));
    await eventually(() => seen.join.some((j) => j.room === 'split'));
    raw.write(frame({ payload: 'x'.repeat(1000) }).subarray(0, 200));
    raw.socket.resetAndDestroy();
    await eventually(() => seen.leave.some((l) => l.room === 'split'));
    await assertServes(server, 'split');
  });

  test('Origin: another site, a missing Origin and a look-alike get 403 and no WebSocket', async () => {
    const before = seen.rejected.length;
    for (const origin of ['http://evil.example', null, originOf(server.wsUrl).replace('127.0.0.1', 'localhost'), `${originOf(server.wsUrl)}.evil.example`]) {
      const raw = await rawClient(server.wsUrl, { origin });
      assert.equal(raw.status, 403, `${origin}: ${raw.response}`);
      await raw.closed;
    }
    assert.deepEqual(seen.rejected.slice(before).map((r) => r.reason.replace(/\d+/g, 'N')), [
      'upgrade refused: Origin "http://evil.example"; only http://N.N.N.N:N may connect',
      'upgrade refused: no Origin; only http://N.N.N.N:N may connect',
      'upgrade refused: Origin "http://localhost:N"; only http://N.N.N.N:N may connect',
      'upgrade refused: Origin "http://N.N.N.N:N.evil.example"; only http://N.N.N.N:N may connect',
    ]);
    await assertServes(server);
  });

  test('a broken handshake gets 400 and a wrong path 404, both reported', async () => {
    const before = seen.rejected.length;
    const noKey = await rawClient(server.wsUrl, { key: null });
    assert.equal(noKey.status, 400);
    const wrongPath = await rawClient(server.wsUrl.replace(/\/ws$/, '/other'));
    assert.equal(wrongPath.status, 404);
    const unparsable = await rawClient(server.wsUrl.replace(/\/ws$/, '//a:b'));
    assert.equal(unparsable.status, 404);
    assert.deepEqual(seen.rejected.slice(before).map((r) => r.reason), [
      'upgrade refused: Missing or invalid Sec-WebSocket-Key header',
      'upgrade refused: path "/other" is not /ws',
      'upgrade refused: path "//a:b" is not /ws',
    ]);
    await assertServes(server);
  });
});

describe('wrong-shape messages, unjoined sockets and candidates', () => {
  const run = hostileRun();
  const { secrets, join, connect } = run;

  test('each wrong-shape message of a known type gets an error reply and a rejection, and the socket stays up', async () => {
    const p0 = await join('run-1', 'p0');
    const emittedBefore = run.seen.stats.length + run.seen.event.length;
    /** @type {Array<[object, string, RegExp]>} */
    const cases = [
      [{ type: 'event' }, 'event', /event must be an object, got nothing/],
      [{ type: 'event', event: null }, 'event', /event must be an object, got null/],
      [{ type: 'stats', sample: null }, 'stats', /sample must be an object, got null/],
      [{ type: 'candidate', to: 'p1' }, 'candidate', /candidate\.candidate must be an object/],
      [{ type: 'stats', sample: { ...realSample({ peer: 7 }) } }, 'stats', /sample\.peer must be this socket's own peer "p0", got 7/],
      [{ type: 'stats', sample: { ...realSample(), t: 'soon' } }, 'stats', /sample\.t must be an integer/],
      [{ type: 'stats', sample: { ...realSample(), video: { recvKbps: 1e300 } } }, 'stats', /sample\.video\.recvKbps must be a number/],
      [{ type: 'event', event: { type: 'connection-state', epochMs: null, remote: 'p1', state: 'failed' } }, 'event', /event\.epochMs/],
      [{ type: 'offer', to: 'p1', sdp: 42 }, 'offer', /offer\.sdp must be a string/],
      [{ type: 'join', room: 'run-1', peer: 'p1' }, 'join', /already joined room "run-1" as "p0"/],
    ];
    for (const [message, messageType, pattern] of cases) {
      const before = run.seen.rejected.length;
      p0.send(message);
      const reply = await p0.next();
      assert.equal(reply.type, 'error', JSON.stringify(message));
      assert.match(reply.error, pattern);
      assert.equal(reply.inReplyTo, messageType);
      await eventually(() => run.seen.rejected.length > before);
      assert.deepEqual(run.seen.rejected[before], { epochMs: run.seen.rejected[before].epochMs, room: 'run-1', peer: 'p0', messageType, reason: reply.error });
    }
    assert.equal(run.seen.stats.length + run.seen.event.length, emittedBefore);
    assert.equal(p0.socket.readyState, p0.socket.OPEN);
  });

  test('a loopback candidate with port 70000: the relay\'s InputError becomes an error reply, not a crash', async () => {
    const p0 = await join('run-1', 'p0');
    const p1 = await join('run-1', 'p1');
    assert.equal((await p0.next()).type, 'peer-joined');
    p0.send({ type: 'candidate', to: 'p1', candidate: { candidate: 'candidate:1 1 udp 2122194687 127.0.0.1 70000 typ host', sdpMid: '0' } });
    const reply = await p0.next();
    assert.match(reply.error, /^candidate refused: relay register: candidate 127\.0\.0\.1:70000 of p0 is not an IPv4 address and port/);
    assert.equal(run.seen.rejected.at(-1).messageType, 'candidate');
    p0.send({ type: 'candidate', to: 'p1', candidate: { candidate: 'candidate:1 1 udp 2122194687 127.0.0.1 40000 typ host', sdpMid: '0' } });
    assert.match((await p1.next()).candidate.candidate, /127\.0\.0\.1 \d+ typ host/);
  });

  test('300 candidates: only 32 per peer pair reach the relay, the rest are refused', async () => {
    const registered = [];
    const counting = await startSignalingServer({
      room: 'run-2', secrets,
      rewriteCandidate: async (message) => { registered.push(message); return run.relay.rewriteCandidate(message); },
    });
    const rejections = [];
    counting.events.on('rejected', (rejection) => rejections.push(rejection));
    try {
      const p0 = await joinedClient(counting.wsUrl, 'run-2', 'p0', secrets.get('p0'));
      const p1 = await joinedClient(counting.wsUrl, 'run-2', 'p1', secrets.get('p1'));
      for (let i = 0; i < 300; i++) {
        p0.send({ type: 'candidate', to: 'p1', candidate: { candidate: `candidate:${i} 1 udp 2122194687 127.0.0.1 ${20000 + i} typ host`, sdpMid: '0' } });
        if (i % 100 === 99) await sleep(1000); // under the message rate cap: this is about the candidate cap
      }
      await eventually(() => rejections.length === 300 - 32);
      assert.equal(registered.length, 32);
      assert.ok(rejections.every((r) => r.reason === 'over 32 candidates from "p0" to "p1": candidate dropped' && r.peer === 'p0'));
      let relayed = 0;
      for (const message of p1.pending()) relayed += message.type === 'candidate' ? 1 : 0;
      assert.ok(relayed <= 32);
      p0.socket.close();
      p1.socket.close();
    } finally {
      await counting.close();
    }
  });

  test('an unjoined socket cannot report events or samples', async () => {
    const before = { emitted: run.seen.stats.length + run.seen.event.length, rejected: run.seen.rejected.length };
    const stranger = await connect();
    stranger.send({ type: 'event', event: { type: 'connection-state', peer: 'p0', epochMs: Date.now(), remote: 'p1', state: 'failed' } });
    assert.match((await stranger.next()).error, /join a room before sending "event"/);
    stranger.send({ type: 'stats', sample: realSample({ peer: 'p1', remote: 'p0' }) });
    assert.match((await stranger.next()).error, /join a room before sending "stats"/);
    assert.equal(run.seen.stats.length + run.seen.event.length, before.emitted);
    assert.deepEqual(run.seen.rejected.slice(before.rejected).map((r) => [r.room, r.peer, r.messageType]), [[null, null, 'event'], [null, null, 'stats']]);
  });
});

describe('joins without or with a wrong secret, forged peers, sample floods', () => {
  const run = hostileRun();
  const { secrets, join, connect } = run;

  /**
   * A join on a fresh socket of this block's server that must be refused: the one generic answer, naming nothing, and
   * the socket closed; the server records why, without a secret.
   * @param {object} join @param {string} why
   */
  async function refusedJoin(join, why) {
    const before = run.seen.rejected.length;
    const client = await connect();
    client.send({ type: 'join', ...join });
    const reply = await client.next();
    assert.deepEqual(reply, { type: 'error', error: JOIN_REFUSED, inReplyTo: 'join' }, JSON.stringify(join));
    for (const name of ['run-1', 'p0', 'p1', 'p9', 'other-room']) assert.ok(!JSON.stringify(reply).includes(name), `the answer names ${name}`);
    assert.deepEqual(await client.closed, { code: 1008, reason: JOIN_REFUSED });
    await eventually(() => run.seen.rejected.length > before);
    assert.equal(run.seen.rejected[before].reason, `join refused: ${why}; connection closed`);
    for (const secret of secrets.values()) assert.ok(!JSON.stringify(run.seen.rejected).includes(secret), 'a secret in a rejection');
  }

  test('with the right Origin but no or a wrong secret, a client cannot join as a peer that has not joined yet', async () => {
    const joinsBefore = run.seen.join.length;
    await refusedJoin({ room: 'run-1', peer: 'p1' }, 'no secret for "p1"');
    await refusedJoin({ room: 'run-1', peer: 'p1', secret: 'guessed0guessed0guessed0guessed0guessed0gue' }, 'a wrong secret for "p1"');
    await refusedJoin({ room: 'run-1', peer: 'p1', secret: '' }, 'a wrong secret for "p1"');
    await refusedJoin({ room: 'other-room', peer: 'p1', secret: secrets.get('p1') }, 'room "other-room" is not this run\'s');
    await refusedJoin({ room: 'run-1', peer: 'p9', secret: secrets.get('p1') }, 'peer "p9" is not expected');
    assert.equal(run.seen.join.length, joinsBefore, 'a refused join was admitted');
    // The name was never taken: the real p1 joins with its own secret.
    await join('run-1', 'p1');
  });

  test('a client with another peer\'s secret cannot join as this peer, nor as that peer once it joined', async () => {
    const joinsBefore = run.seen.join.length;
    await refusedJoin({ room: 'run-1', peer: 'p1', secret: secrets.get('p0') }, 'a wrong secret for "p1"');
    await join('run-1', 'p0');
    await refusedJoin({ room: 'run-1', peer: 'p0', secret: secrets.get('p0') }, 'peer "p0" has already joined');
    assert.equal(run.seen.join.length, joinsBefore + 1);
  });

  test('an outsider cannot send as p1, nor can p0\'s own socket', async () => {
    await join('run-1', 'p1'); // the real p1 holds its name
    const before = run.seen.stats.length;
    const outsider = await connect();
    outsider.send({ type: 'stats', sample: { ...realSample({ peer: 'p1', remote: 'p0' }), video: { recvKbps: 123456 } } });
    assert.match((await outsider.next()).error, /join a room before sending "stats"/);
    // p0's own socket cannot speak for p1 either.
    const p0 = await join('run-1', 'p0');
    p0.send({ type: 'stats', sample: { ...realSample({ peer: 'p1', remote: 'p0' }), video: { recvKbps: 123456 } } });
    assert.match((await p0.next()).error, /sample\.peer must be this socket's own peer "p0", got "p1"/);
    p0.send({ type: 'stats', sample: { t: 3, remote: 'p1', rttMs: 5 } });
    await eventually(() => run.seen.stats.length === before + 1);
    assert.deepEqual(run.seen.stats.at(-1), { t: 3, peer: 'p0', remote: 'p1', rttMs: 5 });
    assert.ok(!JSON.stringify(run.seen.stats).includes('123456'));
  });

  test('a page may send 10 s of samples at once (a stalled page catching up), and no more: 4 a second per remote peer', async () => {
    const p0 = await join('run-1', 'p0');
    const before = run.seen.stats.length;
    const budget = 4 * SAMPLE_BURST_S;
    for (let t = 1; t <= budget + 6; t++) p0.send({ type: 'stats', sample: realSample({ t, remote: 'p1' }) });
    const replies = [];
    for (let i = 0; i < 6; i++) replies.push(await p0.next());
    assert.ok(replies.length > 0, 'replies: nothing to check');
    assert.ok(replies.every((reply) => reply.error === `over 4 samples/s (4 per remote peer, ${SAMPLE_BURST_S} s of them at once): sample dropped`),
      JSON.stringify(replies));
    await eventually(() => run.seen.stats.length - before === budget);
    // The budget refills at 4 a second.
    await sleep(600);
    p0.send({ type: 'stats', sample: realSample({ t: budget + 7, remote: 'p1' }) });
    await eventually(() => run.seen.stats.length - before === budget + 1);
  });
});
