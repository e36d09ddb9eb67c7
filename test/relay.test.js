// Real UDP on 127.0.0.1 through the relay: accuracy (delay, rate, loss), forwarding rules, reconfiguration,
// truth counters, and crash safety of the relay child process. About 30 s.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import os from 'node:os';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { UdpRelay } from '../orchestrator/emulators/relay/relay.js';
import { packetPath } from '../orchestrator/emulators/relay/packet-io.js';
import { MAX_TRACE_MS } from '../orchestrator/lib/input/limits.js';
import { startRelayProcess } from '../orchestrator/emulators/relay/client.js';
import { createRelayProbePath, PROBE_LINK } from '../orchestrator/emulators/relay/probe-path.js';
import { raisePriority } from '../orchestrator/emulators/priority.js';
import {
  binomialInterval99, decodeProbe, encodeProbe, runProbe, standardCases, summarizeProbe,
} from '../orchestrator/emulators/calibration.js';

const HOST = '127.0.0.1';
const CLIENT_URL = new URL('../orchestrator/emulators/relay/client.js', import.meta.url).href;

/** @param {Partial<import('../orchestrator/lib/network/link-model.js').LinkParams>} overrides */
const params = (overrides = {}) => ({
  rateKbps: null, queuePackets: null, queueMs: null, oneWayDelayMs: 0, jitterMs: 0, lossPct: 0, lossBurst: null, trace: null, ...overrides,
});

async function udpSocket(address = HOST) {
  const socket = dgram.createSocket('udp4');
  await /** @type {Promise<void>} */ (new Promise((resolve) => socket.bind({ address, port: 0 }, resolve)));
  return socket;
}

/** Collects datagrams (with source address and port and arrival time) that reach a socket. */
function collect(socket) {
  const datagrams = [];
  socket.on('message', (payload, source) => datagrams.push({ payload, sourceAddress: source.address, sourcePort: source.port, atMs: performance.now() }));
  return datagrams;
}

/** This machine's first non-loopback IPv4 address (where Janus gathers), or undefined. */
const otherLocalAddress = Object.values(os.networkInterfaces()).flat().find((entry) => entry?.family === 'IPv4' && !entry.internal)?.address;

const closeAll = (sockets) => Promise.all(sockets.map((socket) => new Promise((resolve) => socket.close(resolve))));

