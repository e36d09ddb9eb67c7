/**
 * Calibrating the netem backend: the shared paced UDP probe (calibration.js) from p0's namespace to p1's with
 * the conditions on p0.up, plus iperf3 TCP and UDP through htb caps. Used by `calibrate --emulator netem`.
 */
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { describeKind, fieldOf, pathOf } from '../../lib/input/validate.js';
import { EnvironmentError, HarnessError } from '../../lib/system/errors.js';
import { UDP_IPV4_OVERHEAD_BYTES } from '../../lib/network/link-model.js';
import { binomialInterval99, decodeProbe, probeClockMs } from '../calibration.js';
import { netemCapabilities, unmetRequirements } from './capabilities.js';
import { createNetemEmulator } from './index.js';

/** @typedef {import('../../lib/network/link-model.js').LinkParams} LinkParams */
/** @typedef {ReturnType<typeof import('./index.js').createNetemEmulator>} NetemEmulator */
/**
 * What this file reads of iperf3's --json client report (iperf3 publishes no schema for it): the receiver's rate, and
 * what turns it into an IP-level rate: a UDP test's datagram payload and counts, a TCP one's segment size.
 * @typedef {{ protocol: 'UDP', bitsPerSecond: number, blksize: number, lostPackets: number, packets: number }
 *   | { protocol: 'TCP', bitsPerSecond: number, mss: number }} Iperf3Result
 */

const ENDPOINT_SCRIPT = fileURLToPath(new URL('./udp-endpoint.js', import.meta.url));
const PROBE_PORT = 5300;
const IPERF3_PORT = 5201;
/** The spec's tolerance for htb under iperf3 (TCP's own dynamics make it looser than the UDP probe's). */
export const IPERF3_RATE_TOLERANCE_PCT = 5;
/** IPv4 20 + TCP 20 + timestamp option 12 bytes on every segment. */
const TCP_IPV4_OVERHEAD_BYTES = 52;
const IPERF3_UDP_PAYLOAD_BYTES = 1200;

/**
 * Children run at normal scheduling even when calibrate raised itself to SCHED_FIFO (inherited on fork):
 * a real-time Node spins in its own waits and starves the parent; a real-time iperf3 would starve the machine.
 */
/** @param {string} netns @param {...string} args */
const inNetnsNormal = (netns, ...args) => ['chrt', '--other', '0', 'ip', 'netns', 'exec', netns, ...args];

/** @type {LinkParams} */
const UNCONSTRAINED = {
  rateKbps: null, queuePackets: 50, queueMs: null, oneWayDelayMs: 0, jitterMs: 0, lossPct: 0, lossBurst: null, trace: null,
};

/**
 * Starts an endpoint child inside a namespace and waits until its socket is bound.
 * @param {string} netns @param {'send'|'receive'} mode @param {string} host @param {number} port
 */
async function startEndpoint(netns, mode, host, port) {
  const [command, ...args] = inNetnsNormal(netns, process.execPath, ENDPOINT_SCRIPT, mode, host, String(port));
  const child = spawn(command, args, {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'], serialization: 'advanced',
  });
  /** @type {unknown[]} */
  const [first] = await Promise.race([
    once(child, 'message'),
    once(child, 'exit').then(([code]) => { throw new HarnessError(`netem calibration: the ${mode} endpoint in ${netns} exited (code ${code}) before binding ${host}:${port}`); }),
  ]);
  if (!fieldOf(first, 'ready')) throw new HarnessError(`netem calibration: unexpected first message from the ${mode} endpoint`);
  return child;
}

/** @param {import('node:child_process').ChildProcess} child */
async function stopEndpoint(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill();
  await exited;
}

/**
 * A two-peer netem topology with nothing configured, for calibration.
 * @returns {Promise<NetemEmulator>}
 */
async function startCalibrationEmulator() {
  const compiled = {
    links: { 'p0.up': UNCONSTRAINED, 'p0.down': UNCONSTRAINED, 'p1.up': UNCONSTRAINED, 'p1.down': UNCONSTRAINED },
    routes: { 'p0->p1': ['p0.up', 'p1.down'], 'p1->p0': ['p1.up', 'p0.down'] },
    events: [],
    traces: {},
    traceStepMs: 0,
  };
  const emulator = createNetemEmulator({ peers: ['p0', 'p1'], compiled, runId: `cal${process.pid.toString(36)}` });
  try {
    await emulator.setup();
  } catch (error) {
    await emulator.close();
    throw error;
  }
  return emulator;
}

/** @param {string} text @returns {unknown} */
function parseJson(text) {
  try { return JSON.parse(text); } catch { return null; }
}

