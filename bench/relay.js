// Relay benchmark: prints figures, asserts nothing.
//  1. CPU share of the relay child (process.cpuUsage / wall time) carrying 4 x 2.5 Mbps flows in each
//     direction (4 peer pairs, conditions on every uplink: 25 ms delay, 5 Mbps cap). Target < 15 % of one core.
//  2. Added one-way delay at zero configured delay: the probe through the relay vs the same probe sent
//     straight over loopback, in the same run. Target: median < 0.5 ms.
//  3. Saturation: 4 peer pairs both ways (8 flows, 25 ms delay and a cap on every uplink) offered more and more
//     packets/s by relay-load.c until the relay process uses a whole core or falls behind, for 1200-byte and 200-byte
//     payloads; then the added delay (median, p99) and what arrived at 25, 50 and 90 % of that load. A fresh relay per
//     step, so its own lateness figures cover that step alone. The relay's CPU comes from /proc/<pid>/stat.
//     Beside it the figures of the dgram packet path as README recorded them before the native one (noisy machine).
// Usage: node bench/relay.js [--seconds 10] [--step-seconds 3] [--sizes 1200,200] [--skip-default]
//   [--packet-path auto|native|dgram]  the relay's sockets and timer (auto: the native addon when built)
//   [--repeat 3]  each of part 3's 25/50/90 % points measured that often (the median p99 is the figure)
//   [--at-pps 55900]  instead of part 3's ramp, only that load (all flows together), --repeat times
//   [--relay-flags='--single-threaded-gc ...']  the relay child's V8 flags instead of its own (to compare them)
import dgram from 'node:dgram';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { normalizeLinkParams, UDP_IPV4_OVERHEAD_BYTES } from '../orchestrator/lib/network/link-model.js';
import { startRelayProcess } from '../orchestrator/emulators/relay/client.js';
import { createRelayProbePath } from '../orchestrator/emulators/relay/probe-path.js';
import { raisePriority } from '../orchestrator/emulators/priority.js';
import { probeClockMs, runProbe, summarizeProbe } from '../orchestrator/emulators/calibration.js';
import { atLoad, saturation } from './relay-saturation.js';

const HOST = '127.0.0.1';
const PAIRS = 4;
const FLOW_KBPS = 2500;
const PAYLOAD_BYTES = 1200;
const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    'step-seconds': { type: 'string', default: '3' },
    sizes: { type: 'string', default: '1200,200' },
    'skip-default': { type: 'boolean', default: false },
    'packet-path': { type: 'string', default: 'auto' },
    'at-pps': { type: 'string' },
    repeat: { type: 'string', default: '1' },
    'relay-flags': { type: 'string' },
  },
});
const packetPath = /** @type {'auto'|'native'|'dgram'} */ (values['packet-path']);
if (!['auto', 'native', 'dgram'].includes(packetPath)) throw new Error(`--packet-path must be auto, native or dgram, got ${packetPath}`);
const durationMs = Number(values.seconds) * 1000;
const nodeFlags = values['relay-flags']?.split(' ').filter(Boolean);
const atPps = values['at-pps'] === undefined ? null : Number(values['at-pps']);
const repeat = Number(values.repeat);
if (atPps !== null && !(atPps > 0)) throw new Error(`--at-pps must be a positive packets/s figure, got ${values['at-pps']}`);
if (!Number.isInteger(repeat) || repeat < 1) throw new Error(`--repeat must be a whole number ≥ 1, got ${values.repeat}`);

const unconstrained = normalizeLinkParams({}, 'bench');
const uplink = normalizeLinkParams({ rateKbps: 5000, queueMs: 300, oneWayDelayMs: 25 }, 'bench');

async function udpSocket() {
  const socket = dgram.createSocket('udp4');
  await new Promise((resolve) => { socket.bind({ address: HOST, port: 0 }, () => resolve(undefined)); });
  return socket;
}
/** @param {dgram.Socket[]} sockets */
const closeAll = (sockets) => Promise.all(sockets.map((socket) => new Promise((resolve) => socket.close(() => resolve(undefined)))));

/**
 * 4 pairs, each sending FLOW_KBPS both ways through the relay for durationMs.
 * @param {import('../orchestrator/emulators/relay/client.js').RelayProcess} relay
 */
