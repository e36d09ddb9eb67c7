// The relay a grid-node runs for the peers on its machine: the relay process of emulators/relay/ (the same link model),
// controlled over HTTP by the orchestrator of one run at a time. A run opens it with a secret of its own, proven with the
// Grid's registration secret (which only the hub's owner gives out); every later message must carry that run secret,
// and one that does not is refused and counted. Each run gets a fresh relay process, closed with the run; a run that
// has said nothing for RUN_IDLE_MS (its orchestrator died) keeps it until the next run opens, which closes it.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import dgram from 'node:dgram';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { isIPv4 } from 'node:net';
import { startRelayProcess } from '../relay/client.js';
import { readProcessMemory } from './process-memory.js';

/** A control message's body: a whole scenario's traces fit. */
export const MAX_CONTROL_BYTES = 4 * 1024 * 1024;
/** A run that has sent nothing for this long may be replaced by another (the run reads truth every second). */
export const RUN_IDLE_MS = 30_000;
const METHODS = ['configure', 'restartTraces', 'register', 'truth', 'stats', 'probe', 'processMemory', 'close'];
/** A path probe: at most this many datagrams, at least this far apart, and echoes awaited this long after the last. */
export const PROBE_LIMITS = { maxCount: 200, minIntervalMs: 1, maxIntervalMs: 1000, waitMs: 1000 };
const TOKEN_BYTES = 16;

/** The first bytes of every probe datagram of a run: a node's echo answers only its open run's probes. @param {string} runSecret */
const probeToken = (runSecret) => createHash('sha256').update(`wtb-node-relay-probe:${runSecret}`).digest().subarray(0, TOKEN_BYTES);

/** A UDP socket bound on address (any free port). @param {string} address @returns {Promise<dgram.Socket>} */
const udpSocket = (address) => new Promise((resolve, reject) => {
  const socket = dgram.createSocket('udp4');
  socket.once('error', reject);
  socket.bind({ address, port: 0 }, () => { socket.off('error', reject); socket.on('error', () => {}); resolve(socket); });
});

/**
 * Sends `count` probes, `intervalMs` apart, from a fresh socket to another node's echo; resolves with the round-trip
 * times of the echoes that came back (in ms, in the order sent).
 * @param {{ address: string, token: Buffer, to: { address: string, port: number }, count: number, intervalMs: number }} probe
 */
