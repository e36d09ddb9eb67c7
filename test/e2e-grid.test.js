// --grid with a real Selenium Grid 4 on this machine (issue 26, first stage): a hub and two grid-nodes as a user starts
// them, a two-party call with p0 on node n1 and p1 on node n2, the network emulated by the central relay on the
// orchestrator's host. The nodes share this host's network (no namespaces yet: the per-node relays are the next stage).
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { processesTagged, runCli, runScenarioCli, runTag } from './helpers/cli.js';
import { SECRET_ENV } from '../orchestrator/grid/secrets.js';
import { gridJarsDir } from '../orchestrator/grid/versions.js';

const HUB_PORT = 20_000 + Math.floor(Math.random() * 20_000);
const hubUrl = `http://127.0.0.1:${HUB_PORT}`;
// The hub writes its secrets here, where the nodes and the scenario find them without flags.
const config = mkdtempSync(path.join(os.tmpdir(), 'wtb-grid-config-'));
const env = { XDG_CONFIG_HOME: config };

/** Starts a long-running CLI command; resolves once its output matches `ready`. */
function startCli(args, ready, extraEnv) {
  /** @type {import('node:child_process').ChildProcess|null} */
  let child = null;
  let output = '';
  const exited = runCli(args, { env: { ...env, ...extraEnv }, timeoutMs: 600_000, onOutput: (text, c) => { child = c; output = text; } });
  const started = new Promise((resolve, reject) => {
    const poll = setInterval(() => {
      if (ready.test(output)) { clearInterval(poll); resolve(undefined); }
    }, 200);
    exited.then((run) => { clearInterval(poll); reject(new Error(`${args.join(' ')} exited ${run.code}:\n${run.stdout}\n${run.stderr}`)); });
  });
  return { started, exited, stop: () => child?.kill('SIGINT'), output: () => output };
}

/** Chromium processes started with a fake-device file, among the pids given. */
const browsersAmong = (pids) => pids.filter((pid) => {
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return cmdline.includes('--use-file-for-fake-video-capture') && !cmdline.includes('--type=');
  } catch {
    return false;
  }
});

test('a Grid that does not answer stops the run with exit 3 before anything starts', { timeout: 60_000 }, async () => {
  const secrets = { [SECRET_ENV.registrationSecret]: 'r', [SECRET_ENV.username]: 'u', [SECRET_ENV.password]: 'p' };
  const run = await runScenarioCli('mesh-2', ['--grid', 'http://127.0.0.1:49', '--duration', '12'], secrets);
  assert.equal(run.code, 3, `${run.stdout}\n${run.stderr}`);
  assert.match(run.stderr, /the Grid at http:\/\/127\.0\.0\.1:49 does not answer GET \/status/);
  assert.equal(run.result, null, 'no result: nothing ran');
});

/**
 * A hub and grid-nodes n1 and n2 (one slot each) as a user starts them, each with its own process tag; after `body`,
 * Ctrl-C to each, and nothing of them may be left running.
 * @param {(grid: { tags: Record<string, { tag: string }>, hubStatus: () => Promise<any> }) => Promise<void>} body
 * @param {string[]} [n2Args]  more grid-node flags for n2
 */
async function withGrid(body, n2Args = []) {
  const tags = { hub: runTag(), n1: runTag(), n2: runTag() };
  const hub = startCli(['grid-hub', '--port', String(HUB_PORT)], /grid hub: /, tags.hub.env);
  const nodes = [];
  try {
    await hub.started;
    for (const [index, label] of ['n1', 'n2'].entries()) {
      nodes.push(startCli(['grid-node', '--hub', hubUrl, '--label', label, '--port', String(HUB_PORT + 1 + index), '--max-sessions', '1', '--presets', '360p30',
        ...(label === 'n2' ? n2Args : [])],
        /grid node \S+: .*registered/, tags[label].env));
    }
    await Promise.all(nodes.map((node) => node.started));
    const { password } = JSON.parse(readFileSync(path.join(config, 'webrtc-testbed', 'grid-secrets.json'), 'utf8'));
    const hubStatus = async () => (await fetch(`${hubUrl}/status`, { headers: { Authorization: `Basic ${Buffer.from(`wtb:${password}`).toString('base64')}` } })).json();
    await body({ tags, hubStatus });
  } finally {
    for (const node of nodes) node.stop();
    await Promise.all(nodes.map((node) => node.exited));
    hub.stop();
    await hub.exited;
  }
  for (const [name, { tag }] of Object.entries(tags)) assert.deepEqual(processesTagged(tag), [], `nothing of ${name} left running`);
  assert.deepEqual(readdirSync(path.join(config, 'webrtc-testbed')), [], 'the hub removed its secrets file');
}

/** A two-party scenario file with p0 on n1 and p1 on n2. */
function gridScenario(durationS) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'wtb-grid-scenario-'));
  const file = path.join(dir, 'grid-2.json');
  writeFileSync(file, JSON.stringify({
    name: 'grid-2', description: 'two peers on two grid-nodes, 50 ms one-way', durationS, warmupS: 8,
    network: { link: { oneWayDelayMs: 50 } }, placement: { p0: 'n1', p1: 'n2' },
  }));
  return file;
}

