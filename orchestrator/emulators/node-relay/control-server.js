// The relay a grid-node runs for the peers on its machine: the relay process of emulators/relay/ (the same link model),
// controlled over HTTP by the orchestrator of one run at a time. A run opens it with a nonce the node issued and an
// HMAC of the Grid's registration secret (which only the hub's owner gives out); every later request carries an HMAC
// of the run's own key (control-auth.js). A request is admitted by its headers alone: one that is not the run's is
// refused, counted and (at most every REFUSAL_LOG_INTERVAL_MS) logged before a byte of its body is read. Each run gets
// a fresh relay process, closed with the run; a run that has said nothing for RUN_IDLE_MS (its orchestrator died)
// keeps it until the next run opens, which closes it.
import { randomBytes } from 'node:crypto';
import dgram from 'node:dgram';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { startRelayProcess } from '../relay/client.js';
import { AUTH_HEADER, NONCE_TTL_MS, checkAuth, issueNonce, nonceIsFresh, runKey, sequenceGuard, sha256Hex } from './control-auth.js';
import { PROBE_LIMITS, runParamsChecker } from './control-params.js';
import { readProcessMemory } from './process-memory.js';
import { HarnessError, errorMessage } from '../../lib/system/errors.js';

/** A control message's body: a whole scenario's traces fit. Only an admitted request's body is read. */
export const MAX_CONTROL_BYTES = 4 * 1024 * 1024;
/** A run that has sent nothing for this long may be replaced by another (the run reads truth every second). */
export const RUN_IDLE_MS = 30_000;
/** Connections the control port holds at once (a run uses a few); more are closed as they come. */
export const MAX_CONNECTIONS = 32;
/** A request's headers must come within HEADERS_TIMEOUT_MS, the whole request (4 MiB at 2 Mbit/s) within REQUEST_TIMEOUT_MS. */
export const HEADERS_TIMEOUT_MS = 2_000;
const REQUEST_TIMEOUT_MS = 20_000;
/** Refusals are logged at most this often: each line counts those that were not. */
const REFUSAL_LOG_INTERVAL_MS = 10_000;
const METHODS = ['configure', 'restartTraces', 'register', 'truth', 'stats', 'probe', 'processMemory', 'close'];
const TOKEN_BYTES = 16;
const PROBE_TOKEN = /^[0-9a-f]{32}$/;
/** @type {Reply} */
const HELD = { status: 409, body: { error: 'another run holds this node relay; retry when it ends' } };

/**
 * @typedef {{ status: number, body: object }} Reply
 * @typedef {{ key: string, fresh: (counter: string) => boolean, check: import('./control-params.js').ParamsCheck,
 *   relay: import('../relay/client.js').RelayProcess, lastMs: number, token: Buffer }} Run
 *   key: the run key; fresh: its sequence numbers; check: its params (control-params.js);
 *   token: the first bytes of its path probes, the same on every node of the run
 * @typedef {{ reply: Reply } | { bodySha256: string, nonce?: string, run?: Run }} Admission
 *   reply: answered from the headers, the body left unread; else the body must have bodySha256 (nonce: an open's)
 */

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

/**
 * The control port: each POST /<method> is admitted by its headers alone; only then is its body read (at most
 * MAX_CONTROL_BYTES, with a Content-Length, its SHA-256 the one admitted) and handled. A reply given without reading
 * the body closes the connection, so the rest of that body is never read.
 * @param {{ admit: (method: string, auth: unknown, from: string) => Admission,
 *   handle: (method: string, params: unknown, admitted: Exclude<Admission, { reply: Reply }>, from: string) => Promise<Reply> }} handlers
 */
