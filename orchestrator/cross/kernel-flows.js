/**
 * Kernel cross-traffic through the emulator's tunnels (contract section 4; emulators/contract.js TunnelHost, the relay's
 * today): TCP and UDP flows from real Linux stacks cross the emulated link queues with the configured delay.
 *
 *   [ns wtbx-<id>-<i>l] iperf3 ── TUN wx<id><i>l ══ socat ══ UDP ══▶ tunnels: forward route (bottleneck.fwd) ──┐
 *   [ns wtbx-<id>-<i>r] iperf3 ── TUN wx<id><i>r ══ socat ══ UDP ◀════════════════════════════════════════════┘
 *                                                      (and back over the back route, bottleneck.back)
 *
 * Each socat is started in the root namespace (its TUN is created there), the TUN is moved into the flow's
 * namespace, addressed from the flow's /30 and made the namespace's only route. Every process (socat, iperf3) starts
 * through `setpriv --pdeathsig KILL`, in a process group of its own (Ctrl-C is the orchestrator's to handle), and a
 * guardian process (guardian.js) removes the namespaces when the orchestrator dies without doing it (SIGKILL).
 *
 * The run's call:
 *
 *   const kernelFlows = await startKernelFlows({ flows, tunnels, runDir, runId, registerCleanup, logCommand, clock, onError });
 *   // before media start: namespaces, TUNs, bridges and iperf3 servers are up (throws, having removed them, if not)
 *   kernelFlows.start(mediaStartEpochMs);   // each client starts at its startS (each burst at its atS)
 *   …
 *   kernelFlows.rows();                     // [{ t, flow, rateKbps, source: 'iperf3', rttMs? }] of the tests finished
 *   await kernelFlows.close();              // stops what still runs and removes everything (also the registered closer)
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { EnvironmentError, HarnessError } from '../lib/system/errors.js';
import { startGuardian } from '../lib/system/guardian-protocol.js';
import { flowRows, parseIperf3Client } from '../lib/cross/iperf3.js';
import { parseSsTcpInfo } from '../lib/cross/tcp-info.js';
import { ownerFile, recordOwner, releaseOwner } from '../lib/system/owners.js';
import { createCommandRunner } from '../emulators/command-runner.js';
import { TUN_MTU, planKernelFlows } from './kernel-flow-plan.js';
import {
  INSTALL_HINT, POLL_MS, createProcessOwner, dataConnected, findTools, freeUdpPort, iperf3Error, listening, waitFor,
} from './kernel-flow-processes.js';

/** @typedef {import('./kernel-flow-plan.js').KernelFlow} KernelFlow */
/** @typedef {import('./kernel-flow-plan.js').KernelFlowPlan} KernelFlowPlan */
/** @typedef {import('./kernel-flow-plan.js').KernelTest} KernelTest */
/** @typedef {import('../emulators/command-runner.js').CommandRecord} CommandRecord */
/** @typedef {import('../emulators/command-runner.js').RunCommand} RunCommand */
/** @typedef {import('../lib/cross/iperf3.js').Iperf3Test} Iperf3Test */

const GUARDIAN_PATH = fileURLToPath(new URL('./guardian.js', import.meta.url));
// How long a failed device step waits for its bridge's exit to tell whether socat took the device with it.
const BRIDGE_EXIT_WAIT_MS = 200;

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

