// A broken or hostile Grid hub: its /status is read as untrusted input, field by field and with a byte limit.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gridStatus } from '../../orchestrator/grid/client.js';
import { CAP, gridNodes, nodeStereotype } from '../../orchestrator/lib/grid/grid.js';
import { nodeClocks, onOrchestratorClock } from '../../orchestrator/lib/grid/clock-offset.js';
import { startEndlessServer } from '../helpers/endless-server.js';

const secrets = { registrationSecret: 'r', username: 'u', password: 'p' };

/**
 * One node as the hub's /status lists it (Selenium 4.47: `id`, `uri`), our stereotype in each slot, with `patch` over it.
 * @param {string} label @param {{ node?: object, stereotype?: object, slots?: number }} [patch]
 */
function statusNode(label, { node = {}, stereotype = {}, slots = 2 } = {}) {
  const ours = { ...nodeStereotype({ label, binary: '/usr/bin/chromium', mediaDir: '/srv/media/', cores: 2 }), ...stereotype };
  return {
    id: `id-${label}`, uri: 'http://10.0.0.1:5555', availability: 'UP', maxSessions: slots,
    slots: Array.from({ length: slots }, () => ({ session: null, stereotype: ours })), ...node,
  };
}
const status = (...nodes) => ({ value: { ready: true, nodes } });

test('hostile hub: a /status body that never ends is refused at the byte limit with an error naming the Grid, RSS bounded', async () => {
  const hub = await startEndlessServer('{"value": {"nodes": [');
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss); }, 5);
  try {
    await assert.rejects(gridStatus(hub.url, secrets), (/** @type {Error & { exitCode?: number }} */ error) => {
      assert.match(error.message, /the Grid at http:\/\/127\.0\.0\.1:\d+: its reply to GET \/status is over 4194304 bytes; .*Selenium Grid 4/);
      assert.equal(error.exitCode, 3);
      return true;
    });
  } finally {
    clearInterval(sampler);
    hub.close();
  }
  assert.ok(hub.sent() < 32 * 1024 * 1024, `the hub sent ${hub.sent()} bytes before the orchestrator hung up`);
  assert.ok(peak - before < 64 * 1024 * 1024, `RSS grew by ${Math.round((peak - before) / 1048576)} MiB`);
});