function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('relay child process accuracy through real UDP', () => {
  /** @type {import('../orchestrator/emulators/relay/client.js').RelayProcess} */
  let relay;
  let path;
  const cases = new Map(standardCases({ durationScale: 0.5 }).map((calibrationCase) => [calibrationCase.name, calibrationCase]));

  before(async () => {
    // This process timestamps the probe; its scheduling delays on a busy machine would read as relay error.
    await raisePriority(process.pid);
    relay = await startRelayProcess({ seed: 42 }); // fixed seed: the loss checks replay the same draws
    path = await createRelayProbePath(relay);
  });
  after(async () => {
    await path?.close();
    await relay?.close();
  });

  async function measure(name) {
    const { params: linkParams, probe } = cases.get(name);
    await path.configure(linkParams);
    return summarizeProbe(await runProbe(path, probe, linkParams), linkParams, probe);
  }

  for (const delayMs of [50, 250]) {
    test(`${delayMs} ms one-way delay: median error <= 2 ms, p99 <= 5 ms`, async () => {
      const summary = await measure(`delay-${delayMs}ms`);
      // Tells a late relay from a late receiver when this fails on a busy machine.
      const lateness = JSON.stringify((await relay.stats()).sendLateMs);
      assert.equal(summary.packetsReceived, summary.packetsSent);
      assert.ok(summary.delayErrorMsP50 <= 2, `median error ${summary.delayErrorMsP50} ms (median delay ${summary.oneWayDelayMsP50}); relay lateness ${lateness}`);
      assert.ok(summary.delayErrorMsP99 <= 5, `p99 error ${summary.delayErrorMsP99} ms (p99 delay ${summary.oneWayDelayMsP99}); relay lateness ${lateness}`);
    });
  }

  for (const rateKbps of [250, 1000, 5000, 20_000]) {
    test(`${rateKbps} kbps cap under 125 % offered load: receiver rate within 3 %`, async () => {
      const summary = await measure(`rate-${rateKbps}kbps`);
      const errorPct = (100 * Math.abs(summary.achievedKbps - rateKbps)) / rateKbps;
      assert.ok(errorPct <= 3, `achieved ${summary.achievedKbps} kbps`);
      assert.ok(summary.lossPct > 5, 'the offered load really exceeded the cap');
    });
  }

  for (const lossPct of [5, 20]) {
    test(`${lossPct} % loss: configured value inside the measured 99 % binomial interval`, async () => {
      const summary = await measure(`loss-${lossPct}pct`);
      const [low, high] = summary.lossPctCi99;
      assert.ok(summary.packetsSent > 2000);
      assert.ok(low <= lossPct && lossPct <= high, `measured ${summary.lossPct} % [${low}, ${high}]`);
    });
  }

  test('truth counters match what was sent and received', async () => {
    const linkParams = params({ oneWayDelayMs: 20, lossPct: 10 });
    const probe = { offeredKbps: 400, payloadBytes: 172, durationMs: 1200, warmupMs: 0 };
    // Truth covers completed seconds only: start and finish on second boundaries, so earlier tests' packets
    // (already drained) and ours fall in different rows.
    const nextSecond = async () => sleep(1000 - ((await relay.stats()).uptimeMs % 1000) + 50);
    await path.configure(linkParams);
    await nextSecond();
    await relay.truth();
    const trace = await runProbe(path, probe, linkParams);
    await nextSecond();
    const rows = await relay.truth();
    const sum = (link, field) => rows.filter((row) => row.link === link).reduce((total, row) => total + row[field], 0);
    assert.equal(sum(PROBE_LINK, 'packetsIn'), trace.packetsSent);
    assert.equal(sum(PROBE_LINK, 'bytesIn'), trace.packetsSent * (172 + 28));
    assert.equal(sum(PROBE_LINK, 'dropsLoss'), trace.packetsSent - trace.received.length);
    assert.equal(sum(PROBE_LINK, 'packetsOut'), trace.received.length);
    assert.equal(sum('p1.down', 'packetsOut'), trace.received.length);
    assert.ok(trace.received.length < trace.packetsSent, 'some loss happened');
    const delivering = rows.filter((row) => row.link === PROBE_LINK && row.packetsOut > 0);
    assert.ok(delivering.length > 0, 'delivering: nothing to check');
    assert.ok(delivering.every((row) => row.oneWayDelayMsP50 >= 20 && row.oneWayDelayMsP50 < 21), 'truth delay is the configured 20 ms');
    assert.ok(rows.length > 0, 'rows: nothing to check');
    assert.ok(rows.every((row, i) => i === 0 || row.t >= rows[i - 1].t), 'rows ordered by t');
  });
});

/**
 * The hooks of a block that drives one in-process relay: started before its tests, closed after them with the
 * sockets they opened. pair(a, b) registers peers a and b (one candidate each) with an unconstrained route both ways.
 */
function inProcessRelay() {
  const block = {
    /** @type {UdpRelay|null} set by before() */
    relay: null,
    /** @type {dgram.Socket[]} */
    sockets: [],
    /** @param {string} a @param {string} b */
    pair: async (a, b) => {
      const [socketA, socketB] = [await udpSocket(), await udpSocket()];
      block.sockets.push(socketA, socketB);
      const proxyA = await block.relay.register({ peer: a, remotePeer: b, address: HOST, port: socketA.address().port });
      const proxyB = await block.relay.register({ peer: b, remotePeer: a, address: HOST, port: socketB.address().port });
      const links = { [`${a}.up`]: params(), [`${b}.up`]: params(), [`${a}.down`]: params(), [`${b}.down`]: params() };
      block.relay.configure({ links, routes: { [`${a}->${b}`]: [`${a}.up`, `${b}.down`], [`${b}->${a}`]: [`${b}.up`, `${a}.down`] } });
      return { socketA, socketB, proxyA, proxyB };
    },
  };
  before(async () => {
    block.relay = new UdpRelay({ seed: 1 });
    await block.relay.start();
  });
  after(async () => {
    await closeAll(block.sockets);
    await block.relay.close();
  });
  return block;
}

