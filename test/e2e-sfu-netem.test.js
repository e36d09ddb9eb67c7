// SFU calls on the netem backend (issue 11): Janus runs in a namespace of its own (wtb-<id>-sfu) attached to the
// router like a peer, right of the bottleneck, so each peer's media to and from it crosses the peer's uplink and
// downlink in the kernel. Real browsers, real Janus, 360p30 (sfu-3 at 180p30 for 24 s, its window from 14 s, as in
// e2e-sfu.test.js: equal publisher rates by then; the slow uplink's call at 360p30 keeps its 30 s, window from 20 s, as
// an uncapped 360p publisher whose estimate started low was at 900 kbps over 14-24 s). This kernel has no sch_netem,
// so the scenarios use rate caps only. Also: Janus's namespace is gone after success, a Janus that cannot start, SIGINT
// and SIGKILL (Janus dies with the orchestrator; `cleanup` sweeps the namespaces of a dead run). About 1.5 minutes; run
// it alone:
//   node --test test/e2e-sfu-netem.test.js
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { chmod, mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { netemCapabilities } from '../orchestrator/emulators/netem/capabilities.js';
import { describe as stats } from '../orchestrator/lib/stats/statistics.js';
import { peerSeconds } from '../orchestrator/lib/network/topology.js';
import { processesTagged, runCli, runScenarioCli, runTag, tempDir } from './helpers/cli.js';

const slowUplink = fileURLToPath(new URL('./fixtures/scenarios/sfu-3-slow-uplink.json', import.meta.url));
const caps = await netemCapabilities();
const skip = caps.netns && caps.htb ? false : `needs root with network namespaces and htb: ${caps.reasons.join('; ')}`;
const PEERS = ['p0', 'p1', 'p2'];
const COMPRESSED = ['--emulator', 'netem', '--time-scale', '0.1', '--warmup', '20'];

const median = (values) => stats(values).median;
const sum = (values) => values.reduce((total, value) => total + value, 0);
/** The run's short id, from its log line `netem: … behind wtb-<id>-r`. @param {string} output */
const netemId = (output) => /behind wtb-([a-z0-9]+)-r\b/.exec(output)?.[1];
/** @param {string|undefined} id */
const namespacesOf = (id) => execFileSync('ip', ['netns', 'list'], { encoding: 'utf8' }).split('\n').map((line) => line.split(' ')[0])
  .filter((name) => id && name.startsWith(`wtb-${id}-`));

/** Pids of the processes whose command line mentions `text` (Janus's mentions its configuration in the run folder). */
function pidsMentioning(text) {
  return readdirSync('/proc').filter((name) => /^\d+$/.test(name)).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(text);
    } catch {
      return false;
    }
  }).map(Number);
}

/** Bytes out of a link in the measurement window, from the kernel's counters (network.truth). */
const linkBytes = (result, link) => sum(linkRows(result, link).map((row) => row.bytesOut));
/** A link's truth rows in the measurement window. */
const linkRows = (result, link) => result.network.truth
  .filter((row) => row.link === link && row.t > result.scenario.warmupS && row.t <= result.scenario.durationS);
/** A link's mean rate over the window: its counters are read about once a second, each row covering the time since the last. */
function linkKbps(result, link) {
  const rows = result.network.truth.filter((row) => row.link === link);
  const inWindow = linkRows(result, link);
  const startS = rows[rows.indexOf(inWindow[0]) - 1].t;
  return (linkBytes(result, link) * 8) / 1000 / (inWindow.at(-1).t - startS);
}

