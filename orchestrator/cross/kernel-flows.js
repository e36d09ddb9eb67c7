/**
 * Kernel cross-traffic through the relay (contract section 4): TCP and UDP flows from real Linux stacks cross the
 * relay's link queues with the configured delay.
 *
 *   [ns wtbx-<id>-<i>l] iperf3 ── TUN wx<id><i>l ══ socat ══ UDP ══▶ relay: forward route (bottleneck.fwd) ──┐
 *   [ns wtbx-<id>-<i>r] iperf3 ── TUN wx<id><i>r ══ socat ══ UDP ◀══════════════════════════════════════════┘
 *                                                      (and back over the back route, bottleneck.back)
 *
 * Each socat is started in the root namespace (its TUN is created there), the TUN is moved into the flow's
 * namespace, addressed from the flow's /30 and made the namespace's only route. Every process (socat, iperf3) starts
 * through `setpriv --pdeathsig KILL`, in a process group of its own (Ctrl-C is the orchestrator's to handle), and a
 * guardian process (guardian.js) removes the namespaces when the orchestrator dies without doing it (SIGKILL).
 *
 * The run's call:
 *
 *   const kernelFlows = await startKernelFlows({ flows, relay, runDir, runId, registerCleanup, logCommand, clock, onError });
 *   // before media start: namespaces, TUNs, bridges and iperf3 servers are up (throws, having removed them, if not)
 *   kernelFlows.start(mediaStartEpochMs);   // each client starts at its startS (each burst at its atS)
 *   …
 *   kernelFlows.rows();                     // [{ t, flow, rateKbps, source: 'iperf3', rttMs? }] of the tests finished
 *   await kernelFlows.close();              // stops what still runs and removes everything (also the registered closer)
 */
import { spawn, spawnSync } from 'node:child_process';
import dgram from 'node:dgram';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { EnvironmentError, HarnessError } from '../lib/system/errors.js';
import { startGuardian } from '../lib/system/guardian-protocol.js';
import { flowRows, parseIperf3Client } from '../lib/cross/iperf3.js';
import { parseSsTcpInfo } from '../lib/cross/tcp-info.js';
import { ownerFile, recordOwner, releaseOwner } from '../lib/system/owners.js';
import { createCommandRunner } from '../emulators/command-runner.js';
import { shellJoin } from '../emulators/script.js';
import { findExecutable } from '../lib/system/paths.js';
import { supportsPdeathsig } from '../sfu/janus.js';
import { TUN_MTU, planKernelFlows } from './kernel-flow-plan.js';

/** @typedef {import('./kernel-flow-plan.js').KernelFlow} KernelFlow */
/** @typedef {import('./kernel-flow-plan.js').KernelFlowPlan} KernelFlowPlan */
/** @typedef {import('./kernel-flow-plan.js').KernelTest} KernelTest */
/** @typedef {import('../emulators/command-runner.js').CommandRecord} CommandRecord */
/** @typedef {import('../lib/cross/iperf3.js').Iperf3Test} Iperf3Test */

const GUARDIAN_PATH = fileURLToPath(new URL('./guardian.js', import.meta.url));
const READY_TIMEOUT_MS = 5_000;
const POLL_MS = 10;
const STDERR_LIMIT = 4_000;
const INSTALL_HINT = 'install them with `npm run setup` (Debian packages iperf3, socat, util-linux, iproute2)';

/**
 * @typedef {object} TestOutcome
 * @property {string} flow
 * @property {number} index
 * @property {number} atS  configured client start, media clock
 * @property {number|null} anchorS  when the receiver's test began (its interval 0), media clock
 * @property {number} port
 * @property {'tcp'|'udp'} protocol
 * @property {boolean} ok
 * @property {Iperf3Test['totals']} [totals]
 * @property {'server'|'sender'} [receiverSource]
 * @property {string} [error]
 */

