// The relay benchmarks' load: relay-load.c (built here with cc) sends paced UDP flows through a relay and measures
// what arrives with kernel receive timestamps; the relay's CPU is read from /proc/<pid>/stat. See relay-load.c for
// the line protocol.
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { UDP_IPV4_OVERHEAD_BYTES } from '../orchestrator/lib/network/link-model.js';
import { parseStat } from '../orchestrator/lib/devices/proc-stat.js';
import { raisePriority } from '../orchestrator/emulators/priority.js';
import { errorMessage } from '../orchestrator/lib/system/errors.js';

const SOURCE = fileURLToPath(new URL('./relay-load.c', import.meta.url));
const HOST = '127.0.0.1';

/** Builds relay-load.c once per source version into the temp directory. @returns {string} the binary's path */
function build() {
  const source = readFileSync(SOURCE);
  const binary = join(tmpdir(), `relay-load-${createHash('sha256').update(source).digest('hex').slice(0, 12)}`);
  if (existsSync(binary)) return binary;
  try {
    execFileSync('cc', ['-O2', '-Wall', '-o', binary, SOURCE], { stdio: ['ignore', 'inherit', 'inherit'] });
  } catch (error) {
    throw new Error(`cannot build ${SOURCE} with cc (${errorMessage(error)}); install a C compiler (apt-get install gcc).`, { cause: error });
  }
  return binary;
}

/**
 * @typedef {object} FlowSpec  one UDP flow from peer `from` to peer `to` through the relay
 * @property {string} from
 * @property {string} to
 * @property {number} mediaBytes  UDP payload
 * @property {number} mediaPps
 * @property {number} [rtcpBytes]
 * @property {number} [rtcpPps]
 *
 * @typedef {object} FlowResult
 * @property {number} sent
 * @property {number} received
 * @property {number} receivedKbps  payload + UDP/IPv4 headers of the packets sent after warm-up, over the window
 * @property {number|null} delayMsP50  one-way, sender's sendmmsg to the kernel's receive time, packets sent after warm-up
 * @property {number|null} delayMsP99
 * @property {number|null} delayMsMax
 */

/**
 * Starts the generator, registers each flow's two sockets with the relay (from's sender towards to, to's receiver
 * towards from) and points each sender at its proxy port. Links and routes are the caller's.
 * @param {{register: (candidate: {peer: string, remotePeer: string, address: string, port: number}) => Promise<number>}} relay
 * @param {FlowSpec[]} flows
 */
export async function startLoad(relay, flows) {
  const child = spawn(build(), [], { stdio: ['pipe', 'pipe', 'inherit'] });
  // The generator is the instrument: at normal priority on a busy machine it was preempted between stamping a burst
  // and sendmmsg putting it in the relay's socket, and that wait counted as delay the relay added.
  if (child.pid !== undefined) await raisePriority(child.pid);
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const next = async () => {
    const { value, done } = await lines.next();
    if (done) throw new Error('relay-load exited early; its stderr above says why');
    return value;
  };
  child.stdin.write(`flows ${flows.length}\n${flows.map((f) => `${f.mediaBytes} ${f.mediaPps} ${f.rtcpBytes ?? 0} ${f.rtcpPps ?? 0}\n`).join('')}`);
  const ports = (await next()).split(' ').slice(1).map(Number);
  const targets = [];
  for (const [index, { from, to }] of flows.entries()) {
    await relay.register({ peer: from, remotePeer: to, address: HOST, port: ports[2 * index] });
    targets.push(await relay.register({ peer: to, remotePeer: from, address: HOST, port: ports[2 * index + 1] }));
  }
  child.stdin.write(`connect ${targets.join(' ')}\n`);
  await next();
  return {
    /**
     * Sends every flow at scale x its rates for durationMs, then reads for drainMs more.
     * @param {{durationMs: number, scale?: number, warmupMs?: number, drainMs?: number}} options
     * @returns {Promise<FlowResult[]>}
     */
    async run({ durationMs, scale = 1, warmupMs = 500, drainMs = 400 }) {
      child.stdin.write(`run ${Math.round(durationMs)} ${scale} ${warmupMs} ${drainMs}\n`);
      const results = [];
      for (let i = 0; i < flows.length; i++) {
        const [sent, received, packetsInWindow, bytesInWindow, windowUs, p50Us, p99Us, maxUs] = (await next()).split(' ').slice(1).map(Number);
        results.push({
          sent,
          received,
          receivedKbps: ((bytesInWindow + UDP_IPV4_OVERHEAD_BYTES * packetsInWindow) * 8) / (windowUs / 1000),
          delayMsP50: p50Us < 0 ? null : p50Us / 1000,
          delayMsP99: p99Us < 0 ? null : p99Us / 1000,
          delayMsMax: maxUs / 1000,
        });
      }
      return results;
    },
    async close() {
      child.stdin.end('quit\n');
      await exited;
    },
  };
}

/** CPU seconds (user + system, all threads) the process has used so far, from /proc/<pid>/stat. @param {number} pid */
export function cpuSeconds(pid) {
  const ticksPerS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
  return parseStat(readFileSync(`/proc/${pid}/stat`, 'utf8')).cpuTicks / ticksPerS;
}