test('sfu-3 on netem: Janus in its own namespace; each peer\'s uplink carries one stream and its downlink two', { skip, timeout: 240_000 }, async () => {
  const run = await runScenarioCli('sfu-3', ['--emulator', 'netem', '--duration', '24', '--warmup', '14', '--video', '180p30']);
  const output = `${run.stdout}\n${run.stderr}`;
  assert.equal(run.code, 0, output);
  const { timeline, scenario, summary, network, environment, sfu } = run.result;
  assert.equal(environment.emulator, 'netem');
  const id = netemId(output);
  const commands = network.commands.map((c) => c.cmd);
  // The SFU node is a namespace on the router, and Janus ran in it with its APIs on that namespace's address.
  assert.ok(commands.includes(`ip netns add wtb-${id}-sfu`), commands.join('\n'));
  const janusCommand = commands.find((c) => /janus -C /.test(c));
  assert.match(janusCommand ?? '', new RegExp(`--pdeathsig KILL -- \\S*ip netns exec wtb-${id}-sfu \\S*janus -C `));
  const sfuAddress = /janus: http:\/\/(10\.201\.\d+\.\d+):\d+\/janus, media on (\S+),/.exec(output);
  assert.ok(sfuAddress && sfuAddress[1] === sfuAddress[2], `Janus's API and media on its namespace's address: ${output}`);
  assert.equal(sfu?.unavailable, null, 'Janus\'s Admin API was read from the root namespace');

  const window = timeline.filter((entry) => entry.t > scenario.warmupS);
  for (const peer of PEERS) {
    const seconds = peerSeconds(window).filter((row) => row.peer === peer);
    assert.equal(median(seconds.map((row) => row.videoStreamsSent)), 1, `${peer} video streams sent per second`);
    assert.equal(median(seconds.map((row) => row.videoStreamsReceived)), 2, `${peer} video streams received per second`);
    // The kernel's own count: the peer's downlink carries about twice its uplink, so Janus's media crossed both.
    const [up, down] = [linkBytes(run.result, `${peer}.up`), linkBytes(run.result, `${peer}.down`)];
    assert.ok(up > 0 && down / up >= 1.6 && down / up <= 2.4, `${peer}: ${peer}.down/${peer}.up bytes ${down}/${up} = ${down / up}`);
    const { downlinkToUplink } = summary.peerTotals[peer];
    assert.ok(downlinkToUplink >= 1.6 && downlinkToUplink <= 2.4, `${peer} browser downlink/uplink ${downlinkToUplink}`);
  }
  assert.ok(commands.includes(`ip netns del wtb-${id}-sfu`), 'Janus\'s namespace is removed at tear-down');
  assert.deepEqual(namespacesOf(id), []);
  assert.deepEqual(pidsMentioning(run.out), [], 'Janus still running after the run');
});

test('a 500 kbps cap on p2\'s uplink caps only what Janus receives from p2', { skip, timeout: 240_000 }, async () => {
  const run = await runScenarioCli(slowUplink, ['--emulator', 'netem']);
  assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
  const { scenario, sfu, timeline } = run.result;
  /** Janus's median video bitrate of one leg in the window. */
  const janus = (peer, feed, direction) => median(sfu.rows.filter((row) => row.t > scenario.warmupS && row.peer === peer
    && row.feed === feed && row.direction === direction && row.kind === 'video').map((row) => row.bitrateKbps));
  const received = (peer, remote) => median(timeline.filter((e) => e.t > scenario.warmupS && e.peer === peer && e.remote === remote)
    .map((e) => e.video?.recvKbps ?? 0));
  // Janus counts RTP headers; the cap is on IP bytes, audio included.
  assert.ok(janus('p2', 'p2', 'fromPeer') <= 500, `Janus receives ${janus('p2', 'p2', 'fromPeer')} kbps of video from p2`);
  assert.ok(janus('p2', 'p2', 'fromPeer') > 100, 'p2 still publishes');
  assert.ok(linkKbps(run.result, 'p2.up') <= 500 * 1.02, `p2.up carries ${linkKbps(run.result, 'p2.up')} kbps`);
  assert.ok(linkKbps(run.result, 'p0.up') > 1000, `p0.up carries ${linkKbps(run.result, 'p0.up')} kbps`);
  for (const peer of ['p0', 'p1']) {
    assert.ok(janus(peer, peer, 'fromPeer') > 1000, `Janus receives ${janus(peer, peer, 'fromPeer')} kbps from ${peer}, which is not capped`);
    assert.ok(received(peer, 'p2') <= 500, `${peer} receives p2's stream at ${received(peer, 'p2')} kbps`);
  }
  // p2's downlink is open: the others' streams reach it at their full rate.
  for (const feed of ['p0', 'p1']) assert.ok(received('p2', feed) > 1000, `p2 receives ${feed} at ${received('p2', feed)} kbps`);
});