function controlServer({ admit, handle }) {
  const timeouts = { headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS, connectionsCheckingInterval: 500 };
  /** @type {WeakMap<import('node:net').Socket, NodeJS.Timeout>} each connection's deadline for its first request */
  const firstRequest = new WeakMap();
  const server = http.createServer(timeouts, (request, response) => {
    clearTimeout(firstRequest.get(request.socket));
    const from = `${request.socket.remoteAddress}:${request.socket.remotePort}`;
    const send = (/** @type {Reply} */ { status, body }, close = false) => {
      response.writeHead(status, { 'Content-Type': 'application/json', ...(close ? { Connection: 'close' } : {}) }).end(JSON.stringify(body));
    };
    if (request.method !== 'POST') return send({ status: 405, body: { error: 'POST /<method> with its x-wtb-auth header' } }, true);
    const admitted = admit((request.url ?? '').slice(1), request.headers[AUTH_HEADER], from);
    if ('reply' in admitted) return send(admitted.reply, true);
    const declared = Number(request.headers['content-length'] ?? 0);
    if (request.headers['transfer-encoding'] !== undefined || !(declared <= MAX_CONTROL_BYTES)) {
      return send({ status: 413, body: { error: `a control message is at most ${MAX_CONTROL_BYTES} bytes, sent with a Content-Length` } }, true);
    }
    /** @type {Buffer[]} */
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', async () => {
      const body = Buffer.concat(chunks);
      if (sha256Hex(body) !== admitted.bodySha256) return send({ status: 400, body: { error: 'the body is not the one its x-wtb-auth header was made for' } });
      let params;
      try {
        params = body.length === 0 ? undefined : JSON.parse(body.toString('utf8'));
      } catch {
        return send({ status: 400, body: { error: 'the body is not JSON' } });
      }
      try {
        send(await handle((request.url ?? '').slice(1), params, admitted, from));
      } catch (error) {
        send({ status: 400, body: { error: errorMessage(error).slice(0, 500) } });
      }
    });
  });
  server.maxConnections = MAX_CONNECTIONS;
  // headersTimeout counts from a request's first byte: a connection that sends no request in time is closed here.
  server.on('connection', (socket) => {
    const timer = setTimeout(() => socket.destroy(), HEADERS_TIMEOUT_MS);
    firstRequest.set(socket, timer);
    socket.once('close', () => clearTimeout(timer));
  });
  return server;
}

/**
 * Counts refusals and logs them, at most one line every REFUSAL_LOG_INTERVAL_MS: a flood of them is one line.
 * @param {(line: string) => void} log
 */
function refusals(log) {
  let count = 0;
  let unlogged = 0;
  let loggedMs = -Infinity;
  return {
    count: () => count,
    /** @param {string} why @param {string} from @returns {Reply} */
    refuse(why, from) {
      count += 1;
      if (Date.now() - loggedMs >= REFUSAL_LOG_INTERVAL_MS) {
        log(`node relay: refused a control message from ${from}: ${why} (${count} refused so far${unlogged ? `, ${unlogged} of them not logged` : ''})`);
        loggedMs = Date.now();
        unlogged = 0;
      } else unlogged += 1;
      return { status: 403, body: { error: `refused: ${why}` } };
    },
  };
}

/**
 * One request of the open run (but close), its params checked first.
 * @param {Run} run @param {string} method @param {unknown} params
 * @param {{ address: string, processRoot: () => number|null, refused: number }} node
 * @returns {Promise<Reply>}
 */
async function runRequest({ relay, token, check }, method, params, { address, processRoot, refused }) {
  /** @param {unknown} result @returns {Reply} */
  const ok = (result) => ({ status: 200, body: { result: result ?? null } });
  switch (method) {
    case 'probe': return ok(await sendProbes({ address, token, ...check('probe', params) }));
    case 'processMemory': {
      const pids = check('processMemory', params);
      const rootPid = processRoot();
      if (rootPid === null) return { status: 409, body: { error: 'this grid-node\'s Selenium node is not running yet; retry' } };
      return ok(readProcessMemory({ pids, rootPid }));
    }
    case 'configure': return ok(await relay.configure(check('configure', params)));
    case 'restartTraces': return ok(await relay.restartTraces(check('restartTraces', params)));
    case 'register': return ok(await relay.register(check('register', params)));
    case 'truth': check('truth', params); return ok(await relay.truth());
    case 'stats': check('stats', params); return ok({ ...await relay.stats(), refused });
    default: throw new HarnessError(`node relay: no handler for the admitted method ${method}`);
  }
}

/**
 * @param {{ address: string, port?: number, label: string, registrationSecret: string, log: (line: string) => void,
 *   processRoot?: () => number|null }} options
 *   address: the node's IPv4 address, where the control server and the relay's sockets listen; label: the node's
 *   (grid-node --label), which every request's HMAC names; processRoot: the Selenium node's pid once it runs, whose
 *   descendants' memory a run may read (processMemory)
 * @returns {Promise<{ control: string, refused: () => number, close: () => Promise<void> }>}  control: address:port
 */
