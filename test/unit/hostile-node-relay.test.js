// A node relay's control protocol against a hostile node and a hostile network, without a relay process: a node
// whose reply never ends is cut off at the limit; nonces, sequence numbers and a run's params as control-auth.js and
// control-params.js check them. The real control port under attack is in test/node-relay.test.js.
import assert from 'node:assert/strict';
import http from 'node:http';
import { test } from 'node:test';
import { openNodeRelay } from '../../orchestrator/emulators/node-relay/client.js';
import {
  NONCE_TTL_MS, REPLAY_WINDOW, authHeader, checkAuth, issueNonce, macMatches, nonceIsFresh, sequenceGuard,
} from '../../orchestrator/emulators/node-relay/control-auth.js';
import { runParamsChecker } from '../../orchestrator/emulators/node-relay/control-params.js';
import { EnvironmentError, InputError } from '../../orchestrator/lib/system/errors.js';

/** @param {http.RequestListener} listener @returns {Promise<{ control: string, close: () => void }>} */
async function fakeNode(listener) {
  const server = http.createServer(listener);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  return { control: `127.0.0.1:${port}`, close: () => { server.closeAllConnections(); server.close(); } };
}

const open = (/** @type {string} */ control) => openNodeRelay({ label: 'n1', control, registrationSecret: 'r'.repeat(48), probeToken: 'a'.repeat(32) });

test('a node relay whose reply never ends is cut off at 1 MiB at once, not read whole until the timeout', { timeout: 30_000 }, async (t) => {
  let written = 0;
  const node = await fakeNode((request, response) => {
    response.writeHead(200, { 'Content-Type': 'application/json' });
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const pump = () => { while (!response.destroyed && response.write(chunk)) written += chunk.length; };
    response.on('drain', pump);
    pump();
  });
  t.after(node.close);
  const startedMs = performance.now();
  await assert.rejects(open(node.control), (error) => {
    assert.ok(error instanceof EnvironmentError, String(error));
    assert.match(error.message, /grid-node n1's relay \(127\.0\.0\.1:\d+\): the reply to nonce is over 1048576 bytes; is 127\.0\.0\.1:\d+ a grid-node's relay/);
    return true;
  });
  const tookMs = performance.now() - startedMs;
  assert.ok(tookMs < 3000, `cut off after ${tookMs.toFixed(0)} ms`);
  assert.ok(written < 64 * 1024 * 1024, `the node wrote ${written} bytes before it was cut off`);

  // One that says beforehand that its reply is too long is not read at all.
  const announcing = await fakeNode((request, response) => {
    response.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(2 ** 30) });
    response.write('{');
  });
  t.after(announcing.close);
  await assert.rejects(open(announcing.control), /the reply to nonce is over 1048576 bytes \(Content-Length 1073741824\)/);
});

test('a nonce opens for NONCE_TTL_MS only; one altered, forged with another node\'s key or from the future is not fresh', () => {
  const key = Buffer.alloc(32, 1);
  const nowMs = Date.now();
  const nonce = issueNonce(key, nowMs);
  assert.ok(nonceIsFresh(key, nonce, nowMs + NONCE_TTL_MS - 1));
  assert.equal(nonceIsFresh(key, nonce, nowMs + NONCE_TTL_MS), false, 'expired');
  assert.equal(nonceIsFresh(key, nonce, nowMs - 1), false, 'issued in the future');
  assert.equal(nonceIsFresh(Buffer.alloc(32, 2), nonce, nowMs), false, 'another node\'s');
  const [issued, random, mac] = nonce.split('.');
  assert.equal(nonceIsFresh(key, `${Number(issued) + 5000}.${random}.${mac}`, nowMs + 5000), false, 'its time moved on');
  assert.equal(nonceIsFresh(key, `${issued}.${random}.${'é'.repeat(64)}`, nowMs), false, 'a non-ASCII MAC');
});

test('a request\'s header is checked against the node, the method and the body it was made for; a non-ASCII MAC is only wrong', () => {
  const request = { label: 'n1', method: 'stats', counter: '7', body: '' };
  const header = authHeader('key', request);
  assert.deepEqual(checkAuth(header, 'key', request), { counter: '7', bodySha256: header.split(' ')[1] });
  for (const [what, other] of /** @type {Array<[string, object]>} */ ([['another node', { label: 'n2' }], ['another method', { method: 'close' }]])) {
    assert.equal(checkAuth(header, 'key', { ...request, ...other }), null, what);
  }
  assert.equal(checkAuth(header, 'another key', request), null);
  assert.equal(checkAuth(header.replace(/ 7 /, ' 8 ').replace(/^7/, '8'), 'key', request), null, 'another sequence number');
  assert.equal(macMatches('é'.repeat(64), 'f'.repeat(64)), false);
  assert.equal(macMatches(undefined, 'f'.repeat(64)), false);
});

