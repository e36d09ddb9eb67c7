// Kernel flows through the relay, for real: namespaces, TUN devices, socat bridges, the relay process and iperf3.
// A TCP flow through 2000 kbps / 50 ms each way gets the cap and the delay, a 500 kbps UDP flow arrives at 500 kbps,
// a broken iperf3 is a clear error, and nothing is left after close, after Ctrl-C and after SIGKILL of the orchestrator.
// It carries real traffic: on a machine others share, run it under the machine's lock (e.g. one-at-a-time).
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { startKernelFlows } from '../orchestrator/cross/kernel-flows.js';
import { planKernelFlows } from '../orchestrator/cross/kernel-flow-plan.js';
import { startRelayProcess } from '../orchestrator/emulators/relay/client.js';
import { EnvironmentError } from '../orchestrator/lib/system/errors.js';
import { normalizeLinkParams } from '../orchestrator/lib/network/link-model.js';
import { recordOwner, releaseOwner } from '../orchestrator/lib/system/owners.js';
import { runCli } from './helpers/cli.js';
const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;

const onPath = (name) => { try { execFileSync('sh', ['-c', `command -v ${name}`]); return true; } catch { return false; } };
const skip = process.platform !== 'linux' || process.getuid?.() !== 0 ? 'needs root on Linux (namespaces, TUN)'
  : ['iperf3', 'socat', 'setpriv'].find((name) => !onPath(name)) ? 'needs iperf3, socat and setpriv (npm run setup)' : false;

const CAP_KBPS = 2000;
const ONE_WAY_MS = 50;
// RFC 8867's 300 ms bottleneck queue: deep enough for TCP.
const LINK = normalizeLinkParams({ rateKbps: CAP_KBPS, queueMs: 300, oneWayDelayMs: ONE_WAY_MS }, 'kernel-flows test');
const tempRunDir = () => mkdtempSync(path.join(os.tmpdir(), 'kernel-flows-'));

const sh = (command, args) => execFileSync(command, args, { encoding: 'utf8' });
/** What a run with this id left: its namespaces, its TUN devices, processes naming either. */
function leftovers(runId) {
  const { namespacePrefix, linkPrefix } = planKernelFlows([], { runId });
  const namespaces = sh('ip', ['netns', 'list']).split('\n').map((line) => line.split(' ')[0]).filter((name) => name.startsWith(namespacePrefix));
  const links = [...sh('ip', ['-o', 'link', 'show']).matchAll(/^\d+: ([^:@\s]+)/gm)].map((m) => m[1]).filter((name) => name.startsWith(linkPrefix));
  const processes = sh('ps', ['-eo', 'pid,args']).split('\n')
    .filter((line) => (line.includes(namespacePrefix) || line.includes(`tun-name=${linkPrefix}`)) && /iperf3|socat/.test(line));
  return [...namespaces.map((n) => `netns ${n}`), ...links.map((l) => `link ${l}`), ...processes.map((p) => `process ${p.trim()}`)];
}
/** Polls until the run left nothing (or the time is up), then returns what is left. */
async function leftoversAfter(runId, withinMs) {
  const deadline = Date.now() + withinMs;
  while (Date.now() < deadline && leftovers(runId).length > 0) await sleep(100);
  return leftovers(runId);
}

