import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { test } from 'node:test';
import { livekitConfig } from '../../orchestrator/sfu/livekit/config.js';
import { accessToken } from '../../orchestrator/sfu/livekit/token.js';

/** @param {string} part */
const decode = (part) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));

test('a LiveKit token is an HS256 JWT over its header and claims, signed with the API secret, valid from just before now', () => {
  const token = accessToken({ apiKey: 'key1', apiSecret: 's3cret', identity: 'p0', grant: { room: 'r', roomJoin: true }, nowS: 1000.7, ttlS: 60 });
  const [header, payload, signature] = token.split('.');
  assert.deepEqual(decode(header), { alg: 'HS256', typ: 'JWT' });
  assert.deepEqual(decode(payload), { iss: 'key1', nbf: 990, exp: 1060, sub: 'p0', name: 'p0', video: { room: 'r', roomJoin: true } });
  assert.equal(signature, createHmac('sha256', 's3cret').update(`${header}.${payload}`).digest('base64url'));
  assert.notEqual(signature, createHmac('sha256', 'other').update(`${header}.${payload}`).digest('base64url'));
});

test('a token without an identity (the harness\'s own RoomService calls) carries no sub', () => {
  const payload = decode(accessToken({ apiKey: 'k', apiSecret: 's', grant: { roomCreate: true }, nowS: 0 }).split('.')[1]);
  assert.equal('sub' in payload, false);
});

test('the LiveKit configuration puts the API and media on the given addresses and ports, with no external IP lookup', () => {
  const config = JSON.parse(livekitConfig({ address: '10.1.0.2', httpPort: 7880, iceAddress: '10.1.0.2', udpPort: 7882, tcpPort: 7881, apiKey: 'k', apiSecret: 's' }));
  assert.deepEqual(config.bind_addresses, ['10.1.0.2']);
  assert.equal(config.port, 7880);
  assert.deepEqual(config.rtc, { udp_port: 7882, tcp_port: 7881, use_external_ip: false, node_ip: '10.1.0.2', ips: { includes: ['10.1.0.2/32'] }, enable_loopback_candidate: false });
  assert.deepEqual(config.keys, { k: 's' });
  assert.equal(config.room.auto_create, false);
  assert.equal(JSON.parse(livekitConfig({ address: '127.0.0.1', httpPort: 1, iceAddress: '127.0.0.1', udpPort: 2, tcpPort: 3, apiKey: 'k', apiSecret: 's' })).rtc.enable_loopback_candidate, true);
});
