/**
 * Janus as a process the run owns: a generated configuration in <runDir>/janus/, free loopback ports, started,
 * checked (the API answers `info`, the Admin API `ping`), and stopped by its registered closer. Under Linux it is
 * started through `setpriv --pdeathsig KILL`, so the kernel kills it when the orchestrator dies, SIGKILL included.
 * With a network namespace (the netem backend's SFU node) it runs inside it through `ip netns exec`, which execs
 * Janus in the same process, so the death signal and the pid carry over; its APIs then listen on the namespace's
 * address, which the orchestrator reaches through the netem router.
 */
import { randomBytes, randomInt } from 'node:crypto';
import { existsSync, readdirSync, realpathSync } from 'node:fs';
import { rm, symlink } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { firstIpv4Address } from '../../emulators/candidates.js';
import { shellJoin } from '../../emulators/script.js';
import { EnvironmentError, errorMessage, errorCode, errorProperty } from '../../lib/system/errors.js';
import { makePrivateDir, writeSecretFile } from '../../lib/system/files.js';
import { findExecutable } from '../../lib/system/paths.js';
import { freePort, logTail, ownedArgv, spawnOwned } from '../owned-process.js';
import { janusPost } from './janus-api.js';
import { ADMIN_BASE_PATH, API_BASE_PATH, VIDEOROOM_PLUGIN, janusConfig } from './janus-config.js';

const READY_TIMEOUT_MS = 10_000;
/** Janus stops its sessions and plugins on SIGTERM; it normally takes well under a second. */
const STOP_TIMEOUT_MS = 5_000;
/** RTP ports come from below Linux's ephemeral range (32768-60999), where the browsers' own sockets live. */
const RTP_RANGE = { lowest: 10_000, highest: 30_000, size: 200 };
const INSTALL_HINT = 'install Janus with `npm run setup` (Debian package `janus`)';

/**
 * @typedef {import('../../emulators/command-runner.js').CommandRecord} CommandRecord
 * @typedef {object} Janus
 * @property {string} apiUrl     the Janus API over HTTP, e.g. http://127.0.0.1:40123/janus
 * @property {string} adminUrl   the Admin API over HTTP
 * @property {string} adminSecret
 * @property {string} apiSecret   every Janus API request carries it (`apisecret`; the long poll as a query parameter)
 * @property {string|null} wsUrl the Janus API over WebSocket (protocol `janus-protocol`) when asked for
 * @property {string} iceAddress the one address Janus's ICE candidates carry
 * @property {{minPort: number, maxPort: number}} rtpPortRange
 * @property {string} logFile
 * @property {number} pid
 * @property {() => Promise<void>} close  SIGTERM, SIGKILL after 5 s; waits for the exit; runs once
 * @property {() => void} closeNow        SIGKILL without waiting (a forced exit)
 */

/** Without a registry the caller closes Janus itself. */
const closeOnly = (/** @type {string} */ _name, /** @type {() => Promise<unknown>} */ close) => async () => { await close(); };

/**
 * @typedef {object} JanusOptions
 * @property {string} runDir   the run directory; Janus's configuration and log go to <runDir>/janus/
 * @property {(name: string, close: () => Promise<unknown>, options?: {timeoutMs?: number, closeNow?: () => void}) => () => Promise<void>}
 *   [registerCleanup]      lib/system/shutdown.js onCleanup (or the run's wrapper of it)
 * @property {(record: CommandRecord) => void} [logCommand]  receives the command line that started Janus
 * @property {() => number} [clock]  seconds on the run's clock for the command record (default: since this call)
 * @property {boolean} [websocket]   also serve the Janus API over WebSocket
 * @property {{httpPort?: number, adminPort?: number, wsPort?: number}} [ports]  fixed ports instead of free ones
 * @property {string} [iceAddress]  the IPv4 address Janus gathers candidates on (default: the first non-loopback one)
 * @property {{ netns: string, address: string }} [host]  run Janus in this network namespace, its APIs bound to
 *   and its candidates gathered on `address` (the namespace's own); default: the root namespace, APIs on loopback
 * @property {string} [searchPath]   where to look for `janus` and `setpriv` (default $PATH)
 * @property {number} [readyTimeoutMs]
 * @property {number} [debugLevel]
 * @property {boolean} [iceTcp]      also offer passive TCP candidates (janus-config.js)
 */

