// The netem backend against the real kernel (root): namespaces, htb/bfifo, nft loss, teardown, SIGINT.
// Each test uses its own run id; iperf3 runs are bounded (5 s) and stay inside the test's namespaces.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { EnvironmentError } from '../orchestrator/lib/system/errors.js';
import { binomialInterval99, runCalibration } from '../orchestrator/emulators/calibration.js';
import { assertCanRun, netemCapabilities } from '../orchestrator/emulators/netem/capabilities.js';
import { iperf3IpKbps, openNetemProbePath, runIperf3 } from '../orchestrator/emulators/netem/calibrate.js';
import { removeLeftovers } from '../orchestrator/emulators/netem/cleanup.js';
import { linkCommands, qdiscLayout, setupCommands } from '../orchestrator/emulators/netem/commands.js';
import { createNetemEmulator } from '../orchestrator/emulators/netem/index.js';
import { createCommandRunner } from '../orchestrator/emulators/command-runner.js';
import { planTopology } from '../orchestrator/emulators/netem/topology.js';
import { compileNetwork } from '../orchestrator/lib/network/schedule.js';

const caps = await netemCapabilities();
const skip = caps.netns && caps.htb && caps.nftables ? false : `netem backend unavailable here: ${caps.reasons.join('; ')}`;
const hasIperf3 = (() => {
  try { execFileSync('iperf3', ['--version']); return true; } catch { return false; }
})();

/** @param {object} overrides */
const link = (overrides = {}) => ({
  rateKbps: null, queuePackets: 50, queueMs: null, oneWayDelayMs: 0, jitterMs: 0, lossPct: 0, lossBurst: null, ...overrides,
});
/** A compiled two-peer mesh; no link replays a trace, so it has no traces. @param {object} [up0] */
const twoPeers = (up0 = {}) => /** @type {import('../orchestrator/lib/network/schedule.js').CompiledNetwork} */ (/** @type {unknown} */ ({
  links: { 'p0.up': link(up0), 'p0.down': link(), 'p1.up': link(), 'p1.down': link() },
  routes: { 'p0->p1': ['p0.up', 'p1.down'], 'p1->p0': ['p1.up', 'p0.down'] },
  events: [],
}));
/** `ip netns list` complains on stderr about namespaces being deleted meanwhile; only stdout matters. */
const sh = (file, args) => execFileSync(file, args, { stdio: ['ignore', 'pipe', 'ignore'] }).toString();
const uniqueId = (tag) => `${tag}${process.pid.toString(36)}`.slice(0, 8);

/** Everything a run id could leave behind, read from the system. */
function leftovers(runId) {
  const plan = planTopology({ runId, peers: ['p0', 'p1'], links: [], block: 0 });
  const netns = sh('ip', ['netns', 'list']).split('\n').map((line) => line.split(' ')[0])
    .filter((name) => name.startsWith(`wtb-${plan.id}-`));
  const links = new RegExp(`^\\d+: ${plan.control.rootIf}[@:]`, 'm').test(sh('ip', ['-o', 'link', 'show'])) ? [plan.control.rootIf] : [];
  const tables = execFileSync('nft', ['list', 'tables']).toString().split('\n').filter((line) => line.includes(plan.nftTable));
  return [...netns, ...links, ...tables];
}

/**
 * The qdiscs the kernel shows on each device of an expected layout, in qdiscLayout's form.
 * @param {string} netns @param {Record<string, string[]>} layout
 */
function shownLayout(netns, layout) {
  const line = (q) => `${q.kind} ${q.handle} ${q.root ? 'root' : `parent ${q.parent}`}${q.kind === 'bfifo' ? ` limit ${q.options.limit}` : ''}`;
  return Object.fromEntries(Object.keys(layout).map((device) => {
    const qdiscs = JSON.parse(execFileSync('tc', ['-n', netns, '-j', 'qdisc', 'show', 'dev', device]).toString());
    return [device, qdiscs.map(line).sort()];
  }));
}