describe('relay forwarding rules (in-process relay)', () => {
  const block = inProcessRelay();
  const { pair } = block;

  test('each side sees the other only as its rewritten candidate, in both directions', async () => {
    const { socketA, socketB, proxyA, proxyB } = await pair('p0', 'p1');
    const atA = collect(socketA);
    const atB = collect(socketB);
    socketA.send(Buffer.from('ping'), proxyB, HOST);
    await sleep(50);
    socketB.send(Buffer.from('pong'), proxyA, HOST);
    await sleep(50);
    assert.deepEqual(atB.map(({ payload, sourcePort }) => [String(payload), sourcePort]), [['ping', proxyA]]);
    assert.deepEqual(atA.map(({ payload, sourcePort }) => [String(payload), sourcePort]), [['pong', proxyB]]);
  });

  test('an SFU on another local address sees a page\'s candidate there (bindAddress), the page sees the SFU on loopback', { skip: !otherLocalAddress && 'no non-loopback IPv4 address' }, async () => {
    const [page, sfu] = [await udpSocket(), await udpSocket(otherLocalAddress)];
    block.sockets.push(page, sfu);
    const pageProxy = await block.relay.register({ peer: 'p7', remotePeer: 'sfu', address: HOST, port: page.address().port, bindAddress: otherLocalAddress });
    const sfuProxy = await block.relay.register({ peer: 'sfu', remotePeer: 'p7', address: otherLocalAddress, port: sfu.address().port });
    block.relay.configure({ links: { 'p7.up': params(), 'p7.down': params() }, routes: { 'p7->sfu': ['p7.up'], 'sfu->p7': ['p7.down'] } });
    const [atPage, atSfu] = [collect(page), collect(sfu)];
    page.send(Buffer.from('ping'), sfuProxy, HOST);
    await sleep(50);
    sfu.send(Buffer.from('pong'), pageProxy, otherLocalAddress);
    await sleep(50);
    assert.deepEqual(atSfu.map(({ payload, sourceAddress, sourcePort }) => [String(payload), sourceAddress, sourcePort]), [['ping', otherLocalAddress, pageProxy]]);
    assert.deepEqual(atPage.map(({ payload, sourceAddress, sourcePort }) => [String(payload), sourceAddress, sourcePort]), [['pong', HOST, sfuProxy]]);
    await assert.rejects(block.relay.register({ peer: 'p7', remotePeer: 'sfu', address: HOST, port: 9, bindAddress: 'sfu.local' }), { name: 'InputError' });
  });

  test('register is idempotent per (peer, remote peer, candidate) and distinct per remote peer', async () => {
    const socket = await udpSocket();
    block.sockets.push(socket);
    const candidate = { peer: 'p2', remotePeer: 'p3', address: HOST, port: socket.address().port };
    const [first, second] = await Promise.all([block.relay.register(candidate), block.relay.register(candidate)]);
    assert.equal(first, second);
    assert.notEqual(await block.relay.register({ ...candidate, remotePeer: 'p4' }), first);
    await assert.rejects(block.relay.register({ ...candidate, address: '::1' }), { name: 'InputError' });
  });

  test('datagrams from unregistered sources are dropped and counted', async () => {
    const { socketB, proxyB } = await pair('p5', 'p6');
    const atB = collect(socketB);
    const stranger = await udpSocket();
    block.sockets.push(stranger);
    const before = block.relay.stats().dropsUnknownSource;
    for (let i = 0; i < 5; i++) stranger.send(Buffer.from('intrusion'), proxyB, HOST);
    await sleep(100);
    assert.equal(atB.length, 0);
    assert.equal(block.relay.stats().dropsUnknownSource - before, 5);
  });

  test('2000 datagrams that arrive while the relay\'s event loop is stalled are all forwarded, none lost in its socket', async () => {
    const { socketA, socketB, proxyB } = await pair('p7', 'p8');
    socketB.setRecvBufferSize(4 * 1024 * 1024);
    const atB = collect(socketB);
    const before = block.relay.stats().forwardedPackets;
    // The sends reach the kernel before the relay reads any: 2.4 MB wait in its socket, as in a 20 ms stall at 100 000 p/s.
    for (let i = 0; i < 2000; i++) socketA.send(Buffer.alloc(1200, i % 256), proxyB, HOST);
    for (let waitedMs = 0; atB.length < 2000 && waitedMs < 2000; waitedMs += 50) await sleep(50);
    assert.equal(block.relay.stats().forwardedPackets - before, 2000);
    assert.equal(atB.length, 2000);
  });
});