/**
 * @param {JanusOptions} options
 * @returns {Promise<Janus>}
 */
export async function startJanus(options) {
  const { registerCleanup = closeOnly, logCommand = () => {}, clock, readyTimeoutMs = READY_TIMEOUT_MS } = options;
  const startedMs = Date.now();
  const now = clock ?? (() => (Date.now() - startedMs) / 1000);
  const setup = await planJanus(options);
  const { address, logFile, consoleFile, argv, adminSecret } = setup;
  await writeJanusFiles(setup);
  const atS = Number(now().toFixed(3));
  const janus = spawnOwned({ name: 'janus', argv, consoleFile, registerCleanup, stopTimeoutMs: STOP_TIMEOUT_MS });

  const apiUrl = `http://${address}:${setup.httpPort}${API_BASE_PATH}`;
  const adminUrl = `http://${address}:${setup.adminPort}${ADMIN_BASE_PATH}`;
  const failure = await waitUntilReady({ apiUrl, adminUrl, adminSecret, readyTimeoutMs, exitReason: janus.exitReason })
    ?? (janus.pid === undefined ? 'answered, but not as the process started here (no process id)' : null);
  const record = { atS, cmd: shellJoin(argv), ok: !failure, ...(failure ? { stderr: failure } : {}) };
  logCommand(record);
  if (failure || janus.pid === undefined) {
    await janus.release().catch(() => {});
    const tail = logTail([consoleFile, logFile]);
    throw new EnvironmentError(
      `Janus did not start: it ${failure}. Command: ${record.cmd}\n` +
      `Its log (${logFile}) ends:\n${tail || '(empty)'}\n` +
      'The lines above name the cause (a port in use, a configuration error, a missing module); fix it and run again, ' +
      `or reinstall: ${INSTALL_HINT}.`,
    );
  }
  return {
    apiUrl,
    adminUrl,
    adminSecret,
    apiSecret: setup.apiSecret,
    wsUrl: setup.wsPort === undefined ? null : `ws://${address}:${setup.wsPort}`,
    iceAddress: setup.iceAddress,
    rtpPortRange: setup.rtpPortRange,
    logFile,
    pid: janus.pid,
    close: janus.release,
    closeNow: janus.closeNow,
  };
}

/**
 * Where and how this Janus runs: its command line, folder, ports, secrets and configuration. Throws, saying what
 * to install, when an executable or an address is missing.
 * @param {JanusOptions} options
 */
async function planJanus({ runDir, websocket = false, ports = {}, searchPath = process.env.PATH ?? '', debugLevel, host, iceAddress, iceTcp = false }) {
  const executable = findExecutable('janus', searchPath);
  if (!executable) {
    throw new EnvironmentError(`Janus not found: no \`janus\` executable on PATH (${searchPath || 'empty'}), so it has no log yet; ${INSTALL_HINT}.`);
  }
  const libDir = findLibDir(executable);
  const address = host?.address ?? '127.0.0.1';
  const configDir = path.join(path.resolve(runDir), 'janus');
  const logFile = path.join(configDir, 'janus.log');
  const consoleFile = path.join(configDir, 'console.log');
  // A run's namespace is new and holds nothing else, so a port free on the host's loopback is free there too.
  const httpPort = ports.httpPort ?? await freePort('127.0.0.1');
  const adminPort = ports.adminPort ?? await freePort('127.0.0.1');
  const wsPort = websocket ? ports.wsPort ?? await freePort('127.0.0.1') : undefined;
  const rtpPortRange = randomRtpRange();
  const adminSecret = randomBytes(16).toString('hex');
  const apiSecret = randomBytes(16).toString('hex');
  const mediaAddress = iceAddress ?? host?.address ?? firstIpv4Address();
  if (!mediaAddress) {
    throw new EnvironmentError('Janus needs a non-loopback IPv4 address for its media (it gathers no loopback candidates) '
      + 'and this host has none; bring up a network interface.');
  }
  const config = janusConfig({
    configDir, libDir, logFile, adminSecret, apiSecret, httpPort, adminPort, wsPort, rtpPortRange, address,
    iceAddress: mediaAddress, debugLevel, iceTcp,
  });
  const argv = ownedArgv([executable, '-C', config.configFile, '-F', configDir], { netns: host?.netns, searchPath, what: 'Janus' });
  return {
    address, configDir, logFile, consoleFile, httpPort, adminPort, wsPort, rtpPortRange, adminSecret, apiSecret,
    iceAddress: mediaAddress, config, argv,
  };
}