/** Runs fn with a set-up emulator and always closes it. */
async function withEmulator(runId, compiled, fn) {
  const emulator = createNetemEmulator({ peers: ['p0', 'p1'], compiled, runId, capabilities: caps });
  try {
    await emulator.setup();
    return await fn(emulator);
  } finally {
    await emulator.close();
  }
}

test('set-up builds namespaces and the qdiscs the generator gives for this kernel\'s capabilities; set-up again is fine; close leaves nothing', { skip }, async () => {
  const runId = uniqueId('life');
  const compiled = twoPeers({ rateKbps: 1000, lossPct: 5 });
  await withEmulator(runId, compiled, async (emulator) => {
    const { plan } = emulator;
    const netns = sh('ip', ['netns', 'list']);
    for (const name of [plan.routerNetns, plan.peers[0].netns, plan.peers[1].netns]) assert.match(netns, new RegExp(`^${name}\\b`, 'm'));
    // What the kernel shows is what the emulator's own commands for the probed capabilities should build.
    const setup = setupCommands(plan, compiled.links, { netem: caps.netem });
    assert.deepEqual(shownLayout(plan.routerNetns, qdiscLayout(setup)), qdiscLayout(setup), `sch_netem ${caps.netem ? 'present' : 'missing'}`);
    // …and the other capability set's layout is not: the comparison tells the two apart.
    const other = qdiscLayout(setupCommands(plan, compiled.links, { netem: !caps.netem }));
    assert.notDeepEqual(shownLayout(plan.routerNetns, other), other);
    const classes = execFileSync('tc', ['-n', plan.routerNetns, 'class', 'show', 'dev', 'hp0']).toString();
    assert.match(classes, /class htb 1:1 root .*rate 1Mbit ceil 1Mbit/);
    const tables = execFileSync('ip', ['netns', 'exec', plan.routerNetns, 'nft', 'list', 'tables']).toString();
    if (caps.netem) {
      assert.match(execFileSync('tc', ['-n', plan.routerNetns, 'qdisc', 'show', 'dev', 'hp0']).toString(), /qdisc netem 101: .*loss 5%/);
      assert.doesNotMatch(tables, new RegExp(plan.nftTable), 'sch_netem drops; no nft table');
    } else {
      const table = execFileSync('ip', ['netns', 'exec', plan.routerNetns, 'nft', 'list', 'table', 'inet', plan.nftTable]).toString();
      assert.match(table, /numgen random mod 10000 < 500 counter name "p0_up" drop/);
    }
    // The root namespace reaches the peers through the control veth (signaling replies).
    assert.match(execFileSync('ip', ['route', 'get', emulator.addressOf('p1')]).toString(), new RegExp(`dev ${plan.control.rootIf}`));
    assert.equal(emulator.signalingHost, plan.control.rootAddress);

    await emulator.setup();
    assert.ok(emulator.commands.length > 0, 'emulator.commands: nothing to check');
    assert.ok(emulator.commands.every((command) => command.ok), 'every logged command succeeded');
    assert.ok(emulator.commands.some((command) => command.cmd.startsWith('ip netns del ')), 'the second set-up removed the first');

    const changed = link({ rateKbps: 2000, queueMs: 100, lossPct: 1 });
    await emulator.apply({ 'p0.up': changed });
    const stage = emulator.plan.stages.find((s) => s.link === 'p0.up');
    const expected = qdiscLayout([...setupCommands(emulator.plan, compiled.links, { netem: caps.netem }),
      ...linkCommands(emulator.plan, stage, changed, { netem: caps.netem, verb: 'change' })]);
    assert.ok(expected.hp0.includes(`bfifo 201: parent ${caps.netem ? '101:1' : '1:1'} limit 25000`), expected.hp0.join(', '));
    assert.deepEqual(shownLayout(emulator.plan.routerNetns, expected), expected);
    if (!caps.netem) {
      assert.match(execFileSync('ip', ['netns', 'exec', plan.routerNetns, 'nft', 'list', 'chain', 'inet', plan.nftTable, 'p0_up']).toString(), /< 100 counter name "p0_up" drop/);
    }
    assert.match(emulator.commands.at(-3).cmd, /^tc -n \S+ class change dev hp0 parent 1: classid 1:1 htb rate 2000000bit/);
  });
  assert.deepEqual(leftovers(runId), []);
});

