// The orchestrator's side of a grid-node's relay (control-server.js): its methods as promises over HTTP, every reply
// checked and bounded here, with errors that name the node and the field.
import { checkMemoryReply, checkPidList } from '../../lib/devices/process-memory.js';
import { readBoundedText } from '../../lib/input/bounded-body.js';
import { fieldOf, isRecord } from '../../lib/input/validate.js';
import { EnvironmentError, errorMessage, errorProperty } from '../../lib/system/errors.js';
import { AUTH_HEADER, authHeader, runKey } from './control-auth.js';

const CONTROL_TIMEOUT_MS = 10_000;
/** A reply's size and a truth reply's rows: a second of a few links, read every second. */
const MAX_REPLY_BYTES = 1024 * 1024;
const MAX_TRUTH_ROWS = 10_000;
const MAX_LINK_NAME_CHARS = 64;
const MAX_NONCE_CHARS = 200;

/**
 * @typedef {object} NodeRelayClient
 * @property {string} label
 * @property {string} address   where the node relay listens
 * @property {number} echoPort  where it echoes the run's path probes
 * @property {(config: object) => Promise<void>} configure
 * @property {(epochMs: number) => Promise<void>} restartTraces
 * @property {(candidate: { peer: string, remotePeer: string, address: string, port: number, bindAddress: string })
 *   => Promise<number>} register
 * @property {() => Promise<Array<{ t: number, link: string } & Record<string, number|null>>>} truth
 * @property {() => Promise<{ refused: number }>} stats
 * @property {(probe: { address: string, port: number, count: number, intervalMs: number })
 *   => Promise<{ sent: number, rttMs: number[] }>} probe
 *   round trips from this node to another's echo
 * @property {(pids: number[]) => Promise<import('../../lib/devices/process-memory.js').ProcessMemory[]>} processMemory
 *   the memory of those of these processes that run under the node's Selenium node (the others left out)
 * @property {() => Promise<void>} close
 */

/**
 * Opens the node's relay for this run: a nonce from the node, then `open` proven with the registration secret over
 * it (control-auth.js); every later request is signed with the key both ends derive for this node and run.
 * @param {{ label: string, control: string, registrationSecret: string, probeToken: string }} options
 *   probeToken: 32 hex digits, the same for every node of the run (their echoes answer the run's probes only)
 * @returns {Promise<NodeRelayClient>}
 */
export async function openNodeRelay({ label, control, registrationSecret, probeToken }) {
  const where = `grid-node ${label}'s relay (${control})`;
  /** @param {string} method @param {string} body @param {string|null} auth */
  const post = (method, body, auth) => postControl({ where, control, method, body, auth });
  const nonce = fieldOf(await post('nonce', '', null), 'nonce');
  if (typeof nonce !== 'string' || !/^\S+$/.test(nonce) || nonce.length > MAX_NONCE_CHARS) {
    throw new EnvironmentError(`${where}: its nonce is not a word of up to ${MAX_NONCE_CHARS} characters; is ${control} a grid-node's relay of this version?`);
  }
  const openBody = JSON.stringify({ probeToken });
  const opened = await post('open', openBody, authHeader(registrationSecret, { label, method: 'open', counter: nonce, body: openBody }));
  const key = runKey(registrationSecret, label, nonce);
  let sequence = 0;
  /** @param {string} method @param {unknown} [params] */
  const call = (method, params) => {
    const body = params === undefined ? '' : JSON.stringify(params);
    sequence += 1;
    return post(method, body, authHeader(key, { label, method, counter: String(sequence), body }));
  };
  const echoPort = fieldOf(opened, 'echoPort');
  if (typeof echoPort !== 'number' || !Number.isInteger(echoPort) || echoPort < 1 || echoPort > 65535) {
    throw new EnvironmentError(`${where}: open's echoPort ${JSON.stringify(echoPort)?.slice(0, 40)} is not 1..65535`);
  }
  return {
    label,
    address: control.slice(0, control.lastIndexOf(':')),
    echoPort,
    configure: async (config) => { await call('configure', config); },
    restartTraces: async (epochMs) => { await call('restartTraces', epochMs); },
    async register(candidate) {
      const port = await call('register', candidate);
      if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535) throw new EnvironmentError(`${where}: register's port ${JSON.stringify(port)?.slice(0, 40)} is not 1..65535`);
      return port;
    },
    truth: async () => checkTruth(await call('truth'), where),
    async stats() {
      const stats = await call('stats');
      if (!isRecord(stats) || typeof stats.refused !== 'number' || !Number.isInteger(stats.refused) || stats.refused < 0) {
        throw new EnvironmentError(`${where}: stats.refused is not a count`);
      }
      return { ...stats, refused: stats.refused };
    },
    async probe(probe) {
      const reply = await call('probe', probe);
      const rtts = fieldOf(reply, 'rttMs');
      const valid = Array.isArray(rtts) && rtts.length <= probe.count && rtts.every((ms) => Number.isFinite(ms) && ms >= 0);
      if (fieldOf(reply, 'sent') !== probe.count || !valid) {
        throw new EnvironmentError(`${where}: probe's reply is not { sent: ${probe.count}, rttMs: up to ${probe.count} round trips in ms }`);
      }
      return { sent: probe.count, rttMs: rtts };
    },
    async processMemory(pids) {
      const reply = await call('processMemory', { pids: checkPidList(pids) });
      try {
        return checkMemoryReply(reply, pids);
      } catch (error) {
        throw new EnvironmentError(`${where}: ${errorMessage(error)}`);
      }
    },
    close: async () => { await call('close'); },
  };
}

