// A live signaling server under attack (issue 8, "Signaling"; issue 22: per-peer secrets): malformed frames over raw
// TCP, refused upgrades, wrong-shape messages, data from unjoined, cross-room and forged-peer sockets, joins without
// or with a wrong secret, idle sockets and too many of them, candidate, sample and message floods, and a seeded fuzz
// of 10 000 messages. After each the server still serves a well-behaved
// client, and nothing of the wrong shape or from the wrong peer reaches 'stats' or 'event'.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, afterEach, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createEmulator } from '../orchestrator/emulators/index.js';
import { createPeerSecrets } from '../orchestrator/lib/system/peer-secrets.js';
import { compileNetwork } from '../orchestrator/lib/network/schedule.js';
import { OPEN_MAX_CONNECTIONS } from '../signaling/admission.js';
import { JOIN_REFUSED, MAX_MESSAGE_BYTES, MAX_MESSAGES_PER_SECOND, startSignalingServer } from '../signaling/server.js';
import { validateEvent, validateSample } from '../signaling/messages.js';
import { frame, joinedClient, originOf, rawClient, wsClient } from './helpers/signaling-clients.js';
import { fuzzCases, realSample, sendFuzz } from './helpers/signaling-fuzz.js';

/** A server whose every emitted value is kept, for the checks after each attack. */
async function watchedServer(options = {}) {
  const server = await startSignalingServer(options);
  const seen = { stats: [], event: [], rejected: [], join: [], leave: [] };
  for (const name of Object.keys(seen)) server.events.on(name, (value) => seen[name].push(value));
  return { server, seen };
}

/** The server still takes a new pair of peers and relays between them. */
async function assertServes(server, room = `check-${Math.random().toString(36).slice(2, 8)}`) {
  const a = await joinedClient(server.wsUrl, room, 'p0');
  const b = await joinedClient(server.wsUrl, room, 'p1');
  b.send({ type: 'offer', to: 'p0', sdp: 'v=0\r\n' });
  assert.equal((await a.next()).type, 'peer-joined');
  assert.deepEqual(await a.next(), { type: 'offer', from: 'p1', sdp: 'v=0\r\n' });
  a.socket.close();
  b.socket.close();
}