/**
 * Sends count UDP datagrams from one peer's namespace to another's and waits until the receiver has them all.
 * @param {{plan: import('../orchestrator/emulators/netem/topology.js').TopologyPlan}} emulator
 * @param {string} from @param {string} to @param {number} count
 */
async function sendDatagrams(emulator, from, to, count) {
  const [sender, receiver] = [from, to].map((name) => emulator.plan.peers.find((peer) => peer.name === name));
  const port = '5400';
  const receive = `const s = require('node:dgram').createSocket('udp4'); let n = 0;
    s.on('message', () => { if (++n === ${count}) { console.log(n); process.exit(0); } });
    s.bind(${port}, '${receiver.address}', () => console.log('ready'));
    setTimeout(() => { console.log(n); process.exit(1); }, 5000);`;
  const child = spawn('ip', ['netns', 'exec', receiver.netns, process.execPath, '-e', receive], { stdio: ['ignore', 'pipe', 'inherit'] });
  let stdout = '';
  child.stdout.on('data', (chunk) => { stdout += chunk; });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  while (!stdout.includes('ready')) await sleep(10);
  const send = `const s = require('node:dgram').createSocket('udp4');
    let left = ${count}; const next = () => (left-- > 0 ? s.send('x'.repeat(100), ${port}, '${receiver.address}', next) : s.close()); next();`;
  execFileSync('ip', ['netns', 'exec', sender.netns, process.execPath, '-e', send]);
  assert.equal(await exited, 0, `${from} -> ${to}: the receiver got ${stdout.split('\n')[1]} of ${count} datagrams`);
}

test('a 4-peer mesh with a directional bottleneck: the kernel\'s qdiscs are the generator\'s, and traffic crosses bottleneck.fwd only from left to right, .back only from right to left', { skip }, async () => {
  const runId = uniqueId('bneck');
  const compiled = compileNetwork({ file: 'x.json', durationS: 10, peers: 4, network: { bottleneck: { rateKbps: 2000, queueMs: 300 }, bottleneckBack: { rateKbps: 500 } } });
  const emulator = createNetemEmulator({ peers: ['p0', 'p1', 'p2', 'p3'], compiled, runId, capabilities: caps });
  try {
    await emulator.setup();
    const { plan } = emulator;
    const expected = qdiscLayout(setupCommands(plan, compiled.links, { netem: caps.netem }));
    assert.deepEqual(shownLayout(plan.routerNetns, expected), expected);
    const classes = execFileSync('tc', ['-n', plan.routerNetns, 'class', 'show', 'dev', plan.bottleneckIfb]).toString();
    assert.match(classes, /class htb 1:9 root .*rate 2Mbit ceil 2Mbit/);
    assert.match(classes, /class htb 1:a root .*rate 500Kbit ceil 500Kbit/);
    const count = 20;
    // p0, p2 left; p1, p3 right
    for (const [from, to, crosses] of [['p0', 'p1', 'bottleneck.fwd'], ['p3', 'p2', 'bottleneck.back'], ['p0', 'p2', null], ['p3', 'p1', null], ['p2', 'p3', 'bottleneck.fwd']]) {
      await emulator.truth();
      await sendDatagrams(emulator, from, to, count);
      const packets = Object.fromEntries((await emulator.truth()).map((row) => [row.link, row.packetsOut]));
      const along = [`${from}.up`, ...(crosses ? [crosses] : []), `${to}.down`];
      for (const [name, got] of Object.entries(packets)) {
        assert.equal(got, along.includes(name) ? count : 0, `${from} -> ${to}: ${name} carried ${got} packets; the route is ${along.join(', ')}`);
      }
    }
  } finally {
    await emulator.close();
  }
  assert.deepEqual(leftovers(runId), []);
});

