// Codec selection: the scenario field and --codec validated, the setCodecPreferences order, the capability check, what
// getStats says was negotiated, the mismatch check against the request, and the result's per-peer summary.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { codecMismatch, describeRequested, negotiatedCodecs, preferredCodecs, unsupportedReason } from '../../client-app/codec.js';
import { codecSummary, normalizeCodec, parseCodecFlag } from '../../orchestrator/lib/media/codec.js';
import { InputError } from '../../orchestrator/lib/system/errors.js';
import { loadScenario } from '../../orchestrator/lib/scenario/scenario-file.js';
import { tempDir } from '../helpers/cli.js';

// RTCRtpReceiver.getCapabilities('video').codecs as Chromium 156 lists them (abridged: one packetization mode of H.264).
const RECEIVE = [
  { mimeType: 'video/VP8', clockRate: 90000 },
  { mimeType: 'video/rtx', clockRate: 90000 },
  { mimeType: 'video/VP9', clockRate: 90000, sdpFmtpLine: 'profile-id=0' },
  { mimeType: 'video/VP9', clockRate: 90000, sdpFmtpLine: 'profile-id=2' },
  { mimeType: 'video/H264', clockRate: 90000, sdpFmtpLine: 'level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42001f' },
  { mimeType: 'video/H264', clockRate: 90000, sdpFmtpLine: 'level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f' },
  { mimeType: 'video/H264', clockRate: 90000, sdpFmtpLine: 'level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=4d001f' },
  { mimeType: 'video/AV1', clockRate: 90000, sdpFmtpLine: 'level-idx=5;profile=0;tier=0' },
  { mimeType: 'video/red', clockRate: 90000 },
  { mimeType: 'video/ulpfec', clockRate: 90000 },
  { mimeType: 'video/flexfec-03', clockRate: 90000, sdpFmtpLine: 'repair-window=10000000' },
];
const RESILIENCE = ['video/rtx', 'video/red', 'video/ulpfec', 'video/flexfec-03'];
const mimeTypes = (list) => list.map((codec) => codec.mimeType);

test('a codec is a name or an object; names are case-insensitive and every field is checked', () => {
  assert.equal(normalizeCodec(undefined, 'f: codec'), null);
  assert.deepEqual(normalizeCodec('VP9', 'f: codec'), { name: 'vp9', mimeType: 'video/VP9', scalabilityMode: null, profile: null });
  assert.deepEqual(normalizeCodec({ name: 'h264', profile: '42E0', scalabilityMode: 'L1T3' }, 'f: codec'),
    { name: 'h264', mimeType: 'video/H264', scalabilityMode: 'L1T3', profile: '42e0' });
  const refused = (raw, pattern) => assert.throws(() => normalizeCodec(raw, 'f: codec'), (error) => error instanceof InputError && pattern.test(error.message));
  refused('h265', /^f: codec: "h265" is not a codec the harness can select; use one of vp8, vp9, h264, av1$/);
  refused({ name: 'vp8', bitrate: 1 }, /^f: codec: unknown field 'bitrate'/);
  refused({ name: 'vp8', scalabilityMode: 'L9T9' }, /^f: codec\.scalabilityMode: "L9T9" is not a scalability mode/);
  refused({ name: 'vp9', profile: '42e0' }, /^f: codec\.profile: only h264 takes a profile/);
  refused({ name: 'h264', profile: 'high' }, /^f: codec\.profile: "high" is not a profile-level-id prefix/);
  refused(42, /^f: codec: must be a codec name/);
});

test('--codec takes a name and :key=value options, and names the flag in its errors', () => {
  assert.equal(parseCodecFlag(undefined), null);
  assert.deepEqual(parseCodecFlag('av1:scalabilityMode=L3T3'), { name: 'av1', mimeType: 'video/AV1', scalabilityMode: 'L3T3', profile: null });
  assert.equal(parseCodecFlag('h264:profile=64').profile, '64');
  assert.throws(() => parseCodecFlag('vp8:mode=L1T3'), /^InputError: --codec: "mode=L1T3" is not an option/);
  assert.throws(() => parseCodecFlag('theora'), /^InputError: --codec: "theora" is not a codec/);
  assert.throws(() => parseCodecFlag(''), /^InputError: --codec: give a codec name/);
});

