// LiveKit, the second SFU (issue 38), with real Chromium peers and a real livekit-server in the netem backend's SFU
// namespace: the pages speak livekit-client to it, so no candidate crosses the harness and only routing by namespace
// steers its media (the relay refuses it, naming netem). sfu-simulcast-3 compressed 4× at 360p with two layers per
// publisher: LiveKit picks p2's layers itself; the run records which SFU ran, each publisher's layers are sent at their
// resolutions, p2 moves down under its 500 kbps cap, and nothing of LiveKit is left. About a minute; run it alone:
//   node --test test/e2e-livekit.test.js
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { netemCapabilities } from '../orchestrator/emulators/netem/capabilities.js';
import { LIVEKIT_SERVER_VERSION } from '../orchestrator/lib/system/paths.js';
import { runScenarioCli } from './helpers/cli.js';

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

test('LiveKit on the relay stops before anything starts, naming the emulator that carries it', async () => {
  const run = await runScenarioCli('sfu-3', ['--sfu', 'livekit', '--emulator', 'relay', '--duration', '5', '--warmup', '1']);
  assert.equal(run.code, 2, `${run.stdout}\n${run.stderr}`);
  assert.match(run.stderr, /--emulator relay: its SFU signals to the pages itself .*use --emulator netem/);
});