for (const rateKbps of [1000, 5000]) {
  test(`iperf3 TCP through an htb cap of ${rateKbps} kbps is within 5 %`, { skip: skip || (!hasIperf3 && 'iperf3 not installed (apt-get install -y iperf3)') }, async () => {
    const runId = uniqueId(`tcp${rateKbps / 1000}`);
    const ipKbps = await withEmulator(runId, twoPeers({ rateKbps }), async (emulator) => {
      // htb charges IP length, so goodput is converted back to IP-level kbps.
      const first = iperf3IpKbps(await runIperf3(emulator, ['-t', '5', '-O', '1']));
      // A sender starved of CPU by other load can leave the link idle (never push it over the cap): one more try.
      return first < rateKbps * 0.95 ? iperf3IpKbps(await runIperf3(emulator, ['-t', '5', '-O', '1'])) : first;
    });
    const errorPct = (100 * Math.abs(ipKbps - rateKbps)) / rateKbps;
    assert.ok(errorPct <= 5, `IP-level rate ${ipKbps.toFixed(1)} kbps vs cap ${rateKbps} (${errorPct.toFixed(1)} % off)`);
    assert.deepEqual(leftovers(runId), []);
  });
}

test('UDP loss on nftables lands inside the 99 % binomial interval', { skip }, async () => {
  const lossPct = 10;
  const params = { ...link(), lossPct };
  // The calibration probe has no control connection for the loss to disturb (unlike iperf3).
  const probe = { offeredKbps: 400, payloadBytes: 200, durationMs: 5000, warmupMs: 0 };
  const { emulator, path, close } = await openNetemProbePath();
  let result;
  let truth;
  try {
    await emulator.truth();
    [result] = await runCalibration(path, [{ name: 'loss', params, probe }]);
    truth = (await emulator.truth()).find((row) => row.link === 'p0.up');
  } finally {
    await close();
  }
  assert.ok(result.packetsSent > 1000, `sent ${result.packetsSent} datagrams`);
  // The kernel's own count of what the nft rule dropped, out of the packets that reached it (a starved sender's own
  // queue may lose some before the link: those were sent, but never drawn for)…
  assert.ok(truth.packetsIn > 1000, `${truth.packetsIn} of ${result.packetsSent} sent reached p0.up`);
  const [low, high] = binomialInterval99(truth.dropsLoss, truth.packetsIn);
  assert.ok(low * 100 <= lossPct && lossPct <= high * 100, `nft dropped ${truth.dropsLoss}/${truth.packetsIn}: 99 % interval [${(100 * low).toFixed(2)}, ${(100 * high).toFixed(2)}] % misses ${lossPct} %`);
  // …and what the receiver missed (a starved receiver may add a few socket-buffer drops).
  const [lowSeen, highSeen] = result.lossPctCi99;
  assert.ok(lowSeen <= lossPct && lossPct <= highSeen, `receiver missed ${result.lossPct} %, 99 % interval [${lowSeen}, ${highSeen}] misses ${lossPct} %`);
  assert.ok(result.packetsSent - result.packetsReceived >= truth.dropsLoss, 'the receiver missed at least what nft dropped');
});

test('a delay scenario fails before anything is built when sch_netem is missing', { skip: skip || (caps.netem && 'this kernel has sch_netem') }, async () => {
  const runId = uniqueId('delay');
  const compiled = twoPeers({ oneWayDelayMs: 100 });
  await assert.rejects(assertCanRun(compiled), (error) => {
    assert.ok(error instanceof EnvironmentError);
    assert.match(error.message, /p0\.up/);
    assert.match(error.message, /sch_netem/);
    assert.match(error.message, /modprobe sch_netem/);
    assert.match(error.message, /--emulator relay/);
    return true;
  });
  const emulator = createNetemEmulator({ peers: ['p0', 'p1'], compiled, runId });
  await assert.rejects(emulator.setup(), EnvironmentError);
  assert.deepEqual(emulator.commands, []);
  await emulator.close();
  assert.deepEqual(leftovers(runId), []);
});

