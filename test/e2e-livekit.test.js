// LiveKit, the second SFU (issue 38), with real Chromium peers and a real livekit-server, in the netem backend's SFU
// namespace and on the relay: the pages speak livekit-client to it and steer each candidate through the harness to the
// emulator (client-app/candidate-steering.js). sfu-simulcast-3 compressed 4× at 360p with two layers per publisher:
// LiveKit picks p2's layers itself; the run records which SFU ran, each publisher's layers are sent at their
// resolutions, p2 moves down under its 500 kbps cap, and nothing of LiveKit is left. On the relay, every peer's media
// crosses its links. About a minute and a half; run it alone:
//   node --test test/e2e-livekit.test.js
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { netemCapabilities } from '../orchestrator/emulators/netem/capabilities.js';
import { LIVEKIT_SERVER_VERSION } from '../orchestrator/lib/system/paths.js';
import { runScenarioCli, tempDir } from './helpers/cli.js';

const caps = await netemCapabilities();
const skip = caps.netns && caps.htb ? false : `needs root with network namespaces and htb: ${caps.reasons.join('; ')}`;

/** @param {any} layers @param {string} check @param {string} peer */
const checkOf = (layers, check, peer) => layers.checks.find((/** @type {any} */ c) => c.check === check && c.peer === peer);

/** Pids whose command line mentions `text` (livekit-server's names its configuration in the run folder). @param {string} text */
const pidsMentioning = (text) => readdirSync('/proc').filter((name) => /^\d+$/.test(name)).filter((pid) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(text);
  } catch {
    return false;
  }
});

test('sfu-simulcast-3 on LiveKit through netem: each peer receives both others, every layer sent at its resolution, p2 moves down under its cap, no LiveKit left', { skip, timeout: 150_000 }, async () => {
  const run = await runScenarioCli('sfu-simulcast-3', ['--sfu', 'livekit', '--emulator', 'netem', '--time-scale', '0.25', '--warmup', '6', '--video', '360p30', '--publish', 'simulcast=2']);
  assert.equal(run.code, 0, `scenario exited ${run.code}:\n${run.stdout}\n${run.stderr}`);
  const { environment, layers, timeline } = run.result;
  assert.deepEqual(environment.sfu, { name: 'livekit', version: LIVEKIT_SERVER_VERSION });
  for (const peer of ['p0', 'p1', 'p2']) {
    for (const remote of ['p0', 'p1', 'p2'].filter((other) => other !== peer)) {
      const frames = timeline.filter((/** @type {any} */ e) => e.peer === peer && e.remote === remote && e.t > 6
        && (e.video?.recvKbps ?? 0) > 20);
      assert.ok(frames.length >= 15, `${peer} received ${remote}'s video in ${frames.length} of 34 measured seconds`);
    }
    const detail = JSON.stringify(layers.checks, null, 1);
    assert.deepEqual(layers.publishers[peer].layers.map((/** @type {any} */ l) => `${l.rid} ${l.widthPx}×${l.heightPx}`), ['h 320×180', 'f 640×360']);
    assert.equal(checkOf(layers, 'layersSent', peer).passed, true, detail);
    assert.equal(checkOf(layers, 'lowerLayersBelowHigher', peer).passed, true, detail);
  }
  // LiveKit chooses; the harness switches nothing and only records what p2 received.
  assert.equal(layers.switches.length, 0);
  const [down] = checkOf(layers, 'followsDownlinkCap', 'p2').moves;
  assert.ok(down.direction === 'down' && down.reachedAtS !== null, `p2 did not move down under the 500 kbps cap: ${JSON.stringify(down)}`);
  // Its access tokens (JWTs) reached the pages only: neither result.json nor the run's output holds one.
  assert.doesNotMatch(JSON.stringify(run.result) + run.stdout + run.stderr, /eyJhbGciOiJIUzI1Ni/);
  assert.deepEqual(pidsMentioning(run.out), [], 'livekit-server is gone');
});

test('LiveKit on the relay: every candidate steered through it, so each peer\'s media crosses its links both ways, and the p1 downlink cap holds', { timeout: 90_000 }, async () => {
  // p1's downlink held to 300 kbps: LiveKit must send it less than the others, which only the relay's links can make it do.
  const file = path.join(tempDir(), 'sfu-3-capped.json');
  writeFileSync(file, JSON.stringify({
    name: 'sfu-3-capped', description: 'sfu-3 with p1 behind a 300 kbps downlink', durationS: 16, warmupS: 6, peers: 3, topology: 'sfu',
    network: { peers: { p1: { downlink: { rateKbps: 300 } } } },
  }));
  const run = await runScenarioCli(file, ['--sfu', 'livekit', '--emulator', 'relay']);
  assert.equal(run.code, 0, `scenario exited ${run.code}:\n${run.stdout}\n${run.stderr}`);
  const { environment, network, timeline } = run.result;
  assert.equal(environment.emulator, 'relay');
  assert.equal(environment.sfu.name, 'livekit');
  for (const peer of ['p0', 'p1', 'p2']) {
    for (const direction of ['up', 'down']) {
      const bytes = network.truth.filter((/** @type {any} */ row) => row.link === `${peer}.${direction}` && row.t > 6)
        .reduce((sum, /** @type {any} */ row) => sum + row.bytesOut, 0);
      assert.ok(bytes > 100_000, `${peer}.${direction} carried ${bytes} bytes in the measured seconds`);
    }
  }
  /** @param {string} peer */
  const receivedKbps = (peer) => timeline.filter((/** @type {any} */ e) => e.peer === peer && e.remote !== 'sfu' && e.t > 8)
    .reduce((sum, /** @type {any} */ e) => sum + (e.video?.recvKbps ?? 0) + (e.audio?.recvKbps ?? 0), 0) / 8;
  assert.ok(receivedKbps('p1') < 330, `p1 received ${receivedKbps('p1')} kbps behind its 300 kbps downlink`);
  assert.ok(receivedKbps('p0') > 1.5 * receivedKbps('p1'), `p0 (open link) received ${receivedKbps('p0')} kbps, p1 ${receivedKbps('p1')}`);
  assert.deepEqual(pidsMentioning(run.out), [], 'livekit-server is gone');
});