/**
 * What the steps of one run's kernel flows share: set up once by startKernelFlows, changed as the run goes.
 * @typedef {object} FlowContext
 * @property {import('./kernel-flow-processes.js').KernelTools} tools
 * @property {string} dir  <runDir>/kernel-flows
 * @property {RunCommand} run  runs a command and records it
 * @property {(record: CommandRecord) => void} record
 * @property {import('./kernel-flow-processes.js').SpawnOwned} spawnOwned
 * @property {(flow: string, message: string) => void} fail  reports a failed flow to the run
 * @property {Pick<import('../emulators/contract.js').TunnelHost, 'registerTunnel'>} tunnels
 * @property {{forward: string[], back: string[]}} routes
 * @property {boolean} closing
 * @property {number|null} mediaStartEpochMs
 * @property {string[]} namespaces  created so far, to remove at close
 * @property {Set<NodeJS.Timeout>} timers  clients not started yet
 * @property {TestOutcome[]} outcomes
 * @property {Map<string, {anchorS: number, test: Iperf3Test}[]>} results  the finished tests of each flow
 * @property {Map<KernelTest, number>} serverPids  each test's iperf3 server
 */

/** Without a registry the caller closes the flows itself. */
const closeOnly = (/** @type {string} */ _name, /** @type {() => Promise<unknown>} */ close) => async () => { await close(); };

/**
 * Builds every kernel flow's namespaces, TUN bridges and iperf3 servers (contract section 4).
 * @param {object} options
 * @param {KernelFlow[]} options.flows  kinds tcp, tcp-short (with bursts), udp; times on the media clock
 * @param {Pick<import('../emulators/contract.js').TunnelHost, 'registerTunnel'>} options.tunnels
 *   the emulator's, whose links the routes name are configured
 * @param {string} options.runDir  iperf3's JSON, the bridges' and the guardian's logs go to <runDir>/kernel-flows/
 * @param {string} options.runId  names the namespaces (wtbx-<short id>-…)
 * @param {(name: string, close: () => Promise<unknown>, options?: {timeoutMs?: number, closeNow?: () => void}) => () => Promise<void>}
 *   [options.registerCleanup]  lib/system/shutdown.js onCleanup (or the run's wrapper of it)
 * @param {(record: CommandRecord) => void} [options.logCommand]  every ip/socat/iperf3 command, for network.commands
 * @param {() => number} [options.clock]  seconds on the run's clock for the command records (default: since this call)
 * @param {(error: Error) => void} [options.onError]  a client that fails (iperf3's message); the run fails on it
 * @param {{forward: string[], back: string[]}} [options.routes]  emulated links crossed left -> right and right -> left
 * @param {string} [options.congestionControl]  TCP congestion control of the iperf3 senders (iperf3 -C)
 * @param {{iperf3?: string, socat?: string, setpriv?: string}} [options.executables]  paths instead of $PATH look-ups
 * @returns {Promise<KernelFlows>}
 */
export async function startKernelFlows({
  flows, tunnels, runDir, runId, registerCleanup = closeOnly, logCommand = () => {}, clock, onError = () => {},
  routes = { forward: ['bottleneck.fwd'], back: ['bottleneck.back'] }, congestionControl = 'cubic', executables = {},
}) {
  const plan = planKernelFlows(flows, { runId, congestionControl });
  const tools = findTools(executables);
  if (typeof tools === 'string') throw new EnvironmentError(tools);
  const dir = path.join(path.resolve(runDir), 'kernel-flows');
  mkdirSync(dir, { recursive: true });
  const startedMs = Date.now();
  const now = clock ?? (() => (Date.now() - startedMs) / 1000);
  const { run, record, commands } = recordingRunner(now, logCommand);
  const ownerKey = plan.namespacePrefix.slice(0, -1);
  const guardian = startGuardian(GUARDIAN_PATH, [plan.namespacePrefix, plan.linkPrefix, path.join(dir, 'guardian.log'), ownerFile(ownerKey)]);
  const processes = createProcessOwner({ setpriv: tools.setpriv, guardian, now });
  /** @type {FlowContext} */
  const context = {
    tools, dir, run, record, spawnOwned: processes.spawnOwned, tunnels, routes,
    fail: (flow, message) => onError(new HarnessError(`kernel flow "${flow}": ${message}`)),
    closing: false, mediaStartEpochMs: null, namespaces: [], timers: new Set(), outcomes: [],
    results: new Map(plan.flows.map(({ flow }) => [flow.name, []])), serverPids: new Map(),
  };

  const teardown = async () => {
    stopClients(context);
    await processes.killAll();
    for (const name of context.namespaces.splice(0).reverse()) {
      const pids = (await run(['ip', 'netns', 'pids', name], { allowFailure: true, record: false })).stdout.split('\n').filter(Boolean);
      for (const pid of pids) { try { process.kill(Number(pid), 'SIGKILL'); } catch { /* gone */ } }
      await run(['ip', 'netns', 'del', name], { allowFailure: true });
    }
    releaseOwner(ownerKey);
    guardian.finish();
  };
  /** @type {Promise<void>|null} */
  let closed = null;
  const close = () => (closed ??= teardown());
  const closeNow = () => {
    context.closing = true;
    processes.killNow();
    for (const name of context.namespaces.splice(0)) spawnSync('ip', ['netns', 'del', name]);
    releaseOwner(ownerKey);
    guardian.finish();
  };
  const release = registerCleanup('kernel flows', close, { timeoutMs: 15_000, closeNow });

  try {
    recordOwner(ownerKey);
    for (const flowPlan of plan.flows) await buildFlow(context, flowPlan);
  } catch (error) {
    await release().catch(() => {});
    throw error;
  }
  return { plan, commands, ...clientControls(context, plan), close: release, closeNow };
}

