// The SFU bridge against a fake Janus HTTP API on loopback: which requests it makes for which page message, and what
// the pages get back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { createSfuBridge } from '../../orchestrator/sfu/janus/bridge.js';

const JANUS_SDP = (kind) => `v=0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\na=mid:0\r\na=${kind}\r\na=candidate:1 1 udp 2015363327 192.0.2.2 23604 typ host\r\n`;

const API_SECRET = 'fedcba9876543210fedcba98';

/**
 * A Janus that answers VideoRoom requests as 1.1 does: ack, then an event with the transaction on the long poll; as
 * with `api_secret` set, a request (or long poll) without the secret gets error 403. `refuse(body)` names the
 * VideoRoom error for a request it refuses (null: accept); `live` holds the attached, not detached, handles.
 * @param {{ refuse?: (body: any) => string|null }} [options]
 */
async function fakeJanus({ refuse = () => null } = {}) {
  const requests = [];
  const live = new Set();
  /** @type {Map<number, any[]>} session → queued events */
  const queues = new Map();
  let nextId = 100;
  const handleSession = new Map();
  const server = createServer(async (request, response) => {
    const parts = request.url.split('?')[0].split('/').filter(Boolean).slice(1).map(Number);
    const reply = (body) => response.end(JSON.stringify(body));
    const unauthorized = { janus: 'error', error: { code: 403, reason: 'Unauthorized request (wrong or missing secret/token)' } };
    if (request.method === 'GET') {
      if (new URL(request.url, 'http://x').searchParams.get('apisecret') !== API_SECRET) return reply(unauthorized);
      for (let i = 0; i < 20 && !queues.get(parts[0])?.length; i++) await sleep(10);
      return reply(queues.get(parts[0])?.splice(0) ?? []);
    }
    let raw = '';
    for await (const chunk of request) raw += chunk;
    const body = JSON.parse(raw);
    requests.push({ path: parts, ...body });
    const { transaction } = body;
    if (body.apisecret !== API_SECRET) return reply({ ...unauthorized, transaction });
    if (body.janus === 'create') {
      const id = nextId++;
      queues.set(id, []);
      return reply({ janus: 'success', transaction, data: { id } });
    }
    if (body.janus === 'attach') {
      const id = nextId++;
      handleSession.set(id, parts[0]);
      live.add(id);
      return reply({ janus: 'success', transaction, data: { id } });
    }
    if (body.janus === 'detach') {
      live.delete(parts[1]);
      return reply({ janus: 'success', session_id: parts[0], transaction });
    }
    if (body.janus === 'message') {
      const [session, sender] = parts;
      const error = refuse(body.body);
      const answer = error ? { data: { videoroom: 'event', error_code: 436, error } }
        : body.body.request === 'joinandconfigure'
        ? { data: { videoroom: 'joined', id: body.body.id }, jsep: { type: 'answer', sdp: JANUS_SDP('recvonly') } }
        : body.body.request === 'join'
          ? { data: { videoroom: 'attached', streams: [{ type: 'audio', mid: '0' }, { type: 'video', mid: '1' }] }, jsep: { type: 'offer', sdp: JANUS_SDP('sendonly') } }
          : { data: { videoroom: 'event', started: 'ok' } };
      queues.get(session).push({ janus: 'event', session_id: session, sender, transaction, plugindata: { plugin: 'janus.plugin.videoroom', data: answer.data }, jsep: answer.jsep });
      if (body.body.request === 'joinandconfigure' && !error) setTimeout(() => queues.get(session)?.push({ janus: 'webrtcup', session_id: session, sender }), 30);
      return reply({ janus: 'ack', session_id: session, transaction });
    }
    return reply({ janus: 'ack', transaction });
  });
  await /** @type {Promise<void>} */ (new Promise((resolve) => server.listen(0, '127.0.0.1', resolve)));
  return { apiUrl: `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}/janus`, requests, live, close: () => { server.closeAllConnections(); server.close(); } };
}

/**
 * A room's load participants as set-up passes them (sfu/contract.js LoadRoom), subscribing to nothing, unshaped.
 * @param {string[]} names @returns {import('../../orchestrator/sfu/contract.js').LoadRoom}
 */
const loadRoom = (names) => ({ participants: names.length, names, subscribe: 'none', speaker: null, browsersReceive: 'full', shaped: false });

