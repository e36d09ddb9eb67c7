#!/usr/bin/env node
// Benchmark: what a Grid node's relay costs (emulators/node-relay/: the control server and relay process grid-node
// runs). Two node relays on 127.0.0.1 and 127.0.0.2 stand for two machines, opened by the node-relay backend as a run
// opens them; p0 (on n1) sends 1200-byte datagrams to p1 (on n2) at a few rates, through p0's uplink on n1's relay and
// p1's downlink on n2's, each with 10 ms of delay. The relay processes' CPU comes from /proc (they are this process's
// children). Each datagram crosses both relays once, so one node relay's cost is half the pair's. Prints figures;
// asserts nothing.
//
// Usage: node bench/node-relay.js [--rates 1000,5000,10000] [--seconds 5]
// (it loads the machine: where others share it, run it under the machine's lock, e.g. one-at-a-time)
import dgram from 'node:dgram';
import { readFileSync, readdirSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { startNodeRelay } from '../orchestrator/emulators/index.js';
import { nodeRelayBackend } from '../orchestrator/emulators/node-relay/index.js';
import { compileNetwork } from '../orchestrator/lib/network/schedule.js';

const { values } = parseArgs({ options: { rates: { type: 'string', default: '1000,5000,10000' }, seconds: { type: 'string', default: '5' } } });
const rates = values.rates.split(',').map(Number);
const seconds = Number(values.seconds);
if (!rates.every((rate) => Number.isInteger(rate) && rate >= 100 && rate <= 50_000) || !(seconds >= 1 && seconds <= 60)) {
  throw new Error('--rates: packets/s between 100 and 50000, comma-separated; --seconds: 1 to 60');
}
const PAYLOAD_BYTES = 1200;
const TICK_MS = 5;
const SECRET = 'registration-secret-of-the-bench';
const NODES = { n1: '127.0.0.1', n2: '127.0.0.2' };
const CLOCK_TICKS = 100; // USER_HZ on Linux

/** CPU seconds (user + system) of every child process of this one. @returns {number} */
function childrenCpuS() {
  let ticks = 0;
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    let stat;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[1]) === process.pid) ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks / CLOCK_TICKS;
}

/** @param {string} address @returns {Promise<dgram.Socket>} */
const udpSocket = (address) => new Promise((resolve) => {
  const socket = dgram.createSocket('udp4');
  socket.bind({ address, port: 0 }, () => resolve(socket));
});

const relays = {
  n1: await startNodeRelay({ address: NODES.n1, label: 'n1', registrationSecret: SECRET, log: () => {} }),
  n2: await startNodeRelay({ address: NODES.n2, label: 'n2', registrationSecret: SECRET, log: () => {} }),
};
/** @type {Record<string, 'n1'|'n2'>} */
const placement = { p0: 'n1', p1: 'n2' };
const compiled = compileNetwork({
  name: 'node-relay-bench', peers: 2,
  network: { peers: { p0: { uplink: { oneWayDelayMs: 10 } }, p1: { downlink: { oneWayDelayMs: 10 } } } },
});
const emulator = await nodeRelayBackend.create({
  compiled, peers: ['p0', 'p1'], runId: 'node-relay-bench',
  remotePeers: {
    bindAddress: NODES.n1, registrationSecret: SECRET,
    nodeOf: (peer) => ({ label: placement[peer], address: NODES[placement[peer]], relay: relays[placement[peer]].control }),
  },
});
const sockets = { p0: await udpSocket(NODES.n1), p1: await udpSocket(NODES.n2) };
try {
  // p0 is told p1 on n1's relay; p1's candidate is registered too, so the route exists both ways.
  const toldP0 = await emulator.rewriteCandidate({
    from: 'p1', to: 'p0', candidate: { candidate: `candidate:1 1 udp 2122260223 ${NODES.n2} ${sockets.p1.address().port} typ host` },
  });
  await emulator.rewriteCandidate({
    from: 'p0', to: 'p1', candidate: { candidate: `candidate:1 1 udp 2122260223 ${NODES.n1} ${sockets.p0.address().port} typ host` },
  });
  if (!toldP0) throw new Error('the node relays did not relay p1\'s candidate');
  const [, , , , address, port] = toldP0.candidate.split(' ');
  let received = 0;
  sockets.p1.on('message', () => { received += 1; });
  const payload = Buffer.alloc(PAYLOAD_BYTES);
  console.log(`node relay cost, ${PAYLOAD_BYTES}-byte datagrams, ${seconds} s per rate (p0 on n1 → p1 on n2, 10 ms delay on each relay)`);
  for (const rate of rates) {
    received = 0;
    let sent = 0;
    const perTick = rate * TICK_MS / 1000;
    let owed = 0;
    const cpuBefore = childrenCpuS();
    const startMs = performance.now();
    const sender = setInterval(() => {
      owed += perTick;
      for (; owed >= 1; owed -= 1, sent += 1) sockets.p0.send(payload, Number(port), address);
    }, TICK_MS);
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    clearInterval(sender);
    await new Promise((resolve) => setTimeout(resolve, 300)); // the last ones still in the delay lines
    const elapsedS = (performance.now() - startMs) / 1000;
    const pairPct = ((childrenCpuS() - cpuBefore) / elapsedS) * 100;
    const nodePct = pairPct / 2;
    const sentRate = sent / elapsedS;
    const mbps = (sentRate * PAYLOAD_BYTES * 8) / 1e6;
    console.log(`${String(Math.round(sentRate)).padStart(6)} p/s sent (${mbps.toFixed(1)} Mbps): one node relay ${nodePct.toFixed(1)} % of a core`
      + ` = ${(nodePct / mbps).toFixed(2)} % per Mbps, ${(nodePct / (sentRate / 1000)).toFixed(2)} % per 1000 p/s;`
      + ` delivered ${received} of ${sent}`);
  }
} finally {
  for (const socket of Object.values(sockets)) socket.close();
  await emulator.close();
  await Promise.all(Object.values(relays).map((relay) => relay.close()));
}
