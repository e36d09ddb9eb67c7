// Hostile pages in an SFU call: every offer, answer and candidate goes to the SFU bridge (orchestrator/sfu/janus/bridge.js),
// which drives Janus. Broken or misdirected messages, and a Janus that refuses everything, must be refused with an error
// reply and a `rejected` event while the server keeps serving the call (samples still arrive); offers repeated or
// refused by a real Janus must not pile up its handles and RTP ports. It starts Janus: run it alone on the machine.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createPeerSecrets } from '../orchestrator/lib/system/peer-secrets.js';
import { createSfuBridge } from '../orchestrator/sfu/janus/bridge.js';
import { listHandles, listSessions } from '../orchestrator/sfu/janus/janus-admin.js';
import { createVideoRoom, janusPost } from '../orchestrator/sfu/janus/janus-api.js';
import { startJanus } from '../orchestrator/sfu/janus/janus.js';
import { startSignalingServer } from '../signaling/server.js';
import { joinedClient } from './helpers/signaling-clients.js';
import { realSample } from './helpers/signaling-fuzz.js';

const ROOM = 'sfu-hostile';
const PEERS = ['p0', 'p1'];
const SECRETS = createPeerSecrets(PEERS);
let janus;
let signaling;
const seen = { stats: [], rejected: [], bridgeErrors: [] };

before(async () => {
  // A Janus that refuses every request, as one with a broken configuration would.
  janus = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.end(JSON.stringify({ janus: 'error', error: { code: 490, reason: 'refused by the stand-in' } })));
  });
  await new Promise((resolve) => janus.listen(0, '127.0.0.1', resolve));
  const bridge = createSfuBridge({
    apiUrl: `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (janus.address()).port}/janus`, apiSecret: 'unused0by0the0stand0in', room: 1, peers: PEERS,
    send: (peer, message) => signaling.sendTo(ROOM, peer, message),
    rewriteCandidate: async ({ candidate }) => candidate,
    onError: (error) => seen.bridgeErrors.push(error.message),
  });
  signaling = await startSignalingServer({ room: ROOM, secrets: SECRETS, bridge: bridge.handle });
  signaling.events.on('stats', (sample) => seen.stats.push(sample));
  signaling.events.on('rejected', (rejection) => seen.rejected.push(rejection));
});

after(async () => {
  await signaling?.close();
  janus?.closeAllConnections();
  janus?.close();
});

/** Polls `check` (sync or async) for about 2 s; `what` (or what it returns) explains a failure. */
const eventually = async (check, what) => {
  for (let i = 0; i < 100 && !(await check()); i++) await sleep(20);
  assert.ok(await check(), typeof what === 'function' ? await what() : what);
};

test('misdirected, broken and Janus-refused SFU messages are refused one by one; the call keeps its samples', async () => {
  const page = await joinedClient(signaling.wsUrl, ROOM, 'p0', SECRETS.get('p0'));
  /** @type {Array<[object, RegExp]>} */
  const cases = [
    [{ type: 'answer', to: 'sfu', sdp: 'v=0\r\n' }, /refused: in an SFU call a page offers to sfu and answers the other peers/],
    [{ type: 'offer', to: 'p0', sdp: 'v=0\r\n' }, /offer\.to names the sender itself/],
    [{ type: 'offer', to: 'p7', sdp: 'v=0\r\n' }, /"p7" is neither sfu nor another peer of this call/],
    [{ type: 'offer', to: 'sfu', sdp: 'v=0\r\nm=garbage\r\n' }, /Janus .* refused create: refused by the stand-in/],
  ];
  for (const [message, reason] of cases) {
    const before = seen.rejected.length;
    page.send(message);
    const reply = await page.next();
    assert.equal(reply.type, 'error', JSON.stringify(reply));
    assert.match(reply.error, reason);
    await eventually(() => seen.rejected.length > before, `a rejected event for ${JSON.stringify(message)}`);
  }
  // A malformed candidate never reaches the bridge: the message validator refuses it first.
  page.send({ type: 'candidate', to: 'sfu', candidate: { candidate: 42 } });
  assert.equal((await page.next()).type, 'error');
  // The server still serves the call.
  page.send({ type: 'stats', sample: realSample({ peer: 'p0', remote: 'sfu' }) });
  await eventually(() => seen.stats.length === 1, 'the sample after the refusals arrived');
  await page.close();
});

/** An offer Janus takes: it sets up ICE for it (taking an RTP port) before VideoRoom accepts or refuses the join. */
const PUBLISH_OFFER = ['v=0', 'o=- 1 2 IN IP4 127.0.0.1', 's=-', 't=0 0', 'a=group:BUNDLE 0', 'a=msid-semantic: WMS s',
  'm=video 9 UDP/TLS/RTP/SAVPF 96', 'c=IN IP4 0.0.0.0', 'a=ice-ufrag:abcd', 'a=ice-pwd:abcdefghijklmnopqrstuvwx',
  `a=fingerprint:sha-256 ${Array.from({ length: 32 }, (_, i) => (i * 7).toString(16).padStart(2, '0')).join(':')}`,
  'a=setup:actpass', 'a=mid:0', 'a=sendonly', 'a=rtcp-mux', 'a=rtpmap:96 VP8/90000', 'a=ssrc:1111 cname:x', 'a=msid:s t', ''].join('\r\n');