test('hostile hub: a null node, or a node that is not an object, is an error naming value.nodes[i], not a TypeError', () => {
  for (const bad of [null, 7, 'node', []]) {
    assert.throws(() => gridNodes(status(statusNode('n1'), bad)), (/** @type {Error & { exitCode?: number }} */ error) => {
      assert.match(error.message, /the Grid's \/status: value\.nodes\[1\]: the node must be an object, got /);
      assert.equal(error.exitCode, 3, error.stack);
      return true;
    }, JSON.stringify(bad));
  }
  assert.throws(() => gridNodes(status(statusNode('n1', { node: { slots: [null] } }))), /value\.nodes\[0\]: slots\[0\]\.stereotype must be an object/);
  assert.throws(() => gridNodes(null), /no value\.nodes list; is the URL a Selenium Grid 4 router or hub/);
});

test('hostile hub: labels of 10 000 characters, with a newline, HTML or a leading "_" are refused with the label rule of grid-node --label', () => {
  for (const label of ['n'.repeat(10_000), 'n1\nERROR: all tests passed', '<img src=x onerror=alert(1)>', '_n1', '', 7]) {
    assert.throws(() => gridNodes(status(statusNode('n1', { stereotype: { [CAP.label]: label } }))), (/** @type {Error & { exitCode?: number }} */ error) => {
      assert.match(error.message, /value\.nodes\[0\]: stereotype wtb:label must be a node label \(letters, digits, "\.", "_", "-"; up to 63, as grid-node --label\)/);
      assert.ok(error.message.length < 400, `the message quotes at most a bit of the label: ${error.message.length} characters`);
      assert.doesNotMatch(error.message, /\n/);
      return true;
    }, JSON.stringify(label).slice(0, 40));
  }
});

test('hostile hub: a node labelled __proto__ is refused at /status; one labelled constructor is a node like any other', () => {
  assert.throws(() => gridNodes(status(statusNode('n1', { stereotype: { [CAP.label]: '__proto__' } }))), /stereotype wtb:label must be a node label/);
  const nodes = gridNodes(status(statusNode('constructor'), { ...statusNode('toString'), uri: 'http://10.0.0.2:5555' }));
  assert.deepEqual(nodes.map((node) => node.label), ['constructor', 'toString']);
  // A node without a clock reading is not taken for Object.prototype's constructor.
  const nodeOfPeer = { p0: 'constructor', p1: 'toString' };
  const clocks = nodeClocks(nodeOfPeer, { p0: { offsetMs: 5, errorMs: 1, rttMs: 2, samples: 3, atMs: 0 } });
  assert.deepEqual(Object.keys(clocks), ['constructor']);
  const moved = onOrchestratorClock([{ peer: 'p1', epochMs: [100] }, { peer: 'p0', epochMs: [100] }], nodeOfPeer, clocks);
  assert.deepEqual(moved.map((batch) => batch.epochMs), [[100], [95]]);
});

test('hostile hub: a slot whose label differs from its node\'s first slot, or two nodes up with one label, are refused', () => {
  const mixed = statusNode('n1');
  mixed.slots[1] = { session: null, stereotype: { ...mixed.slots[1].stereotype, [CAP.label]: 'n2' } };
  assert.throws(() => gridNodes(status(mixed)), /value\.nodes\[0\] \(grid-node n1\): slots\[1\]\.stereotype\.wtb:label must be "n1", as its first slot's, got "n2"/);
  const twice = status(statusNode('n1'), { ...statusNode('n1'), id: 'other', uri: 'http://10.0.0.9:5555' });
  assert.throws(() => gridNodes(twice), /two grid-nodes up are labelled n1 \(http:\/\/10\.0\.0\.1:5555 and http:\/\/10\.0\.0\.9:5555\); give each its own --label/);
});

test('hostile hub: id, uri, maxSessions, slots, sessions, binary, mediaDir, cores and browserVersion out of kind or bounds are refused naming the field and the node', () => {
  const cases = [
    [{ node: { id: 42 } }, /id must be a node id/],
    [{ node: { id: 'x'.repeat(200) } }, /id must be a node id/],
    [{ node: { uri: 'javascript:alert(1)' } }, /uri must be an http:\/\/ or https:\/\/ URL/],
    [{ node: { uri: `http://h/${'a'.repeat(3000)}` } }, /uri must be an http:\/\/ or https:\/\/ URL of at most 2048 characters/],
    [{ node: { maxSessions: 1e9 } }, /maxSessions must be a whole number from 1 to 1024, got 1000000000/],
    [{ node: { maxSessions: '2' } }, /maxSessions must be a whole number from 1 to 1024, got "2"/],
    [{ node: { slots: {} } }, /slots must be a list of at most 1024 slots/],
    [{ node: { slots: [{ session: 0, stereotype: statusNode('n1').slots[0].stereotype }] } }, /slots\[0\]\.session must be null or an object, got 0/],
    [{ stereotype: { 'goog:chromeOptions': { binary: 'chromium' } } }, /goog:chromeOptions\.binary must be an absolute path/],
    [{ stereotype: { 'goog:chromeOptions': 'x' } }, /goog:chromeOptions must be an object/],
    [{ stereotype: { [CAP.mediaDir]: '/srv/\nmedia' } }, /wtb:mediaDir must be an absolute path of at most 1024 printable characters/],
    [{ stereotype: { [CAP.mediaDir]: `/${'m'.repeat(2000)}` } }, /wtb:mediaDir must be an absolute path/],
    [{ stereotype: { [CAP.cores]: -3 } }, /wtb:cores must be a whole number from 1 to 65536, got -3/],
    [{ stereotype: { [CAP.cores]: 1e308 } }, /wtb:cores must be a whole number from 1 to 65536/],
    [{ stereotype: { [CAP.cores]: 2.5 } }, /wtb:cores must be a whole number/],
    [{ stereotype: { browserVersion: '<script>' } }, /browserVersion must be a version \(letters, digits, "\.", "_", "-"; up to 64\), got "<script>"/],
    [{ stereotype: { browserVersion: 'x'.repeat(10_000) } }, /browserVersion must be a version/],
  ];
  for (const [patch, expected] of /** @type {Array<[{ node?: object, stereotype?: object }, RegExp]>} */ (cases)) {
    assert.throws(() => gridNodes(status(statusNode('n1', patch))), (/** @type {Error & { exitCode?: number }} */ error) => {
      // A node is named by its label once that is read.
      assert.match(error.message, /^--grid: the Grid's \/status: value\.nodes\[0\]( \(grid-node n1\))?: /);
      assert.match(error.message, expected);
      assert.match(error.message, /restart that grid-node with this project's grid-node, or check that --grid is a Selenium Grid 4 router or hub$/);
      assert.ok(error.message.length < 500, error.message.slice(0, 600));
      return true;
    }, JSON.stringify(patch).slice(0, 80));
  }
});

test('hostile hub: more nodes than the orchestrator reads are refused before any is read', () => {
  const many = Array.from({ length: 1001 }, () => null);
  assert.throws(() => gridNodes(status(...many)), /the Grid's \/status lists 1001 nodes, over the 1000 read here/);
});

test('the hub\'s real /status shape is read: id and uri as Selenium 4.47 names them, absent optional fields as null', () => {
  const node = statusNode('n1', { stereotype: { [CAP.cores]: undefined, [CAP.mediaDir]: undefined, 'goog:chromeOptions': undefined } });
  assert.deepEqual(gridNodes(status(node)), [{
    id: 'id-n1', uri: 'http://10.0.0.1:5555', label: 'n1', maxSessions: 2, freeSlots: 2, binary: null, mediaDir: null, cores: null,
    browserVersion: null, relay: null,
  }]);
  // Down, or not of this project: not read any further.
  assert.deepEqual(gridNodes(status({ ...statusNode('n1', { node: { id: 42 } }), availability: 'DOWN' }, { availability: 'UP', slots: [{ stereotype: {} }] })), []);
});