test('dummynet refuses an SFU call before anything starts, naming relay and netem', async () => {
  const { code, stderr } = await runCli(['scenario', 'sfu-3', '--emulator', 'dummynet', '--out', tempDir()]);
  assert.equal(code, 2, stderr);
  assert.match(stderr, /--emulator dummynet: scenario sfu-3 has topology sfu, which dummynet cannot shape .*use --emulator relay or --emulator netem/);
});

test('a Janus that cannot start in its namespace: exit 3 with its log, before any browser, and no namespace left', { skip, timeout: 60_000 }, async () => {
  // A `janus` that breaks its configuration, then runs the real one (where startJanus looks for its modules).
  const prefix = tempDir('wtb-badjanus-');
  await mkdir(path.join(prefix, 'bin'));
  await mkdir(path.join(prefix, 'lib'));
  const installed = readdirSync('/usr/lib').map((dir) => path.join('/usr/lib', dir, 'janus')).find((dir) => existsSync(dir));
  await symlink(installed, path.join(prefix, 'lib', 'janus'));
  await writeFile(path.join(prefix, 'bin', 'janus'), '#!/bin/sh\necho "media: { rtp_port_range = }" >> "$2"\nexec /usr/bin/janus "$@"\n');
  await chmod(path.join(prefix, 'bin', 'janus'), 0o755);
  const { code, stdout, stderr } = await runCli(['scenario', 'sfu-3', ...COMPRESSED, '--out', tempDir()], {
    env: { PATH: `${prefix}/bin:${process.env.PATH}` },
  });
  assert.equal(code, 3, stderr);
  assert.match(stderr, /Janus did not start: it exited with code \d+[^]*ip netns exec wtb-[a-z0-9]+-sfu [^]*janus\.jcfg/);
  assert.doesNotMatch(`${stdout}${stderr}`, /launched/);
  assert.deepEqual(namespacesOf(netemId(`${stdout}${stderr}`)), []);
});

for (const signal of /** @type {const} */ (['SIGINT', 'SIGKILL'])) {
  test(`${signal} of the orchestrator during a netem SFU call: Janus is gone, then its namespace`, { skip, timeout: 120_000 }, async () => {
    const out = tempDir();
    const { tag, env } = runTag();
    let janusPid = null;
    let janusNetns = null;
    const run = await runCli(['scenario', 'sfu-3', ...COMPRESSED, '--video', '360p30', '--out', out], {
      env,
      onOutput: (text, child) => {
        if (janusPid === null && /call started/.test(text)) {
          [janusPid] = pidsMentioning(path.join(out, 'janus'));
          janusNetns = janusPid && execFileSync('ip', ['netns', 'identify', String(janusPid)], { encoding: 'utf8' }).trim();
          child.kill(signal);
        }
      },
    });
    const output = `${run.stdout}\n${run.stderr}`;
    assert.ok(janusPid, `the call never started with Janus up:\n${output}`);
    const id = netemId(output);
    assert.equal(janusNetns, `wtb-${id}-sfu`, 'Janus ran inside the run\'s SFU namespace');
    // SIGKILL: no closer runs; the kernel kills Janus (pdeathsig) and the browsers exit with their pipes.
    for (let waitedMs = 0; pidsMentioning(path.join(out, 'janus')).length && waitedMs < 5_000; waitedMs += 100) await sleep(100);
    assert.deepEqual(pidsMentioning(path.join(out, 'janus')), [], `Janus (pid ${janusPid}) outlived the orchestrator's ${signal}`);
    if (signal === 'SIGINT') {
      assert.equal(run.code, 130, output);
      assert.equal(JSON.parse(readFileSync(path.join(out, 'result.json'), 'utf8')).status, 'aborted');
    } else {
      // The run's netem guardian removes its namespaces, the SFU's included, once the orchestrator is gone.
      for (let waitedMs = 0; namespacesOf(id).length && waitedMs < 20_000; waitedMs += 250) await sleep(250);
      assert.match(readFileSync(path.join(out, 'netem-guardian.log'), 'utf8'), new RegExp(`wtb-${id}-`), 'the guardian removed the namespaces');
    }
    assert.deepEqual(namespacesOf(id), []);
    let left = processesTagged(tag);
    for (let waitedMs = 0; left.length && waitedMs < 15_000; waitedMs += 500) {
      await sleep(500);
      left = processesTagged(tag);
    }
    assert.deepEqual(left, [], 'processes of the run still running');
  });
}