test('a two-party call on two grid-nodes: each peer on its node, RTT the configured delay, no session or process left', { timeout: 420_000 }, async () => {
  await withGrid(async ({ tags, hubStatus }) => {
    // Which node's process tree each browser is in, seen while the call runs.
    const seen = { n1: new Set(), n2: new Set() };
    const watcher = setInterval(() => {
      for (const label of ['n1', 'n2']) for (const pid of browsersAmong(processesTagged(tags[label].tag))) seen[label].add(pid);
    }, 1000);
    const run = await runScenarioCli(gridScenario(20), ['--grid', hubUrl], env).finally(() => clearInterval(watcher));
    assert.equal(run.code, 0, `scenario exited ${run.code}:\n${run.stdout}\n${run.stderr}`);
    const { grid } = run.result.environment;
    assert.equal(grid.emulation, 'central relay');
    assert.equal(grid.url, hubUrl);
    assert.deepEqual(Object.fromEntries(Object.entries(grid.peers).map(([peer, record]) => [peer, record.node])), { p0: 'n1', p1: 'n2' });
    for (const [peer, record] of Object.entries(grid.peers)) {
      assert.match(record.browserVersion, /^\d+\./, `${peer}'s browser version`);
      assert.equal(record.cores, os.availableParallelism(), `${peer}'s node's cores`);
      // The node that made the session logged its id.
      const nodeLog = readFileSync(path.join(path.dirname(gridJarsDir()), `grid-node-${HUB_PORT + 1 + ['n1', 'n2'].indexOf(record.node)}`, 'grid.log'), 'utf8');
      assert.ok(nodeLog.includes(record.sessionId), `${peer}'s session ${record.sessionId} is in ${record.node}'s log`);
    }
    assert.equal(seen.n1.size, 1, `one browser under n1: ${[...seen.n1]}`);
    assert.equal(seen.n2.size, 1, `one browser under n2: ${[...seen.n2]}`);
    // 50 ms each way on the relay, on top of a loopback path.
    for (const peer of ['p0', 'p1']) {
      const rtts = run.result.timeline.filter((e) => e.peer === peer && e.t > 8 && typeof e.rttMs === 'number').map((e) => e.rttMs).sort((a, b) => a - b);
      assert.ok(rtts.length >= 5, `${peer} RTT samples: ${rtts}`);
      const median = rtts[Math.floor(rtts.length / 2)];
      assert.ok(median >= 95 && median <= 140, `${peer} median RTT ${median} ms, configured 100 ms`);
    }
    checkObservations(run.result);
    // Released at the end of the run: every slot free again.
    const slots = (await hubStatus()).value.nodes.flatMap((node) => node.slots);
    assert.equal(slots.length, 2);
    assert.deepEqual(slots.filter((slot) => slot.session), [], 'no session left on the hub');
    await checkSuiteOnGrid();
  });
});

/** suite --grid on the same Grid: a one-scenario suite, short, whose run is a Grid run placed as its scenario says. */
async function checkSuiteOnGrid() {
  const scenario = gridScenario(10);
  const suite = path.join(path.dirname(scenario), 'grid-suite.json');
  writeFileSync(suite, JSON.stringify({ name: 'grid-suite', description: 'one short Grid run', assertions: null, scenarios: [{ scenario: 'grid-2.json', warmupS: 4 }] }));
  const out = path.join(mkdtempSync(path.join(os.tmpdir(), 'wtb-grid-suite-')), 'suite');
  const run = await runCli(['suite', suite, '--grid', hubUrl, '--video', '360p30', '--out', out], { env: { ...env, GITHUB_STEP_SUMMARY: '' } });
  assert.equal(run.code, 0, `suite --grid exited ${run.code}:\n${run.stdout}\n${run.stderr}`);
  const result = JSON.parse(readFileSync(path.join(out, 'grid-2', 'run-1', 'result.json'), 'utf8'));
  assert.equal(result.status, 'passed');
  assert.deepEqual(Object.fromEntries(Object.entries(result.environment.grid.peers).map(([peer, record]) => [peer, record.node])), { p0: 'n1', p1: 'n2' });
  assert.deepEqual(Object.keys(result.environment.grid.clocks), ['n1', 'n2']);
}

/**
 * What the orchestrator read of the nodes over CDP: each node's clock offset at start and end, ≈ 0 within its stated
 * error (both nodes share this host's clock), the glass-to-glass error across them, every browser's CPU per second.
 * @param {any} result
 */