/**
 * @typedef {object} KernelFlows
 * @property {(mediaStartEpochMs?: number) => void} start  schedules every client relative to media start
 * @property {() => Promise<void>} done  resolves when every client has finished (or failed)
 * @property {() => import('../lib/cross/iperf3.js').FlowRow[]} rows  per-second rows of the tests finished so far, by t then flow
 * @property {() => TestOutcome[]} tests  every finished test
 * @property {(flow: string) => Promise<import('../lib/cross/tcp-info.js').TcpInfo[]>} tcpInfo
 *   TCP_INFO (`ss -ti`) of the flow's connections on its sending side, now
 * @property {() => Promise<void>} close  kills what still runs, removes namespaces and TUNs; idempotent
 * @property {() => void} closeNow  synchronous best effort (a forced exit)
 * @property {ReturnType<typeof planKernelFlows>} plan
 * @property {CommandRecord[]} commands
 */

/** Without a registry the caller closes the flows itself. */
const closeOnly = (/** @type {string} */ _name, /** @type {() => Promise<unknown>} */ close) => async () => { await close(); };

/**
 * Builds every kernel flow's namespaces, TUN bridges and iperf3 servers (contract section 4).
 * @param {object} options
 * @param {KernelFlow[]} options.flows  kinds tcp, tcp-short (with bursts), udp; times on the media clock
 * @param {Pick<import('../emulators/contract.js').TunnelHost['relay'], 'registerTunnel'>} options.relay
 *   a relay whose links the routes name are configured
 * @param {string} options.runDir  iperf3's JSON, the bridges' and the guardian's logs go to <runDir>/kernel-flows/
 * @param {string} options.runId  names the namespaces (wtbx-<short id>-…)
 * @param {(name: string, close: () => Promise<unknown>, options?: {timeoutMs?: number, closeNow?: () => void}) => () => Promise<void>}
 *   [options.registerCleanup]  lib/system/shutdown.js onCleanup (or the run's wrapper of it)
 * @param {(record: CommandRecord) => void} [options.logCommand]  every ip/socat/iperf3 command, for network.commands
 * @param {() => number} [options.clock]  seconds on the run's clock for the command records (default: since this call)
 * @param {(error: Error) => void} [options.onError]  a client that fails (iperf3's message); the run fails on it
 * @param {{forward: string[], back: string[]}} [options.routes]  relay links crossed left -> right and right -> left
 * @param {string} [options.congestionControl]  TCP congestion control of the iperf3 senders (iperf3 -C)
 * @param {{iperf3?: string, socat?: string, setpriv?: string}} [options.executables]  paths instead of $PATH look-ups
 * @returns {Promise<KernelFlows>}
 */
