// Hostile pages in an SFU call: every offer, answer and candidate goes to the SFU bridge (orchestrator/sfu/bridge.js),
// which drives Janus. Broken or misdirected messages, and a Janus that refuses everything, must be refused with an error
// reply and a `rejected` event while the server keeps serving the call (samples still arrive).
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createPeerSecrets } from '../orchestrator/lib/peer-secrets.js';
import { createSfuBridge } from '../orchestrator/sfu/bridge.js';
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
    apiUrl: `http://127.0.0.1:${janus.address().port}/janus`, apiSecret: 'unused0by0the0stand0in', room: 1, peers: PEERS,
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

const eventually = async (check, what) => {
  for (let i = 0; i < 100 && !check(); i++) await sleep(20);
  assert.ok(check(), what);
};

test('misdirected, broken and Janus-refused SFU messages are refused one by one; the call keeps its samples', async () => {
  const page = await joinedClient(signaling.wsUrl, ROOM, 'p0', SECRETS.get('p0'));
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