describe('relay load, reconfiguration, traces and tunnels (in-process relay)', () => {
  const block = inProcessRelay();
  const { pair } = block;

  test('the relay reports its own load per second: the datagrams it took in and sent, its busy share and lateness', async () => {
    const { socketA, socketB, proxyB } = await pair('p9', 'p10');
    const atB = collect(socketB);
    // The second in progress holds the earlier tests' datagrams: let it close first.
    await sleep(1100);
    block.relay.loadTruth();
    for (let i = 0; i < 100; i++) socketA.send(Buffer.from('load'), proxyB, HOST);
    await sleep(2100);
    const rows = block.relay.loadTruth();
    assert.ok(rows.length >= 1, 'a completed second gives a row');
    assert.equal(atB.length, 100);
    assert.equal(rows.reduce((sum, row) => sum + row.packetsIn, 0), 100);
    assert.equal(rows.reduce((sum, row) => sum + row.packetsOut, 0), 100);
    const busy = rows.find((row) => row.packetsOut > 0);
    assert.ok(busy.busyPct > 0 && busy.busyPct <= 100 && busy.lateMsMax !== null, JSON.stringify(rows));
  });

  test('a rate change keeps the queued packets and serves them at the new rate', async () => {
    const { socketA, socketB, proxyB } = await pair('p7', 'p8');
    const atB = collect(socketB);
    // 472 + 28 bytes at 100 kbps = 40 ms each: 20 packets would take 800 ms.
    block.relay.configure({ links: { 'p7.up': params({ rateKbps: 100, queuePackets: 100 }) } });
    const sentMs = performance.now();
    for (let i = 0; i < 20; i++) socketA.send(encodeProbe(i, 0, 472), proxyB, HOST);
    await sleep(100);
    block.relay.configure({ links: { 'p7.up': params({ rateKbps: 10_000, queuePackets: 1 }) } }); // 0.4 ms each, tiny queue
    await sleep(200);
    assert.deepEqual(atB.map(({ payload }) => decodeProbe(payload).seq), [...Array(20).keys()]);
    assert.ok(atB.at(-1).atMs - sentMs < 250, `last packet after ${(atB.at(-1).atMs - sentMs).toFixed(0)} ms`);
    assert.equal(block.relay.stats().links['p7.up'].dropsQueue, 0);
  });

  test('a trace whose timestamps are not finite cannot make the relay spin: it is refused before a link uses it', () => {
    // A 309-digit line parsed to Infinity, which crosses IPC as null: the timer re-armed every 1 ms and delivered nothing.
    const link = { ...params(), trace: 'huge' };
    for (const opportunitiesMs of [[0, 10, Infinity], [0, 10, null], [0, Number.NaN, 20], [5, 3], [0, MAX_TRACE_MS + 1], []]) {
      const trace = { name: 'huge', opportunitiesMs, periodMs: opportunitiesMs.at(-1) };
      assert.throws(() => block.relay.configure({ links: { 'p9.up': link }, traces: { huge: trace } }), { name: 'InputError', message: /^relay trace huge/ },
        JSON.stringify(opportunitiesMs));
    }
    assert.throws(() => block.relay.configure({ links: { 'p9.up': link } }), /names trace huge, which was not given/, 'a refused trace is not kept');
  });

  test('a route naming an unknown link is refused', () => {
    assert.throws(() => block.relay.configure({ routes: { 'p0->p1': ['p0.up', 'nowhere'] } }), { name: 'InputError', message: /nowhere/ });
  });

  test('a tunnel carries whole packets between its two bridges, each way over its own route, charged at their own size', async () => {
    const [left, right, stranger] = [await udpSocket(), await udpSocket(), await udpSocket()];
    block.sockets.push(left, right, stranger);
    block.relay.configure({ links: { 'tun.fwd': params(), 'tun.back': params() } });
    const { leftPort, rightPort } = await block.relay.registerTunnel({
      name: 'flow', forward: ['tun.fwd'], back: ['tun.back'],
      left: { address: HOST, port: left.address().port }, right: { address: HOST, port: right.address().port },
    });
    const [atLeft, atRight] = [collect(left), collect(right)];
    const before = block.relay.stats();
    left.send(Buffer.alloc(1500, 1), leftPort, HOST);
    right.send(Buffer.alloc(52, 2), rightPort, HOST);
    stranger.send(Buffer.alloc(100), leftPort, HOST);
    await sleep(50);
    assert.deepEqual(atRight.map(({ payload, sourcePort }) => [payload.length, payload[0], sourcePort]), [[1500, 1, rightPort]]);
    assert.deepEqual(atLeft.map(({ payload, sourcePort }) => [payload.length, payload[0], sourcePort]), [[52, 2, leftPort]]);
    const after = block.relay.stats();
    assert.equal(after.dropsUnknownSource - before.dropsUnknownSource, 1);
    assert.equal(after.links['tun.fwd'].bytesIn, 1500, 'no UDP/IP overhead added: the payload is an IP packet');
    assert.equal(after.links['tun.back'].bytesIn, 52);
    await sleep(1000);
    const truth = block.relay.tunnelTruth();
    const total = (direction, field) => truth.filter((row) => row.direction === direction).reduce((sum, row) => sum + row[field], 0);
    assert.deepEqual([total('forward', 'bytesIn'), total('forward', 'bytesOut'), total('back', 'packetsOut')], [1500, 1500, 1]);
    assert.ok(truth.length > 0, 'truth: nothing to check');
    assert.ok(truth.every((row) => row.flow === 'flow'));
    await assert.rejects(block.relay.registerTunnel({ name: 'flow', forward: ['tun.fwd'], back: ['tun.back'], left: { address: HOST, port: 1 }, right: { address: HOST, port: 2 } }),
      { name: 'InputError', message: /exists already/ });
    await assert.rejects(block.relay.registerTunnel({ name: 'other', forward: ['nowhere'], back: ['tun.back'], left: { address: HOST, port: 1 }, right: { address: HOST, port: 2 } }),
      { name: 'InputError', message: /forward route .*unknown: nowhere/ });
  });

  test('a tunnel counts its own drops (full queue, random loss) and its packets\' time through the route, per second', async () => {
    const [left, right] = [await udpSocket(), await udpSocket()];
    block.sockets.push(left, right);
    // 1000-byte packets at 1000 kbps leave every 8 ms: a burst of 30 into a 5-packet queue overflows it.
    block.relay.configure({
      links: { 'drop.fwd': params({ rateKbps: 1000, queuePackets: 5, oneWayDelayMs: 20 }), 'drop.back': params({ lossPct: 100 }) },
    });
    const { leftPort, rightPort } = await block.relay.registerTunnel({
      name: 'lossy', forward: ['drop.fwd'], back: ['drop.back'],
      left: { address: HOST, port: left.address().port }, right: { address: HOST, port: right.address().port },
    });
    const atRight = collect(right);
    for (let i = 0; i < 30; i++) left.send(Buffer.alloc(1000, i), leftPort, HOST);
    for (let i = 0; i < 10; i++) right.send(Buffer.alloc(60, i), rightPort, HOST);
    await sleep(1200);
    const rows = block.relay.tunnelTruth().filter((row) => row.flow === 'lossy');
    const total = (direction, field) => rows.filter((row) => row.direction === direction).reduce((sum, row) => sum + row[field], 0);
    const links = block.relay.stats().links;
    assert.ok(links['drop.fwd'].dropsQueue > 10, `the queue dropped ${links['drop.fwd'].dropsQueue} of 30`);
    assert.deepEqual([total('forward', 'dropsQueue'), total('forward', 'packetsOut'), total('forward', 'dropsLoss')],
      [links['drop.fwd'].dropsQueue, atRight.length, 0], 'the tunnel\'s drops are the link\'s: it is the only flow there');
    assert.equal(total('forward', 'packetsIn'), total('forward', 'packetsOut') + total('forward', 'dropsQueue'));
    assert.deepEqual([total('back', 'dropsLoss'), total('back', 'dropsQueue'), total('back', 'packetsOut')], [10, 0, 0]);
    // Through the route: the link's 20 ms, the queue's wait (up to 5 packets of 8 ms) and the packet's own 8 ms.
    const delays = rows.filter((row) => row.direction === 'forward' && row.packetsOut > 0).map((row) => row.oneWayDelayMsP50);
    assert.ok(delays.length > 0 && delays.every((ms) => ms >= 20 && ms < 20 + 6 * 8 + 30), `one-way p50 ${delays}`);
    const nothingOut = rows.filter((row) => row.packetsOut === 0);
    assert.ok(nothingOut.length > 0 && nothingOut.every((row) => row.oneWayDelayMsP50 === null), 'no delay without a packet out (the lost way back)');
  });
});