const OFFERS = 41;

/**
 * Joins a room as a publisher without media from a session of its own (as another client of the run's Janus could).
 * @returns {Promise<number>} its session id
 */
async function squat({ apiUrl, apiSecret }, { room, feedId }) {
  const session = (await janusPost(apiUrl, { janus: 'create' }, apiSecret)).data.id;
  const handle = (await janusPost(`${apiUrl}/${session}`, { janus: 'attach', plugin: 'janus.plugin.videoroom' }, apiSecret)).data.id;
  await janusPost(`${apiUrl}/${session}/${handle}`, { janus: 'message', body: { request: 'join', ptype: 'publisher', room, id: feedId } }, apiSecret);
  const events = await (await fetch(`${apiUrl}/${session}?maxev=5&apisecret=${apiSecret}`)).json();
  assert.ok([events].flat().some((event) => event.plugindata?.data?.videoroom === 'joined'), JSON.stringify(events));
  return session;
}

/** Local UDP ports bound in Janus's RTP range (Janus runs in this namespace; nothing else uses 10000-29999 here). */
const udpPortsIn = ({ minPort, maxPort }) => readFileSync('/proc/net/udp', 'utf8').trim().split('\n').slice(1)
  .map((line) => parseInt(line.trim().split(/\s+/)[1].split(':')[1], 16))
  .filter((port) => port >= minPort && port <= maxPort);

test('a page repeating its offer and a page whose offers Janus refuses hold no Janus handle or RTP port beyond the one publisher\'s',
  async () => {
    const runDir = await mkdtemp(path.join(os.tmpdir(), 'wtb-sfu-offers-'));
    const janus = await startJanus({ runDir });
    const rejected = [];
    const bridgeErrors = [];
    /** @type {any} */
    let server = null;
    /** @type {ReturnType<typeof createSfuBridge>|null} */
    let bridge = null;
    try {
      await createVideoRoom(janus, { room: 1, publishers: 4 });
      // Another session holds p1's feed id (2): VideoRoom refuses p1's offers after Janus's core set up ICE for them.
      const squatter = await squat(janus, { room: 1, feedId: 2 });
      const room = 'sfu-offers';
      bridge = createSfuBridge({
        apiUrl: janus.apiUrl, apiSecret: janus.apiSecret, room: 1, peers: PEERS,
        send: (peer, message) => server.sendTo(room, peer, message),
        rewriteCandidate: async ({ candidate }) => candidate,
        onError: (error) => bridgeErrors.push(error.message),
      });
      server = await startSignalingServer({ room, secrets: SECRETS, bridge: bridge.handle });
      server.events.on('rejected', (rejection) => rejected.push(rejection.reason));
      const p0 = await joinedClient(server.wsUrl, room, 'p0', SECRETS.get('p0'));
      const p1 = await joinedClient(server.wsUrl, room, 'p1', SECRETS.get('p1'));
      assert.equal((await p0.next()).type, 'peer-joined');
      p0.send({ type: 'offer', to: 'sfu', sdp: PUBLISH_OFFER });
      const answer = await p0.next(10_000);
      assert.deepEqual([answer.type, answer.from], ['answer', 'sfu'], JSON.stringify(answer).slice(0, 300));
      for (const page of [p0, p1]) {
        for (let i = 0; i < OFFERS; i++) {
          page.send({ type: 'offer', to: 'sfu', sdp: PUBLISH_OFFER });
          assert.equal((await page.next(10_000)).type, 'error', `${page === p0 ? 'p0' : 'p1'}'s offer ${i + 1}`);
        }
      }
      assert.equal(rejected.length, 2 * OFFERS);
      assert.match(rejected[OFFERS], /Janus VideoRoom refused joinandconfigure: User ID 2 already exists/);

      // Janus's own view: p0's session holds its publisher handle, p1's none; the RTP ports follow the handles.
      const admin = { adminUrl: janus.adminUrl, adminSecret: janus.adminSecret };
      const bridgeSessions = async () => (await listSessions(admin)).filter((session) => session !== squatter);
      const handleCounts = async () => Promise.all((await bridgeSessions())
        .map(async (session) => (await listHandles(admin, session)).length));
      const ports = () => udpPortsIn(janus.rtpPortRange).length;
      await eventually(async () => (await handleCounts()).reduce((sum, count) => sum + count, 0) === 1 && ports() <= 1,
        async () => `handles per session ${JSON.stringify(await handleCounts())}, RTP ports bound ${ports()}`);
      assert.deepEqual((await handleCounts()).sort(), [0, 1]);
      assert.deepEqual(bridgeErrors, []);
      await Promise.all([p0.close(), p1.close()]);
    } finally {
      await bridge?.close();
      await server?.close();
      await janus.close();
      await rm(runDir, { recursive: true, force: true });
    }
  });
