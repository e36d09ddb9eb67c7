// livekit-server as a process the run owns: a generated configuration (its API key and secret) in <runDir>/livekit/
// (0700, files 0600: never on its command line), free ports, started, checked (its HTTP API answers), and stopped by
// its registered closer. Like Janus it may run inside the emulator's SFU namespace.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { shellJoin } from '../../emulators/script.js';
import { EnvironmentError, errorCode, errorMessage, errorProperty } from '../../lib/system/errors.js';
import { makePrivateDir, writeSecretFile } from '../../lib/system/files.js';
import { LIVEKIT_SERVER_VERSION, livekitServerPath } from '../../lib/system/paths.js';
import { checkedVersion } from '../contract.js';
import { freePort, logTail, ownedArgv, spawnOwned } from '../owned-process.js';
import { livekitConfig } from './config.js';

const READY_TIMEOUT_MS = 15_000;
/** livekit-server closes its rooms on SIGTERM; it waits for participants to leave, up to a few seconds. */
const STOP_TIMEOUT_MS = 5_000;
const INSTALL_HINT = `build it with \`npm run setup\` (livekit-server ${LIVEKIT_SERVER_VERSION} from the Go module proxy, with Go ≥ 1.24)`;

/**
 * @typedef {import('../owned-process.js').RegisterCleanup} RegisterCleanup
 * @typedef {object} LivekitServer
 * @property {string} url          its HTTP API (and ws:// signaling at the same place)
 * @property {string} apiKey
 * @property {string} apiSecret
 * @property {string} iceAddress
 * @property {number} udpPort
 * @property {number|null} tcpPort  its ICE-TCP port, when asked
 * @property {string|null} version
 * @property {string} logFile
 * @property {number} pid
 * @property {() => Promise<void>} close
 */

/**
 * @param {object} options
 * @param {string} options.runDir
 * @param {RegisterCleanup} options.registerCleanup
 * @param {(record: import('../../emulators/command-runner.js').CommandRecord) => void} [options.logCommand]
 * @param {() => number} [options.clock]
 * @param {string} options.iceAddress
 * @param {{ netns: string, address: string }} [options.host]
 * @param {string} [options.pagesAddress]  outside a namespace, where its API listens for the pages (default loopback)
 * @param {boolean} [options.iceTcp]   also offer passive TCP candidates (a peer of the run has no UDP)
 * @param {string} [options.binary]   default: where setup builds it
 * @param {string} [options.searchPath]
 * @returns {Promise<LivekitServer>}
 */
export async function startLivekit({
  runDir, registerCleanup, logCommand = () => {}, clock, iceAddress, host, pagesAddress = '127.0.0.1', iceTcp = false, binary = livekitServerPath(), searchPath = process.env.PATH ?? '',
}) {
  if (!existsSync(binary)) throw new EnvironmentError(`livekit-server not found at ${binary}; ${INSTALL_HINT}.`);
  const startedMs = Date.now();
  // The pages signal to it themselves: its API listens where they reach this host (under --grid, from other machines).
  const address = host?.address ?? pagesAddress;
  const dir = path.join(path.resolve(runDir), 'livekit');
  const configFile = path.join(dir, 'livekit.yaml');
  const logFile = path.join(dir, 'livekit.log');
  const apiKey = `wtb${randomBytes(6).toString('hex')}`;
  const apiSecret = randomBytes(24).toString('hex');
  // A run's namespace is new and holds nothing else, so ports free on the host's loopback are free there too.
  const apiHost = host ? '127.0.0.1' : address;
  const [httpPort, udpPort, tcpPort] = [await freePort(apiHost), await freeUdpPort(), iceTcp ? await freePort('127.0.0.1') : null];
  await rm(dir, { recursive: true, force: true });
  await makePrivateDir(dir);
  await writeSecretFile(configFile, livekitConfig({ address, httpPort, iceAddress, udpPort, tcpPort, apiKey, apiSecret }));
  await writeSecretFile(logFile, '');
  const argv = ownedArgv([binary, '--config', configFile], { netns: host?.netns, searchPath, what: 'livekit-server' });
  const atS = Number((clock?.() ?? (Date.now() - startedMs) / 1000).toFixed(3));
  const server = spawnOwned({ name: 'livekit-server', argv, consoleFile: logFile, registerCleanup, stopTimeoutMs: STOP_TIMEOUT_MS });
  const url = `http://${address}:${httpPort}`;
  const failure = await waitUntilReady(url, server.exitReason) ?? (server.pid === undefined ? 'answered, but not as the process started here' : null);
  const record = { atS, cmd: shellJoin(argv), ok: !failure, ...(failure ? { stderr: failure } : {}) };
  logCommand(record);
  if (failure || server.pid === undefined) {
    await server.release().catch(() => {});
    throw new EnvironmentError(`livekit-server did not start: it ${failure}. Command: ${record.cmd}\nIts log (${logFile}) ends:\n${logTail([logFile]) || '(empty)'}\n`
      + `The lines above name the cause (a port in use, a configuration error); fix it and run again, or rebuild: ${INSTALL_HINT}.`);
  }
  const version = checkedVersion(LIVEKIT_SERVER_VERSION);
  return { url, apiKey, apiSecret, iceAddress, udpPort, tcpPort, version, logFile, pid: server.pid, close: server.release };
}

/** A UDP port free on loopback now (its media port). @returns {Promise<number>} */
async function freeUdpPort() {
  const dgram = await import('node:dgram');
  return new Promise((resolve, reject) => {
    const socket = dgram.createSocket('udp4');
    socket.once('error', reject);
    socket.bind(0, '127.0.0.1', () => {
      const { port } = socket.address();
      socket.close(() => resolve(port));
    });
  });
}

/**
 * Polls until its HTTP API answers `OK` at its root.
 * @param {string} url @param {() => string|null} exitReason @returns {Promise<string|null>} null when ready
 */
async function waitUntilReady(url, exitReason) {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let lastError = 'no answer';
  while (Date.now() < deadline) {
    if (exitReason()) return exitReason();
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(1_000) });
      const text = (await response.text()).slice(0, 200);
      if (response.ok && text.trim() === 'OK') return null;
      lastError = `answered ${response.status} ${JSON.stringify(text)}`;
    } catch (error) {
      lastError = errorCode(errorProperty(error, 'cause')) ?? errorMessage(error);
    }
    await sleep(100);
  }
  return exitReason() ?? `was not ready within ${READY_TIMEOUT_MS / 1000} s (${url}: ${lastError})`;
}