describe('relay child process lifetime', () => {
  test('the relay process exits when its parent dies', async () => {
    const script = `import { startRelayProcess } from ${JSON.stringify(CLIENT_URL)};
      const relay = await startRelayProcess();
      console.log(relay.pid);
      setInterval(() => {}, 1000);`;
    const parent = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const [line] = await once(parent.stdout, 'data');
      const relayPid = Number(String(line).trim());
      assert.ok(isAlive(relayPid));
      parent.kill('SIGKILL');
      const deadlineMs = performance.now() + 5000;
      while (isAlive(relayPid) && performance.now() < deadlineMs) await sleep(50);
      assert.equal(isAlive(relayPid), false, `relay ${relayPid} outlived its parent`);
    } finally {
      parent.kill('SIGKILL');
    }
  });

  test('close() ends the process and later calls fail clearly', async () => {
    const relay = await startRelayProcess();
    await relay.close();
    assert.equal(isAlive(relay.pid), false);
    await assert.rejects(relay.stats(), /relay process \d+ exited/);
  });

  test('errors cross the IPC boundary with their class', async () => {
    const relay = await startRelayProcess();
    try {
      await assert.rejects(relay.configure({ routes: { 'p0->p1': ['missing'] } }), { name: 'InputError', message: /missing/ });
    } finally {
      await relay.close();
    }
  });
});