export async function startKernelFlows({
  flows, relay, runDir, runId, registerCleanup = closeOnly, logCommand = () => {}, clock, onError = () => {},
  routes = { forward: ['bottleneck.fwd'], back: ['bottleneck.back'] }, congestionControl = 'cubic', executables = {},
}) {
  const plan = planKernelFlows(flows, { runId, congestionControl });
  const found = findTools(executables);
  if (typeof found === 'string') throw new EnvironmentError(found);
  const tools = found;
  const dir = path.join(path.resolve(runDir), 'kernel-flows');
  mkdirSync(dir, { recursive: true });
  const startedMs = Date.now();
  const now = clock ?? (() => (Date.now() - startedMs) / 1000);
  const runner = createCommandRunner({ clock: now });
  /** @type {CommandRecord[]} */
  const commands = [];
  const record = (/** @type {CommandRecord} */ entry) => { commands.push(entry); logCommand(entry); };
  /** @type {import('../emulators/command-runner.js').RunCommand} */
  const run = async (argv, options) => {
    const before = runner.commands.length;
    try {
      return await runner.run(argv, options);
    } finally {
      for (const entry of runner.commands.slice(before)) record(entry);
    }
  };

  /** @type {Set<import('node:child_process').ChildProcess>} */
  const children = new Set();
  /** @type {Set<NodeJS.Timeout>} */
  const timers = new Set();
  /** @type {string[]} */
  const namespaces = [];
  /** @type {TestOutcome[]} */
  const outcomes = [];
  /** @type {Map<string, {anchorS: number, test: Iperf3Test}[]>} */
  const results = new Map(plan.flows.map(({ flow }) => [flow.name, []]));
  /** @type {Promise<void>[]} */
  const finished = [];
  /** @type {Map<KernelTest, number>} each test's iperf3 server */
  const serverPids = new Map();
  let closing = false;
  /** @type {Promise<void>|null} */
  let closed = null;
  let mediaStartEpochMs = /** @type {number|null} */ (null);

  const ownerKey = plan.namespacePrefix.slice(0, -1);
  const guardian = startGuardian(GUARDIAN_PATH, [plan.namespacePrefix, plan.linkPrefix, path.join(dir, 'guardian.log'), ownerFile(ownerKey)]);

  /**
   * Spawns a process the run owns: killed with the orchestrator (pdeathsig), in its own process group.
   * @param {string[]} argv
   * @param {{stdoutFile?: string, background?: boolean}} [options]  background: does not keep the event loop alive
   *   (bridges and servers wait for as long as the run wants them; a client is work in progress)
   */
  const spawnOwned = (argv, { stdoutFile, background = false } = {}) => {
    const full = [tools.setpriv, '--pdeathsig', 'KILL', '--', ...argv];
    const stdoutFd = stdoutFile ? openSync(stdoutFile, 'w') : 'ignore';
    /** @type {import('node:child_process').ChildProcess} */
    let child;
    try {
      child = spawn(full[0], full.slice(1), { stdio: ['ignore', stdoutFd, 'pipe'], detached: true });
    } finally {
      if (typeof stdoutFd === 'number') closeSync(stdoutFd);
    }
    children.add(child);
    if (child.pid) guardian.own(child.pid);
    // Reaped then: its pid may go to an unrelated process, which the guardian must never kill.
    child.once('exit', () => { if (child.pid) guardian.forget(child.pid); });
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (chunk) => { stderr = (stderr + chunk).slice(-STDERR_LIMIT); });
    /** @type {Promise<{code: number|null, signal: string|null, stderr: string, spawnError?: string}>} */
    const exited = new Promise((resolve) => {
      child.once('error', (error) => resolve({ code: null, signal: null, stderr, spawnError: error.message }));
      child.once('close', (code, signal) => resolve({ code, signal, stderr }));
    }).then((result) => { children.delete(child); return result; });
    if (background) {
      child.unref();
      /** @type {any} */ (child.stderr)?.unref?.();
    }
    return { child, exited, cmd: shellJoin(full), atS: Number(now().toFixed(3)) };
  };

  const teardown = async () => {
    closing = true;
    for (const timer of timers) clearTimeout(timer);
    timers.clear();
    const exits = [...children].map((child) => new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve(undefined);
      // Waited for now: a background process must keep the loop alive until it is gone.
      child.ref();
      /** @type {any} */ (child.stderr)?.ref?.();
      child.once('close', () => resolve(undefined));
      child.kill('SIGKILL');
    }));
    await Promise.all(exits);
    for (const name of namespaces.splice(0).reverse()) {
      const pids = (await run(['ip', 'netns', 'pids', name], { allowFailure: true, record: false })).stdout.split('\n').filter(Boolean);
      for (const pid of pids) { try { process.kill(Number(pid), 'SIGKILL'); } catch { /* gone */ } }
      await run(['ip', 'netns', 'del', name], { allowFailure: true });
    }
    releaseOwner(ownerKey);
    guardian.finish();
  };
  const close = () => (closed ??= teardown());
  const closeNow = () => {
    closing = true;
    for (const child of children) child.kill('SIGKILL');
    for (const name of namespaces.splice(0)) spawnSync('ip', ['netns', 'del', name]);
    releaseOwner(ownerKey);
    guardian.finish();
  };
  const release = registerCleanup('kernel flows', close, { timeoutMs: 15_000, closeNow });

  try {
    recordOwner(ownerKey);
    for (const flowPlan of plan.flows) await buildFlow(flowPlan);
  } catch (error) {
    await release().catch(() => {});
    throw error;
  }

  /** @param {KernelFlowPlan} flowPlan */
  async function buildFlow({ flow, left, right, server, tests }) {
    for (const side of [left, right]) {
      namespaces.push(side.namespace);
      await run(['ip', 'netns', 'add', side.namespace]);
      // No IPv6: its router solicitations would reach a bridge before the other TUN is up, and socat exits on that write error.
      await run(['ip', 'netns', 'exec', side.namespace, 'sysctl', '-q', '-w', 'net.ipv6.conf.all.disable_ipv6=1', 'net.ipv6.conf.default.disable_ipv6=1']);
    }
    const bridgePorts = [await freeUdpPort(), await freeUdpPort()];
    const { leftPort, rightPort } = await relay.registerTunnel({
      name: flow.name, forward: routes.forward, back: routes.back,
      left: { address: '127.0.0.1', port: bridgePorts[0] }, right: { address: '127.0.0.1', port: bridgePorts[1] },
    });
    const sides = /** @type {const} */ ([[left, leftPort, bridgePorts[0]], [right, rightPort, bridgePorts[1]]]);
    for (const [side, relayPort, bridgePort] of sides) {
      const bridge = spawnOwned(
        [tools.socat, `TUN,tun-name=${side.tun},iff-no-pi,tun-type=tun`, `UDP:127.0.0.1:${relayPort},bind=127.0.0.1:${bridgePort}`],
        { background: true },
      );
      const failure = await waitFor(() => existsSync(`/sys/class/net/${side.tun}`), bridge.exited);
      record({ atS: bridge.atS, cmd: bridge.cmd, ok: !failure, ...(failure ? { stderr: failure } : {}) });
      if (failure) throw new EnvironmentError(`kernel flow "${flow.name}": the TUN bridge did not start: it ${failure}. Command: ${bridge.cmd}`);
      bridge.exited.then(({ code, signal, stderr }) => {
        if (!closing) fail(flow.name, `its TUN bridge (socat, ${side.tun}) exited with ${signal ?? `code ${code}`}: ${stderr.trim() || 'no error output'}`);
      });
      await run(['ip', 'link', 'set', 'dev', side.tun, 'netns', side.namespace]);
      await run(['ip', '-n', side.namespace, 'link', 'set', 'dev', 'lo', 'up']);
      await run(['ip', '-n', side.namespace, 'addr', 'add', `${side.address}/30`, 'dev', side.tun]);
      await run(['ip', '-n', side.namespace, 'link', 'set', 'dev', side.tun, 'mtu', String(TUN_MTU), 'up']);
    }
    for (const test of tests) {
      const file = path.join(dir, `${flow.name}-${test.index}.server.json`);
      const started = spawnOwned(
        ['ip', 'netns', 'exec', server.namespace, tools.iperf3, '-4', '-s', '-1', '-J', '-p', String(test.port)],
        { stdoutFile: file, background: true },
      );
      const failure = await waitFor(() => listening(started.child.pid, test.port), started.exited);
      record({ atS: started.atS, cmd: started.cmd, ok: !failure, ...(failure ? { stderr: failure } : {}) });
      if (failure) {
        throw new EnvironmentError(`kernel flow "${flow.name}": the iperf3 server did not start: it ${failure}${iperf3Error(file)}. `
          + `Command: ${started.cmd}. Check the iperf3 executable (${tools.iperf3}); ${INSTALL_HINT}.`);
      }
      serverPids.set(test, started.child.pid);
    }
  }

  /** @param {string} flow @param {string} message */
  function fail(flow, message) {
    const error = new HarnessError(`kernel flow "${flow}": ${message}`);
    onError(error);
  }

  /**
   * Runs one client at its time; its receiver anchor is the moment the server's data connection appears.
   * @param {KernelFlowPlan} flowPlan @param {KernelTest} test
   */
  async function runClient({ flow, client, server }, test) {
    if (closing) return;
    const file = path.join(dir, `${flow.name}-${test.index}.client.json`);
    const started = spawnOwned([
      'ip', 'netns', 'exec', client.namespace, tools.iperf3, '-4', '-c', server.address, '-p', String(test.port),
      '-J', '--get-server-output', ...test.clientArgs,
    ], { stdoutFile: file });
    const spawnedS = mediaS();
    let anchorS = /** @type {number|null} */ (null);
    let running = true;
    const serverPid = serverPids.get(test);
    const watch = (async () => {
      while (running && anchorS === null) {
        if (serverPid && dataConnected(serverPid, test.port, test.protocol)) anchorS = mediaS();
        else await sleep(POLL_MS);
      }
    })();
    const { code, signal, stderr, spawnError } = await started.exited;
    running = false;
    await watch;
    if (closing && code !== 0) return;
    /** @type {TestOutcome} */
    const outcome = { flow: flow.name, index: test.index, atS: test.atS, anchorS, port: test.port, protocol: test.protocol, ok: false };
    try {
      const parsed = parseIperf3Client(readFileSync(file, 'utf8'), file);
      // A test too short for the poll to see (or a server that was not watched) starts at the client's start.
      const anchor = anchorS ?? spawnedS;
      results.get(flow.name).push({ anchorS: anchor, test: parsed });
      Object.assign(outcome, { ok: true, anchorS: anchor, totals: parsed.totals, receiverSource: parsed.receiverSource });
    } catch (error) {
      const why = spawnError ?? (stderr.trim() || `exit ${signal ?? `code ${code}`}`);
      outcome.error = `${error.message}${error.message.includes('iperf3 reported') ? '' : ` (${why})`}`;
      if (test.protocol === 'udp' && /unable to read from stream socket/.test(error.message)) {
        outcome.error += '. iperf3 (3.12) sends one UDP connect datagram and gives up after 30 s without a reply: a full queue on the '
          + 'path dropped it. Start the UDP flow before the TCP flows that fill the bottleneck';
      }
      fail(flow.name, `iperf3 client ${test.index} failed: ${outcome.error}`);
    }
    outcomes.push(outcome);
    record({ atS: started.atS, cmd: started.cmd, ok: outcome.ok, ...(outcome.error ? { stderr: outcome.error } : {}) });
  }

  const mediaS = () => (Date.now() - /** @type {number} */ (mediaStartEpochMs)) / 1000;

  return {
    plan,
    commands,
    start(startEpochMs = Date.now()) {
      if (mediaStartEpochMs !== null) throw new HarnessError('kernel flows: start() called twice');
      mediaStartEpochMs = startEpochMs;
      for (const flowPlan of plan.flows) {
        for (const test of flowPlan.tests) {
          finished.push(new Promise((resolve) => {
            const timer = setTimeout(() => {
              timers.delete(timer);
              runClient(flowPlan, test).catch((error) => fail(flowPlan.flow.name, error.message)).finally(() => resolve(undefined));
            }, Math.max(0, startEpochMs + test.atS * 1000 - Date.now()));
            timers.add(timer);
          }));
        }
      }
    },
    done: () => Promise.all(finished).then(() => undefined),
    rows: () => plan.flows
      .filter(({ flow }) => results.get(flow.name).length > 0)
      .flatMap(({ flow }) => flowRows({ flow: flow.name, windowS: [flow.startS, flow.stopS], tests: results.get(flow.name) }))
      .sort((a, b) => a.t - b.t || a.flow.localeCompare(b.flow)),
    tests: () => [...outcomes],
    async tcpInfo(name) {
      const flowPlan = plan.flows.find(({ flow }) => flow.name === name);
      if (!flowPlan) throw new HarnessError(`kernel flows: no flow "${name}"`);
      const { stdout } = await run(['ip', 'netns', 'exec', flowPlan.client.namespace, 'ss', '-tinH', 'dst', flowPlan.server.address]);
      return parseSsTcpInfo(stdout);
    },
    close: release,
    closeNow,
  };
}