export async function startNodeRelay({ address, port = 0, label, registrationSecret, log, processRoot = () => null }) {
  /** @type {Run|null} */
  let run = null;
  let opening = false;
  const nodeKey = randomBytes(32);
  /** @type {Map<string, number>} nonces that opened a run (or tried to, with a valid proof), until they expire */
  const usedNonces = new Map();
  const refused = refusals(log);
  // Echoes the open run's path probes from other nodes (the real path between the machines, outside any link).
  const echo = await udpSocket(address);
  echo.on('message', (message, from) => {
    const ours = run && message.length === TOKEN_BYTES + 4 && message.subarray(0, TOKEN_BYTES).equals(run.token);
    if (ours) echo.send(message, from.port, from.address);
  });
  // Another run holds the relay while it opens or talks; one silent for RUN_IDLE_MS is replaced.
  const held = () => opening || (run !== null && Date.now() - run.lastMs < RUN_IDLE_MS);
  const closeRun = async () => {
    const closing = run;
    run = null;
    await closing?.relay.close();
  };
  /** @type {(method: string, auth: unknown, from: string) => Admission} */
  const admit = (method, auth, from) => {
    if (method === 'nonce') return { reply: { status: 200, body: { result: { nonce: issueNonce(nodeKey) } } } };
    if (method === 'open') {
      const proof = checkAuth(auth, registrationSecret, { label, method });
      if (!proof || !nonceIsFresh(nodeKey, proof.counter) || usedNonces.has(proof.counter)) {
        return { reply: refused.refuse('open without a fresh proof of the Grid\'s registration secret for this node', from) };
      }
      for (const [nonce, usedMs] of usedNonces) if (Date.now() - usedMs > NONCE_TTL_MS) usedNonces.delete(nonce);
      usedNonces.set(proof.counter, Date.now());
      if (held()) return { reply: HELD };
      return { bodySha256: proof.bodySha256, nonce: proof.counter };
    }
    const current = run;
    const request = current && checkAuth(auth, current.key, { label, method });
    if (!current || !request || !current.fresh(request.counter)) return { reply: refused.refuse('not a request of the open run, or one seen before', from) };
    if (!METHODS.includes(method)) return { reply: { status: 400, body: { error: `unknown method; use one of ${METHODS.join(', ')}` } } };
    current.lastMs = Date.now();
    return { bodySha256: request.bodySha256, run: current };
  };
  /** @param {string} nonce @param {unknown} params @param {string} from @returns {Promise<Reply>} */
  const open = async (nonce, params, from) => {
    const probeToken = /** @type {{ probeToken?: unknown }} */ (params)?.probeToken;
    if (typeof probeToken !== 'string' || !PROBE_TOKEN.test(probeToken)) return { status: 400, body: { error: 'open: params.probeToken must be 32 hex digits' } };
    if (held()) return HELD;
    opening = true;
    try {
      await closeRun();
      run = {
        key: runKey(registrationSecret, label, nonce), fresh: sequenceGuard(), check: runParamsChecker(address),
        relay: await startRelayProcess({ host: address }), lastMs: Date.now(), token: Buffer.from(probeToken, 'hex'),
      };
    } finally {
      opening = false;
    }
    log(`node relay: opened for a run by ${from}`);
    return { status: 200, body: { result: { echoPort: echo.address().port } } };
  };
  /** @type {Parameters<typeof controlServer>[0]['handle']} */
  const handle = async (method, params, admitted, from) => {
    if (admitted.nonce) return open(admitted.nonce, params, from);
    if (!admitted.run || admitted.run !== run) return { status: 409, body: { error: 'the run was closed meanwhile' } };
    if (method !== 'close') return runRequest(admitted.run, method, params, { address, processRoot, refused: refused.count() });
    admitted.run.check(method, params);
    await closeRun();
    return { status: 200, body: { result: null } };
  };
  const server = controlServer({ admit, handle });
  await new Promise((resolve, reject) => server.once('error', reject).listen(port, address, () => resolve(undefined)));
  const bound = /** @type {import('node:net').AddressInfo} */ (server.address());
  return {
    control: `${address}:${bound.port}`,
    refused: refused.count,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(() => resolve(undefined)));
      echo.close();
      await closeRun();
    },
  };
}