/**
 * A command runner whose every command is kept for the run's record and passed to `logCommand`.
 * @param {() => number} now  seconds on the run's clock
 * @param {(record: CommandRecord) => void} logCommand
 */
function recordingRunner(now, logCommand) {
  const runner = createCommandRunner({ clock: now });
  /** @type {CommandRecord[]} */
  const commands = [];
  const record = (/** @type {CommandRecord} */ entry) => { commands.push(entry); logCommand(entry); };
  /** @type {RunCommand} */
  const run = async (argv, options) => {
    const before = runner.commands.length;
    try {
      return await runner.run(argv, options);
    } finally {
      for (const entry of runner.commands.slice(before)) record(entry);
    }
  };
  return { run, record, commands };
}

/** No client starts any more. @param {FlowContext} context */
function stopClients(context) {
  context.closing = true;
  for (const timer of context.timers) clearTimeout(timer);
  context.timers.clear();
}

/**
 * One flow's namespaces, its TUN bridges through the tunnels and its iperf3 servers; throws if one does not start.
 * @param {FlowContext} context @param {KernelFlowPlan} flowPlan
 */
async function buildFlow(context, { flow, left, right, server, tests }) {
  const { run, record, spawnOwned, tools, dir } = context;
  for (const side of [left, right]) {
    context.namespaces.push(side.namespace);
    await run(['ip', 'netns', 'add', side.namespace]);
    // No IPv6: its router solicitations would reach a bridge before the other TUN is up, and socat exits on that write error.
    await run(['ip', 'netns', 'exec', side.namespace, 'sysctl', '-q', '-w', 'net.ipv6.conf.all.disable_ipv6=1', 'net.ipv6.conf.default.disable_ipv6=1']);
  }
  const bridgePorts = [await freeUdpPort(), await freeUdpPort()];
  const { leftPort, rightPort } = await context.tunnels.registerTunnel({
    name: flow.name, forward: context.routes.forward, back: context.routes.back,
    left: { address: '127.0.0.1', port: bridgePorts[0] }, right: { address: '127.0.0.1', port: bridgePorts[1] },
  });
  const sides = /** @type {const} */ ([[left, leftPort, bridgePorts[0]], [right, rightPort, bridgePorts[1]]]);
  for (const [side, tunnelPort, bridgePort] of sides) {
    const bridge = spawnOwned(
      [tools.socat, `TUN,tun-name=${side.tun},iff-no-pi,tun-type=tun`, `UDP:127.0.0.1:${tunnelPort},bind=127.0.0.1:${bridgePort}`],
      { background: true },
    );
    const failure = await waitFor(() => existsSync(`/sys/class/net/${side.tun}`), bridge.exited);
    record({ atS: bridge.atS, cmd: bridge.cmd, ok: !failure, ...(failure ? { stderr: failure } : {}) });
    if (failure) throw new EnvironmentError(`kernel flow "${flow.name}": the TUN bridge did not start: it ${failure}. Command: ${bridge.cmd}`);
    bridge.exited.then(({ code, signal, stderr }) => {
      if (!context.closing) context.fail(flow.name, `its TUN bridge (socat, ${side.tun}) exited with ${signal ?? `code ${code}`}: ${stderr.trim() || 'no error output'}`);
    });
    try {
      await run(['ip', 'link', 'set', 'dev', side.tun, 'netns', side.namespace]);
      await run(['ip', '-n', side.namespace, 'link', 'set', 'dev', 'lo', 'up']);
      await run(['ip', '-n', side.namespace, 'addr', 'add', `${side.address}/30`, 'dev', side.tun]);
      await run(['ip', '-n', side.namespace, 'link', 'set', 'dev', side.tun, 'mtu', String(TUN_MTU), 'up']);
    } catch (error) {
      // A TUN vanishes with the socat that holds it: its exit, not the missing device, is the cause to report.
      const exit = await Promise.race([bridge.exited, sleep(BRIDGE_EXIT_WAIT_MS).then(() => null)]);
      if (!exit) throw error;
      throw new EnvironmentError(`kernel flow "${flow.name}": its TUN bridge (socat, ${side.tun}) exited with ${exit.signal ?? `code ${exit.code}`} `
        + `while its device was set up: ${exit.stderr.trim() || 'no error output'}. Command: ${bridge.cmd}`);
    }
  }
  for (const test of tests) {
    const file = path.join(dir, `${flow.name}-${test.index}.server.json`);
    const started = spawnOwned(
      ['ip', 'netns', 'exec', server.namespace, tools.iperf3, '-4', '-s', '-1', '-J', '-p', String(test.port)],
      { stdoutFile: file, background: true },
    );
    const pid = started.child.pid;
    const failure = await waitFor(() => listening(pid, test.port), started.exited);
    record({ atS: started.atS, cmd: started.cmd, ok: !failure, ...(failure ? { stderr: failure } : {}) });
    if (failure || pid === undefined) {
      throw new EnvironmentError(`kernel flow "${flow.name}": the iperf3 server did not start: it ${failure}${iperf3Error(file)}. `
        + `Command: ${started.cmd}. Check the iperf3 executable (${tools.iperf3}); ${INSTALL_HINT}.`);
    }
    context.serverPids.set(test, pid);
  }
}