async function cpuShare(relay) {
  const peers = Array.from({ length: PAIRS * 2 }, (_, i) => `p${i}`);
  const sockets = await Promise.all(peers.map(() => udpSocket()));
  /** @type {Record<string, import('../orchestrator/lib/network/link-model.js').LinkParams>} */
  const links = {};
  /** @type {Record<string, string[]>} */
  const routes = {};
  const flows = [];
  let receivedPackets = 0;
  for (const socket of sockets) socket.on('message', () => { receivedPackets++; });
  for (let pair = 0; pair < PAIRS; pair++) {
    const [a, b] = [2 * pair, 2 * pair + 1];
    /** @type {Record<number, number>} proxy port by peer index */
    const proxyOf = {};
    for (const [self, remote] of [[a, b], [b, a]]) {
      proxyOf[self] = await relay.register({
        peer: peers[self], remotePeer: peers[remote], address: HOST, port: sockets[self].address().port,
      });
      links[`${peers[self]}.up`] = uplink;
      links[`${peers[self]}.down`] = unconstrained;
      routes[`${peers[self]}->${peers[remote]}`] = [`${peers[self]}.up`, `${peers[remote]}.down`];
    }
    flows.push({ socket: sockets[a], toPort: proxyOf[b] }, { socket: sockets[b], toPort: proxyOf[a] });
  }
  await relay.configure({ links, routes });

  const payload = Buffer.alloc(PAYLOAD_BYTES);
  const intervalMs = ((PAYLOAD_BYTES + UDP_IPV4_OVERHEAD_BYTES) * 8) / FLOW_KBPS;
  const before = await relay.stats();
  const startMs = probeClockMs();
  let sentPerFlow = 0;
  while (probeClockMs() - startMs < durationMs) {
    const due = Math.floor((probeClockMs() - startMs) / intervalMs) + 1;
    for (; sentPerFlow < due; sentPerFlow++) for (const { socket, toPort } of flows) socket.send(payload, toPort, HOST);
    await sleep(2);
  }
  const after = await relay.stats();
  await sleep(500); // let the 25 ms delay line drain before counting
  await closeAll(sockets);
  const wallMs = after.uptimeMs - before.uptimeMs;
  const sharePct = (/** @type {number} */ us) => (us / 1000 / wallMs) * 100;
  return {
    userPct: sharePct(after.cpuUserUs - before.cpuUserUs),
    systemPct: sharePct(after.cpuSystemUs - before.cpuSystemUs),
    forwardedPerS: ((after.forwardedPackets - before.forwardedPackets) * 1000) / wallMs,
    deliveredPct: (100 * receivedPackets) / (sentPerFlow * flows.length),
    carriedMbps: ((after.forwardedBytes - before.forwardedBytes
      + UDP_IPV4_OVERHEAD_BYTES * (after.forwardedPackets - before.forwardedPackets)) * 8) / wallMs / 1000,
  };
}

/**
 * A ProbePath straight over loopback: the baseline the relay's added delay is measured against.
 * @returns {Promise<import('../orchestrator/emulators/calibration.js').ProbePath>}
 */
async function directPath() {
  const [sender, receiver] = [await udpSocket(), await udpSocket()];
  /** @type {(payload: Buffer, atMs: number) => void} */
  let handler = () => {};
  receiver.on('message', (payload) => handler(payload, probeClockMs()));
  return {
    configure: async () => {},
    send: (payload) => sender.send(payload, receiver.address().port, HOST),
    onReceive: (next) => { handler = next; },
    close: () => closeAll([sender, receiver]).then(() => undefined),
  };
}

/** @param {import('../orchestrator/emulators/calibration.js').ProbePath} path */
async function delayAt(path) {
  const probe = { offeredKbps: 912, payloadBytes: 200, durationMs: Math.min(durationMs, 5000), warmupMs: 0 }; // 500 packets/s
  await path.configure(unconstrained);
  return summarizeProbe(await runProbe(path, probe, unconstrained), unconstrained, probe);
}

// Measure with an instrument that the machine's other load cannot delay (the relay raises its own priority).
await raisePriority(process.pid);
if (!values['skip-default']) await defaultLoad();
for (const payloadBytes of values.sizes.split(',').map(Number)) {
  const stepMs = Number(values['step-seconds']) * 1000;
  if (atPps === null) await saturation({ payloadBytes, stepMs, repeat, packetPath, nodeFlags });
  else await atLoad({ payloadBytes, totalPps: atPps, stepMs, repeat, packetPath, nodeFlags });
}

async function defaultLoad() {
  const relay = await startRelayProcess({ seed: 1, packetPath }, { nodeFlags });
  try {
    const load = await cpuShare(relay);
    console.log(`relay CPU with ${PAIRS} x ${FLOW_KBPS / 1000} Mbps each way (${load.carriedMbps.toFixed(1)} Mbps, ${load.forwardedPerS.toFixed(0)} packets/s forwarded, ${load.deliveredPct.toFixed(1)} % delivered):`);
    console.log(`  ${(load.userPct + load.systemPct).toFixed(1)} % of one core (target < 15 %): user ${load.userPct.toFixed(1)} %, system ${load.systemPct.toFixed(1)} %`);
    const { sendLateMs: { p50, p99, max }, priority } = await relay.stats();
    console.log(`  send lateness against schedule: p50 ${p50} ms, p99 ${p99} ms, max ${max} ms (relay priority: ${priority})`);

    const relayPath = await createRelayProbePath(relay);
    const direct = await directPath();
    try {
      const viaRelay = await delayAt(relayPath);
      const baseline = await delayAt(direct);
      const [viaP50, viaP99] = [viaRelay.oneWayDelayMsP50, viaRelay.oneWayDelayMsP99];
      const [baseP50, baseP99] = [baseline.oneWayDelayMsP50, baseline.oneWayDelayMsP99];
      console.log('one-way delay at 0 ms configured, 500 packets/s of 200 B:');
      if (viaP50 === null || viaP99 === null || baseP50 === null || baseP99 === null) {
        console.log(`  no probe packet arrived (${viaP50 === null ? 'through the relay' : 'over loopback'}); check the relay's stats above`);
      } else {
        console.log(`  loopback direct  median ${baseP50.toFixed(3)} ms, p99 ${baseP99.toFixed(3)} ms`);
        console.log(`  through relay    median ${viaP50.toFixed(3)} ms, p99 ${viaP99.toFixed(3)} ms`);
        console.log(`  added by relay   median ${(viaP50 - baseP50).toFixed(3)} ms (target < 0.5 ms), p99 ${(viaP99 - baseP99).toFixed(3)} ms`);
      }
    } finally {
      await relayPath.close();
      await direct.close();
    }
  } finally {
    await relay.close();
  }
}