/**
 * Janus's folder from scratch. A run directory is new per run; a test that reuses one starts from an empty folder.
 * The folder holds the secrets, and Janus's logs might echo them: 0700, every file 0600, the logs created before
 * Janus opens them.
 * @param {Awaited<ReturnType<typeof planJanus>>} setup
 */
async function writeJanusFiles({ configDir, config, logFile, consoleFile }) {
  await rm(configDir, { recursive: true, force: true });
  for (const dir of config.dirs) await makePrivateDir(path.join(configDir, dir));
  for (const file of config.files) await writeSecretFile(path.join(configDir, file.path), file.content);
  for (const file of [logFile, consoleFile]) await writeSecretFile(file, '');
  for (const link of config.links) await symlink(link.target, path.join(configDir, link.path));
}

/**
 * Polls until the Janus API answers `info` and the Admin API `ping`.
 * @param {{apiUrl: string, adminUrl: string, adminSecret: string, readyTimeoutMs: number, exitReason: () => string|null}} options
 * @returns {Promise<string|null>} null when ready, else what went wrong
 */
async function waitUntilReady({ apiUrl, adminUrl, adminSecret, readyTimeoutMs, exitReason }) {
  const deadline = Date.now() + readyTimeoutMs;
  let lastError = 'no answer';
  while (Date.now() < deadline) {
    if (exitReason()) return exitReason();
    try {
      const info = await fetch(`${apiUrl}/info`, { signal: AbortSignal.timeout(1_000) }).then((response) => response.json());
      if (info.janus !== 'server_info') throw new Error(`info answered ${JSON.stringify(info).slice(0, 200)}`);
      if (!info.plugins?.['janus.plugin.videoroom']) throw new Error('answered info without the VideoRoom plugin loaded');
      await janusPost(adminUrl, { janus: 'ping', admin_secret: adminSecret });
      return null;
    } catch (error) {
      lastError = errorCode(errorProperty(error, 'cause')) ?? errorMessage(error);
    }
    await sleep(100);
  }
  return exitReason() ?? `was not ready within ${readyTimeoutMs / 1000} s (API ${apiUrl}, Admin API ${adminUrl}: ${lastError})`;
}

/**
 * The installed module folder: <prefix>/lib/janus or <prefix>/lib/<multiarch>/janus next to <prefix>/bin/janus.
 * @param {string} executable
 */
function findLibDir(executable) {
  const libRoot = path.join(path.dirname(path.dirname(realpathSync(executable))), 'lib');
  const subdirs = existsSync(libRoot) ? readdirSync(libRoot, { withFileTypes: true }).filter((entry) => entry.isDirectory()) : [];
  const candidates = [path.join(libRoot, 'janus'), ...subdirs.map((entry) => path.join(libRoot, entry.name, 'janus'))];
  const found = candidates.find((dir) => existsSync(path.join(dir, 'plugins', VIDEOROOM_PLUGIN)));
  if (!found) {
    throw new EnvironmentError(`Janus's VideoRoom plugin (${VIDEOROOM_PLUGIN}) is not under ${libRoot}/[*/]janus/plugins next to ${executable}; ${INSTALL_HINT}.`);
  }
  return found;
}

/** A random block, so runs after one another do not reuse ports a previous run's sockets may still hold. */
function randomRtpRange() {
  const blocks = Math.floor((RTP_RANGE.highest - RTP_RANGE.lowest) / RTP_RANGE.size);
  const minPort = RTP_RANGE.lowest + randomInt(blocks) * RTP_RANGE.size;
  return { minPort, maxPort: minPort + RTP_RANGE.size - 1 };
}
