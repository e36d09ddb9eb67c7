// Multi-party full mesh with real browsers through the relay (issue 11): three Chromium peers at 360p30, 30 s (the capped
// mesh 16 s, the small picture 12 s).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runScenarioCli } from './helpers/cli.js';
import { peerSeconds } from '../orchestrator/lib/network/topology.js';
import { describe as stats } from '../orchestrator/lib/stats/statistics.js';

const median = (values) => stats(values).median;
const p95 = (values) => stats(values).p95;

const fixture = (name) => fileURLToPath(new URL(`./fixtures/scenarios/${name}.json`, import.meta.url));

/** Seconds after the warm-up of a passed run. */
function measured(run) {
  assert.equal(run.code, 0, `scenario exited ${run.code}:\n${run.stdout}\n${run.stderr}`);
  const { timeline, scenario } = run.result;
  return timeline.filter((entry) => entry.t > scenario.warmupS);
}

// Each peer's downlink/uplink needs the three senders' ramps to have met, over a long enough window: 20 s after the
// 10 s warm-up. Shorter, it came near or past its bounds (0.75-1.33): 1.24, 0.99 and 0.83 in a 16 s call after 6 s,
// 0.71 for p0 in a 20 s call after 10 s.
test('mesh-3: every peer sends its stream twice and receives two remote video streams with frames', { timeout: 180_000 }, async () => {
  const run = await runScenarioCli('mesh-3', ['--time-scale', '0.1']);
  const window = measured(run);
  assert.equal(run.result.scenario.topology, 'mesh');
  for (const peer of ['p0', 'p1', 'p2']) {
    const remotes = [...new Set(window.filter((e) => e.peer === peer).map((e) => e.remote))].sort();
    assert.deepEqual(remotes, ['p0', 'p1', 'p2'].filter((p) => p !== peer), `${peer}'s connections`);
    for (const remote of remotes) {
      const fps = window.filter((e) => e.peer === peer && e.remote === remote).map((e) => e.video.recvFps ?? 0);
      assert.ok(median(fps) > 0, `${peer} shows no frames from ${remote}: ${fps.join(', ')}`);
    }
    const seconds = peerSeconds(window).filter((row) => row.peer === peer);
    assert.equal(median(seconds.map((row) => row.videoStreamsSent)), 2, `${peer} video streams sent per second`);
    assert.equal(median(seconds.map((row) => row.videoStreamsReceived)), 2, `${peer} video streams received per second`);
    // A full mesh sends what it receives: n − 1 streams each way.
    const { downlinkToUplink } = run.result.summary.peerTotals[peer];
    console.log(`mesh-3: ${peer} downlink/uplink ${downlinkToUplink}`);
    assert.ok(downlinkToUplink > 0.75 && downlinkToUplink < 1.33, `${peer} downlink/uplink ${downlinkToUplink}`);
  }
  // Every browser's process tree and the relay were sampled once a second, and the browsers did work.
  const { resources } = run.result;
  assert.equal(resources.unavailable, null);
  for (const name of ['p0', 'p1', 'p2', 'relay']) {
    const rows = resources.rows.filter((row) => row.process === name);
    assert.ok(rows.length >= 25, `${name}: ${rows.length} resource rows in a 30 s call`);
    assert.ok(rows.every((row) => row.rssMb > 10 && row.processCount >= 1), `${name} rows carry memory`);
  }
  for (const name of ['p0', 'p1', 'p2']) assert.ok(resources.summary[name].cpuPct.median > 5, `${name} CPU ${resources.summary[name].cpuPct.median} %`);
});

