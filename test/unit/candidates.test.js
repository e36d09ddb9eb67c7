import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseCandidate, withAddress } from '../../orchestrator/emulators/candidates.js';

const host = 'candidate:1788174580 1 udp 2122194687 127.0.0.1 35344 typ host generation 0 ufrag qTDK network-id 3 network-cost 50';

test('parses transport, address, port and type of an ICE candidate', () => {
  assert.deepEqual(parseCandidate(host), { transport: 'udp', address: '127.0.0.1', port: 35344, type: 'host' });
  assert.equal(parseCandidate('candidate:1 1 TCP 1 ::1 9 typ host tcptype active').transport, 'tcp');
  assert.equal(parseCandidate('not a candidate'), null);
});

test('rewrites only address and port', () => {
  assert.equal(withAddress(host, '127.0.0.1', 40000), host.replace('35344', '40000'));
});
