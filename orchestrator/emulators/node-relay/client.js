// The orchestrator's side of a grid-node's relay (control-server.js): its methods as promises over HTTP, every reply
// checked and bounded here, with errors that name the node and the field.
import { checkMemoryReply, checkPidList } from '../../lib/devices/process-memory.js';
import { EnvironmentError } from '../../lib/system/errors.js';
import { openProof } from './control-server.js';

const CONTROL_TIMEOUT_MS = 10_000;
/** A reply's size and a truth reply's rows: a second of a few links, read every second. */
const MAX_REPLY_BYTES = 1024 * 1024;
const MAX_TRUTH_ROWS = 10_000;
const MAX_LINK_NAME_CHARS = 64;

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
 * Opens the node's relay for this run.
 * @param {{ label: string, control: string, registrationSecret: string, runSecret: string }} options
 * @returns {Promise<NodeRelayClient>}
 */
export async function openNodeRelay({ label, control, registrationSecret, runSecret }) {
  const where = `grid-node ${label}'s relay (${control})`;
  /** @param {string} method @param {unknown} [params] @param {boolean} [open] */
  const call = async (method, params, open = false) => {
    const body = JSON.stringify(open ? { method, params } : { method, params, secret: runSecret });
    let response;
    try {
      response = await fetch(`http://${control}/`, {
        method: 'POST', body, headers: { 'Content-Type': 'application/json' }, signal: AbortSignal.timeout(CONTROL_TIMEOUT_MS),
      });
    } catch (error) {
      throw new EnvironmentError(`${where} does not answer ${method}: ${error.cause?.message ?? error.message}; check that the node runs and its relay's port is open to this host`);
    }
    const text = await response.text();
    if (text.length > MAX_REPLY_BYTES) throw new EnvironmentError(`${where}: the reply to ${method} is over ${MAX_REPLY_BYTES} bytes`);
    let reply;
    try {
      reply = JSON.parse(text);
    } catch {
      throw new EnvironmentError(`${where}: the reply to ${method} is not JSON; is ${control} a grid-node's relay?`);
    }
    if (!response.ok) {
      const error = typeof reply?.error === 'string' ? reply.error.slice(0, 300) : `HTTP ${response.status}`;
      throw new EnvironmentError(`${where} refused ${method}: ${error}`);
    }
    return reply?.result;
  };
  const opened = await call('open', { runSecret, proof: openProof(registrationSecret, runSecret) }, true);
  const echoPort = opened?.echoPort;
  if (!Number.isInteger(echoPort) || echoPort < 1 || echoPort > 65535) {
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
      if (!Number.isInteger(port) || port < 1 || port > 65535) throw new EnvironmentError(`${where}: register's port ${JSON.stringify(port)?.slice(0, 40)} is not 1..65535`);
      return port;
    },
    truth: async () => checkTruth(await call('truth'), where),
    async stats() {
      const stats = await call('stats');
      if (!Number.isInteger(stats?.refused) || stats.refused < 0) throw new EnvironmentError(`${where}: stats.refused is not a count`);
      return stats;
    },
    async probe(probe) {
      const reply = await call('probe', probe);
      const rtts = reply?.rttMs;
      const valid = Array.isArray(rtts) && rtts.length <= probe.count && rtts.every((ms) => Number.isFinite(ms) && ms >= 0);
      if (reply?.sent !== probe.count || !valid) {
        throw new EnvironmentError(`${where}: probe's reply is not { sent: ${probe.count}, rttMs: up to ${probe.count} round trips in ms }`);
      }
      return { sent: reply.sent, rttMs: rtts };
    },
    async processMemory(pids) {
      const reply = await call('processMemory', { pids: checkPidList(pids) });
      try {
        return checkMemoryReply(reply, pids);
      } catch (error) {
        throw new EnvironmentError(`${where}: ${error.message}`);
      }
    },
    close: async () => { await call('close'); },
  };
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
