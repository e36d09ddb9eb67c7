// coturn as a process the run owns, like the SFUs (sfu/owned-process.js): a throwaway certificate and per-run
// credentials in <runDir>/turn/ (0700, files 0600, on no command line), started in the emulator's middle namespace
// with a death signal, checked (its TCP and TLS listeners accept), stopped by its registered closer. Its configuration
// and key are deleted once it has read them, so no credential outlives the start, even after a SIGKILL.
import { execFile } from 'node:child_process';
import { X509Certificate, createHash, randomBytes } from 'node:crypto';
import { chmod, readFile, rm } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { shellJoin } from '../emulators/script.js';
import { coturnConfig, turnUrl } from '../lib/network/turn.js';
import { OPEN_TCP_PORT } from '../lib/network/nat-profile.js';
import { EnvironmentError } from '../lib/system/errors.js';
import { makePrivateDir, writeSecretFile } from '../lib/system/files.js';
import { findExecutable } from '../lib/system/paths.js';
import { freePort, logTail, ownedArgv, spawnOwned } from '../sfu/index.js';
import { startTurnLoadSampler } from './turn-load-sampler.js';

const READY_TIMEOUT_MS = 10_000;
const STOP_TIMEOUT_MS = 3_000;
const INSTALL_HINT = 'install coturn with `npm run setup` (apt-get install coturn)';
/** Relayed transport addresses: two per peer connection; the namespace holds nothing else. */
const RELAY_PORTS = [49_160, 49_400];

/**
 * @typedef {object} TurnServer
 * @property {string} url          what the pages put in their iceServers (no credential)
 * @property {string} stunUrl      the same server as a STUN server (its UDP and TCP listener): server-reflexive candidates
 * @property {string} credential   `<username>.<password>`: the pages' URL fragment only
 * @property {{ address: string, port: number, tlsPort: number }} listeners
 * @property {string} certificateSpki  base64 SHA-256 of its throwaway certificate's public key: what Chromium is told to
 *   trust (--ignore-certificate-errors-spki-list), this certificate and no other
 * @property {string} logFile
 * @property {number} pid
 * @property {import('./turn-load-sampler.js').TurnLoadSampler} load  its allocations, traffic, CPU and memory once a second
 * @property {() => Promise<void>} close  stops the sampler, then coturn
 */

/**
 * @param {object} options
 * @param {string} options.runDir
 * @param {import('../emulators/contract.js').RegisterCleanup} options.registerCleanup
 * @param {{ netns: string, address: string }} options.host  the emulator's middle namespace
 * @param {import('../lib/network/turn.js').TurnRequest['transport']} options.transport
 * @param {boolean} [options.port443]  the transport's TCP or TLS listener on port 443 (a peer's firewall lets only that out)
 * @param {(record: import('../emulators/command-runner.js').CommandRecord) => void} [options.logCommand]
 * @param {() => number} [options.clock]
 * @param {string} [options.searchPath]
 * @returns {Promise<TurnServer>}
 */