/**
 * Why kernel flows cannot run here, or null when they can.
 * @param {{iperf3?: string, socat?: string, setpriv?: string}} [executables]
 * @returns {string|null}
 */
export function kernelFlowsUnavailable(executables = {}) {
  const found = findTools(executables);
  return typeof found === 'string' ? found : null;
}

/**
 * The executables, or why kernel flows cannot run.
 * @param {{iperf3?: string, socat?: string, setpriv?: string}} executables
 * @returns {{iperf3: string, socat: string, setpriv: string}|string}
 */
function findTools(executables) {
  if (process.platform !== 'linux') return `kernel flows need Linux network namespaces (this is ${process.platform}); run TCP/UDP cross traffic on Linux`;
  if (process.getuid?.() !== 0) return 'kernel flows create network namespaces and TUN devices, which needs root; run as root';
  const searchPath = process.env.PATH ?? '';
  const tools = {
    iperf3: executables.iperf3 ?? findExecutable('iperf3', searchPath),
    socat: executables.socat ?? findExecutable('socat', searchPath),
    setpriv: executables.setpriv ?? findExecutable('setpriv', searchPath),
  };
  const missing = Object.entries(tools).filter(([, found]) => !found).map(([name]) => name);
  if (missing.length > 0) return `kernel flows need ${missing.join(', ')}, not found on PATH; ${INSTALL_HINT}`;
  if (!supportsPdeathsig(tools.setpriv)) {
    return `${tools.setpriv} has no --pdeathsig (util-linux before 2.33); kernel flows need it so nothing outlives a killed run`;
  }
  return /** @type {{iperf3: string, socat: string, setpriv: string}} */ (tools);
}

