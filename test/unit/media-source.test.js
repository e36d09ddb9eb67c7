import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withVideoBitrates } from '../../client-app/media-source.js';
import { InputError } from '../../orchestrator/lib/system/errors.js';
import { listScenarios, loadScenario } from '../../orchestrator/lib/scenario/scenario-file.js';

const SDP = [
  'v=0', 'm=audio 9 UDP/TLS/RTP/SAVPF 111', 'a=rtpmap:111 opus/48000/2', 'a=fmtp:111 minptime=10;useinbandfec=1',
  'm=video 9 UDP/TLS/RTP/SAVPF 96 97 98 99', 'a=rtpmap:96 VP8/90000', 'a=rtpmap:97 rtx/90000', 'a=fmtp:97 apt=96',
  'a=rtpmap:98 VP9/90000', 'a=fmtp:98 profile-id=0;x-google-start-bitrate=300', 'a=rtpmap:99 red/90000', '',
].join('\r\n');

test('the RFC 8867 media source puts 150 kbps start and minimum and a 1.5 Mbps cap on every video codec, nothing else', () => {
  const out = withVideoBitrates(SDP);
  const params = 'x-google-min-bitrate=150;x-google-start-bitrate=150;x-google-max-bitrate=1500';
  assert.match(out, new RegExp(`a=rtpmap:96 VP8/90000\\r\\na=fmtp:96 ${params}\\r\\n`), 'an fmtp line added for VP8');
  assert.match(out, new RegExp(`a=fmtp:98 profile-id=0;${params}\\r\\n`), 'VP9 keeps its profile, its start rate replaced');
  assert.match(out, /a=fmtp:97 apt=96\r\n/, 'RTX untouched');
  assert.doesNotMatch(out, /a=fmtp:99/, 'RED gets none');
  assert.match(out, /a=fmtp:111 minptime=10;useinbandfec=1\r\n/, 'audio untouched');
  assert.equal(withVideoBitrates(out), out, 'applying it twice changes nothing');
});

test('the rmcat-* scenarios ship with the RFC 8867 media source, the others with the browser\'s, and the flag overrides both', () => {
  const rmcat = listScenarios().map((s) => s.name).filter((name) => name.startsWith('rmcat-'));
  assert.equal(rmcat.length, 9);
  for (const name of rmcat) assert.equal(loadScenario(name).mediaSource, 'rfc8867', name);
  assert.equal(loadScenario('unconstrained').mediaSource, 'browser');
  assert.equal(loadScenario('rmcat-5.1', { mediaSource: 'browser' }).mediaSource, 'browser');
  assert.equal(loadScenario('unconstrained', { mediaSource: 'rfc8867' }).mediaSource, 'rfc8867');
  assert.throws(() => loadScenario('unconstrained', { mediaSource: 'fast' }),
    (error) => error instanceof InputError && /--media-source: "fast" is not a media source: use one of browser, rfc8867/.test(error.message));
});
