// LiveKit, the second SFU (issue 38), with real Chromium peers and a real livekit-server on the relay: the pages speak
// livekit-client to it and steer each candidate through the harness to the emulator (client-app/candidate-steering.js),
// so every peer's media crosses its links and a downlink cap holds. LiveKit through netem, with its layer checks, is
// the LiveKit half of test/e2e-sfu-side-by-side.test.js. About 30 s; run it alone:
//   node --test test/e2e-livekit.test.js
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { pidsMentioning, runScenarioCli, tempDir } from './helpers/cli.js';


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