/**
 * Polls `ready` until it is true; resolves to null then, or to why not (the process exited, a time-out).
 * @param {() => boolean} ready
 * @param {Promise<{code: number|null, signal: string|null, stderr: string, spawnError?: string}>} exited
 * @returns {Promise<string|null>}
 */
async function waitFor(ready, exited) {
  /** @type {string|null} */
  let exitReason = null;
  exited.then(({ code, signal, stderr, spawnError }) => {
    exitReason = spawnError ? `could not be started (${spawnError})` : `exited with ${signal ?? `code ${code}`}${stderr.trim() ? `: ${stderr.trim()}` : ''}`;
  });
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (exitReason) return exitReason;
    if (ready()) return null;
    await sleep(POLL_MS);
  }
  return exitReason ?? `was not ready within ${READY_TIMEOUT_MS / 1000} s`;
}

/** iperf3 -J writes its errors into the JSON on stdout. @param {string} file */
function iperf3Error(file) {
  try {
    const message = JSON.parse(readFileSync(file, 'utf8')).error;
    return typeof message === 'string' ? ` (iperf3: ${message})` : '';
  } catch {
    return '';
  }
}

/**
 * Sockets of /proc/<pid>/net/{tcp,udp} (the namespace the process is in) on a local port.
 * @param {number} pid @param {'tcp'|'udp'} protocol @param {number} port
 * @returns {{state: string, remote: string}[]}
 */