test('the flag overrides the scenario file; the file is still checked, and an SFU call refuses a codec', () => {
  const dir = tempDir();
  const write = (name, fields) => {
    const file = path.join(dir, `${name}.json`);
    writeFileSync(file, JSON.stringify({ name, description: 'codec test', durationS: 30, ...fields }));
    return file;
  };
  assert.equal(loadScenario(write('plain', {})).codec, null);
  assert.equal(loadScenario('codec-vp9').codec.name, 'vp9');
  assert.equal(loadScenario('codec-vp9', { codec: parseCodecFlag('h264') }).codec.name, 'h264');
  assert.throws(() => loadScenario(write('bad', { codec: 'vp7' }), { codec: parseCodecFlag('vp8') }), /bad\.json: codec: "vp7" is not a codec/);
  assert.throws(() => loadScenario(write('sfu', { topology: 'sfu', codec: 'vp9' })), /sfu\.json: codec: codec selection needs a mesh call/);
  assert.throws(() => loadScenario('sfu-2', { codec: parseCodecFlag('vp9') }), /^InputError: --codec: codec selection needs a mesh call/);
});

test('the preference list holds the chosen codec\'s entries in the browser\'s order, then RTX, RED and FEC, nothing else', () => {
  /** @type {Array<[string, string[]]>} */
  const cases = [['vp8', ['video/VP8']], ['vp9', ['video/VP9', 'video/VP9']], ['h264', ['video/H264', 'video/H264', 'video/H264']], ['av1', ['video/AV1']]];
  for (const [name, expected] of cases) {
    assert.deepEqual(mimeTypes(preferredCodecs(RECEIVE, normalizeCodec(name, 'x'))), [...expected, ...RESILIENCE], name);
  }
  const constrainedBaseline = preferredCodecs(RECEIVE, normalizeCodec({ name: 'h264', profile: '42e0' }, 'x'));
  assert.deepEqual(constrainedBaseline.map((codec) => codec.sdpFmtpLine),
    [RECEIVE[5].sdpFmtpLine, undefined, undefined, undefined, RECEIVE[10].sdpFmtpLine]);
  assert.deepEqual(preferredCodecs(RECEIVE, normalizeCodec({ name: 'h264', profile: '64' }, 'x')), []);
  assert.deepEqual(preferredCodecs(RECEIVE.filter((codec) => codec.mimeType !== 'video/AV1'), normalizeCodec('av1', 'x')), []);
});

test('a codec the browser cannot send or receive is named with what it can do', () => {
  const capabilities = { send: RECEIVE, receive: RECEIVE };
  assert.equal(unsupportedReason(capabilities, normalizeCodec('vp9', 'x')), null);
  assert.equal(unsupportedReason(capabilities, normalizeCodec({ name: 'h264', profile: '64' }, 'x')),
    "codec H264 (profile-level-id 64…) requested, but this browser cannot use it: RTCRtpSender.getCapabilities('video') lists VP8, VP9, H264 42001f, H264 42e01f, H264 4d001f, AV1");
  const receiveOnly = { send: RECEIVE.filter((codec) => codec.mimeType !== 'video/AV1'), receive: RECEIVE };
  assert.match(unsupportedReason(receiveOnly, normalizeCodec('av1', 'x')), /^codec AV1 requested, but this browser cannot use it: RTCRtpSender/);
  assert.match(unsupportedReason({ send: RECEIVE, receive: receiveOnly.send }, normalizeCodec('av1', 'x')), /RTCRtpReceiver\.getCapabilities/);
  assert.equal(describeRequested(normalizeCodec({ name: 'vp9', scalabilityMode: 'L3T3' }, 'x')), 'VP9 L3T3');
});

