// A live signaling server under load (issue 8, "Signaling"; issue 22): idle sockets and too many of them, message
// floods, and a seeded fuzz of 10 000 messages. After each the server still serves a well-behaved client, and nothing
// of the wrong shape or from the wrong peer reaches 'stats' or 'event'. Frames, messages and joins:
// hostile-signaling.test.js.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createPeerSecrets } from '../orchestrator/lib/system/peer-secrets.js';
import { OPEN_MAX_CONNECTIONS } from '../signaling/admission.js';
import { MAX_MESSAGES_PER_SECOND, MESSAGES_PER_REMOTE_PER_SECOND } from '../signaling/server.js';
import { validateEvent, validateSample } from '../signaling/messages.js';
import { joinedClient, rawClient, wsClient } from './helpers/signaling-clients.js';
import { fuzzCases, realSample, sendFuzz } from './helpers/signaling-fuzz.js';
import { assertServes, eventually, watchedServer } from './helpers/hostile-signaling.js';

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
  test('a page in a large room (23 load participants) may send its remotes\' worth a second, and no more', async () => {
    // p0 with p1 and 23 load participants: 24 remotes, so 480 messages a second before the excess is dropped.
    const { server, seen } = await watchedServer({ otherRemotes: 23 });
    const cap = MESSAGES_PER_REMOTE_PER_SECOND * 24;
    try {
      const member = await joinedClient(server.wsUrl, 'big', 'p1');
      const flooder = await joinedClient(server.wsUrl, 'big', 'p0');
      for (let i = 0; i < cap + 100; i++) flooder.send({ type: 'teleport' });
      await eventually(() => seen.rejected.length >= cap);
      await sleep(100);
      const replies = flooder.pending();
      assert.ok(cap > MAX_MESSAGES_PER_SECOND && replies.length === cap, `${replies.length} replies, the cap ${cap}`);
      assert.equal(replies.filter((r) => r.error === `over ${cap} messages/s: the rest of this second is dropped; slow down`).length, 1);
      member.socket.close();
      flooder.socket.close();
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
      assert.ok(checked.ok, `emitted an invalid sample (seed ${seed}): ${checked.ok === true || checked.reason}`);
      assert.notEqual(sample.peer, 'g', `a sample spoke for the partner (seed ${seed})`);
    }
    for (const event of seen.event) {
      const checked = validateEvent(event, event.peer);
      assert.ok(checked.ok, `emitted an invalid event (seed ${seed}): ${checked.ok === true || checked.reason}`);
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