test('publish, subscribe to every other publisher once its media is up, start, and trickle: all through the emulator\'s rewrite', async () => {
  const janus = await fakeJanus();
  const sent = [];
  const rewrites = [];
  const errors = [];
  const bridge = createSfuBridge({
    apiUrl: janus.apiUrl, apiSecret: API_SECRET, room: 1, peers: ['p0', 'p1'],
    send: (peer, message) => sent.push({ peer, ...message }),
    rewriteCandidate: async ({ from, to, candidate }) => {
      rewrites.push(`${from}->${to}`);
      return { ...candidate, candidate: candidate.candidate.replace(/ \S+ (\d+) typ/, ' 127.0.0.1 40000 typ') };
    },
    onError: (error) => errors.push(error),
  });
  try {
    await bridge.handle({ from: 'p0', type: 'offer', to: 'sfu', sdp: 'offer-p0' });
    await bridge.handle({ from: 'p1', type: 'offer', to: 'sfu', sdp: 'offer-p1' });
    await bridge.handle({ from: 'p0', type: 'candidate', to: 'sfu', candidate: { candidate: 'candidate:9 1 udp 1 127.0.0.1 5000 typ host', sdpMid: '0' } });
    for (let i = 0; i < 100 && sent.filter((m) => m.type === 'offer').length < 2; i++) await sleep(20);
    assert.deepEqual(errors, []);

    const publishes = janus.requests.filter((r) => r.body?.request === 'joinandconfigure');
    assert.deepEqual(publishes.map((r) => [r.body.display, r.body.ptype, r.jsep.sdp]), [['p0', 'publisher', 'offer-p0'], ['p1', 'publisher', 'offer-p1']]);
    const answers = sent.filter((m) => m.type === 'answer');
    assert.deepEqual(answers.map((m) => [m.peer, m.from]), [['p0', 'sfu'], ['p1', 'sfu']]);
    assert.ok(answers.length > 0, 'answers: nothing to check');
    assert.ok(answers.every((m) => m.sdp.includes('a=candidate:1 1 udp 2015363327 127.0.0.1 40000 typ host') && !m.sdp.includes('192.0.2.2 23604')), 'Janus\'s candidate rewritten');
    // Each peer receives the other's stream as an offer from that peer.
    const offers = sent.filter((m) => m.type === 'offer').map((m) => `${m.peer}<-${m.from}`).sort();
    assert.deepEqual(offers, ['p0<-p1', 'p1<-p0']);
    const subscriptions = janus.requests.filter((r) => r.body?.request === 'join');
    assert.deepEqual(subscriptions.map((r) => r.body.streams[0].feed).sort(), [1, 2]);
    assert.deepEqual([...new Set(rewrites)].sort(), ['p0->sfu', 'sfu->p0', 'sfu->p1']);

    // The page's trickled candidate went to its publisher handle, rewritten.
    const trickle = janus.requests.find((r) => r.janus === 'trickle');
    assert.equal(trickle.candidate.candidate, 'candidate:9 1 udp 1 127.0.0.1 40000 typ host');
    assert.equal(trickle.path[1], publishes[0].path[1]);

    // p0's answer to p1's stream starts the subscription on that handle.
    await bridge.handle({ from: 'p0', type: 'answer', to: 'p1', sdp: 'answer-p0-p1' });
    const start = janus.requests.find((r) => r.body?.request === 'start');
    assert.equal(start.jsep.sdp, 'answer-p0-p1');
    const p0SubscribesP1 = subscriptions.find((r) => r.body.streams[0].feed === 2 && r.path[0] === publishes[0].path[0]);
    assert.equal(start.path[1], p0SubscribesP1.path[1]);

    // Every handle is known by its page and the feed it carries (what Janus's Admin API rows are named by).
    assert.deepEqual(bridge.handleOwner(publishes[0].path[1]), { peer: 'p0', feed: 'p0', role: 'publisher' });
    assert.deepEqual(bridge.handleOwner(p0SubscribesP1.path[1]), { peer: 'p0', feed: 'p1', role: 'subscriber' });
    const p1SubscribesP0 = subscriptions.find((r) => r.body.streams[0].feed === 1);
    assert.deepEqual(bridge.handleOwner(p1SubscribesP0.path[1]), { peer: 'p1', feed: 'p0', role: 'subscriber' });
    assert.equal(bridge.handleOwner(123456), undefined);

    await assert.rejects(bridge.handle({ from: 'p0', type: 'offer', to: 'p1', sdp: 'x' }), /offers to sfu and answers the other peers/);
    await assert.rejects(bridge.handle({ from: 'p0', type: 'answer', to: 'p7', sdp: 'x' }), /"p7" is neither sfu nor another peer/);
  } finally {
    await bridge.close();
    janus.close();
  }
});

