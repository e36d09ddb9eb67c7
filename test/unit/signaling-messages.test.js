import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dataMetrics, intervalMetrics, snapshotFromStats } from '../../client-app/stats.js';
import {
  isName, MAX_SAMPLE_T, messageTypeOf, validateCommand, validateEvent, validateMessage, validateSample,
} from '../../signaling/messages.js';
import { realMessages, realSample } from '../helpers/signaling-fuzz.js';

const names = { room: 'run-1a2b3c4d', peer: 'p0', remote: 'p1' };
const ok = (checked) => {
  assert.ok(checked.ok, checked.reason);
  return checked.value;
};
const refused = (checked, pattern) => {
  assert.equal(checked.ok, false, `expected a refusal, got ${JSON.stringify(checked.value)}`);
  assert.match(checked.reason, pattern);
};

test('names: letters, digits, dot, underscore, dash; 1-64 characters', () => {
  for (const name of ['p0', 'run-1a2b3c4d', 'a.b_c-D', 'x'.repeat(64)]) assert.ok(isName(name), name);
  for (const name of ['', 'x'.repeat(65), 'p 0', 'p\n0', 'p/0', '../x', 'é', 7, null, undefined, ['p0']]) assert.ok(!isName(name), String(name));
});

test('every message the page sends passes, rebuilt from its checked fields', () => {
  for (const message of realMessages(names)) {
    const value = ok(validateMessage(structuredClone(message), message.type === 'join' ? null : 'p0'));
    assert.deepEqual(value, message);
  }
});

test('a sample computed by client-app/stats.js intervalMetrics passes as it is sent', () => {
  const outbound = { id: 'o', type: 'outbound-rtp', kind: 'video', bytesSent: 1000, framesSent: 30, frameWidth: 640, frameHeight: 360, framesPerSecond: 30, qualityLimitationReason: 'none', qualityLimitationDurations: { none: 1 }, codecId: 'c' };
  const inbound = { id: 'i', type: 'inbound-rtp', kind: 'video', bytesReceived: 900, packetsReceived: 100, packetsLost: 1, framesDecoded: 29, frameWidth: 640, frameHeight: 360, jitter: 0.002, codecId: 'c' };
  const codec = { id: 'c', type: 'codec', mimeType: 'video/VP8' };
  const before = snapshotFromStats([{ ...outbound, timestamp: 1000 }, { ...inbound, timestamp: 1000 }, codec]);
  const after = snapshotFromStats([
    { ...outbound, timestamp: 2000, bytesSent: 250_000, framesSent: 60, qualityLimitationDurations: { none: 1.5, bandwidth: 0.5 } },
    { ...inbound, timestamp: 2000, bytesReceived: 240_000, packetsReceived: 300, framesDecoded: 59 }, codec,
  ]);
  const sample = JSON.parse(JSON.stringify({ t: 1, peer: 'p0', remote: 'p1', ...intervalMetrics(before, after) }));
  assert.deepEqual(ok(validateSample(sample, 'p0')), sample);
  assert.deepEqual(ok(validateSample(realSample(), 'p0')), realSample());
});

