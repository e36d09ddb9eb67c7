// Receive-side estimation (REMB) instead of transport-wide feedback: the page's SDP edit (client-app/bandwidth-estimation.js,
// negotiation.js) and the scenario field and flag (lib/scenario/scenario-file.js); the page's report of what was
// negotiated is checked in signaling-messages.test.js. The real call: test/e2e-bandwidth-estimation.test.js.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { TRANSPORT_CC_EXTENSION, negotiatedTransportCc, withoutTransportCc } from '../../client-app/bandwidth-estimation.js';
import { negotiatedDescription } from '../../client-app/negotiation.js';
import { InputError } from '../../orchestrator/lib/system/errors.js';
import { loadScenario } from '../../orchestrator/lib/scenario/scenario-file.js';

// The parts of a Chromium offer that carry feedback: both m-lines' rtcp-fb lines and header extensions.
const SDP = [
  'v=0', 'm=audio 9 UDP/TLS/RTP/SAVPF 111', 'a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level',
  `a=extmap:3 ${TRANSPORT_CC_EXTENSION}`, 'a=rtpmap:111 opus/48000/2', 'a=rtcp-fb:111 transport-cc', 'a=fmtp:111 minptime=10;useinbandfec=1',
  'm=video 9 UDP/TLS/RTP/SAVPF 96 97', 'a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time',
  `a=extmap:3 ${TRANSPORT_CC_EXTENSION}`, 'a=rtpmap:96 VP8/90000', 'a=rtcp-fb:96 goog-remb', 'a=rtcp-fb:96 transport-cc',
  'a=rtcp-fb:96 ccm fir', 'a=rtcp-fb:96 nack', 'a=rtcp-fb:96 nack pli', 'a=rtpmap:97 rtx/90000', 'a=fmtp:97 apt=96', '',
].join('\r\n');

test('receive-side estimation takes transport-cc and its header extension out of a description, and nothing else', () => {
  const out = withoutTransportCc(SDP);
  assert.doesNotMatch(out, /transport-cc/);
  assert.ok(!out.includes(TRANSPORT_CC_EXTENSION));
  const kept = SDP.split('\r\n').filter((line) => !line.includes('transport-cc') && !line.includes(TRANSPORT_CC_EXTENSION));
  assert.deepEqual(out.split('\r\n'), kept, 'REMB, abs-send-time, NACK, PLI, FIR and the codecs stay, in order');
  assert.match(out, /a=rtcp-fb:96 goog-remb\r\n/);
  assert.equal(withoutTransportCc(out), out, 'applying it twice changes nothing');
  assert.equal(withoutTransportCc(SDP.replaceAll('\r\n', '\n')), out.replaceAll('\r\n', '\n'), 'LF-only SDP too');
});

test('a page applies the run\'s edits to a remote description: none, either or both; a rollback stays as it is', () => {
  const offer = { type: /** @type {const} */ ('offer'), sdp: SDP };
  assert.equal(negotiatedDescription(offer, { rfc8867Source: false, rembOnly: false }), offer);
  assert.equal(negotiatedDescription(offer, { rfc8867Source: false, rembOnly: true }).sdp, withoutTransportCc(SDP));
  const both = negotiatedDescription(offer, { rfc8867Source: true, rembOnly: true }).sdp ?? '';
  assert.doesNotMatch(both, /transport-cc/);
  assert.match(both, /a=fmtp:96 x-google-min-bitrate=150;x-google-start-bitrate=150;x-google-max-bitrate=1500\r\n/);
  const rollback = { type: /** @type {const} */ ('rollback') };
  assert.equal(negotiatedDescription(rollback, { rfc8867Source: true, rembOnly: true }), rollback);
});

test('what a direction negotiated is read from its sender or receiver: true, false, or null where the browser lists nothing', () => {
  const endpoint = (/** @type {Array<{ uri: string }>|undefined} */ headerExtensions) => ({ getParameters: () => ({ headerExtensions }) });
  assert.equal(negotiatedTransportCc(endpoint([{ uri: 'urn:x' }, { uri: TRANSPORT_CC_EXTENSION }])), true);
  assert.equal(negotiatedTransportCc(endpoint([{ uri: 'urn:x' }])), false);
  assert.equal(negotiatedTransportCc(endpoint(undefined)), null);
  assert.equal(negotiatedTransportCc(undefined), null);
});

test('a scenario asks for REMB, --bandwidth-estimation overrides it; a bad value or an SFU call is refused naming the field', () => {
  assert.equal(loadScenario('tcp-cross-traffic').bandwidthEstimation, 'send-side');
  assert.equal(loadScenario('tcp-cross-traffic', { bandwidthEstimation: 'remb' }).bandwidthEstimation, 'remb');
  /** @param {RegExp} pattern */
  const refused = (pattern) => (/** @type {unknown} */ error) => error instanceof InputError && pattern.test(error.message);
  assert.throws(() => loadScenario('tcp-cross-traffic', { bandwidthEstimation: 'gcc' }),
    refused(/^--bandwidth-estimation: "gcc" is not a bandwidth estimation: use one of send-side, remb$/));
  assert.throws(() => loadScenario('sfu-3', { bandwidthEstimation: 'remb' }),
    refused(/^--bandwidth-estimation: remb needs a mesh call .* topology sfu$/));
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'wtb-bwe-')), 'remb.json');
  writeFileSync(file, JSON.stringify({ name: 'remb', description: 'd', bandwidthEstimation: 'remb' }));
  assert.equal(loadScenario(file).bandwidthEstimation, 'remb');
  assert.equal(loadScenario(file, { bandwidthEstimation: 'send-side' }).bandwidthEstimation, 'send-side');
  writeFileSync(file, JSON.stringify({ name: 'remb', description: 'd', bandwidthEstimation: { remb: true } }));
  assert.throws(() => loadScenario(file), refused(/remb\.json: bandwidthEstimation: .* is not a bandwidth estimation/));
});
