// Load participants on netem (issue 41): sfu-load-4 through Janus with `--emulator netem` at 360p30. Each Pion load
// participant runs in a network namespace of its own beside the SFU's, so its media crosses its own links in the
// router's tc stages as a browser's does: the kernel's counters see their bytes both ways, and a loss given to load1's
// downlink alone drops its packets there and nowhere else. The browsers receive both participants' video, and nothing
// (process, namespace) is left.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { netemCapabilities } from '../orchestrator/emulators/netem/capabilities.js';
import { harnessNamespaces, runScenarioCli } from './helpers/cli.js';
import { assertBrowsersReceiveLoad, assertUplinkCarriesSent, loadPeerProcesses, sfuLoad4With } from './helpers/load-peer.js';

const caps = await netemCapabilities();
const skip = caps.netns && caps.htb ? false : `needs root with network namespaces and htb: ${caps.reasons.join('; ')}`;
const LOADS = ['load0', 'load1'];
/** On load1's downlink alone (nftables' loss where the kernel has no sch_netem): what Janus sends it, not what it sends. */
const LOSS_PCT = 5;

/** sfu-load-4 with load1's downlink lossy, as a scenario file of the test's own. */
const lossyLoadScenario = () => sfuLoad4With('sfu-load-4-lossy', { links: ['load1.down'], set: { lossPct: LOSS_PCT } });

test('sfu-load-4 on netem: each load participant in a namespace of its own, its media through its own tc stages, the browsers receive it, nothing is left', { skip, timeout: 240_000 }, async () => {
  assert.deepEqual(loadPeerProcesses(), [], 'no load participant running before the run');
  const run = await runScenarioCli(lossyLoadScenario(), ['--emulator', 'netem', '--duration', '16', '--warmup', '6', '--video', '360p30']);
  assert.equal(run.code, 0, `scenario exited ${run.code}:\n${run.stdout}\n${run.stderr}`);
  const { timeline, scenario, load, network, environment } = run.result;
  assert.equal(environment.emulator, 'netem');
  const inWindow = (/** @type {{ t: number }} */ row) => row.t > scenario.warmupS && row.t <= scenario.durationS;
  assert.equal(load.linksShaped, true, 'the result says their links are shaped');
  assert.equal(load.linksUnshapedWhy, null);
  // Each ran in its own namespace, under the death signal.
  assert.equal(load.commands.length, 2);
  LOADS.forEach((name, index) => {
    const argv = load.commands[index];
    const exec = argv.indexOf('exec');
    assert.ok(argv[exec - 1] === 'netns' && new RegExp(`^wtb-\\w+-${name}$`).test(argv[exec + 1]), argv.join(' '));
    assert.ok(argv.includes('--pdeathsig') && argv.includes('KILL'), argv.join(' '));
  });
  /** @param {string} link */
  const truth = (link) => network.truth.filter((/** @type {any} */ row) => inWindow(row) && row.link === link);
  /** @param {any[]} rows @param {string} field */
  const sum = (rows, field) => rows.reduce((total, row) => total + row[field], 0);
  for (const name of LOADS) {
    // What it sent crossed its uplink's stage: the kernel's count near its own.
    assertUplinkCarriesSent(run.result, name, inWindow);
    assert.ok(sum(truth(`${name}.down`), 'bytesOut') > 0, `${name}.down carried nothing`);
  }
  // The loss is load1's downlink's own: about LOSS_PCT of what entered it, none of load0's.
  const lossShare = (/** @type {string} */ link) => sum(truth(link), 'dropsLoss') / sum(truth(link), 'packetsIn');
  assert.ok(lossShare('load1.down') > 0.5 * LOSS_PCT / 100 && lossShare('load1.down') < 2 * LOSS_PCT / 100, `load1.down dropped ${lossShare('load1.down')}`);
  assert.equal(sum(truth('load0.down'), 'dropsLoss'), 0, 'load0.down dropped packets');
  assert.equal(sum(truth('load1.up'), 'dropsLoss'), 0, 'load1.up dropped packets');
  assertBrowsersReceiveLoad(timeline.filter(inWindow), { browsers: ['p0', 'p1'], loads: LOADS, minSeconds: 8 });
  assert.deepEqual(loadPeerProcesses(), [], 'load participants still running after the run');
  assert.deepEqual(harnessNamespaces(), [], 'a namespace is left');
});
