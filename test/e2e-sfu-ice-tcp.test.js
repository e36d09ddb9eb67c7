// ICE over TCP to the SFU when a peer's UDP is blocked (issue 40 part 3): sfu-udp-blocked on netem, p2 behind nftables
// dropping all its UDP in its own namespace, real Chromium at 360p30, through each real SFU: Janus (ICE-Lite with
// ice_tcp, turned on for this run only) and LiveKit 1.9.11 (rtc.tcp_port, opened for this run only). p2's path is
// asserted from its own getStats every second (TCP to the SFU's passive candidate), the others' stays UDP, video crosses
// both ways; NATs in an SFU call need no STUN or TURN server. And the hostile side: a firewall no SFU can pass is
// refused at load naming the field (an SFU that declares no ICE-TCP is refused too: test/unit/sfu-ice-tcp.test.js).
// About 70 s.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { netemCapabilities } from '../orchestrator/emulators/netem/capabilities.js';
import { describe as stats } from '../orchestrator/lib/stats/statistics.js';
import { harnessNamespaces, pidsMentioning, runCli, runScenarioCli, tempDir } from './helpers/cli.js';

const caps = await netemCapabilities();
const skip = caps.netns && caps.htb && caps.nftables ? false : `needs root with network namespaces, htb and nftables: ${caps.reasons.join('; ')}`;

/**
 * What a peer received from `remote` after the warm-up, median kbps. any: result.json
 * @param {any} result @param {string} peer @param {string} remote
 */
const receivedKbps = (result, peer, remote) => stats(result.timeline
  .filter((/** @type {any} */ e) => e.t > result.scenario.warmupS && e.peer === peer && e.remote === remote)
  .map((/** @type {any} */ e) => e.video?.recvKbps ?? 0)).median;

/**
 * sfu-udp-blocked's paths, whatever the SFU: every connection checked and passed, p2's every second over TCP to the
 * SFU's passive host candidate, p0's and p1's over UDP, none relayed; video both ways; p2's UDP dropped in its namespace,
 * no TURN server, nothing left running. any: result.json
 * @param {{ out: string, result: any }} run @param {number} minKbps  the least median rate each way, after the warm-up
 */
function assertIceTcpCall({ out, result }, minKbps) {
  const { paths, timeline, network } = result;
  assert.equal(paths.checks.length, 9, 'every connection of the three pages checked');
  for (const check of paths.checks) assert.ok(check.passed, `${check.peer}->${check.remote}: ${check.detail}`);
  for (const peer of ['p0', 'p1', 'p2']) {
    const seconds = timeline.filter((/** @type {any} */ e) => e.peer === peer && e.selectedPair);
    // Three connections (its own to the SFU, two subscriptions) sampled for three quarters of the 16 s at least.
    assert.ok(seconds.length >= 36, `${peer}: ${seconds.length} connection-seconds with a selected pair`);
    const wanted = peer === 'p2' ? 'tcp' : 'udp';
    for (const { t, remote, selectedPair: pair } of seconds) {
      assert.equal(pair.localProtocol, wanted, `${peer}->${remote} at ${t} s: ${JSON.stringify(pair)}`);
      assert.notEqual(pair.localType, 'relay', `${peer}->${remote} at ${t} s: no TURN server in an SFU call`);
      if (peer === 'p2') assert.equal(pair.remoteType, 'host', `p2->${remote} at ${t} s: the SFU's passive TCP candidate`);
    }
  }
  for (const [peer, remote] of [['p2', 'p0'], ['p2', 'p1'], ['p0', 'p2'], ['p1', 'p2']]) {
    const kbps = receivedKbps(result, peer, remote);
    assert.ok(kbps > minKbps, `${peer} receives ${remote}'s video at ${kbps} kbps`);
  }
  assert.ok(network.commands.some((/** @type {any} */ c) => /^ip netns exec wtb-\S+-p2 nft add rule ip wtb_profile output meta l4proto udp drop$/.test(c.cmd)),
    'p2\'s UDP dropped in its namespace');
  assert.ok(!network.commands.some((/** @type {any} */ c) => /turnserver/.test(c.cmd)), 'no TURN server in an SFU call');
  assert.deepEqual(pidsMentioning(out), [], 'the SFU outlived the run');
  assert.deepEqual(harnessNamespaces(), []);
}