function checkObservations(result) {
  const { clocks } = result.environment.grid;
  assert.deepEqual(Object.keys(clocks), ['n1', 'n2']);
  for (const [label, { start, end }] of Object.entries(clocks)) {
    for (const reading of [start, end]) {
      assert.ok(reading, `${label}: a clock reading at start and end`);
      // Chromium's clock reads in 0.1 ms steps (a page's coarsened performance.now()): that much beside the round trip.
      assert.ok(Math.abs(reading.offsetMs) <= reading.errorMs + 0.1, `${label}: offset ${reading.offsetMs} ms within ± ${reading.errorMs} ms`);
      assert.ok(reading.errorMs < 50, `${label}: error ${reading.errorMs} ms over loopback`);
    }
  }
  const clockError = result.summary.viewer.clockErrors['p0->p1'];
  assert.equal(clockError.sameNode, false);
  assert.equal(clockError.clockErrorMs, Number((Math.max(clocks.n1.start.errorMs, clocks.n1.end.errorMs)
    + Math.max(clocks.n2.start.errorMs, clocks.n2.end.errorMs)).toFixed(3)));
  const { grid } = result.resources;
  for (const peer of ['p0', 'p1']) {
    const rows = grid.rows.filter((row) => row.peer === peer);
    assert.ok(rows.length >= 15, `${peer}: ${rows.length} CPU rows over a 20 s call`);
    assert.ok(grid.browsers[peer].cpuPct.mean > 5, `${peer}'s browser used ${grid.browsers[peer].cpuPct.mean} % of a core sending video`);
  }
  assert.deepEqual(grid.nodes.n1.peers, ['p0']);
  assert.equal(grid.nodes.n2.saturation.cores, os.availableParallelism());
}

test('a grid-node killed mid-call fails the run within 30 s naming the node; the other session is released', { timeout: 420_000 }, async () => {
  await withGrid(async ({ tags, hubStatus }) => {
    let killedAtMs = 0;
    let scheduled = false;
    const java = () => processesTagged(tags.n2.tag).filter((pid) => {
      try { return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('org.openqa.selenium.grid.Main'); } catch { return false; }
    });
    const out = mkdtempSync(path.join(os.tmpdir(), 'wtb-grid-kill-'));
    const run = await runCli(['scenario', gridScenario(60), '--grid', hubUrl, '--video', '360p30', '--out', out], {
      env,
      // Five seconds into the call: SIGKILL to n2's java, as a crashed machine would.
      onOutput: (text) => {
        if (scheduled || !/call started/.test(text)) return;
        scheduled = true;
        setTimeout(() => {
          const pids = java();
          killedAtMs = Date.now();
          for (const pid of pids) process.kill(Number(pid), 'SIGKILL');
        }, 5000);
      },
    });
    assert.ok(killedAtMs, `n2 was killed mid-call:\n${run.stdout}\n${run.stderr}`);
    assert.equal(run.code, 4, `${run.stdout}\n${run.stderr}`);
    assert.ok(Date.now() - killedAtMs < 30_000, `the run ended ${(Date.now() - killedAtMs) / 1000} s after the kill`);
    const result = JSON.parse(readFileSync(path.join(out, 'result.json'), 'utf8'));
    assert.equal(result.status, 'failed');
    assert.match(result.errors.map((error) => error.message).join('\n'), /grid-node n2/);
    // The hub checks its nodes every 5 s: within 30 s of the kill the dead node is marked down (or gone) and no live
    // node holds a session. A down node's record, with its dead session, stays listed until the Grid purges it.
    const nodes = async () => (await hubStatus()).value.nodes;
    const live = (list) => list.filter((node) => node.availability !== 'DOWN');
    const held = async () => live(await nodes()).flatMap((node) => node.slots).filter((slot) => slot.session);
    const settled = async () => (await held()).length === 0 && live(await nodes()).length <= 1;
    while (!(await settled()) && Date.now() - killedAtMs < 30_000) await new Promise((resolve) => setTimeout(resolve, 1000));
    const after = await nodes();
    assert.ok(after.length >= 1, 'the hub still lists n1');
    assert.equal(live(after).length, 1, `only n1 is up 30 s after the kill: ${JSON.stringify(after.map((node) => [node.uri, node.availability]))}`);
    assert.deepEqual(await held(), [], 'no live node holds a session 30 s after the kill');
  });
});

test('a session that cannot be had stops the run with exit 3 naming the node, and releases the one already made', { timeout: 300_000 }, async () => {
  // n2's "browser" exits at once: chromedriver cannot start a session there.
  await withGrid(async ({ hubStatus }) => {
    const run = await runScenarioCli(gridScenario(20), ['--grid', hubUrl], env);
    assert.equal(run.code, 3, `${run.stdout}\n${run.stderr}`);
    assert.match(run.stderr, /--grid: no browser session for p1 on grid-node n2 \(http:\/\/127\.0\.0\.1:\d+\): .*released the 1 sessions already made/);
    assert.equal(run.result, null, 'no result: no call ran');
    assert.deepEqual((await hubStatus()).value.nodes.flatMap((node) => node.slots).filter((slot) => slot.session), [], 'p0\'s session was released');
  }, ['--browser-path', '/bin/false']);
});