test('a publish or subscription Janus refuses detaches its handle, and a page\'s repeated offers never reach Janus', async () => {
  // p1's feed id is taken (VideoRoom error 436); nobody may subscribe to p0's feed (1).
  const janus = await fakeJanus({
    refuse: (body) => (body.display === 'p1' ? 'User ID 2 already exists' : body.streams?.[0].feed === 1 ? 'No such feed (1)' : null),
  });
  const sent = [];
  const errors = [];
  const bridge = createSfuBridge({
    apiUrl: janus.apiUrl, apiSecret: API_SECRET, room: 1, peers: ['p0', 'p1', 'p2'],
    send: (peer, message) => sent.push({ peer, ...message }),
    rewriteCandidate: async ({ candidate }) => candidate,
    onError: (error) => errors.push(error.message),
  });
  const offer = (from) => bridge.handle({ from, type: 'offer', to: 'sfu', sdp: `offer-${from}` });
  try {
    await offer('p0');
    await assert.rejects(offer('p1'), /Janus VideoRoom refused joinandconfigure: User ID 2 already exists \(code 436\)/);
    for (const peer of ['p0', 'p1']) {
      for (let i = 0; i < 40; i++) await assert.rejects(offer(peer), new RegExp(`${peer} already offered to sfu: a page publishes once, so this offer never reaches Janus`));
    }
    await offer('p2');
    // p0 subscribes to p2; p2's subscription to p0 is refused.
    for (let i = 0; i < 100 && !(sent.some((m) => m.peer === 'p0' && m.type === 'offer') && errors.length); i++) await sleep(20);
    assert.deepEqual(sent.map((m) => `${m.peer} ${m.type} from ${m.from}`).sort(), ['p0 answer from sfu', 'p0 offer from p2', 'p2 answer from sfu']);
    assert.deepEqual(errors, ['Janus VideoRoom refused join: No such feed (1) (code 436)']);

    const attached = janus.requests.filter((r) => r.janus === 'attach');
    assert.equal(janus.requests.filter((r) => r.body?.request === 'joinandconfigure').length, 3, 'one publish per page');
    assert.equal(attached.length, 5, 'three publishers and two subscriptions');
    const refusedPublish = janus.requests.find((r) => r.body?.display === 'p1').path[1];
    const refusedSubscription = janus.requests.find((r) => r.body?.streams?.[0].feed === 1).path[1];
    assert.deepEqual(janus.requests.filter((r) => r.janus === 'detach').map((r) => r.path[1]).sort(), [refusedPublish, refusedSubscription].sort());
    assert.equal(janus.live.size, 3);
    assert.equal(bridge.handleOwner(refusedPublish), undefined);
    assert.equal(bridge.handleOwner(refusedSubscription), undefined);
  } finally {
    await bridge.close();
    janus.close();
  }
});