describe('calibration arithmetic', () => {
  test('99 % Wilson interval: the bounds are where the score test is exactly at z = 2.576', () => {
    const [low, high] = binomialInterval99(50, 1000);
    for (const bound of [low, high]) {
      const z = Math.abs(0.05 - bound) / Math.sqrt((bound * (1 - bound)) / 1000);
      assert.ok(Math.abs(z - 2.5758) < 1e-3, `z at ${bound} is ${z}`);
    }
    assert.ok(low < 0.05 && high > 0.05);
    assert.deepEqual(binomialInterval99(0, 0), [0, 1]);
    assert.equal(binomialInterval99(0, 100)[0], 0);
  });

  test('summary of a synthetic trace: rate over the window, delay error, loss', () => {
    // 10 packets of 97 + 28 bytes = 1000 bits sent every 1 ms, received every 2 ms (500 kbps) 10 ms later; seq 9 lost.
    const received = Array.from({ length: 9 }, (_, seq) => ({ seq, sendMs: 1000 + seq, recvMs: 1010 + 2 * seq }));
    const trace = { startMs: 1000, endMs: 1030, packetsSent: 10, payloadBytes: 97, received };
    const summary = summarizeProbe(
      trace, params({ oneWayDelayMs: 10 }), { offeredKbps: 1000, payloadBytes: 97, durationMs: 10, warmupMs: 12 },
    );
    assert.equal(summary.achievedKbps, 500); // window starts at 1012: packets 1..8
    assert.equal(summary.oneWayDelayMsP50, 14);
    assert.equal(summary.delayErrorMsP50, 4);
    assert.equal(summary.lossPct, 10);
    assert.equal(summary.packetsReceived, 9);
  });
});

