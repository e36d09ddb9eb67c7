// Real two-browser calls through the userspace relay, compressed to 30 s each (10 s warm-up + 20 s measured).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runScenarioCli } from './helpers/cli.js';

const DURATION = ['--duration', '30'];

async function passedRun(name) {
  const run = await runScenarioCli(name, DURATION);
  assert.equal(run.code, 0, `scenario ${name} exited ${run.code}:\n${run.stdout}\n${run.stderr}`);
  assert.equal(run.result.status, 'passed');
  assert.equal(run.result.environment.emulator, 'relay');
  assert.ok(run.result.timeline.length >= 2 * 25, `expected ~60 samples, got ${run.result.timeline.length}`);
  return run.result;
}

test('unconstrained: video flows at a real bit rate and frame rate after ramp-up', async () => {
  const { summary, timeline, network } = await passedRun('unconstrained');
  for (const peer of ['p0', 'p1']) {
    assert.ok(summary.peers[peer]['video.recvKbps'].median > 500, `${peer} video recv median ${summary.peers[peer]['video.recvKbps'].median} kbps`);
    assert.ok(summary.peers[peer]['video.recvFps'].median >= 20, `${peer} recvFps median ${summary.peers[peer]['video.recvFps'].median}`);
    assert.ok(summary.setupMs[peer] > 0 && summary.setupMs[peer] < 30_000);
  }
  assert.ok(timeline.every((e) => e.video.codec === 'VP8'));
  // The relay really carried the media: its own byte counters see the call.
  const relayedKb = network.truth.reduce((sum, e) => sum + e.bytesOut, 0) / 1000;
  assert.ok(relayedKb > 1000, `relay forwarded only ${relayedKb} kB`);
  assert.equal(summary.utilization, null);
});

test('latency-250: RTT is twice the one-way delay', async () => {
  const { summary } = await passedRun('latency-250');
  const rtt = summary.overall.rttMs.median;
  assert.ok(rtt >= 480 && rtt <= 540, `rttMs median ${rtt}`);
});

test('bandwidth-750: the received video rate stays under the cap and utilisation is reported', async () => {
  const { summary } = await passedRun('bandwidth-750');
  for (const peer of ['p0', 'p1']) {
    const p95 = summary.peers[peer]['video.recvKbps'].p95;
    assert.ok(p95 <= 750, `${peer} video recvKbps p95 ${p95}`);
    assert.ok(summary.utilization[peer] > 0.2 && summary.utilization[peer] <= 1.02, `${peer} utilization ${summary.utilization[peer]}`);
  }
});

test('loss-20: the receivers measure ~20 % audio loss', async () => {
  const { summary } = await passedRun('loss-20');
  const loss = summary.overall['audio.lossPct'].median;
  assert.ok(loss >= 15 && loss <= 25, `audio.lossPct median ${loss}`);
});