describe('kernel flows through the relay', { skip }, () => {
  /** @type {import('../orchestrator/emulators/relay/client.js').RelayProcess} */
  let relay;
  before(async () => {
    relay = await startRelayProcess();
    await relay.configure({ links: { 'bottleneck.fwd': LINK, 'bottleneck.back': LINK } });
  });
  after(async () => { await relay?.close(); });

  test('TCP gets the 2000 kbps cap and the 100 ms RTT; a 500 kbps UDP flow the other way arrives at 500 kbps', { timeout: 60_000 }, async (t) => {
    const runId = `kf-${process.pid}`;
    const commands = [];
    const errors = [];
    const flows = await startKernelFlows({
      flows: [
        // The UDP flow starts first: iperf3 3.12 sends a single UDP connect datagram, which a full queue may drop.
        { name: 'tcp', kind: 'tcp', startS: 1, stopS: 13 },
        { name: 'cbr', kind: 'udp', rateKbps: 500, startS: 0, stopS: 10, direction: 'backward' },
      ],
      tunnels: relay, runDir: tempRunDir(), runId,
      logCommand: (record) => commands.push(record), onError: (error) => errors.push(error.message),
    });
    try {
      assert.ok(leftovers(runId).filter((name) => name.startsWith('netns')).length === 4, 'two namespaces per flow');
      flows.start();
      await sleep(11_000);
      const tcpInfo = await flows.tcpInfo('tcp');
      await flows.done();
      assert.deepEqual(errors, []);
      const rows = flows.rows();
      const rate = (flow, fromT, toT) => mean(rows.filter((row) => row.flow === flow && row.t >= fromT && row.t <= toT)
        .map((row) => row.rateKbps));

      // Goodput after slow start: at most the cap less the 52 bytes of IP and TCP headers a 1500-byte packet carries.
      const tcpKbps = rate('tcp', 5, 12);
      assert.ok(Math.abs(tcpKbps - CAP_KBPS) <= CAP_KBPS * 0.1, `TCP goodput ${tcpKbps} kbps within 10 % of ${CAP_KBPS}`);
      assert.ok(tcpKbps <= CAP_KBPS * (1448 / 1500) * 1.02, `TCP goodput ${tcpKbps} kbps cannot beat the cap`);
      // The path's RTT is the kernel's minimum sample on the data connection (the one that sent the bytes), which is one
      // full-size packet's transmission time at the cap (6 ms) above the configured 100 ms at most.
      const data = tcpInfo.reduce((best, info) => (info.bytesAcked > best.bytesAcked ? info : best));
      assert.equal(data.congestionControl, 'cubic');
      const serializationMs = (1500 * 8) / CAP_KBPS;
      assert.ok(data.minRttMs >= 2 * ONE_WAY_MS - 1 && data.minRttMs <= 2 * ONE_WAY_MS + serializationMs + 2, `min RTT ${data.minRttMs} ms`);
      // iperf3's mean RTT carries the standing queue a loss-based TCP builds: up to the 300 ms of the drop-tail queue.
      const [tcpTest] = flows.tests().filter((t) => t.flow === 'tcp');
      assert.ok(tcpTest.totals.meanRttMs > 2 * ONE_WAY_MS && tcpTest.totals.meanRttMs < 2 * ONE_WAY_MS + 300 + 2 * serializationMs + 20,
        `mean RTT ${tcpTest.totals.meanRttMs} ms`);
      // The first row is the media second the flow started in; the receiver's clock starts a few RTTs after the client.
      assert.equal(rows.find((row) => row.flow === 'tcp').t, 2);
      assert.ok(tcpTest.anchorS > 1.2 && tcpTest.anchorS < 2.5, `TCP test began at ${tcpTest.anchorS} s, after the connection set-up`);

      const udpKbps = rate('cbr', 3, 9);
      assert.ok(Math.abs(udpKbps - 500) <= 500 * 0.05, `UDP goodput ${udpKbps} kbps within 5 % of 500`);
      const [udpTest] = flows.tests().filter((t) => t.flow === 'cbr');
      assert.equal(udpTest.totals.lostPercent, 0);
      t.diagnostic(`TCP goodput ${tcpKbps.toFixed(1)} kbps, min RTT ${data.minRttMs} ms, iperf3 mean RTT ${tcpTest.totals.meanRttMs} ms; `
        + `UDP ${udpKbps.toFixed(1)} kbps`);

      // The relay's own per-tunnel count agrees: the TCP bytes went forward, the UDP bytes back.
      const truth = await relay.tunnelTruth();
      const relayBytes = (flow, direction) => truth.filter((row) => row.flow === flow && row.direction === direction)
        .reduce((sum, row) => sum + row.bytesOut, 0);
      assert.ok(relayBytes('tcp', 'forward') > relayBytes('tcp', 'back') * 10);
      assert.ok(relayBytes('cbr', 'back') >= udpTest.totals.bytesReceived, 'the relay carried at least what iperf3 received');

      const logged = commands.map((record) => record.cmd).join('\n');
      for (const part of ['ip netns add', 'socat TUN,tun-name=', 'iperf3 -4 -s -1 -J', 'iperf3 -4 -c 10.203.0.2', '-u -b 500k']) {
        assert.ok(logged.includes(part), `${part} logged`);
      }
    } finally {
      await flows.close();
    }
    assert.deepEqual(leftovers(runId), []);
    assert.ok(commands.some((record) => record.cmd.startsWith('ip netns del')), 'the tear-down is logged too');
  });

  test('an iperf3 that cannot start stops the set-up with a clear error and removes what was built', { timeout: 30_000 }, async () => {
    const runId = `kf-bad-${process.pid}`;
    await assert.rejects(
      startKernelFlows({ flows: [{ name: 'tcp-2', kind: 'tcp', startS: 0, stopS: 5 }], tunnels: relay, runDir: tempRunDir(), runId, executables: { iperf3: '/nonexistent/iperf3' } }),
      (error) => error instanceof EnvironmentError && /kernel flow "tcp-2": the iperf3 server did not start: it exited with code \d+.*\/nonexistent\/iperf3/s.test(error.message),
    );
    assert.deepEqual(leftovers(runId), []);
  });
});

const module = (file) => JSON.stringify(fileURLToPath(new URL(file, import.meta.url)));
/**
 * An orchestrator in a child process: lib/system/shutdown.js's handlers, the flows' closer registered through onCleanup, a
 * first Ctrl-C answered by every closer and exit 130 (as a run does). Prints "running" once traffic flows (after
 * runningAfterMs); extraFlows run beside the two 30 s ones.
 * @param {string} runId @param {{ extraFlows?: object[], runningAfterMs?: number }} [options]
 */