/**
 * The fields of an iperf3 client report this file reads; a report without one is a HarnessError naming it.
 * @param {unknown} report @param {string} netns the client's @returns {Iperf3Result}
 */
function iperf3Result(report, netns) {
  /** @param {string} path */
  const number = (path) => {
    const value = pathOf(report, ...path.split('.'));
    if (typeof value === 'number' && Number.isFinite(value)) return value;
    throw new HarnessError(`iperf3 client in ${netns}: its JSON report's ${path} is ${describeKind(value)}, not a number; run it again`);
  };
  const bitsPerSecond = number('end.sum_received.bits_per_second');
  if (pathOf(report, 'start', 'test_start', 'protocol') !== 'UDP') return { protocol: 'TCP', bitsPerSecond, mss: number('start.tcp_mss_default') };
  return {
    protocol: 'UDP', bitsPerSecond, blksize: number('start.test_start.blksize'),
    lostPackets: number('end.sum_received.lost_packets'), packets: number('end.sum_received.packets'),
  };
}

/**
 * iperf3 from p0's namespace to p1's, server started for this one test; what its client reported.
 * @param {NetemEmulator} emulator @param {string[]} args  client arguments (-t, -u, -b, …)
 * @returns {Promise<Iperf3Result>}
 */
export async function runIperf3(emulator, args) {
  const [sender, receiver] = emulator.plan.peers;
  const [serverCommand, ...serverArgs] = inNetnsNormal(receiver.netns, 'iperf3', '-s', '-1', '-p', String(IPERF3_PORT));
  const server = spawn(serverCommand, serverArgs, { stdio: 'ignore' });
  const [clientCommand, ...clientArgs] = inNetnsNormal(sender.netns, 'iperf3', '-c', receiver.address, '-p', String(IPERF3_PORT), '-J', ...args);
  const serverFailed = once(server, 'error').then(([error]) => { throw new EnvironmentError(`iperf3: ${error.message}; install it with \`apt-get install -y iperf3\``); });
  serverFailed.catch(() => {}); // observed by the race below; never unhandled if it fires later
  try {
    for (let attempt = 0; ; attempt++) {
      const { ok, stdout, stderr } = await Promise.race([serverFailed, new Promise((resolve) => {
        execFile(clientCommand, clientArgs, { timeout: 60_000 }, (error, out, err) => resolve({
          ok: !error, stdout: String(out), stderr: String(err),
        }));
      })]);
      const report = parseJson(stdout);
      const error = fieldOf(report, 'error');
      if (ok && pathOf(report, 'end', 'sum_received') && !error) return iperf3Result(report, sender.netns);
      const why = typeof error === 'string' ? error : (stderr.trim() || 'no output');
      // The server needs a moment to listen after it is spawned.
      if (attempt < 10 && why.includes('unable to connect')) {
        await sleep(200);
        continue;
      }
      // Loss on the link can also hit iperf3's control connection, which then ends without the receiver's totals.
      throw new HarnessError(`iperf3 client in ${sender.netns} failed: ${error ? why : `${why}; no receiver totals (loss on the link may have hit iperf3's control connection)`}; run it again`);
    }
  } finally {
    server.kill();
  }
}

/**
 * IP-level kbps (what htb charges) from an iperf3 client report.
 * @param {Iperf3Result} report
 */
export function iperf3IpKbps(report) {
  if (report.protocol === 'UDP') {
    const payload = report.blksize;
    return (report.bitsPerSecond / 1000) * ((payload + UDP_IPV4_OVERHEAD_BYTES) / payload);
  }
  const { mss } = report;
  return (report.bitsPerSecond / 1000) * ((mss + TCP_IPV4_OVERHEAD_BYTES) / mss);
}

/**
 * One iperf3 rate check through an htb cap on p0.up, as a calibrate result row.
 * @param {NetemEmulator} emulator @param {{rateKbps: number, protocol: 'tcp'|'udp', durationS?: number}} check
 */
export async function iperf3RateCheck(emulator, { rateKbps, protocol, durationS = 5 }) {
  const params = { ...UNCONSTRAINED, rateKbps };
  await emulator.apply({ 'p0.up': params });
  const offeredKbps = Math.round(rateKbps * 1.25);
  const args = protocol === 'udp'
    ? ['-u', '-b', `${offeredKbps}k`, '-l', String(IPERF3_UDP_PAYLOAD_BYTES), '-t', String(durationS)]
    : ['-t', String(durationS), '-O', '1'];
  const report = await runIperf3(emulator, args);
  const achievedKbps = Number(iperf3IpKbps(report).toFixed(1));
  const errorPct = (100 * Math.abs(achievedKbps - rateKbps)) / rateKbps;
  const lost = report.protocol === 'UDP' ? report.lostPackets : 0;
  const sent = report.protocol === 'UDP' ? report.packets : 0;
  const [low, high] = binomialInterval99(lost, sent);
  return {
    name: `iperf3-${protocol}-${rateKbps}kbps`,
    configured: params,
    offeredKbps: protocol === 'udp' ? offeredKbps : null,
    achievedKbps,
    oneWayDelayMsP50: null, oneWayDelayMsP99: null, delayErrorMsP50: null, delayErrorMsP99: null,
    packetsSent: sent, packetsReceived: sent - lost,
    lossPct: sent > 0 ? Number(((100 * lost) / sent).toFixed(3)) : 0,
    lossPctCi99: [Number((100 * low).toFixed(3)), Number((100 * high).toFixed(3))],
    failures: errorPct <= IPERF3_RATE_TOLERANCE_PCT ? [] : [`rate off by ${errorPct.toFixed(1)} % (> ${IPERF3_RATE_TOLERANCE_PCT} %)`],
  };
}

/**
 * The calibrate command's netem entry: a ProbePath from p0's namespace to p1's (conditions on p0.up).
 * skipCase names why this kernel cannot run a case (delay without sch_netem); extraChecks runs iperf3
 * TCP and UDP through 1000 and 5000 kbps caps on the same topology.
 * @returns {Promise<{emulator: NetemEmulator, path: import('../calibration.js').ProbePath, close: () => Promise<void>,
 *   stats: () => Promise<object>,
 *   skipCase: (c: {params: LinkParams}) => string|null,
 *   extraChecks: (options?: {onResult?: (result: object) => void}) => Promise<object[]>}>}
 */
export async function openNetemProbePath() {
  const caps = await netemCapabilities();
  const emulator = await startCalibrationEmulator();
  /** @type {import('node:child_process').ChildProcess[]} */
  const endpoints = [];
  const close = async () => {
    await Promise.all(endpoints.map(stopEndpoint));
    await emulator.close();
  };
  try {
    const [sender, receiver] = emulator.plan.peers;
    const receiving = await startEndpoint(receiver.netns, 'receive', receiver.address, PROBE_PORT);
    endpoints.push(receiving);
    const sending = await startEndpoint(sender.netns, 'send', receiver.address, PROBE_PORT);
    endpoints.push(sending);
    /** @type {(payload: Buffer, recvMs: number) => void} */
    let handler = () => {};
    let handlerSinceMs = 0;
    receiving.on('message', (/** @type {unknown} */ message) => {
      // The receiving process sends nothing else; anything else is a fault of this harness.
      const payload = fieldOf(message, 'payload');
      const recvMs = fieldOf(message, 'recvMs');
      if (!(payload instanceof Uint8Array) || typeof recvMs !== 'number') {
        throw new HarnessError(`netem calibration: the receive endpoint sent ${describeKind(message)} without a datagram's payload and recvMs`);
      }
      const bytes = Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
      // A previous case's stragglers (late through a loaded IPC hop) would count as this case's packets.
      if (decodeProbe(bytes).sendMs >= handlerSinceMs) handler(bytes, recvMs);
    });
    /** @param {{ params: LinkParams }} calibrationCase */
    const skipCase = ({ params }) => {
      const missing = unmetRequirements({ links: { 'p0.up': params }, events: [] }, caps);
      return missing.length > 0 ? missing.join('; ') : null;
    };
    return {
      emulator,
      path: {
        configure: async (params) => {
          const reason = skipCase({ params });
          if (reason) throw new EnvironmentError(`netem calibration: ${reason}`);
          await emulator.apply({ 'p0.up': params });
        },
        send: (payload) => sending.send(payload),
        onReceive: (next) => {
          handler = next;
          handlerSinceMs = probeClockMs();
        },
        close,
      },
      close,
      // The kernel keeps no send-lateness figures like the relay's; the command log is what there is.
      stats: async () => ({ commands: emulator.commands.length }),
      skipCase,
      extraChecks: async ({ onResult } = {}) => {
        const results = [];
        for (const protocol of /** @type {const} */ (['tcp', 'udp'])) {
          for (const rateKbps of [1000, 5000]) {
            const result = await iperf3RateCheck(emulator, { rateKbps, protocol });
            onResult?.(result);
            results.push(result);
          }
        }
        return results;
      },
    };
  } catch (error) {
    await close();
    throw error;
  }
}