/**
 * What the run does with the flows once they are built: start the clients, wait for them, read what they measured.
 * @param {FlowContext} context @param {ReturnType<typeof planKernelFlows>} plan
 */
function clientControls(context, plan) {
  /** @type {Promise<void>[]} */
  const finished = [];
  /** @param {string} name */
  const resultsOf = (name) => context.results.get(name) ?? [];
  return {
    /** @param {number} [startEpochMs] */
    start(startEpochMs = Date.now()) {
      if (context.mediaStartEpochMs !== null) throw new HarnessError('kernel flows: start() called twice');
      context.mediaStartEpochMs = startEpochMs;
      for (const flowPlan of plan.flows) {
        for (const test of flowPlan.tests) {
          finished.push(new Promise((resolve) => {
            const timer = setTimeout(() => {
              context.timers.delete(timer);
              runClient(context, flowPlan, test)
                .catch((error) => context.fail(flowPlan.flow.name, error.message)).finally(() => resolve(undefined));
            }, Math.max(0, startEpochMs + test.atS * 1000 - Date.now()));
            context.timers.add(timer);
          }));
        }
      }
    },
    done: () => Promise.all(finished).then(() => undefined),
    rows: () => plan.flows
      .filter(({ flow }) => resultsOf(flow.name).length > 0)
      .flatMap(({ flow }) => flowRows({ flow: flow.name, windowS: [flow.startS, flow.stopS], tests: resultsOf(flow.name) }))
      .sort((a, b) => a.t - b.t || a.flow.localeCompare(b.flow)),
    tests: () => [...context.outcomes],
    /** @param {string} name */
    async tcpInfo(name) {
      const flowPlan = plan.flows.find(({ flow }) => flow.name === name);
      if (!flowPlan) throw new HarnessError(`kernel flows: no flow "${name}"`);
      const { stdout } = await context.run(['ip', 'netns', 'exec', flowPlan.client.namespace, 'ss', '-tinH', 'dst', flowPlan.server.address]);
      return parseSsTcpInfo(stdout);
    },
  };
}