function startChild(runId, { extraFlows = [], runningAfterMs = 1500 } = {}) {
  const runDir = tempRunDir();
  const script = `
    import { installProcessHandlers, onCleanup, onInterrupt, runCleanup } from ${module('../orchestrator/lib/system/shutdown.js')};
    import { startRelayProcess } from ${module('../orchestrator/emulators/relay/client.js')};
    import { startKernelFlows } from ${module('../orchestrator/cross/kernel-flows.js')};
    installProcessHandlers();
    onInterrupt(async () => { await runCleanup(); process.exit(130); });
    const relay = await startRelayProcess();
    onCleanup('relay', () => relay.close());
    const link = ${JSON.stringify(LINK)};
    await relay.configure({ links: { 'bottleneck.fwd': link, 'bottleneck.back': link } });
    const flows = await startKernelFlows({
      flows: [{ name: 'tcp', kind: 'tcp', startS: 0, stopS: 30 }, { name: 'cbr', kind: 'udp', rateKbps: 300, startS: 0, stopS: 30 },
        ...${JSON.stringify(extraFlows)}],
      tunnels: relay, runDir: ${JSON.stringify(runDir)}, runId: ${JSON.stringify(runId)}, registerCleanup: onCleanup,
    });
    flows.start();
    setTimeout(() => console.log('running'), ${runningAfterMs});
    setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const running = new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => { output += chunk; if (output.includes('running')) resolve(undefined); });
    child.stderr.on('data', (chunk) => { output += chunk; });
    child.once('exit', () => reject(new Error(`the child exited before traffic ran: ${output}`)));
  });
  /** @type {Promise<{code: number|null, signal: string|null}>} */
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return { child, running, exited, runDir };
}

describe('kernel flows when the orchestrator is stopped', { skip }, () => {
  test('Ctrl-C: the run\'s closer removes namespaces, TUNs, socat and iperf3', { timeout: 30_000 }, async () => {
    const runId = `kf-int-${process.pid}`;
    const { child, running, exited } = startChild(runId);
    await running;
    assert.equal(leftovers(runId).filter((name) => name.startsWith('netns')).length, 4);
    child.kill('SIGINT');
    assert.deepEqual(await exited, { code: 130, signal: null });
    assert.deepEqual(leftovers(runId), []);
  });

  test('SIGKILL: the guardian removes everything within a few seconds and kills no pid of a process that had exited', { timeout: 40_000 }, async () => {
    const runId = `kf-kill-${process.pid}`;
    // A 1 s flow whose iperf3 client and server have exited (and been reaped) by the time of the kill.
    const { child, running, exited, runDir } = startChild(runId, { extraFlows: [{ name: 'short', kind: 'tcp', startS: 0, stopS: 1 }], runningAfterMs: 5000 });
    await running;
    assert.ok(leftovers(runId).some((name) => name.startsWith('process')), 'iperf3 and socat run');
    const aliveBeforeKill = new Set(readdirSync('/proc').filter((name) => /^\d+$/.test(name)).map(Number));
    child.kill('SIGKILL');
    await exited;
    assert.deepEqual(await leftoversAfter(runId, 3_000), []);
    const log = readFileSync(path.join(runDir, 'kernel-flows', 'guardian.log'), 'utf8');
    const told = /processes told: ([\d ]+)\n/.exec(log)?.[1].split(' ').map(Number) ?? [];
    // Six bridges, the two long flows' iperf3 servers and clients: the short flow's server and client were forgotten.
    assert.equal(told.length, 10, log);
    assert.deepEqual(told.filter((pid) => !aliveBeforeKill.has(pid)), [], `pids told that had exited before the kill:\n${log}`);
  });
});

test('`cleanup` removes namespaces of kernel flows whose orchestrator is gone and leaves a live run\'s alone', { skip, timeout: 60_000 }, async (t) => {
  const dead = planKernelFlows([{ name: 'x', kind: 'tcp', startS: 0, stopS: 1 }], { runId: `kf-dead-${process.pid}` });
  const live = planKernelFlows([{ name: 'x', kind: 'tcp', startS: 0, stopS: 1 }], { runId: `kf-live-${process.pid}` });
  const liveKey = live.namespacePrefix.slice(0, -1);
  // A live run: this process owns it. A dead one: namespaces with no owner alive (its guardian died too).
  recordOwner(liveKey);
  for (const plan of [dead, live]) sh('ip', ['netns', 'add', plan.flows[0].left.namespace]);
  t.after(() => {
    releaseOwner(liveKey);
    for (const plan of [dead, live]) { try { sh('ip', ['netns', 'del', plan.flows[0].left.namespace]); } catch { /* removed */ } }
  });
  const result = await runCli(['cleanup']);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, new RegExp(`removed .*${dead.flows[0].left.namespace}`));
  assert.match(result.stdout, new RegExp(`left \\d+ run\\(s\\) in progress alone \\(.*${live.id}`));
  const namespaces = sh('ip', ['netns', 'list']);
  assert.ok(!namespaces.includes(dead.flows[0].left.namespace));
  assert.ok(namespaces.includes(live.flows[0].left.namespace));
});
