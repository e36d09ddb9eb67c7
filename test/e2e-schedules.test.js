// Real calls through the relay while the network changes under them (SCENARIOS.md §2), compressed 4×.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { configuredAt } from '../orchestrator/lib/schedule.js';
import { loadScenario } from '../orchestrator/lib/scenario.js';
import { describe as describeValues } from '../orchestrator/lib/statistics.js';
import { runScenarioCli } from './helpers/cli.js';

const TIME_SCALE = 0.25;

async function scheduledRun(name, timeScale = TIME_SCALE) {
  const run = await runScenarioCli(name, ['--time-scale', String(timeScale)]);
  assert.equal(run.code, 0, `scenario ${name} exited ${run.code}:\n${run.stdout}\n${run.stderr}`);
  assert.ok(run.result.network.scheduleEvents.length > 0, 'the schedule was applied');
  return run.result;
}

/** Median of a timeline value for one peer over t in (fromS, toS]. */
const medianOf = (timeline, peer, fromS, toS, pick) =>
  describeValues(timeline.filter((e) => e.peer === peer && e.t > fromS && e.t <= toS).map(pick)).median;

test('changing-bandwidth: the video rate follows every capacity step', async () => {
  const { timeline, network } = await scheduledRun('changing-bandwidth');
  const segmentS = 60 * TIME_SCALE;
  const capsKbps = [1000, 3000, 500, 1500, 1000];
  // Each step really reached the relay at its scheduled time.
  for (const [i, capKbps] of capsKbps.entries()) {
    if (i === 0) continue;
    const applied = network.scheduleEvents.find((e) => e.link === 'p0.up' && e.atS === i * segmentS);
    assert.equal(applied?.params.rateKbps, capKbps);
    assert.ok(applied.appliedAtS - applied.atS < 0.2, `step ${i} applied ${applied.appliedAtS - applied.atS} s late`);
  }
  for (const peer of ['p0', 'p1']) {
    // The last 40 % of each segment: after GCC has had time to react.
    const tails = capsKbps.map((_, i) => medianOf(timeline, peer, (i + 0.6) * segmentS, (i + 1) * segmentS, (e) => e.video.recvKbps));
    const trace = `${peer} tail medians ${tails.map(Math.round).join(', ')} kbps for caps ${capsKbps.join(', ')}`;
    tails.forEach((kbps, i) => assert.ok(kbps <= capsKbps[i], `${trace}: over the cap in segment ${i + 1}`));
    for (let i = 1; i < capsKbps.length; i += 1) {
      // A raised cap lets the rate climb; a lowered one pushes it under the new cap (a cut only binds if the rate was above it).
      if (capsKbps[i] > capsKbps[i - 1]) assert.ok(tails[i] > 1.2 * tails[i - 1], `${trace}: no rise after step ${i}`);
      else if (tails[i - 1] > capsKbps[i]) assert.ok(tails[i] < tails[i - 1], `${trace}: no fall after step ${i}`);
    }
  }
});

test('latency-variation: measured RTT tracks twice the configured one-way delay once the ramp has settled', async () => {
  const result = await scheduledRun('latency-variation');
  const { compiled } = loadScenario('latency-variation', { timeScale: TIME_SCALE });
  const setRttMs = (t) => configuredAt(compiled, t)['p0.up'].oneWayDelayMs + configuredAt(compiled, t)['p1.up'].oneWayDelayMs;
  // Settled: the configured RTT moved less than 5 % over the 3 s before the sample (RTCP RTT lags by about one RTT).
  const settled = result.timeline.filter((e) => e.t > result.scenario.warmupS && e.rttMs !== null && setRttMs(e.t) >= 100
    && Math.abs(setRttMs(e.t) - setRttMs(e.t - 3)) <= 0.05 * setRttMs(e.t));
  assert.ok(settled.length >= 20, `only ${settled.length} settled samples`);
  const errors = settled.map((e) => Math.abs(e.rttMs - setRttMs(e.t)) / setRttMs(e.t));
  const within = errors.filter((err) => err <= 0.15).length / errors.length;
  assert.ok(describeValues(errors).median <= 0.15, `median relative RTT error ${describeValues(errors).median}`);
  assert.ok(within >= 0.8, `${(within * 100).toFixed(0)} % of settled samples within 15 % of the set RTT`);
  // The hold at 250 ms one-way (1:00–2:00, scaled) reads as ~500 ms.
  const holdRtt = describeValues(result.timeline.filter((e) => e.t > 18 && e.t <= 30).map((e) => e.rttMs)).median;
  assert.ok(Math.abs(holdRtt - 500) <= 75, `RTT during the 250 ms hold: ${holdRtt}`);
});

test('latency-bandwidth-handoff: the mobile peer sends and receives at different rates (asymmetric links)', async () => {
  // Compressed only 2×: the peer's feedback crosses its own congested uplink (RFC 8867 §5.3), and J16 measured
  // 16–18 s to a steady rate, so 15 s segments would end before the downlink flow recovers.
  const timeScale = 0.5;
  const { timeline } = await scheduledRun('latency-bandwidth-handoff', timeScale);
  const segmentS = 60 * timeScale;
  // Minutes 2 and 4: downlink/uplink 750/250 and 1250/500 kbps at p0; p1 is unconstrained.
  for (const [minute, downKbps, upKbps] of [[1, 750, 250], [3, 1250, 500]]) {
    const from = (minute + 0.5) * segmentS;
    const to = (minute + 1) * segmentS;
    const p0Send = medianOf(timeline, 'p0', from, to, (e) => e.video.sendKbps);
    const p0Recv = medianOf(timeline, 'p0', from, to, (e) => e.video.recvKbps);
    const p1Recv = medianOf(timeline, 'p1', from, to, (e) => e.video.recvKbps);
    const trace = `minute ${minute + 1}: p0 sends ${p0Send}, receives ${p0Recv}; p1 receives ${p1Recv} kbps`;
    assert.ok(p1Recv <= upKbps, `${trace}: p1 receives more than p0's uplink ${upKbps}`);
    assert.ok(p0Recv <= downKbps, `${trace}: p0 receives more than its downlink ${downKbps}`);
    assert.ok(p0Recv > 1.3 * p1Recv, `${trace}: no asymmetry`);
  }
});