/** Waits until check() holds (the server handles a message after the client's send returns). */
async function eventually(check, timeoutMs = 3000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms: ${check}`);
    await sleep(10);
  }
}

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

describe('wrong-shape messages, unjoined, cross-room and forged-peer data', () => {
  let server;
  let seen;
  let relay;
  const secrets = createPeerSecrets(['p0', 'p1']);
  /** Clients of this block's server, closed after each test (also a failed one) so their names are free again. */
  const opened = [];
  const join = async (room, peer) => {
    const client = await joinedClient(server.wsUrl, room, peer, secrets.get(peer));
    opened.push(client);
    return client;
  };
  const connect = async () => { const client = await wsClient(server.wsUrl); opened.push(client); return client; };
  afterEach(async () => {
    for (const client of opened.splice(0)) client.socket.close();
    await eventually(() => seen.join.length === seen.leave.length);
  });
  before(async () => {
    // The real relay: its register throws InputError for a port out of range, and each registration holds a socket.
    relay = await createEmulator('relay', { compiled: compileNetwork({ file: 'hostile-signaling', peers: 2, network: {} }) });
    ({ server, seen } = await watchedServer({ room: 'run-1', secrets, rewriteCandidate: relay.rewriteCandidate }));
  });
  after(async () => {
    await server.close();
    await relay.close();
  });

  test('each wrong-shape message of a known type gets an error reply and a rejection, and the socket stays up', async () => {
    const p0 = await join('run-1', 'p0');
    const emittedBefore = seen.stats.length + seen.event.length;
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
      const before = seen.rejected.length;
      p0.send(message);
      const reply = await p0.next();
      assert.equal(reply.type, 'error', JSON.stringify(message));
      assert.match(reply.error, pattern);
      assert.equal(reply.inReplyTo, messageType);
      await eventually(() => seen.rejected.length > before);
      assert.deepEqual(seen.rejected[before], { epochMs: seen.rejected[before].epochMs, room: 'run-1', peer: 'p0', messageType, reason: reply.error });
    }
    assert.equal(seen.stats.length + seen.event.length, emittedBefore);
    assert.equal(p0.socket.readyState, p0.socket.OPEN);
  });

  test('a loopback candidate with port 70000: the relay\'s InputError becomes an error reply, not a crash', async () => {
    const p0 = await join('run-1', 'p0');
    const p1 = await join('run-1', 'p1');
    assert.equal((await p0.next()).type, 'peer-joined');
    p0.send({ type: 'candidate', to: 'p1', candidate: { candidate: 'candidate:1 1 udp 2122194687 127.0.0.1 70000 typ host', sdpMid: '0' } });
    const reply = await p0.next();
    assert.match(reply.error, /^candidate refused: relay register: candidate 127\.0\.0\.1:70000 of p0 is not an IPv4 address and port/);
    assert.equal(seen.rejected.at(-1).messageType, 'candidate');
    p0.send({ type: 'candidate', to: 'p1', candidate: { candidate: 'candidate:1 1 udp 2122194687 127.0.0.1 40000 typ host', sdpMid: '0' } });
    assert.match((await p1.next()).candidate.candidate, /127\.0\.0\.1 \d+ typ host/);
  });

  test('300 candidates: only 32 per peer pair reach the relay, the rest are refused', async () => {
    const registered = [];
    const counting = await startSignalingServer({
      room: 'run-2', secrets,
      rewriteCandidate: async (message) => { registered.push(message); return relay.rewriteCandidate(message); },
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
    const before = { emitted: seen.stats.length + seen.event.length, rejected: seen.rejected.length };
    const stranger = await connect();
    stranger.send({ type: 'event', event: { type: 'connection-state', peer: 'p0', epochMs: Date.now(), remote: 'p1', state: 'failed' } });
    assert.match((await stranger.next()).error, /join a room before sending "event"/);
    stranger.send({ type: 'stats', sample: realSample({ peer: 'p1', remote: 'p0' }) });
    assert.match((await stranger.next()).error, /join a room before sending "stats"/);
    assert.equal(seen.stats.length + seen.event.length, before.emitted);
    assert.deepEqual(seen.rejected.slice(before.rejected).map((r) => [r.room, r.peer, r.messageType]), [[null, null, 'event'], [null, null, 'stats']]);
  });

  /**
   * A join on a fresh socket of this block's server that must be refused: the one generic answer, naming nothing, and
   * the socket closed; the server records why, without a secret.
   * @param {object} join @param {string} why
   */
  async function refusedJoin(join, why) {
    const before = seen.rejected.length;
    const client = await connect();
    client.send({ type: 'join', ...join });
    const reply = await client.next();
    assert.deepEqual(reply, { type: 'error', error: JOIN_REFUSED, inReplyTo: 'join' }, JSON.stringify(join));
    for (const name of ['run-1', 'p0', 'p1', 'p9', 'other-room']) assert.ok(!JSON.stringify(reply).includes(name), `the answer names ${name}`);
    assert.deepEqual(await client.closed, { code: 1008, reason: JOIN_REFUSED });
    await eventually(() => seen.rejected.length > before);
    assert.equal(seen.rejected[before].reason, `join refused: ${why}; connection closed`);
    for (const secret of secrets.values()) assert.ok(!JSON.stringify(seen.rejected).includes(secret), 'a secret in a rejection');
  }

  test('with the right Origin but no or a wrong secret, a client cannot join as a peer that has not joined yet', async () => {
    const joinsBefore = seen.join.length;
    await refusedJoin({ room: 'run-1', peer: 'p1' }, 'no secret for "p1"');
    await refusedJoin({ room: 'run-1', peer: 'p1', secret: 'guessed0guessed0guessed0guessed0guessed0gue' }, 'a wrong secret for "p1"');
    await refusedJoin({ room: 'run-1', peer: 'p1', secret: '' }, 'a wrong secret for "p1"');
    await refusedJoin({ room: 'other-room', peer: 'p1', secret: secrets.get('p1') }, 'room "other-room" is not this run\'s');
    await refusedJoin({ room: 'run-1', peer: 'p9', secret: secrets.get('p1') }, 'peer "p9" is not expected');
    assert.equal(seen.join.length, joinsBefore, 'a refused join was admitted');
    // The name was never taken: the real p1 joins with its own secret.
    await join('run-1', 'p1');
  });

  test('a client with another peer\'s secret cannot join as this peer, nor as that peer once it joined', async () => {
    const joinsBefore = seen.join.length;
    await refusedJoin({ room: 'run-1', peer: 'p1', secret: secrets.get('p0') }, 'a wrong secret for "p1"');
    await join('run-1', 'p0');
    await refusedJoin({ room: 'run-1', peer: 'p0', secret: secrets.get('p0') }, 'peer "p0" has already joined');
    assert.equal(seen.join.length, joinsBefore + 1);
  });

  test('an outsider cannot send as p1, nor can p0\'s own socket', async () => {
    await join('run-1', 'p1'); // the real p1 holds its name
    const before = seen.stats.length;
    const outsider = await connect();
    outsider.send({ type: 'stats', sample: { ...realSample({ peer: 'p1', remote: 'p0' }), video: { recvKbps: 123456 } } });
    assert.match((await outsider.next()).error, /join a room before sending "stats"/);
    // p0's own socket cannot speak for p1 either.
    const p0 = await join('run-1', 'p0');
    p0.send({ type: 'stats', sample: { ...realSample({ peer: 'p1', remote: 'p0' }), video: { recvKbps: 123456 } } });
    assert.match((await p0.next()).error, /sample\.peer must be this socket's own peer "p0", got "p1"/);
    p0.send({ type: 'stats', sample: { t: 3, remote: 'p1', rttMs: 5 } });
    await eventually(() => seen.stats.length === before + 1);
    assert.deepEqual(seen.stats.at(-1), { t: 3, peer: 'p0', remote: 'p1', rttMs: 5 });
    assert.ok(!JSON.stringify(seen.stats).includes('123456'));
  });

  test('samples over 4 per second per remote peer are dropped', async () => {
    const p0 = await join('run-1', 'p0');
    const before = seen.stats.length;
    for (let t = 1; t <= 10; t++) p0.send({ type: 'stats', sample: realSample({ t, remote: 'p1' }) });
    const replies = [];
    for (let i = 0; i < 6; i++) replies.push(await p0.next());
    assert.ok(replies.length > 0, 'replies: nothing to check');
    assert.ok(replies.every((reply) => reply.error === 'over 4 samples/s (4 per remote peer): sample dropped'), JSON.stringify(replies));
    assert.equal(seen.stats.length - before, 4);
  });
});

describe('too many connections', () => {
  test('300 sockets that do not join: 12 (2 per peer + 8) are accepted, the rest get 503; the pages join once the deadline frees them', async () => {
    const secrets = createPeerSecrets(['p0', 'p1']);
    const { server, seen } = await watchedServer({ room: 'run-1', secrets, joinTimeoutMs: 1000 });
    try {
      const clients = [];
      for (let i = 0; i < 300; i += 50) clients.push(...await Promise.all(Array.from({ length: 50 }, () => rawClient(server.wsUrl))));
      const statuses = clients.map((client) => client.status);
      assert.equal(statuses.filter((status) => status === 101).length, 12);
      assert.equal(statuses.filter((status) => status === 503).length, 288);
      const refusals = seen.rejected.filter((r) => r.reason === 'upgrade refused: already 12 sockets that have not joined');
      assert.equal(refusals.length, 288);
      // While they hold the slots, a page cannot connect either: the cap bounds what a local process holds, not who.
      assert.equal((await rawClient(server.wsUrl)).status, 503);
      await Promise.all(clients.map((client) => client.closed));
      await joinedClient(server.wsUrl, 'run-1', 'p0', secrets.get('p0'));
      await joinedClient(server.wsUrl, 'run-1', 'p1', secrets.get('p1'));
    } finally {
      await server.close();
    }
  });

  test(`without a room, sockets are capped at ${OPEN_MAX_CONNECTIONS} in all, joined ones included`, async () => {
    const { server, seen } = await watchedServer();
    try {
      const members = [];
      for (let i = 0; i < OPEN_MAX_CONNECTIONS; i += 32) {
        members.push(...await Promise.all(Array.from({ length: 32 }, (_, j) => joinedClient(server.wsUrl, 'crowd', `p${i + j}`))));
      }
      await assert.rejects(wsClient(server.wsUrl), /Unexpected server response: 503/);
      assert.equal(seen.rejected.at(-1).reason, `upgrade refused: already ${OPEN_MAX_CONNECTIONS} sockets`);
      const gone = once(server.events, 'leave');
      members.pop().socket.close();
      await gone;
      members.push(await joinedClient(server.wsUrl, 'crowd', 'last'));
      for (const member of members) member.socket.close();
    } finally {
      await server.close();
    }
  });
});

describe('idle sockets and floods', () => {
  test('a socket that does not join within joinTimeoutMs is closed and reported; a joined one stays', async () => {
    const { server, seen } = await watchedServer({ joinTimeoutMs: 300 });
    try {
      const idle = await wsClient(server.wsUrl);
      const raw = await rawClient(server.wsUrl);
      const member = await joinedClient(server.wsUrl, 'r', 'p0');
      assert.equal((await idle.closed).code, 1008);
      await raw.closed;
      assert.deepEqual(seen.rejected.map((r) => r.reason), ['no join within 300 ms; connection closed', 'no join within 300 ms; connection closed']);
      await sleep(400);
      assert.equal(member.socket.readyState, member.socket.OPEN);
      member.socket.close();
    } finally {
      await server.close();
    }
  });

  test(`over ${MAX_MESSAGES_PER_SECOND} messages/s: the excess is dropped with one error reply; flooding for 3 s closes the socket`, async () => {
    const { server, seen } = await watchedServer();
    try {
      const flooder = await joinedClient(server.wsUrl, 'r', 'p0');
      for (let i = 0; i < 300; i++) flooder.send({ type: 'teleport' });
      await eventually(() => seen.rejected.length >= MAX_MESSAGES_PER_SECOND);
      await sleep(100);
      const replies = flooder.pending();
      assert.equal(replies.length, MAX_MESSAGES_PER_SECOND, 'the join and 199 messages answered, then one rate error, the rest dropped');
      assert.equal(replies.filter((r) => /over 200 messages\/s: the rest of this second is dropped; slow down/.test(r.error)).length, 1);
      // Keep flooding: the socket is closed in its third second over the cap.
      const flooding = setInterval(() => {
        if (flooder.socket.readyState === flooder.socket.OPEN) for (let i = 0; i < 250; i++) flooder.send({ type: 'teleport' });
      }, 100);
      const { code } = await flooder.closed;
      clearInterval(flooding);
      assert.equal(code, 1008);
      assert.ok(seen.rejected.some((r) => r.reason === 'over 200 messages/s for 3 s; connection closed' && r.peer === 'p0'));
      await assertServes(server);
    } finally {
      await server.close();
    }
  });
});

test('fuzz: 10 000 seeded random and mutated messages and frames; the server lives and emits only valid data from its own peers', async (t) => {
  const seed = Number(process.env.FUZZ_SEED ?? 20261123);
  const startedMs = Date.now();
  const { server, seen } = await watchedServer({
    // As the relay does: parse the candidate, drop what it cannot use, throw for what it must refuse.
    rewriteCandidate: async ({ candidate }) => {
      const port = Number(candidate.candidate.split(' ')[5]);
      if (!Number.isInteger(port)) return null;
      if (port < 1 || port > 65535) throw new RangeError(`port ${port} is out of range`);
      return candidate;
    },
  });
  try {
    const laneCount = 10;
    const rooms = Array.from({ length: laneCount }, (_, i) => `fuzz-${i}`);
    // Half the lanes join (so their stats and events get as far as the validators), half never do.
    const partners = await Promise.all(rooms.slice(0, laneCount / 2).map((room) => joinedClient(server.wsUrl, room, 'g')));
    const cases = rooms.flatMap((room, lane) => fuzzCases({ seed: seed + lane, count: 1000, room, peer: 'f', remote: 'g' }));
    const { sent, reconnects } = await sendFuzz(server.wsUrl, cases, { lanes: rooms.map((room, lane) => (lane < laneCount / 2 ? { room, peer: 'f' } : null)) });
    assert.equal(sent, 10_000);
    await sleep(200);
    t.diagnostic(`seed ${seed}: ${sent} sent, ${reconnects} reconnects, ${seen.rejected.length} rejected, ${seen.stats.length} samples and ${seen.event.length} events emitted`);

    for (const sample of seen.stats) {
      const checked = validateSample(sample, sample.peer);
      assert.ok(checked.ok, `emitted an invalid sample (seed ${seed}): ${checked.ok || checked.reason}`);
      assert.notEqual(sample.peer, 'g', `a sample spoke for the partner (seed ${seed})`);
    }
    for (const event of seen.event) {
      const checked = validateEvent(event, event.peer);
      assert.ok(checked.ok, `emitted an invalid event (seed ${seed}): ${checked.ok || checked.reason}`);
      assert.notEqual(event.peer, 'g', `an event spoke for the partner (seed ${seed})`);
    }
    assert.ok(seen.stats.length > 0 && seen.event.length > 0, 'some valid messages got through: the fuzz reached the validators');
    assert.ok(seen.rejected.length > 5000, `${seen.rejected.length} rejections`);
    for (const partner of partners) partner.socket.close();
    await assertServes(server);
    const sampleSeen = once(server.events, 'stats');
    const a = await joinedClient(server.wsUrl, 'after-fuzz', 'p0');
    a.send({ type: 'stats', sample: realSample({ remote: 'p1' }) });
    assert.deepEqual((await sampleSeen)[0], realSample({ remote: 'p1' }));
    a.socket.close();
    assert.ok(Date.now() - startedMs < 30_000, `the fuzz took ${Date.now() - startedMs} ms`);
  } finally {
    await server.close();
  }
});
