import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseCandidate, withAddress } from '../../orchestrator/emulators/candidates.js';
import { rewriteSdpCandidates } from '../../orchestrator/sfu/janus/sdp.js';

const JANUS_ANSWER = [
  'v=0',
  'o=- 123 2 IN IP4 192.0.2.2',
  's=VideoRoom 1',
  't=0 0',
  'a=group:BUNDLE 0 1',
  'm=audio 9 UDP/TLS/RTP/SAVPF 111',
  'c=IN IP4 192.0.2.2',
  'a=mid:0',
  'a=candidate:1 1 udp 2015363327 192.0.2.2 23604 typ host',
  'a=candidate:2 1 tcp 1015363327 192.0.2.2 23605 typ host tcptype passive',
  'a=end-of-candidates',
  'm=video 9 UDP/TLS/RTP/SAVPF 96',
  'c=IN IP4 192.0.2.2',
  'a=mid:1',
  'a=candidate:1 1 udp 2015363327 192.0.2.2 23604 typ host',
  'a=candidate:3 1 udp 1677729535 203.0.113.9 23604 typ srflx raddr 192.0.2.2 rport 23604',
  '',
].join('\r\n');

/** Like the relay emulator: UDP host candidates on the SFU's address move to a proxy port; the rest are dropped. */
const relayLike = (proxyPorts) => async ({ candidate }) => {
  const parsed = parseCandidate(candidate);
  if (!parsed || parsed.transport !== 'udp' || parsed.type !== 'host' || parsed.address !== '192.0.2.2') return null;
  return { candidate: withAddress(candidate, '127.0.0.1', proxyPorts.get(parsed.port)) };
};

test('Janus\'s SDP candidates go through the rewrite: relayed ones point at the relay, the others are gone', async () => {
  const seen = [];
  const rewrite = relayLike(new Map([[23604, 41000]]));
  const { sdp, kept, dropped } = await rewriteSdpCandidates(JANUS_ANSWER, async (candidate) => {
    seen.push(candidate.candidate);
    return rewrite(candidate);
  });
  assert.equal(kept, 2);
  assert.equal(dropped, 2);
  // The rewrite sees candidates without the attribute prefix, as a trickled RTCIceCandidateInit carries them.
  assert.ok(seen.length > 0, 'seen: nothing to check');
  assert.ok(seen.every((candidate) => candidate.startsWith('candidate:')), seen.join('\n'));
  const candidates = sdp.split('\r\n').filter((line) => line.startsWith('a=candidate:'));
  assert.deepEqual(candidates, ['a=candidate:1 1 udp 2015363327 127.0.0.1 41000 typ host', 'a=candidate:1 1 udp 2015363327 127.0.0.1 41000 typ host']);
  assert.ok(!sdp.includes('203.0.113.9') && !sdp.includes('tcptype'), 'no candidate bypasses the relay');
  // Everything else is kept line for line, CRLF included.
  const others = (text) => text.split('\r\n').filter((line) => !line.startsWith('a=candidate:'));
  assert.deepEqual(others(sdp), others(JANUS_ANSWER));
});

test('an SDP with LF line ends keeps them; one without candidates is unchanged', async () => {
  const lf = JANUS_ANSWER.replaceAll('\r\n', '\n');
  const { sdp, kept } = await rewriteSdpCandidates(lf, relayLike(new Map([[23604, 41000]])));
  assert.equal(kept, 2);
  assert.ok(!sdp.includes('\r'));
  const bare = 'v=0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\n';
  assert.deepEqual(await rewriteSdpCandidates(bare, async () => { throw new Error('no candidate to rewrite'); }), { sdp: bare, kept: 0, dropped: 0 });
});
