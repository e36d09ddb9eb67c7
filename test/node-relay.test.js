// The node-relay backend with two real node relays (control servers and relay processes, as grid-node runs them) on two
// loopback addresses standing for two machines: a control message without the run's secret is refused and counted,
// the path between the nodes is probed relay to relay, and a datagram from p0 (node n1) to p1 (node n2) crosses p0's
// uplink on n1's relay, then p1's downlink on n2's.
import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import { test } from 'node:test';
import { startNodeRelay } from '../orchestrator/emulators/index.js';
import { nodeRelayBackend } from '../orchestrator/emulators/node-relay/index.js';
import { compileNetwork } from '../orchestrator/lib/network/schedule.js';

const REGISTRATION_SECRET = 'registration-secret-of-this-test';
const NODES = { n1: '127.0.0.1', n2: '127.0.0.2' };

/** @param {string} address @returns {Promise<dgram.Socket>} */
const udpSocket = (address) => new Promise((resolve) => {
  const socket = dgram.createSocket('udp4');
  socket.bind({ address, port: 0 }, () => resolve(socket));
});

/** POSTs a control message as anyone could. @param {string} control @param {object} message */
const post = async (control, message) => {
  const response = await fetch(`http://${control}/`, { method: 'POST', body: JSON.stringify(message) });
  return { status: response.status, body: await response.json() };
};

test('node relays: control without the run secret is refused and counted; p0 → p1 crosses both nodes\' relays with both delays', { timeout: 60_000 }, async (t) => {
  const logged = [];
  const relays = Object.fromEntries(await Promise.all(Object.entries(NODES).map(async ([label, address]) => [label,
    await startNodeRelay({ address, registrationSecret: REGISTRATION_SECRET, log: (line) => logged.push(line) })])));
  t.after(() => Promise.all(Object.values(relays).map((relay) => relay.close())));

  // Nobody may open a node's relay without the registration secret, nor drive one without the run's secret.
  const forged = await post(relays.n1.control, { method: 'open', params: { runSecret: 'x'.repeat(64), proof: 'f'.repeat(64) } });
  assert.equal(forged.status, 403, JSON.stringify(forged.body));
  const unopened = await post(relays.n1.control, { method: 'register', params: {} });
  assert.equal(unopened.status, 403);
  assert.equal(relays.n1.refused(), 2);
  assert.equal((await fetch(`http://${relays.n1.control}/`, { method: 'POST', body: 'not json' })).status, 400);

  const compiled = compileNetwork({
    name: 'node-relay-test', peers: 2, network: { peers: { p0: { uplink: { oneWayDelayMs: 40 } }, p1: { downlink: { oneWayDelayMs: 30 } } } },
  });
  const placement = { p0: 'n1', p1: 'n2' };
  const emulator = await nodeRelayBackend.create({
    compiled, peers: ['p0', 'p1'], runId: 'node-relay-test',
    remotePeers: {
      bindAddress: '127.0.0.1', registrationSecret: REGISTRATION_SECRET,
      nodeOf: (peer) => ({ label: placement[peer], address: NODES[placement[peer]], relay: relays[placement[peer]].control }),
    },
  });
  t.after(() => emulator.close());
  // A second run cannot take a node relay another run holds, even with the registration secret.
  const other = await nodeRelayBackend.create({ compiled, peers: ['p0', 'p1'], runId: 'another-run', remotePeers: {
    bindAddress: '127.0.0.1', registrationSecret: REGISTRATION_SECRET, nodeOf: () => ({ label: 'n1', address: NODES.n1, relay: relays.n1.control }) } });
  const sockets = { p0: await udpSocket(NODES.n1), p1: await udpSocket(NODES.n2) };
  t.after(() => Object.values(sockets).forEach((socket) => socket.close()));
  /** What each peer is told of the other's candidate. */
  const told = {};
  for (const [from, to] of [['p0', 'p1'], ['p1', 'p0']]) {
    const { port } = sockets[from].address();
    const rewritten = await emulator.rewriteCandidate({ from, to, candidate: { candidate: `candidate:1 1 udp 2122260223 ${NODES[placement[from]]} ${port} typ host` } });
    assert.ok(rewritten, `${from}'s candidate is relayed`);
    const parts = rewritten.candidate.split(' ');
    told[to] = { address: parts[4], port: Number(parts[5]) };
  }
  // Each peer sees the other on its own node's relay.
  assert.equal(told.p1.address, NODES.n2);
  assert.equal(told.p0.address, NODES.n1);
  await assert.rejects(other.probePaths(), /grid-node n1's relay \(127\.0\.0\.1:\d+\) refused open: another run holds this node relay/);
  // The real path between the nodes, outside the links: loopback here, so no loss and well under a millisecond or two.
  const paths = await emulator.probePaths();
  assert.deepEqual(paths.map(({ from, to, probes, received, lossPct }) => ({ from, to, probes, received, lossPct })),
    [{ from: 'n1', to: 'n2', probes: 20, received: 20, lossPct: 0 }, { from: 'n2', to: 'n1', probes: 20, received: 20, lossPct: 0 }]);
  for (const path of paths) assert.ok(path.rttMsMin > 0 && path.rttMsMin <= path.rttMsMedian && path.rttMsMedian < 5, JSON.stringify(path));
  t.diagnostic(`probed paths: ${JSON.stringify(paths)}`);
  // A loopback candidate of a node is that machine's own: dropped.
  assert.equal(await emulator.rewriteCandidate({ from: 'p1', to: 'p0', candidate: { candidate: 'candidate:2 1 udp 1 127.0.0.1 5000 typ host' } }), null);

  // p0 sends to what it was told of p1 (on n1's relay); p1 hears it from what it was told of p0 (on n2's relay).
  const delaysMs = [];
  const heard = new Promise((resolve) => {
    sockets.p1.on('message', (message, from) => {
      delaysMs.push(performance.now() - Number(message.toString()));
      assert.deepEqual({ address: from.address, port: from.port }, told.p1);
      if (delaysMs.length === 10) resolve(undefined);
    });
  });
  for (let i = 0; i < 10; i++) {
    sockets.p0.send(String(performance.now()), told.p0.port, told.p0.address);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await heard;
  const medianMs = delaysMs.sort((a, b) => a - b)[5];
  t.diagnostic(`p0 → p1 one way: median ${medianMs.toFixed(1)} ms of ${delaysMs.length} datagrams, configured 40 + 30`);
  assert.ok(medianMs >= 69 && medianMs < 90, `p0 → p1 one way ${medianMs.toFixed(1)} ms, configured 40 + 30`);

  // Each relay counted the packets on the link it holds.
  await new Promise((resolve) => setTimeout(resolve, 1100));
  const truth = await emulator.truth();
  const packets = (node, link) => truth.filter((row) => row.node === node && row.link === link)
    .reduce((sum, row) => sum + Number(row.packetsOut), 0);
  assert.equal(packets('n1', 'p0.up'), 10, JSON.stringify(truth));
  assert.equal(packets('n2', 'p1.down'), 10, JSON.stringify(truth));
  assert.equal(truth.filter((row) => row.node === 'n1' && row.link.startsWith('p1.')).length, 0, 'p1\'s links are not on n1');
  assert.ok(logged.some((line) => /refused .*\(2 refused so far\)/.test(line)), logged.join('\n'));
});