test('SIGINT during set-up leaves nothing behind', { skip }, async () => {
  const runId = uniqueId('sigint');
  const indexUrl = new URL('../orchestrator/emulators/netem/index.js', import.meta.url).href;
  const child = spawn(process.execPath, ['--input-type=module', '-e', `
    import { createNetemEmulator } from ${JSON.stringify(indexUrl)};
    const link = { rateKbps: 1000, queuePackets: 50, queueMs: null, oneWayDelayMs: 0, jitterMs: 0, lossPct: 1, lossBurst: null };
    const links = { 'p0.up': link, 'p0.down': link, 'p1.up': link, 'p1.down': link, 'p2.up': link, 'p2.down': link, 'bottleneck.fwd': link, 'bottleneck.back': link };
    const emulator = createNetemEmulator({ peers: ['p0', 'p1', 'p2'], compiled: { links, routes: {}, events: [] }, runId: ${JSON.stringify(runId)} });
    process.once('SIGINT', async () => { await emulator.close(); process.exit(130); });
    try { await emulator.setup(); console.log('set-up finished'); } catch (error) { console.log(error.message); }
    setInterval(() => {}, 1000);
  `], { stdio: ['ignore', 'pipe', 'inherit'] });
  let stdout = '';
  child.stdout.on('data', (chunk) => { stdout += chunk; });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const routerNetns = planTopology({ runId, peers: ['p0'], links: [], block: 0 }).routerNetns;
  try {
    // Interrupt once the router namespace exists, well before the ~80 set-up commands are through.
    for (let waitedMs = 0; !sh('ip', ['netns', 'list']).includes(routerNetns); waitedMs += 10) {
      assert.ok(waitedMs < 15_000, 'set-up never started');
      await sleep(10);
    }
    child.kill('SIGINT');
    assert.equal(await exited, 130);
  } finally {
    child.kill('SIGKILL');
  }
  assert.match(stdout, /set-up of \S+ interrupted/);
  assert.deepEqual(leftovers(runId), []);
});

test('netem-scripts: setup-namespaces.sh builds a topology that teardown.sh removes', { skip }, () => {
  const runId = uniqueId('script');
  const scripts = fileURLToPath(new URL('../netem-scripts/', import.meta.url));
  try {
    execFileSync('sh', [`${scripts}setup-namespaces.sh`, runId, '2', '250'], { env: { ...process.env, NETEM: caps.netem ? '1' : '0' }, stdio: 'ignore' });
    assert.equal(leftovers(runId).length, 4, 'three namespaces and the control veth');
    const compiled = compileNetwork({ file: 'x.json', durationS: 10, peers: 2, network: {} });
    const plan = planTopology({ runId, peers: ['p0', 'p1'], links: Object.keys(compiled.links), block: 250 });
    const expected = qdiscLayout(setupCommands(plan, compiled.links, { netem: caps.netem }));
    assert.deepEqual(shownLayout(plan.routerNetns, expected), expected);
  } finally {
    execFileSync('sh', [`${scripts}teardown.sh`, runId], { stdio: 'ignore' });
  }
  assert.deepEqual(leftovers(runId), []);
});

test('cleanup removes what a crashed run left, including processes inside its namespaces', { skip }, async () => {
  const runId = uniqueId('crash');
  const emulator = createNetemEmulator({ peers: ['p0', 'p1'], compiled: twoPeers({ lossPct: 1 }), runId, capabilities: caps });
  await emulator.setup();
  // A "browser" the crashed run never closed.
  const orphan = spawn('ip', ['netns', 'exec', emulator.plan.peers[0].netns, 'sleep', '30'], { stdio: 'ignore' });
  const orphanExit = new Promise((resolve) => orphan.once('exit', (code, signal) => resolve(signal)));
  try {
    await sleep(200);
    const { run } = createCommandRunner();
    const found = await removeLeftovers(run, { runId });
    assert.deepEqual(found.netns.sort(), [`wtb-${emulator.plan.id}-p0`, `wtb-${emulator.plan.id}-p1`, `wtb-${emulator.plan.id}-r`]);
    assert.deepEqual(found.rootLinks, [emulator.plan.control.rootIf]);
    assert.equal(found.pids.length, 1);
    assert.equal(await orphanExit, 'SIGKILL');
  } finally {
    orphan.kill('SIGKILL');
  }
  assert.deepEqual(leftovers(runId), []);
});