test('a sample carries the sender as peer: filled in when left out, refused when it names another', () => {
  const { peer, ...anonymous } = realSample();
  assert.equal(ok(validateSample(anonymous, 'p0')).peer, 'p0');
  refused(validateSample(realSample({ peer: 'p1', remote: 'p2' }), 'p0'), /sample\.peer must be this socket's own peer "p0", got "p1"/);
  refused(validateSample({ ...realSample(), peer: 7 }, 'p0'), /sample\.peer/);
  refused(validateSample({ ...realSample(), peer: null }, 'p0'), /sample\.peer/);
});

test('samples: t, remote and every value are checked', () => {
  const cases = [
    [null, /sample must be an object, got null/],
    [[], /sample must be an object/],
    [{ ...realSample(), t: undefined }, /sample\.t must be an integer from 1 to 90000, got nothing/],
    [{ ...realSample(), t: '1' }, /sample\.t/],
    [{ ...realSample(), t: 0 }, /sample\.t/],
    [{ ...realSample(), t: 1.5 }, /sample\.t/],
    [{ ...realSample(), t: MAX_SAMPLE_T + 1 }, /sample\.t/],
    [{ ...realSample(), remote: undefined }, /sample\.remote must be a name/],
    [{ ...realSample(), remote: 'p0' }, /sample\.remote names the sender itself/],
    [{ ...realSample(), remote: 'bad name' }, /sample\.remote/],
    [{ ...realSample(), rttMs: 1e300 }, /sample\.rttMs must be a number from -1000000000000 to 1000000000000/],
    [{ ...realSample(), rttMs: true }, /sample\.rttMs must be a number, null, a string or an object/],
    [{ ...realSample(), rttMs: [1] }, /sample\.rttMs must be a number, null, a string or an object/],
    [{ ...realSample(), video: { codec: 'x'.repeat(65) } }, /sample\.video\.codec is 65 characters long/],
    [{ ...realSample(), video: { nested: { tooDeep: 1 } } }, /sample\.video\.nested nests objects deeper than 2 levels/],
    [JSON.parse('{"t":1,"remote":"p1","__proto__":{"polluted":1}}'), /field named "__proto__"/],
    [{ ...realSample(), ...Object.fromEntries(Array.from({ length: 70 }, (_, i) => [`m${i}`, i])) }, /at most 64 are allowed/],
  ];
  for (const [sample, pattern] of cases) refused(validateSample(sample, 'p0'), pattern);
  assert.equal(/** @type {any} */ ({}).polluted, undefined);
});

const CODEC = {
  type: 'codec', epochMs: 1_790_000_000_000, remote: 'p1', direction: 'send', mimeType: 'video/VP9', payloadType: 98,
  sdpFmtpLine: 'profile-id=0', implementation: 'libvpx', powerEfficient: false, scalabilityMode: 'L1T3', transportWideCc: true,
};

test('events: known types, finite epochMs, typed and bounded fields, nothing else', () => {
  const epochMs = 1_790_000_000_000;
  assert.deepEqual(ok(validateEvent({ type: 'first-frame', epochMs, remote: 'p1' }, 'p0')), { type: 'first-frame', peer: 'p0', epochMs, remote: 'p1' });
  assert.deepEqual(ok(validateEvent({ type: 'media-ready', epochMs, video: null }, 'p0')).video, null);
  assert.deepEqual(ok(validateEvent(CODEC, 'p0')), { ...CODEC, peer: 'p0' });
  assert.deepEqual(ok(validateEvent({ ...CODEC, payloadType: null, sdpFmtpLine: null, implementation: null, powerEfficient: null }, 'p0')).powerEfficient, null);
  assert.equal(ok(validateEvent({ ...CODEC, transportWideCc: null }, 'p0')).transportWideCc, null);
  /** @type {Array<[string, object]>} */
  const kinds = [['negotiated', {}], ['ice-state', { state: 'completed' }], ['ice-restart', { state: 'disconnected' }], ['dtls-state', { state: 'connected' }], ['first-rtp', {}]];
  for (const [type, fields] of kinds) {
    assert.deepEqual(ok(validateEvent({ type, epochMs, remote: 'p1', ...fields }, 'p0')), { type, peer: 'p0', epochMs, remote: 'p1', ...fields });
  }
  const cases = [
    [null, /event must be an object/],
    [{ epochMs }, /event\.type must be one of media-ready, negotiated, ice-state, ice-restart, dtls-state, connection-state, first-rtp, first-frame, data-channel, codec, error, got nothing/],
    [{ ...CODEC, direction: 'both' }, /event\.direction must be one of send, recv, got "both"/],
    [{ ...CODEC, payloadType: 128 }, /event\.payloadType must be an integer from 0 to 127/],
    [{ ...CODEC, powerEfficient: 'yes' }, /event\.powerEfficient must be true, false or null, got "yes"/],
    [{ ...CODEC, transportWideCc: 1 }, /event\.transportWideCc must be true, false or null, got 1/],
    [{ ...CODEC, implementation: 'x'.repeat(300) }, /event\.implementation is 300 characters long; at most 256/],
    [{ ...CODEC, mimeType: null }, /event\.mimeType must be a string/],
    [{ ...CODEC, bitrate: 1 }, /codec event has an unexpected field "bitrate"/],
    [{ type: 'call-started', epochMs }, /event\.type/],
    [{ type: 'first-frame', remote: 'p1' }, /event\.epochMs must be a number/],
    [{ type: 'first-frame', remote: 'p1', epochMs: Infinity }, /event\.epochMs/],
    [{ type: 'first-frame', remote: 'p1', epochMs: '1' }, /event\.epochMs/],
    [{ type: 'first-frame', epochMs }, /event\.remote must be a name/],
    [{ type: 'connection-state', epochMs, remote: 'p1', state: 'exploded' }, /event\.state must be one of new, connecting/],
    [{ type: 'connection-state', epochMs, remote: 'p1', state: 'checking' }, /event\.state must be one of new, connecting, connected, disconnected, failed, closed, got "checking"/],
    [{ type: 'ice-state', epochMs, remote: 'p1', state: 'connecting' }, /event\.state must be one of new, checking, connected, completed, disconnected, failed, closed, got "connecting"/],
    [{ type: 'ice-state', epochMs, remote: 'p1' }, /event\.state must be one of .*, got nothing/],
    [{ type: 'ice-state', epochMs, state: 'connected' }, /event\.remote must be a name/],
    // A restart is the page's answer to a lost path only: a restart "because connected" is garbage.
    [{ type: 'ice-restart', epochMs, remote: 'p1', state: 'connected' }, /event\.state must be one of disconnected, failed, got "connected"/],
    [{ type: 'ice-restart', epochMs, remote: 'p1', state: 'failed', reason: 'x' }, /ice-restart event has an unexpected field "reason"/],
    [{ type: 'dtls-state', epochMs, remote: 'p1', state: 'checking' }, /event\.state must be one of new, connecting, connected, closed, failed, got "checking"/],
    [{ type: 'dtls-state', epochMs, remote: 'p0', state: 'connected' }, /event\.remote names the sender itself/],
    [{ type: 'dtls-state', epochMs, remote: 'p1', state: 'connected', role: 'client' }, /dtls-state event has an unexpected field "role"/],
    [{ type: 'negotiated', epochMs }, /event\.remote must be a name/],
    [{ type: 'negotiated', epochMs, remote: 'p1', sdp: 'v=0' }, /negotiated event has an unexpected field "sdp"/],
    [{ type: 'first-rtp', epochMs, remote: 'bad name' }, /event\.remote must be a name/],
    [{ type: 'first-rtp', epochMs, remote: 'p1', kind: 'video' }, /first-rtp event has an unexpected field "kind"/],
    [{ type: 'connection-state', epochMs, remote: 'p0', state: 'failed' }, /event\.remote names the sender itself/],
    [{ type: 'connection-state', epochMs, remote: 'p1', state: 'failed', peer: 'p1' }, /event\.peer must be this socket's own peer/],
    [{ type: 'error', epochMs, message: 42 }, /event\.message must be a string/],
    [{ type: 'error', epochMs, message: 'x'.repeat(5000) }, /event\.message is 5000 characters long; at most 4096/],
    [{ type: 'error', epochMs, message: 'm', extra: 1 }, /error event has an unexpected field "extra"/],
    [{ type: 'media-ready', epochMs, video: { width: { deep: 1 } } }, /event\.video\.width must be a number, string or boolean/],
    [{ type: 'media-ready', epochMs, video: 'camera' }, /event\.video must be an object/],
  ];
  for (const [event, pattern] of cases) refused(validateEvent(event, 'p0'), pattern);
});

test('the wrong-shape messages of issue 8 are refused with a reason, never thrown', () => {
  /** @type {Array<[unknown, string|null, RegExp]>} */
  const cases = [
    [{ type: 'event' }, 'p0', /event must be an object, got nothing/],
    [{ type: 'event', event: null }, 'p0', /event must be an object, got null/],
    [{ type: 'stats', sample: null }, 'p0', /sample must be an object, got null/],
    [{ type: 'stats' }, 'p0', /sample must be an object, got nothing/],
    [{ type: 'stats', sample: realSample(), extra: 1 }, 'p0', /stats has an unexpected field "extra"/],
    [{ type: 'candidate', to: 'p1' }, 'p0', /candidate\.candidate must be an object, got nothing/],
    [{ type: 'candidate', to: 'p1', candidate: { sdpMid: '0' } }, 'p0', /candidate\.candidate\.candidate must be a string/],
    [{ type: 'candidate', to: 'p1', candidate: { candidate: 'c', sdpMLineIndex: -1 } }, 'p0', /sdpMLineIndex must be an integer from 0 to 1023/],
    [{ type: 'candidate', to: 'p1', candidate: { candidate: 'c'.repeat(2000) } }, 'p0', /at most 1024/],
    [{ type: 'offer', to: 'p1' }, 'p0', /offer\.sdp must be a string/],
    [{ type: 'offer', to: 'p0', sdp: '' }, 'p0', /offer\.to names the sender itself/],
    [{ type: 'answer', to: { p: 1 }, sdp: '' }, 'p0', /answer\.to must be a name/],
    [{ type: 'join', room: 'r' }, null, /join\.peer must be a name/],
    [{ type: 'join', room: 'r', peer: 7 }, null, /join\.peer must be a name/],
    [{ type: 'join', room: 'r\nrm -rf', peer: 'p0' }, null, /join\.room must be a name/],
    [{ type: 'stats', sample: realSample() }, null, /join a room before sending "stats"/],
    [{ type: 'event', event: { type: 'connection-state', state: 'failed', remote: 'p1', epochMs: 1 } }, null, /join a room before sending "event"/],
    [{ type: 'steer', id: 1, direction: 'sideways', candidate: { candidate: 'c' } }, 'p0', /steer\.direction must be one of toSfu, fromSfu/],
    [{ type: 'steer', id: -1, direction: 'toSfu', candidate: { candidate: 'c' } }, 'p0', /steer\.id must be an integer from 0/],
    [{ type: 'steer', id: 1, direction: 'toSfu', candidate: { candidate: 'c' }, to: 'p1' }, 'p0', /steer has an unexpected field "to"/],
    [{ type: 'steer', id: 1, direction: 'fromSfu', candidate: { candidate: 'c'.repeat(2000) } }, 'p0', /steer\.candidate\.candidate is 2000 characters/],
    [{ type: 'steer', id: 1, direction: 'toSfu', candidate: { candidate: 'c' } }, null, /join a room before sending "steer"/],
    [{ type: 'teleport' }, 'p0', /unknown message type "teleport"/],
    [{}, 'p0', /unknown message type nothing/],
    [null, 'p0', /unknown message type null/],
    ['join', 'p0', /unknown message type "join"/],
    [[{ type: 'join' }], 'p0', /unknown message type/],
  ];
  for (const [message, self, pattern] of cases) refused(validateMessage(message, self), pattern);
});

test('candidates keep the RTCIceCandidateInit fields they had, null included', () => {
  const candidate = { candidate: 'candidate:1 1 udp 1 127.0.0.1 9 typ host', sdpMid: null, sdpMLineIndex: null, usernameFragment: null };
  assert.deepEqual(ok(validateMessage({ type: 'candidate', to: 'p1', candidate }, 'p0')).candidate, candidate);
  assert.deepEqual(ok(validateMessage({ type: 'candidate', to: 'p1', candidate: { candidate: '' } }, 'p0')).candidate, { candidate: '' });
});

test('a steer keeps its id, direction and candidate fields', () => {
  const candidate = { candidate: 'candidate:1 1 udp 1 127.0.0.1 9 typ host', sdpMid: '0' };
  assert.deepEqual(ok(validateMessage({ type: 'steer', id: 7, direction: 'fromSfu', candidate }, 'p0')), { type: 'steer', id: 7, direction: 'fromSfu', candidate });
});

test('messageTypeOf names only known types', () => {
  assert.equal(messageTypeOf({ type: 'stats' }), 'stats');
  for (const value of [{ type: 'x' }, { type: ['join'] }, null, 'join', 3, []]) assert.equal(messageTypeOf(value), null);
});

test('a join carries its page\'s secret; a malformed one is refused without being quoted', () => {
  const secret = 'A1b2_C3d4-E5f6G7h8I9j0Kk';
  assert.deepEqual(ok(validateMessage({ type: 'join', room: 'r', peer: 'p0', secret }, null)), { type: 'join', room: 'r', peer: 'p0', secret });
  assert.deepEqual(ok(validateMessage({ type: 'join', room: 'r', peer: 'p0' }, null)), { type: 'join', room: 'r', peer: 'p0' });
  for (const bad of ['hunter2 hunter2', 'x'.repeat(129), 42, null, { secret }]) {
    const checked = validateMessage({ type: 'join', room: 'r', peer: 'p0', secret: bad }, null);
    assert.ok(checked.ok === false, JSON.stringify(bad));
    assert.equal(checked.reason, 'join.secret must be a string of up to 128 base64url characters (the page\'s URL fragment)');
  }
});

test('a long hostile value in a reason is cut short', () => {
  const checked = validateMessage({ type: 'join', room: 'x'.repeat(10_000), peer: 'p0' }, null);
  assert.ok(checked.ok === false && checked.reason.length < 200, /** @type {{ reason?: string }} */ (checked).reason);
});

test('a sample\'s data-channel rates: only sentKbps and recvKbps, non-negative numbers or null', () => {
  const data = dataMetrics({ sentBytes: 1000, receivedBytes: null }, { sentBytes: 251_000, receivedBytes: null }, 1);
  assert.deepEqual(data, { sentKbps: 2000 });
  assert.deepEqual(ok(validateSample({ ...realSample(), data }, 'p0')).data, { sentKbps: 2000 });
  assert.deepEqual(ok(validateSample({ ...realSample(), data: { recvKbps: null } }, 'p0')).data, { recvKbps: null });
  const cases = [
    [{ data: null }, /sample\.data must be an object, got null/],
    [{ data: 5 }, /sample\.data must be an object/],
    [{ data: [] }, /sample\.data must be an object/],
    [{ data: { recvKbps: -1 } }, /sample\.data\.recvKbps must be a number from 0 to 1000000000000, got -1/],
    [{ data: { sentKbps: '9' } }, /sample\.data\.sentKbps must be a number/],
    [{ data: { sentKbps: NaN } }, /sample\.data\.sentKbps must be a number .*got NaN/],
    [{ data: { sentKbps: 1e13 } }, /sample\.data\.sentKbps must be a number/],
    [{ data: { sentKbps: { deep: 1 } } }, /sample\.data\.sentKbps must be a number/],
    [{ data: { bytes: 1 } }, /sample\.data has an unexpected field "bytes"; allowed: sentKbps, recvKbps/],
    [{ data: JSON.parse('{"__proto__":{"polluted":1}}') }, /sample\.data has an unexpected field "__proto__"/],
  ];
  for (const [fields, pattern] of cases) refused(validateSample({ ...realSample(), ...fields }, 'p0'), pattern);
  assert.equal(/** @type {any} */ ({}).polluted, undefined);
});

test('data-channel events: a remote, the channel\'s label as a name, an RTCDataChannelState', () => {
  const epochMs = 1_790_000_000_000;
  const event = { type: 'data-channel', epochMs, remote: 'p1', flow: 'bulk-1', state: 'open' };
  assert.deepEqual(ok(validateEvent(event, 'p0')), { ...event, peer: 'p0' });
  const cases = [
    [{ ...event, state: 'connected' }, /event\.state must be one of connecting, open, closing, closed, got "connected"/],
    [{ ...event, flow: 'a b' }, /event\.flow must be a name/],
    [{ ...event, flow: 'x'.repeat(65) }, /event\.flow must be a name/],
    [{ ...event, flow: undefined }, /event\.flow must be a name .*got nothing/],
    [{ ...event, remote: 'p0' }, /event\.remote names the sender itself/],
    [{ ...event, bytes: 5 }, /data-channel event has an unexpected field "bytes"/],
  ];
  for (const [value, pattern] of cases) refused(validateEvent(value, 'p0'), pattern);
});

test('flow commands: known types, the fields of each, a remote other than the page', () => {
  const good = [
    { type: 'call', remote: 'p3', direction: 'forward', role: 'offerer' },
    { type: 'call', remote: 'p3', direction: 'both', role: 'answerer' },
    { type: 'hang-up', remote: 'p3' },
    { type: 'pause', remote: 'p3' },
    { type: 'resume', remote: 'p3' },
    { type: 'data-start', remote: 'p1', flow: 'bulk' },
    { type: 'data-stop', remote: 'p1', flow: 'bulk' },
  ];
  for (const command of good) assert.deepEqual(ok(validateCommand(command, 'p2')), command);
  const cases = [
    [null, /command must be an object/],
    [{ remote: 'p3' }, /command\.type must be one of call, hang-up, pause, resume, data-start, data-stop, got nothing/],
    [{ type: 'stop', remote: 'p3' }, /command\.type must be one of/],
    [{ type: 'call', remote: 'p3', direction: 'backward', role: 'offerer' }, /command\.direction must be one of both, forward, got "backward"/],
    [{ type: 'call', remote: 'p3', direction: 'both' }, /command\.role must be one of offerer, answerer, got nothing/],
    [{ type: 'hang-up', remote: 'p2' }, /command\.remote names the sender itself/],
    [{ type: 'pause' }, /command\.remote must be a name/],
    [{ type: 'resume', remote: 'p3', flow: 'x' }, /resume command has an unexpected field "flow"/],
    [{ type: 'data-start', remote: 'p1' }, /command\.flow must be a name/],
    [{ type: 'data-stop', remote: 'p1', flow: '../x' }, /command\.flow must be a name/],
  ];
  for (const [command, pattern] of cases) refused(validateCommand(command, 'p2'), pattern);
});
