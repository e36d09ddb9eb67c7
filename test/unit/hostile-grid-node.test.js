// grid-node's start-up against what else may be on its port or its hub: a port already taken, another Selenium node
// answering on it, a reply that never ends. Fake hubs and nodes on 127.0.0.1; no java.
import assert from 'node:assert/strict';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import { test } from 'node:test';
import { nodeRegistered } from '../../orchestrator/grid/client.js';
import { checkPortsFree } from '../../orchestrator/grid/process.js';
import { nodeStereotype } from '../../orchestrator/lib/grid/grid.js';
import { startEndlessServer } from '../helpers/endless-server.js';

const secrets = { registrationSecret: 'r', username: 'u', password: 'p' };

/** An HTTP server on 127.0.0.1 answering every request with `answer(response)`; resolves to its URL and closer. */
async function serve(answer) {
  const server = createHttpServer((request, response) => answer(response));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  return { url: `http://127.0.0.1:${port}`, close: () => { server.closeAllConnections(); server.close(); } };
}
const json = (body) => (response) => response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));

test('port squatting: a grid-node --port another process listens on is refused before java starts, naming the port', async () => {
  const squatter = createServer();
  await new Promise((resolve) => squatter.listen(0, '127.0.0.1', () => resolve(undefined)));
  const { port } = /** @type {import('node:net').AddressInfo} */ (squatter.address());
  try {
    await assert.rejects(checkPortsFree('127.0.0.1', [{ port, what: '--port' }]),
      new RegExp(`--port: port ${port} on 127\\.0\\.0\\.1 is already in use \\(another grid-node or grid-hub, or another program, listens there\\); stop it, or choose another --port$`));
  } finally {
    squatter.close();
  }
  await checkPortsFree('127.0.0.1', [{ port, what: '--port' }]);
});

test('another Selenium node answering on this node\'s port is not taken for it: the hub must list the answering id with this label and URI', async () => {
  const node = await serve(json({ value: { ready: true, node: { nodeId: 'first-node' } } }));
  const listed = (id, label, uri) => ({
    id, uri, availability: 'UP', maxSessions: 1,
    slots: [{ session: null, stereotype: nodeStereotype({ label, binary: '/usr/bin/chromium', mediaDir: '/m', cores: 2 }) }],
  });
  const hubs = [];
  /** @param {object[]} nodes */
  const hubListing = async (...nodes) => {
    const hub = await serve(json({ value: { ready: true, nodes } }));
    hubs.push(hub);
    return hub.url;
  };
  try {
    const registered = async (hubUrl, label) => nodeRegistered({ hubUrl, nodeUrl: node.url, label, secrets });
    // The first node (n1) holds the port: the second (n2) sees n1's id there, listed with n1's label.
    assert.equal(await registered(await hubListing(listed('first-node', 'n1', node.url)), 'n2'), false);
    assert.equal(await registered(await hubListing(listed('first-node', 'n1', node.url)), 'n1'), true);
    // The hub lists n2 at this URI, but under another id than the node answering there.
    assert.equal(await registered(await hubListing(listed('second-node', 'n2', node.url)), 'n2'), false);
    // The right id and label, at another node's URI.
    assert.equal(await registered(await hubListing(listed('first-node', 'n1', 'http://127.0.0.9:5555')), 'n1'), false);
  } finally {
    node.close();
    for (const hub of hubs) hub.close();
  }
});

test('a node port answering an endless /status is refused at the byte limit, not read whole', async () => {
  const node = await startEndlessServer();
  try {
    await assert.rejects(nodeRegistered({ hubUrl: 'http://127.0.0.1:9', nodeUrl: node.url, label: 'n1', secrets }),
      /the reply of http:\/\/127\.0\.0\.1:\d+\/status is over 4194304 bytes/);
  } finally {
    node.close();
  }
  assert.ok(node.sent() < 32 * 1024 * 1024, `the node sent ${node.sent()} bytes before grid-node hung up`);
});