function socketsOnPort(pid, protocol, port) {
  let text;
  try {
    text = readFileSync(`/proc/${pid}/net/${protocol}`, 'utf8');
  } catch {
    return [];
  }
  const portHex = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  return text.split('\n').slice(1).map((line) => line.trim().split(/\s+/))
    .filter((fields) => fields.length > 3 && fields[1].endsWith(portHex))
    .map((fields) => ({ remote: fields[2], state: fields[3] }));
}

const TCP_LISTEN = '0A';
const TCP_ESTABLISHED = '01';

/** @param {number|undefined} pid @param {number} port */
const listening = (pid, port) => pid !== undefined && socketsOnPort(pid, 'tcp', port).some(({ state }) => state === TCP_LISTEN);

/**
 * Whether the server has its data connection: iperf3 starts its test clock as soon as that stream is accepted.
 * TCP: a second established connection on the port (the first is the control connection); UDP: a connected socket.
 * @param {number} pid @param {number} port @param {'tcp'|'udp'} protocol
 */
function dataConnected(pid, port, protocol) {
  if (protocol === 'tcp') return socketsOnPort(pid, 'tcp', port).filter(({ state }) => state === TCP_ESTABLISHED).length >= 2;
  return socketsOnPort(pid, 'udp', port).some(({ remote }) => remote !== '00000000:0000');
}

/** A free UDP port on loopback for a bridge to bind (the relay must know it before the bridge starts). */
async function freeUdpPort() {
  const socket = dgram.createSocket('udp4');
  await new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.bind({ address: '127.0.0.1', port: 0 }, () => resolve(undefined));
  });
  const { port } = socket.address();
  await new Promise((resolve) => socket.close(() => resolve(undefined)));
  return port;
}