/**
 * Runs one client at its time; its receiver anchor is the moment the server's data connection appears.
 * @param {FlowContext} context @param {KernelFlowPlan} flowPlan @param {KernelTest} test
 */
async function runClient(context, { flow, client, server }, test) {
  if (context.closing) return;
  const file = path.join(context.dir, `${flow.name}-${test.index}.client.json`);
  const started = context.spawnOwned([
    'ip', 'netns', 'exec', client.namespace, context.tools.iperf3, '-4', '-c', server.address, '-p', String(test.port),
    '-J', '--get-server-output', ...test.clientArgs,
  ], { stdoutFile: file });
  const mediaS = () => (Date.now() - /** @type {number} */ (context.mediaStartEpochMs)) / 1000;
  const spawnedS = mediaS();
  let anchorS = /** @type {number|null} */ (null);
  let running = true;
  const serverPid = context.serverPids.get(test);
  const watch = (async () => {
    while (running && anchorS === null) {
      if (serverPid && dataConnected(serverPid, test.port, test.protocol)) anchorS = mediaS();
      else await sleep(POLL_MS);
    }
  })();
  const { code, signal, stderr, spawnError } = await started.exited;
  running = false;
  await watch;
  if (context.closing && code !== 0) return;
  /** @type {TestOutcome} */
  const outcome = { flow: flow.name, index: test.index, atS: test.atS, anchorS, port: test.port, protocol: test.protocol, ok: false };
  try {
    const parsed = parseIperf3Client(readFileSync(file, 'utf8'), file);
    // A test too short for the poll to see (or a server that was not watched) starts at the client's start.
    const anchor = anchorS ?? spawnedS;
    const finished = context.results.get(flow.name) ?? [];
    context.results.set(flow.name, [...finished, { anchorS: anchor, test: parsed }]);
    Object.assign(outcome, { ok: true, anchorS: anchor, totals: parsed.totals, receiverSource: parsed.receiverSource });
  } catch (error) {
    outcome.error = clientError(error, test, spawnError ?? (stderr.trim() || `exit ${signal ?? `code ${code}`}`));
    context.fail(flow.name, `iperf3 client ${test.index} failed: ${outcome.error}`);
  }
  context.outcomes.push(outcome);
  context.record({ atS: started.atS, cmd: started.cmd, ok: outcome.ok, ...(outcome.error ? { stderr: outcome.error } : {}) });
}

/**
 * Why a client failed, with what to do about the one failure iperf3 explains badly.
 * @param {unknown} error  from reading its JSON  @param {KernelTest} test  @param {string} why  its exit
 */
function clientError(error, test, why) {
  const message = error instanceof Error ? error.message : String(error);
  const text = `${message}${message.includes('iperf3 reported') ? '' : ` (${why})`}`;
  if (test.protocol === 'udp' && /unable to read from stream socket/.test(message)) {
    return `${text}. iperf3 (3.12) sends one UDP connect datagram and gives up after 30 s without a reply: a full queue on the `
      + 'path dropped it. Start the UDP flow before the TCP flows that fill the bottleneck';
  }
  return text;
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