test('a run\'s sequence numbers are accepted once each, in any order, and none REPLAY_WINDOW behind the newest', () => {
  const fresh = sequenceGuard();
  assert.ok(fresh('2') && fresh('1') && fresh('3'), 'requests may overtake one another');
  assert.equal(fresh('2'), false, 'seen');
  assert.ok(fresh(String(10 + REPLAY_WINDOW)));
  assert.equal(fresh('10'), false, 'behind the window, never seen');
  assert.ok(fresh('11'), 'inside the window, never seen');
  for (const counter of ['0', '-1', '1.5', '01', 'x', '9'.repeat(16)]) assert.equal(fresh(counter), false, counter);
});

test('a run\'s params are checked with the scenario\'s own validators before the relay sees them', () => {
  const check = runParamsChecker('10.0.0.5');
  const candidate = { peer: 'p0', remotePeer: 'sfu', address: '10.0.0.9', port: 5000, bindAddress: '10.0.0.5' };
  assert.deepEqual(check('register', candidate), candidate);
  assert.equal(/** @type {typeof candidate} */ (check('register', { ...candidate, bindAddress: '127.0.0.1' })).bindAddress, '127.0.0.1');
  /** @param {string} method @param {unknown} params @param {RegExp} pattern */
  const refused = (method, params, pattern) => assert.throws(() => check(method, params),
    (error) => error instanceof InputError && pattern.test(error.message), `${method} ${JSON.stringify(params)?.slice(0, 80)}`);
  refused('register', { ...candidate, bindAddress: '0.0.0.0' }, /params\.bindAddress: must be this node's address 10\.0\.0\.5 or a loopback one/);
  refused('register', { ...candidate, peer: 'p32' }, /params\.peer: must be a peer \(p0\.\.p31, load0\.\.load49 or sfu\)/);
  refused('register', { ...candidate, peer: 'load50' }, /params\.peer: must be a peer/);
  refused('register', { ...candidate, peer: 'load' }, /params\.peer: must be a peer/);
  refused('configure', { links: { 'load50.up': {} } }, /"load50\.up" is not a link \(<peer>\.up, <peer>\.down for a peer p0\.\.p31, load0\.\.load49; bottleneck/);
  refused('configure', { links: { 'sfu.up': {} } }, /"sfu\.up" is not a link/);
  // A load participant's links and routes, which the relay of the node it is lent to carries.
  const loadCandidate = { ...candidate, peer: 'load49', remotePeer: 'sfu' };
  assert.deepEqual(check('register', loadCandidate), loadCandidate);
  assert.deepEqual(/** @type {{ routes: object }} */ (check('configure', { links: { 'load3.up': { rateKbps: 500 }, 'load3.down': {} },
    routes: { 'load3->sfu': ['load3.up'], 'sfu->load3': ['load3.down'] } })).routes, { 'load3->sfu': ['load3.up'], 'sfu->load3': ['load3.down'] });
  refused('register', { ...candidate, address: '224.0.0.1' }, /params\.address: must be a unicast IPv4 address/);
  refused('register', { ...candidate, extra: 1 }, /unknown field 'extra'/);
  refused('configure', { links: { 'p0.up': { jitterMs: 10 } } }, /jitterMs 10 is more than oneWayDelayMs 0/);
  refused('configure', { links: {}, traceOriginEpochMs: 0 }, /traceOriginEpochMs .*within a day of this node's clock/);
  refused('configure', { links: { 'p0.up': {} }, routes: { 'p0->p1->p2': ['p0.up'] } }, /a route is named "<peer>-><peer>"/);
  refused('configure', { traces: { t: { name: 't', opportunitiesMs: [5, 1], periodMs: 1 } } }, /configure: params\.traces\["t"\]:2: timestamps must be whole milliseconds/);
  refused('probe', { address: '10.0.0.9', port: 9, count: 201, intervalMs: 10 }, /probe: params\.count: must be an integer from 1 to 200/);
  refused('processMemory', [1, 2], /processMemory: params: must be an object/);
  refused('truth', { any: 1 }, /truth: takes no params/);
  assert.deepEqual(/** @type {{ routes: object }} */ (check('configure', { links: { 'p0.up': { oneWayDelayMs: 20 } }, routes: { 'p0->p1': ['p0.up'] } })).routes, { 'p0->p1': ['p0.up'] });
  const nowMs = Date.now();
  assert.equal(check('restartTraces', nowMs), nowMs);
});