describe('relay packet paths (in-process relay)', () => {
  // Node's dgram always; the native addon too where `npm run setup` built it (then 'auto' must pick it).
  const paths = /** @type {Array<'dgram'|'native'>} */ (packetPath.kind === 'native' ? ['dgram', 'native'] : ['dgram']);
  for (const path of paths) {
    test(`the ${path} path forwards in both directions and names itself in stats and load rows`, async () => {
      const relay = new UdpRelay({ seed: 1, packetPath: path });
      await relay.start();
      const [socketA, socketB] = [await udpSocket(), await udpSocket()];
      try {
        const proxyA = await relay.register({ peer: 'a', remotePeer: 'b', address: HOST, port: socketA.address().port });
        const proxyB = await relay.register({ peer: 'b', remotePeer: 'a', address: HOST, port: socketB.address().port });
        relay.configure({
          links: { 'a.up': params({ oneWayDelayMs: 5 }), 'b.up': params(), 'a.down': params(), 'b.down': params() },
          routes: { 'a->b': ['a.up', 'b.down'], 'b->a': ['b.up', 'a.down'] },
        });
        const [atA, atB] = [collect(socketA), collect(socketB)];
        for (let i = 0; i < 10; i++) socketA.send(Buffer.from(`ping ${i}`), proxyB, HOST);
        socketB.send(Buffer.from('pong'), proxyA, HOST);
        await sleep(1100);
        assert.deepEqual(atB.map(({ payload, sourcePort }) => [String(payload), sourcePort]), Array.from({ length: 10 }, (_, i) => [`ping ${i}`, proxyA]));
        assert.deepEqual(atA.map(({ payload, sourcePort }) => [String(payload), sourcePort]), [['pong', proxyB]]);
        assert.equal(relay.stats().packetPath, path);
        const rows = relay.loadTruth();
        assert.ok(rows.length > 0, 'a second closed');
        assert.ok(rows.every((row) => row.packetPath === path), JSON.stringify(rows));
      } finally {
        await closeAll([socketA, socketB]);
        await relay.close();
      }
    });
  }
  test('auto takes the native path when it is built', () => assert.equal(new UdpRelay({ packetPath: 'auto' }).stats().packetPath, packetPath.kind));
  test('runs take the native path when built (auto) unless $WEBRTC_TESTBED_RELAY_PACKET_PATH picks another path', () => {
    assert.equal(process.env.WEBRTC_TESTBED_RELAY_PACKET_PATH ?? 'auto', 'auto', 'this test needs the variable unset');
    assert.equal(new UdpRelay().stats().packetPath, packetPath.kind);
  });
});