async function sendProbes({ address, token, to, count, intervalMs }) {
  const socket = await udpSocket(address);
  /** @type {Map<number, number>} sequence → round-trip ms */
  const rtts = new Map();
  const sentAt = new Map();
  socket.on('message', (message) => {
    if (message.length !== TOKEN_BYTES + 4 || !message.subarray(0, TOKEN_BYTES).equals(token)) return;
    const sequence = message.readUInt32BE(TOKEN_BYTES);
    if (sentAt.has(sequence) && !rtts.has(sequence)) rtts.set(sequence, performance.now() - sentAt.get(sequence));
  });
  for (let sequence = 0; sequence < count; sequence++) {
    const datagram = Buffer.alloc(TOKEN_BYTES + 4);
    token.copy(datagram);
    datagram.writeUInt32BE(sequence, TOKEN_BYTES);
    sentAt.set(sequence, performance.now());
    socket.send(datagram, to.port, to.address);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  await new Promise((resolve) => setTimeout(resolve, PROBE_LIMITS.waitMs));
  socket.close();
  const inOrder = [...rtts.keys()].sort((a, b) => a - b);
  return { sent: count, rttMs: inOrder.map((sequence) => Number(/** @type {number} */ (rtts.get(sequence)).toFixed(3))) };
}

// any: the request's JSON params, checked field by field below
/** @param {any} params @returns {{ to: { address: string, port: number }, count: number, intervalMs: number }} */
function checkProbe(params) {
  const { address, port, count, intervalMs } = params ?? {};
  if (!isIPv4(address) || !Number.isInteger(port) || port < 1 || port > 65535) throw new Error('probe: params.address and params.port must be an IPv4 address and 1..65535');
  if (!Number.isInteger(count) || count < 1 || count > PROBE_LIMITS.maxCount) throw new Error(`probe: params.count must be 1..${PROBE_LIMITS.maxCount}`);
  if (!Number.isInteger(intervalMs) || intervalMs < PROBE_LIMITS.minIntervalMs || intervalMs > PROBE_LIMITS.maxIntervalMs) {
    throw new Error(`probe: params.intervalMs must be ${PROBE_LIMITS.minIntervalMs}..${PROBE_LIMITS.maxIntervalMs}`);
  }
  return { to: { address, port }, count, intervalMs };
}

/**
 * What a run sends to open a node relay: proof that it holds the registration secret, bound to its run secret.
 * @param {string} registrationSecret @param {string} runSecret
 */
export const openProof = (registrationSecret, runSecret) => createHmac('sha256', registrationSecret).update(`wtb-node-relay-open:${runSecret}`).digest('hex');

/** @param {unknown} given @param {string} expected */
const sameSecret = (given, expected) => typeof given === 'string' && given.length === expected.length
  && timingSafeEqual(Buffer.from(given), Buffer.from(expected));

/**
 * The control port: POSTed JSON messages, each at most MAX_CONTROL_BYTES, answered by handle.
 * @param {(message: any, from: string) => Promise<{ status: number, body: object }>} handle  any: a node's message, checked there
 * @returns {http.Server}
 */
function controlServer(handle) {
  return http.createServer((request, response) => {
    const from = `${request.socket.remoteAddress}:${request.socket.remotePort}`;
    const reply = (/** @type {number} */ status, /** @type {object} */ body) => {
      response.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
    };
    if (request.method !== 'POST') return reply(405, { error: 'POST a JSON control message' });
    let size = 0;
    /** @type {Buffer[]} */
    const chunks = [];
    request.on('data', (chunk) => {
      size += chunk.length;
      if (size > MAX_CONTROL_BYTES) { reply(413, { error: `a control message is at most ${MAX_CONTROL_BYTES} bytes` }); request.destroy(); } else chunks.push(chunk);
    });
    request.on('end', async () => {
      if (size > MAX_CONTROL_BYTES) return;
      let message;
      try {
        message = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return reply(400, { error: 'the body is not JSON' });
      }
      try {
        const { status, body } = await handle(message, from);
        reply(status, body);
      } catch (error) {
        reply(400, { error: String(error.message).slice(0, 500) });
      }
    });
  });
}

/**
 * @param {{ address: string, port?: number, registrationSecret: string, log: (line: string) => void,
 *   processRoot?: () => number|null }} options
 *   address: the node's IPv4 address, where the control server and the relay's sockets listen; processRoot: the
 *   Selenium node's pid once it runs, whose descendants' memory a run may read (processMemory)
 * @returns {Promise<{ control: string, refused: () => number, close: () => Promise<void> }>}  control: address:port
 */
export async function startNodeRelay({ address, port = 0, registrationSecret, log, processRoot = () => null }) {
  /** @type {{ secret: string, relay: import('../relay/client.js').RelayProcess, lastMs: number, token: Buffer }|null} */
  let run = null;
  let refused = 0;
  // Echoes the open run's path probes from other nodes (the real path between the machines, outside any link).
  const echo = await udpSocket(address);
  echo.on('message', (message, from) => {
    const ours = run && message.length === TOKEN_BYTES + 4 && message.subarray(0, TOKEN_BYTES).equals(run.token);
    if (ours) echo.send(message, from.port, from.address);
  });
  const closeRun = async () => {
    const closing = run;
    run = null;
    await closing?.relay.close();
  };
  /** @param {string} why @param {string} from */
  const refuse = (why, from) => {
    refused += 1;
    log(`node relay: refused a control message from ${from}: ${why} (${refused} refused so far)`);
    return { status: 403, body: { error: `refused: ${why}` } };
  };
  // any: a parsed JSON request, checked field by field below
  /** @param {any} message @param {string} from @returns {Promise<{ status: number, body: object }>} */
  const handle = async (message, from) => {
    if (message?.method === 'open') {
      const secret = message.params?.runSecret;
      if (typeof secret !== 'string' || secret.length < 32 || secret.length > 128) return { status: 400, body: { error: 'params.runSecret must be 32 to 128 characters' } };
      if (!sameSecret(message.params?.proof, openProof(registrationSecret, secret))) return refuse('open without proof of the Grid\'s registration secret', from);
      if (run && Date.now() - run.lastMs < RUN_IDLE_MS) return { status: 409, body: { error: 'another run holds this node relay; retry when it ends' } };
      await closeRun();
      run = { secret, relay: await startRelayProcess({ host: address }), lastMs: Date.now(), token: probeToken(secret) };
      log(`node relay: opened for a run by ${from}`);
      return { status: 200, body: { result: { echoPort: echo.address().port } } };
    }
    if (!run || !sameSecret(message?.secret, run.secret)) return refuse('no open run with that secret', from);
    if (!METHODS.includes(message.method)) return { status: 400, body: { error: `unknown method; use one of ${METHODS.join(', ')}` } };
    run.lastMs = Date.now();
    if (message.method === 'close') {
      await closeRun();
      return { status: 200, body: { result: null } };
    }
    const { relay, token } = run;
    if (message.method === 'probe') {
      return { status: 200, body: { result: await sendProbes({ address, token, ...checkProbe(message.params) }) } };
    }
    if (message.method === 'processMemory') {
      const rootPid = processRoot();
      if (rootPid === null) return { status: 409, body: { error: 'this grid-node\'s Selenium node is not running yet; retry' } };
      return { status: 200, body: { result: readProcessMemory({ pids: message.params?.pids, rootPid }) } };
    }
    // any: the request's JSON params, whose shape depends on the method
    const result = await /** @type {Record<string, (params: any) => Promise<unknown>>} */ ({
      configure: (params) => relay.configure(params), restartTraces: (epochMs) => relay.restartTraces(epochMs),
      register: (params) => relay.register(params), truth: () => relay.truth(), stats: async () => ({ ...await relay.stats(), refused }),
    })[message.method](message.params);
    return { status: 200, body: { result: result ?? null } };
  };
  const server = controlServer(handle);
  await new Promise((resolve, reject) => server.once('error', reject).listen(port, address, () => resolve(undefined)));
  const bound = /** @type {import('node:net').AddressInfo} */ (server.address());
  return {
    control: `${address}:${bound.port}`,
    refused: () => refused,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(() => resolve(undefined)));
      echo.close();
      await closeRun();
    },
  };
}