// 16 s (6 s warm-up; the fixture's 20 s with 8 s before, 30 s with 10 s before that): the open streams are far over
// 500 kbps by 6 s. In three 20 s runs: p2 sent 309-361 kbps (p95; ≤ 525 asserted), p0 and p1 received 57-182 kbps
// from p2 (< 500) and 1426-1723 kbps on every open stream (> 500); in two 16 s runs 333-360, 83-161 and 1633-1714.
test('a 3-party mesh with p2 on a 500 kbps uplink caps only p2\'s outgoing streams', { timeout: 180_000 }, async () => {
  const run = await runScenarioCli(fixture('mesh-3-slow-uplink'), ['--duration', '16', '--warmup', '6']);
  const window = measured(run);
  const sentByP2 = peerSeconds(window).filter((row) => row.peer === 'p2').map((row) => row.uplinkKbps);
  // The cap counts UDP payload + 28 bytes; RTP/SRTP overhead is below the 5 % allowed here.
  assert.ok(p95(sentByP2) <= 500 * 1.05, `p2 sends ${p95(sentByP2)} kbps (p95) through a 500 kbps uplink`);
  const received = (peer, remote) => median(window.filter((e) => e.peer === peer && e.remote === remote).map((e) => e.video.recvKbps ?? 0));
  console.log(`p2 sends ${p95(sentByP2)} kbps (p95); received medians: ${[['p0', 'p2'], ['p1', 'p2'], ['p0', 'p1'], ['p1', 'p0'], ['p2', 'p0'], ['p2', 'p1']]
    .map(([peer, remote]) => `${remote}->${peer} ${received(peer, remote)}`).join(', ')} kbps`);
  for (const peer of ['p0', 'p1']) {
    assert.ok(received(peer, 'p2') < 500, `${peer} receives ${received(peer, 'p2')} kbps from p2 (median)`);
    for (const other of ['p0', 'p1'].filter((p) => p !== peer)) {
      assert.ok(received(peer, other) > 500, `${peer} receives only ${received(peer, other)} kbps from ${other}: an open uplink must not be capped`);
    }
    assert.ok(received('p2', peer) > 500, `p2 receives only ${received('p2', peer)} kbps from ${peer}: its downlink is open`);
  }
});

test('a peer given its own smaller preset in the scenario is received smaller by the others; the result records every peer\'s media', { timeout: 180_000 }, async () => {
  // The size each stream is received at is settled as its encoder starts (below): 8 s after a 4 s warm-up, which gave
  // four 640 px medians and p2's stream at most 320 px wide in two runs.
  const run = await runScenarioCli(fixture('mesh-3-small-p2'), ['--duration', '12', '--warmup', '4']);
  const window = measured(run);
  const { media } = run.result.environment;
  assert.equal(media.preset, '360p30', "the run's --video");
  assert.deepEqual(Object.entries(media.peers).map(([peer, m]) => [peer, m.preset, m.width, m.height]),
    [['p0', '360p30', 640, 360], ['p1', '360p30', 640, 360], ['p2', '180p30', 320, 180]]);
  assert.notEqual(media.peers.p2.video, media.peers.p0.video, 'p2 reads its own fake-camera file');
  const widths = (peer, remote) => window.filter((e) => e.peer === peer && e.remote === remote).map((e) => e.video.recvWidth ?? 0);
  for (const peer of ['p0', 'p1']) {
    const fromP2 = widths(peer, 'p2');
    assert.ok(median(fromP2) > 0 && Math.max(...fromP2) <= 320, `${peer} receives p2 up to ${Math.max(...fromP2)} px wide`);
  }
  // A 360p stream may stay at 320 px: an encoder that starts scaled down (low start estimate) on this noisy video
  // seldom scales up again. Most of them do not.
  const others = [['p0', 'p1'], ['p1', 'p0'], ['p2', 'p0'], ['p2', 'p1']].map(([peer, remote]) => median(widths(peer, remote)));
  console.log(`mesh-3-small-p2: p2 received ${['p0', 'p1'].map((peer) => Math.max(...widths(peer, 'p2'))).join(', ')} px wide at most; the others ${others.join(', ')} px (medians)`);
  assert.ok(median(others) > 320, `the 360p30 streams are received ${others.join(', ')} px wide (medians)`);
});
