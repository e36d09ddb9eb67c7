import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createPeerSecrets, PEER_SECRET_BYTES, pageUrl, withoutFragment } from '../../orchestrator/lib/system/peer-secrets.js';
import { createAdmission, OPEN_MAX_CONNECTIONS, OPEN_MAX_UNJOINED, SECRET_PATTERN, secretMatches } from '../../signaling/admission.js';

test('each peer of a run gets its own 256-bit base64url secret, fresh every run', () => {
  const sizes = [];
  const secrets = createPeerSecrets(['p0', 'p1', 'p2'], (size) => { sizes.push(size); return Buffer.alloc(size, sizes.length); });
  assert.deepEqual(sizes, [PEER_SECRET_BYTES, PEER_SECRET_BYTES, PEER_SECRET_BYTES]);
  assert.equal(secrets.get('p0'), Buffer.alloc(32, 1).toString('base64url'));
  const real = [...createPeerSecrets(['p0', 'p1']).values(), ...createPeerSecrets(['p0', 'p1']).values()];
  assert.equal(new Set(real).size, 4);
  for (const secret of real) assert.match(secret, SECRET_PATTERN);
  assert.ok(PEER_SECRET_BYTES * 8 >= 128);
});

test('the page URL carries the secret in its fragment only; withoutFragment cuts it out of any text', () => {
  const url = pageUrl('http://127.0.0.1:5000/', { peer: 'p0', room: 'run-1' }, 'S3cr3t_S3cr3t-S3cr3t_S3');
  const parsed = new URL(url);
  assert.equal(parsed.hash, '#S3cr3t_S3cr3t-S3cr3t_S3');
  assert.equal(`${parsed.pathname}${parsed.search}`, '/?peer=p0&room=run-1', 'an HTTP request for it carries no secret');
  assert.equal(withoutFragment(`net::ERR_CONNECTION_REFUSED at ${url}`, url), 'net::ERR_CONNECTION_REFUSED at http://127.0.0.1:5000/?peer=p0&room=run-1#…');
  assert.equal(withoutFragment('twice S3cr3t_S3cr3t-S3cr3t_S3 S3cr3t_S3cr3t-S3cr3t_S3', url), 'twice … …');
  assert.equal(withoutFragment('no fragment here', 'http://127.0.0.1:5000/?peer=p0'), 'no fragment here');
});

test('secretMatches: only the same string; any other, shorter or longer, or none does not', () => {
  const secret = createPeerSecrets(['p0']).get('p0');
  assert.equal(secretMatches(secret, secret), true);
  const lastCharChanged = `${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`;
  for (const other of [undefined, '', secret.slice(1), `${secret}x`, lastCharChanged]) {
    assert.equal(secretMatches(other, secret), false, String(other));
  }
});

test('admission of a run\'s room: its room, a peer of it not joined yet, that peer\'s secret; each refusal says why, never with the secret', () => {
  const secrets = createPeerSecrets(['p0', 'p1', 'p2']);
  const admission = createAdmission({ room: 'run-1', secrets });
  assert.deepEqual(admission.peers, ['p0', 'p1', 'p2']);
  assert.equal(admission.maxUnjoined, 2 * 3 + 8);
  assert.equal(admission.maxConnections, 3 + 14);
  const p1 = secrets.get('p1');
  assert.equal(admission.refuseJoin({ room: 'run-1', peer: 'p1', secret: p1 }, false), null);
  const refusals = [
    admission.refuseJoin({ room: 'run-2', peer: 'p1', secret: p1 }, false),
    admission.refuseJoin({ room: 'run-1', peer: 'p9', secret: p1 }, false),
    admission.refuseJoin({ room: 'run-1', peer: 'p1' }, false),
    admission.refuseJoin({ room: 'run-1', peer: 'p1', secret: secrets.get('p2') }, false),
    admission.refuseJoin({ room: 'run-1', peer: 'p1', secret: p1 }, true),
  ];
  assert.deepEqual(refusals, [
    'room "run-2" is not this run\'s', 'peer "p9" is not expected', 'no secret for "p1"', 'a wrong secret for "p1"', 'peer "p1" has already joined',
  ]);
  assert.equal(refusals.length, 5);
  assert.ok(refusals.every((reason) => ![...secrets.values()].some((secret) => reason.includes(secret))));
});

test('without a room any name joins, once at a time, under the open caps; a room without secrets is refused', () => {
  const open = createAdmission({});
  assert.equal(open.peers, null);
  assert.equal(open.refuseJoin({ room: 'r', peer: 'p0' }, false), null);
  assert.equal(open.refuseJoin({ room: 'r', peer: 'p0' }, true), 'peer "p0" is already in room "r"');
  assert.deepEqual([open.maxUnjoined, open.maxConnections], [OPEN_MAX_UNJOINED, OPEN_MAX_CONNECTIONS]);
  assert.throws(() => createAdmission({ room: 'run-1' }), /room "run-1" needs secrets/);
  assert.throws(() => createAdmission({ secrets: createPeerSecrets(['p0']) }), /room undefined is not a name/);
  assert.throws(() => createAdmission({ room: 'run-1', secrets: new Map() }), /room "run-1" has no peers in secrets/);
});