test('sfu-udp-blocked: p2 reaches Janus over ICE-TCP every second, p0 and p1 over UDP, and video flows both ways', { skip, timeout: 240_000 }, async () => {
  // Wiring (each second's path) more than rates: 16 s, the video's rate read after 6 s. A publisher whose estimate
  // starts low (290 kbps, in 2 of about 6 calls here) is at 370–630 kbps in that window: 300 kbps is video, with margin.
  const run = await runScenarioCli('sfu-udp-blocked', ['--emulator', 'netem', '--duration', '16', '--warmup', '6']);
  assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
  assertIceTcpCall(run, 300);
  const jcfg = readFileSync(path.join(run.out, 'janus', 'janus.jcfg'), 'utf8');
  assert.match(jcfg, /\tice_tcp = true\n/);
  assert.match(readFileSync(path.join(run.out, 'janus', 'janus.log'), 'utf8'), /Initializing ICE stuff \(Lite mode, ICE-TCP candidates enabled/);
});

test('sfu-udp-blocked --sfu livekit: p2 reaches LiveKit over its rtc.tcp_port every second, p0 and p1 over UDP, and video flows both ways', { skip, timeout: 240_000 }, async () => {
  const run = await runScenarioCli('sfu-udp-blocked', ['--sfu', 'livekit', '--emulator', 'netem', '--duration', '16', '--warmup', '6']);
  assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
  // LiveKit's bandwidth estimate ramps up over the call's first seconds: a lower floor than Janus's, still video.
  assertIceTcpCall(run, 200);
  const { rtc } = JSON.parse(readFileSync(path.join(run.out, 'livekit', 'livekit.yaml'), 'utf8'));
  assert.ok(Number.isInteger(rtc.tcp_port) && rtc.tcp_port > 0, `rtc.tcp_port ${rtc.tcp_port}`);
  assert.match(run.stdout + run.stderr, new RegExp(`livekit: \\S+, media on \\S+ UDP ${rtc.udp_port} and ICE-TCP ${rtc.tcp_port} `));
  // LiveKit's own view of each participant's transport, as it logs it once the participant is active.
  const log = readFileSync(path.join(run.out, 'livekit', 'livekit.log'), 'utf8');
  assert.match(log, new RegExp(`"rtc\\.portTCP": ${rtc.tcp_port}`));
  for (const [peer, wanted] of [['p0', 'udp'], ['p1', 'udp'], ['p2', 'tcp']]) {
    assert.match(log, new RegExp(`participant active\\t\\{[^\\n]*"participant": "${peer}",[^\\n]*"connectionType": "${wanted}"`), `LiveKit: ${peer} over ${wanted}`);
  }
});

test('NATs in an SFU call need nothing more: a symmetric NAT reaches Janus on a peer-reflexive UDP pair, a NATed udp-blocked peer over TCP', { skip, timeout: 240_000 }, async () => {
  const file = path.join(tempDir(), 'sfu-nat.json');
  writeFileSync(file, JSON.stringify({
    name: 'sfu-nat', description: 'an SFU call with p1 behind a symmetric NAT and p2 behind a NAT without UDP', durationS: 30, peers: 3,
    topology: 'sfu', peerNetwork: { p1: { nat: 'symmetric' }, p2: { nat: 'port-restricted', firewall: 'udp-blocked' } },
  }));
  const run = await runScenarioCli(file, ['--emulator', 'netem', '--duration', '12', '--warmup', '4']);
  assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
  const { paths, timeline } = run.result;
  assert.equal(paths.checks.length, 9);
  for (const check of paths.checks) assert.ok(check.passed, `${check.peer}->${check.remote}: ${check.detail}`);
  for (const [peer, wanted] of [['p1', 'udp'], ['p2', 'tcp']]) {
    const seconds = timeline.filter((/** @type {any} */ e) => e.peer === peer && e.selectedPair);
    assert.ok(seconds.length >= 27, `${peer}: ${seconds.length} connection-seconds with a selected pair`);
    // Behind its NAT the page's socket is on the private address: Janus answers the translated one, peer-reflexive.
    for (const { t, remote, selectedPair: pair } of seconds) {
      assert.deepEqual([pair.localType, pair.localProtocol], ['prflx', wanted], `${peer}->${remote} at ${t} s: ${JSON.stringify(pair)}`);
    }
  }
  assert.deepEqual(harnessNamespaces(), []);
});

test('tcp-443-only on any SFU is refused at load naming the field (exit 2)', async () => {
  const file = path.join(tempDir(), 'sfu-443.json');
  writeFileSync(file, JSON.stringify({
    name: 'sfu-443', description: 'only TCP 443 open, through an SFU', durationS: 30, peers: 3, topology: 'sfu',
    peerNetwork: { p1: { firewall: 'tcp-443-only' } },
  }));
  const closed = await runCli(['scenario', file, '--emulator', 'netem', '--out', tempDir()]);
  assert.equal(closed.code, 2, closed.stderr);
  assert.match(closed.stderr, /sfu-443\.json: peerNetwork\.p1\.firewall: tcp-443-only leaves p1 no path to the SFU/);
  assert.doesNotMatch(closed.stdout + closed.stderr, /launched|janus:/);
});