export async function startTurnServer({
  runDir, registerCleanup, host, transport, port443 = false, logCommand = () => {}, clock = () => 0, searchPath = process.env.PATH ?? '',
}) {
  const binary = findExecutable('turnserver', searchPath);
  const openssl = findExecutable('openssl', searchPath);
  if (!binary || !openssl) throw new EnvironmentError(`the run's TURN server needs coturn's turnserver and openssl on PATH; ${INSTALL_HINT}.`);
  const dir = path.join(path.resolve(runDir), 'turn');
  const files = { config: path.join(dir, 'turnserver.conf'), cert: path.join(dir, 'cert.pem'), key: path.join(dir, 'key.pem'), log: path.join(dir, 'turnserver.log') };
  await rm(dir, { recursive: true, force: true });
  await makePrivateDir(dir);
  const certificateSpki = await throwawayCertificate(openssl, host.address, files, logCommand, clock);
  const username = `wtb${randomBytes(6).toString('hex')}`;
  const password = randomBytes(24).toString('hex');
  // A run's namespace is new and holds nothing else, so ports free on the host's loopback are free there too.
  const listeners = { address: host.address, port: await freePort('127.0.0.1'), tlsPort: await freePort('127.0.0.1') };
  if (port443) listeners[transport === 'tls' ? 'tlsPort' : 'port'] = OPEN_TCP_PORT;
  await writeSecretFile(files.config, coturnConfig({
    ...listeners, minRelayPort: RELAY_PORTS[0], maxRelayPort: RELAY_PORTS[1], username, password, realm: 'webrtc-testbed',
    certFile: files.cert, keyFile: files.key, pidFile: path.join(dir, 'turnserver.pid'), dbFile: path.join(dir, 'turndb'),
  }));
  await writeSecretFile(files.log, '');
  const argv = ownedArgv([binary, '-c', files.config], { netns: host.netns, searchPath, what: 'turnserver' });
  const atS = Number(clock().toFixed(3));
  const server = spawnOwned({ name: 'turnserver', argv, consoleFile: files.log, registerCleanup, stopTimeoutMs: STOP_TIMEOUT_MS });
  const failure = await waitUntilListening(listeners, server.exitReason);
  // Read at start; the password and key need not wait on disk for the run's end.
  await Promise.all([rm(files.config, { force: true }), rm(files.key, { force: true })]);
  const record = { atS, cmd: shellJoin(argv), ok: !failure, ...(failure ? { stderr: failure } : {}) };
  logCommand(record);
  if (failure || server.pid === undefined) {
    await server.release().catch(() => {});
    throw new EnvironmentError(`turnserver did not start: it ${failure ?? 'has no process id'}. Command: ${record.cmd}\n`
      + `Its log (${files.log}) ends:\n${logTail([files.log]) || '(empty)'}\nThe lines above name the cause; or ${INSTALL_HINT}.`);
  }
  const relayPorts = { minPort: RELAY_PORTS[0], maxPort: RELAY_PORTS[1], exclude: [listeners.port, listeners.tlsPort] };
  const load = startTurnLoadSampler({ pid: server.pid, relayPorts });
  // Registered after coturn's closer, so it stops first: its last second is one coturn lived through.
  const stopLoad = registerCleanup('turnserver load sampler', load.stop);
  return {
    url: turnUrl(transport, listeners), stunUrl: `stun:${listeners.address}:${listeners.port}`, credential: `${username}.${password}`, listeners, certificateSpki, logFile: files.log, pid: server.pid,
    load, close: () => stopLoad().then(server.release),
  };
}

/**
 * A self-signed certificate for this run's TLS listener (its address as subjectAltName), made by openssl from argv
 * alone; its key 0600. Returns its public key's SHA-256, base64.
 * @param {string} openssl @param {string} address @param {{ cert: string, key: string }} files
 * @param {(record: import('../emulators/command-runner.js').CommandRecord) => void} logCommand @param {() => number} clock
 */
async function throwawayCertificate(openssl, address, files, logCommand, clock) {
  const argv = [openssl, 'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
    '-subj', '/CN=webrtc-testbed-turn', '-addext', `subjectAltName=IP:${address}`, '-keyout', files.key, '-out', files.cert];
  const atS = Number(clock().toFixed(3));
  try {
    await promisify(execFile)(argv[0], argv.slice(1), { timeout: 10_000 });
  } catch (error) {
    logCommand({ atS, cmd: shellJoin(argv), ok: false, stderr: String(/** @type {{ stderr?: string }} */ (error).stderr ?? error) });
    throw new EnvironmentError(`openssl could not make the TURN server's throwaway certificate: ${String(/** @type {{ stderr?: string }} */ (error).stderr ?? error).trim()}`);
  }
  await chmod(files.key, 0o600);
  logCommand({ atS, cmd: shellJoin(argv), ok: true });
  const spki = new X509Certificate(await readFile(files.cert)).publicKey.export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(spki).digest('base64');
}

/**
 * Polls until its TCP and TLS listeners accept a connection (the root namespace reaches the middle one unshaped).
 * @param {{ address: string, port: number, tlsPort: number }} listeners @param {() => string|null} exitReason
 * @returns {Promise<string|null>} null when ready
 */
async function waitUntilListening({ address, port, tlsPort }, exitReason) {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (exitReason()) return exitReason();
    const open = await Promise.all([port, tlsPort].map((p) => accepts(address, p)));
    if (open.every(Boolean)) return null;
    await sleep(100);
  }
  return exitReason() ?? `did not listen on ${address}:${port} and :${tlsPort} within ${READY_TIMEOUT_MS / 1000} s`;
}

/** @param {string} address @param {number} port @returns {Promise<boolean>} */
const accepts = (address, port) => new Promise((resolve) => {
  const socket = net.connect({ host: address, port, timeout: 1_000 });
  const done = (/** @type {boolean} */ ok) => { socket.destroy(); resolve(ok); };
  socket.once('connect', () => done(true));
  socket.once('error', () => done(false));
  socket.once('timeout', () => done(false));
});