/**
 * One request to a node relay: its reply's result, the reply read up to MAX_REPLY_BYTES.
 * @param {{ where: string, control: string, method: string, body: string, auth: string|null }} request
 *   auth: the x-wtb-auth header (control-auth.js), none for a nonce
 * @returns {Promise<unknown>}  the node's JSON result, checked field by field by each method of openNodeRelay
 */
async function postControl({ where, control, method, body, auth }) {
  let response;
  let text;
  try {
    response = await fetch(`http://${control}/${method}`, {
      method: 'POST', body, headers: { 'Content-Type': 'application/json', ...(auth ? { [AUTH_HEADER]: auth } : {}) },
      signal: AbortSignal.timeout(CONTROL_TIMEOUT_MS),
    });
  } catch (error) {
    throw new EnvironmentError(`${where} does not answer ${method}: ${String(errorProperty(errorProperty(error, 'cause'), 'message') ?? errorMessage(error))}; check that the node runs and its relay's port is open to this host`);
  }
  try {
    text = await readBoundedText(response, MAX_REPLY_BYTES, `the reply to ${method}`);
  } catch (error) {
    throw new EnvironmentError(`${where}: ${errorMessage(error)}; is ${control} a grid-node's relay, and does it answer?`);
  }
  /** @type {unknown} */
  let reply;
  try {
    reply = JSON.parse(text);
  } catch {
    throw new EnvironmentError(`${where}: the reply to ${method} is not JSON; is ${control} a grid-node's relay?`);
  }
  if (!response.ok) {
    const refusal = fieldOf(reply, 'error');
    const error = typeof refusal === 'string' ? refusal.slice(0, 300) : `HTTP ${response.status}`;
    throw new EnvironmentError(`${where} refused ${method}: ${error}`);
  }
  return fieldOf(reply, 'result');
}

/**
 * A truth reply: rows of a link name and numbers (or null) only, bounded.
 * @param {unknown} rows @param {string} where
 */
function checkTruth(rows, where) {
  if (!Array.isArray(rows) || rows.length > MAX_TRUTH_ROWS) throw new EnvironmentError(`${where}: truth is not a list of at most ${MAX_TRUTH_ROWS} rows`);
  for (const [index, row] of rows.entries()) {
    if (typeof row?.link !== 'string' || row.link.length > MAX_LINK_NAME_CHARS) throw new EnvironmentError(`${where}: truth[${index}].link is not a link name`);
    for (const [field, value] of Object.entries(row)) {
      if (field !== 'link' && value !== null && !(typeof value === 'number' && Number.isFinite(value))) {
        throw new EnvironmentError(`${where}: truth[${index}].${field.slice(0, 40)} is not a finite number or null`);
      }
    }
  }
  return /** @type {Array<{ t: number, link: string } & Record<string, number|null>>} */ (rows);
}