// A getStats() report of one connection sending and receiving VP9 (Chromium's field names).
const STATS = [
  { id: 'C98', type: 'codec', mimeType: 'video/VP9', payloadType: 98, sdpFmtpLine: 'profile-id=0' },
  { id: 'C111', type: 'codec', mimeType: 'audio/opus', payloadType: 111 },
  { id: 'OV', type: 'outbound-rtp', kind: 'video', codecId: 'C98', encoderImplementation: 'libvpx', powerEfficientEncoder: false, scalabilityMode: 'L1T3' },
  { id: 'OA', type: 'outbound-rtp', kind: 'audio', codecId: 'C111' },
  { id: 'IV', type: 'inbound-rtp', kind: 'video', codecId: 'C98', decoderImplementation: 'libvpx', powerEfficientDecoder: false },
];

test('getStats gives each direction\'s codec, payload type, fmtp line, implementation and power efficiency', () => {
  assert.deepEqual(negotiatedCodecs(STATS), {
    send: { mimeType: 'video/VP9', payloadType: 98, sdpFmtpLine: 'profile-id=0', implementation: 'libvpx', powerEfficient: false, scalabilityMode: 'L1T3' },
    recv: { mimeType: 'video/VP9', payloadType: 98, sdpFmtpLine: 'profile-id=0', implementation: 'libvpx', powerEfficient: false, scalabilityMode: null },
  });
  // Before the first packet an RTP stream has no codec; a receive-only connection has no outbound video.
  assert.deepEqual(negotiatedCodecs([STATS[0], { ...STATS[2], codecId: undefined }]), { send: null, recv: null });
});

test('the negotiated codec must be the requested one, with its profile and, sending, its scalability mode; the error names both', () => {
  const { send, recv } = negotiatedCodecs(STATS);
  const at = (codec, direction) => ({ peer: 'p0', remote: 'p1', direction, ...codec });
  assert.equal(codecMismatch(normalizeCodec('vp9', 'x'), at(send, 'send')), null);
  assert.equal(codecMismatch(normalizeCodec({ name: 'vp9', scalabilityMode: 'L1T3' }, 'x'), at(send, 'send')), null);
  assert.equal(codecMismatch(normalizeCodec('vp8', 'x'), at(recv, 'recv')),
    'codec VP8 requested, but p0 receives from p1 with VP9 (profile-id=0) (payload type 98)');
  assert.equal(codecMismatch(normalizeCodec({ name: 'vp9', scalabilityMode: 'L3T3' }, 'x'), at(send, 'send')),
    'codec VP9 L3T3 requested, but p0 sends to p1 with VP9 (profile-id=0) L1T3 (payload type 98)');
  const h264 = { ...send, mimeType: 'video/H264', sdpFmtpLine: 'packetization-mode=1;profile-level-id=42e01f' };
  assert.equal(codecMismatch(normalizeCodec({ name: 'h264', profile: '42e0' }, 'x'), at(h264, 'send')), null);
  assert.match(codecMismatch(normalizeCodec({ name: 'h264', profile: '4d' }, 'x'), at(h264, 'send')), /^codec H264 \(profile-level-id 4d…\) requested, but p0 sends to p1 with H264/);
});

test('environment.codecs keeps what each peer last used per remote and direction, and counts the changes', () => {
  const { send, recv } = negotiatedCodecs(STATS);
  const event = (peer, remote, direction, codec) => ({ type: 'codec', peer, remote, direction, epochMs: 1, ...codec });
  const events = [
    event('p0', 'p1', 'send', { ...send, implementation: null }), event('p0', 'p1', 'send', send), event('p0', 'p1', 'recv', recv),
    { type: 'first-frame', peer: 'p0', remote: 'p1', epochMs: 2 }, event('p1', 'p0', 'recv', recv),
  ];
  const requested = normalizeCodec('vp9', 'x');
  assert.deepEqual(codecSummary(events, requested), {
    requested,
    peers: { p0: { p1: { send, recv, changes: 1 } }, p1: { p0: { send: null, recv, changes: 0 } } },
  });
  assert.deepEqual(codecSummary([], null), { requested: null, peers: {} });
});