test('a shaped load participant\'s SDPs and Janus\'s for it go through the emulator\'s rewrite; one with no relayable candidate never reaches Janus', async () => {
  const janus = await fakeJanus();
  const sent = [];
  const rewrites = [];
  const errors = [];
  const LOAD_SDP = (address) => `v=0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\na=candidate:7 1 udp 2130706431 ${address} 41000 typ host\r\n`;
  const bridge = createSfuBridge({
    apiUrl: janus.apiUrl, apiSecret: API_SECRET, room: 1, peers: ['p0', 'load0', 'load1'],
    send: (peer, message) => sent.push({ peer, ...message }),
    // The emulator relays this host's candidates only: a foreign address is dropped.
    rewriteCandidate: async ({ from, to, candidate }) => {
      rewrites.push(`${from}->${to}`);
      return candidate.candidate.includes('198.51.100.9') ? null : { ...candidate, candidate: candidate.candidate.replace(/ \S+ (\d+) typ/, ' 127.0.0.1 40000 typ') };
    },
    onError: (error) => errors.push(error),
    load: { ...loadRoom(['load0', 'load1']), subscribe: 'all', shaped: true },
  });
  try {
    await bridge.handle({ from: 'load0', type: 'offer', to: 'sfu', sdp: LOAD_SDP('10.0.0.5') });
    const publish = janus.requests.find((r) => r.body?.display === 'load0');
    assert.match(publish.jsep.sdp, /a=candidate:7 1 udp 2130706431 127\.0\.0\.1 40000 typ host/, 'its own candidate moved onto its link');
    assert.doesNotMatch(publish.jsep.sdp, /10\.0\.0\.5/);
    const answer = sent.find((m) => m.peer === 'load0' && m.type === 'answer');
    assert.match(answer.sdp, /127\.0\.0\.1 40000 typ host/, 'Janus\'s candidate for it moved onto its link');
    assert.deepEqual([...new Set(rewrites)].sort(), ['load0->sfu', 'sfu->load0']);

    // All of its candidates foreign: refused, naming it, before Janus hears of it.
    const before = janus.requests.length;
    await assert.rejects(bridge.handle({ from: 'load1', type: 'offer', to: 'sfu', sdp: LOAD_SDP('198.51.100.9') }),
      /load1's SDP has no candidate the emulator can relay \(1 dropped\)/);
    assert.equal(janus.requests.slice(before).filter((r) => r.body?.request === 'joinandconfigure').length, 0);
    assert.deepEqual(errors, []);
  } finally {
    await bridge.close();
    janus.close();
  }

  // Unshaped (an emulator that does not carry them): their SDPs pass as they are.
  const direct = await fakeJanus();
  const unshaped = createSfuBridge({
    apiUrl: direct.apiUrl, apiSecret: API_SECRET, room: 1, peers: ['p0', 'load0'], send: (peer, message) => sent.push({ peer, ...message }),
    rewriteCandidate: async () => { throw new Error('no rewrite for an unshaped participant'); },
    onError: (error) => errors.push(error), load: { ...loadRoom(['load0']), subscribe: 'none', shaped: false },
  });
  try {
    await unshaped.handle({ from: 'load0', type: 'offer', to: 'sfu', sdp: LOAD_SDP('10.0.0.5') });
    assert.match(direct.requests.find((r) => r.body?.display === 'load0').jsep.sdp, /10\.0\.0\.5 41000 typ host/);
  } finally {
    await unshaped.close();
    direct.close();
  }
});

test('a speaker view: each load participant subscribes to the speaker alone, and a page\'s subscription to one starts on its lowest layer', async () => {
  const janus = await fakeJanus();
  const sent = [];
  const errors = [];
  const bridge = createSfuBridge({
    apiUrl: janus.apiUrl, apiSecret: API_SECRET, room: 1, peers: ['p0', 'p1', 'load0', 'load1'],
    send: (peer, message) => sent.push({ peer, ...message }), rewriteCandidate: async ({ candidate }) => candidate,
    onError: (error) => errors.push(error),
    load: { ...loadRoom(['load0', 'load1']), subscribe: 'speaker', speaker: 'p1', browsersReceive: 'thumbnail' },
  });
  try {
    for (const peer of ['p0', 'p1', 'load0', 'load1']) await bridge.handle({ from: peer, type: 'offer', to: 'sfu', sdp: `offer-${peer}` });
    // Pages receive every other publisher (3 each), load participants the speaker alone: 8 offers.
    for (let i = 0; i < 100 && sent.filter((m) => m.type === 'offer').length < 8; i++) await sleep(20);
    await sleep(100);
    const offers = sent.filter((m) => m.type === 'offer').map((m) => `${m.peer}<-${m.from}`).sort();
    assert.deepEqual(offers, ['load0<-p1', 'load1<-p1', 'p0<-load0', 'p0<-load1', 'p0<-p1', 'p1<-load0', 'p1<-load1', 'p1<-p0']);
    // A page's answer to a load participant's stream starts it, then asks its lowest layer; to a peer's, starts it alone.
    await bridge.handle({ from: 'p0', type: 'answer', to: 'load0', sdp: 'answer-p0-load0' });
    await bridge.handle({ from: 'p0', type: 'answer', to: 'p1', sdp: 'answer-p0-p1' });
    await bridge.handle({ from: 'load0', type: 'answer', to: 'p1', sdp: 'answer-load0-p1' });
    const configures = janus.requests.filter((r) => r.body?.request === 'configure');
    assert.equal(configures.length, 1, JSON.stringify(configures.map((r) => r.body)));
    assert.deepEqual(configures[0].body.streams, [{ mid: '1', substream: 0, temporal: 2, spatial_layer: 0, temporal_layer: 2 }]);
    const p0SubscribesLoad0 = janus.requests.find((r) => r.body?.request === 'join' && r.body.streams[0].feed === 3 && bridge.handleOwner(r.path[1])?.peer === 'p0');
    assert.equal(configures[0].path[1], p0SubscribesLoad0?.path[1], 'on p0\'s subscription to load0');
    assert.deepEqual(errors, []);
  } finally {
    await bridge.close();
    janus.close();
  }
});
