// Real calls through the relay while the network changes under them (J16 §8-2), compressed 4×.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { compileNetwork, configuredTimeline } from '../orchestrator/lib/network/schedule.js';
import { describe as describeValues } from '../orchestrator/lib/stats/statistics.js';
import { runScenarioCli, tempDir } from './helpers/cli.js';
import { configuredRtt, rampWindows, rttTracking } from './helpers/rtt-tracking.js';
import { assertGlassToGlassTracksRamps } from './helpers/viewer-delay.js';

const TIME_SCALE = 0.25;

async function scheduledRun(name, timeScale = TIME_SCALE, extraArgs = []) {
  const run = await runScenarioCli(name, ['--time-scale', String(timeScale), ...extraArgs]);
  assert.equal(run.code, 0, `scenario ${name} exited ${run.code}:\n${run.stdout}\n${run.stderr}`);
  assert.ok(run.result.network.scheduleEvents.length > 0, 'the schedule was applied');
  return run.result;
}

/**
 * A shipped scenario changed for one test, written to a file of its own: its path.
 * @param {string} name @param {(raw: any) => { name: string }} change  the shipped file's JSON in, the changed scenario out
 */
function derivedScenario(name, change) {
  const derived = change(JSON.parse(readFileSync(new URL(`../orchestrator/scenarios/${name}.json`, import.meta.url), 'utf8')));
  const file = path.join(tempDir(`wtb-${derived.name}-`), `${derived.name}.json`);
  writeFileSync(file, JSON.stringify(derived));
  return file;
}

/** Median of a timeline value for one peer over t in (fromS, toS]. */
const medianOf = (timeline, peer, fromS, toS, pick) =>
  describeValues(timeline.filter((e) => e.peer === peer && e.t > fromS && e.t <= toS).map(pick)).median;

test('changing-bandwidth: the video rate follows every capacity step', async () => {
  // Compressed 5× (12 s segments, judged on their last 4.8 s). Tail medians in three runs at 5×, both peers: 668–787,
  // 1167–1701, 134–287, 482–615, 596–740 kbps, each rise 1.7× or more against the 1.2× asserted (at 4×, two runs:
  // 761–852, 1389–1667, 235–319, 599–619, 684–786 kbps, rises 1.6× or more).
  const timeScale = 0.2;
  const { timeline, network } = await scheduledRun('changing-bandwidth', timeScale);
  const segmentS = 60 * timeScale;
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
    console.log(trace);
    tails.forEach((kbps, i) => assert.ok(kbps <= capsKbps[i], `${trace}: over the cap in segment ${i + 1}`));
    for (let i = 1; i < capsKbps.length; i += 1) {
      // A raised cap lets the rate climb; a lowered one pushes it under the new cap (a cut only binds if the rate was above it).
      if (capsKbps[i] > capsKbps[i - 1]) assert.ok(tails[i] > 1.2 * tails[i - 1], `${trace}: no rise after step ${i}`);
      else if (tails[i - 1] > capsKbps[i]) assert.ok(tails[i] < tails[i - 1], `${trace}: no fall after step ${i}`);
    }
  }
});

/**
 * One latency-variation call serves the RTT and the glass-to-glass checks, compressed 6×: at 4× a jitter-buffer reset
 * after the 500 ms peak once brought glass-to-glass's correlation down to 0.90 (0.99 in four runs at 6×).
 */
let latencyVariation;
const latencyVariationRun = () => (latencyVariation ??= scheduledRun('latency-variation', 0.16, ['--warmup', '3']));

test('latency-variation: glass-to-glass tracks the configured delay ramps (correlation > 0.9), and not the ramps reversed', async () => {
  assertGlassToGlassTracksRamps(await latencyVariationRun());
});

test('latency-variation: measured RTT tracks the configured RTT on every ramp, and fails against a ramp not applied', async () => {
  const result = await latencyVariationRun();
  const { scenario, network, timeline } = result;
  const ramps = rampWindows(scenario, 'oneWayDelayMs');
  const holds = ramps.slice(1).map((ramp, i) => ({ fromS: ramps[i].toS, toS: ramp.fromS, label: 'hold' })).filter((w) => w.toS > w.fromS);
  const windows = [...ramps, ...holds];
  const judge = (peer, configured) => rttTracking({
    measured: timeline.filter((e) => e.peer === peer), configured, windows, fromS: scenario.warmupS,
  });

  const configured = configuredRtt(network, 'p0', 'p1');
  for (const peer of ['p0', 'p1']) {
    const verdict = judge(peer, configured);
    assert.ok(verdict.ok, `${peer}:\n${verdict.summary}`);
    // Every ramp was judged, the first one too (it is half warm-up at this time scale).
    assert.deepEqual(verdict.windows.slice(0, ramps.length).map((w) => w.verdict), ramps.map(() => 'pass'), verdict.summary);
  }

  // The same measurements against the schedule with one ramp left out (as if the emulator had not applied
  // it) fail on that ramp's window.
  for (const [index, ramp] of ramps.entries()) {
    const schedule = scenario.network.schedule.filter((_, i) => i !== ramp.scheduleIndex);
    const compiled = compileNetwork(
      { file: scenario.file, durationS: scenario.nominalDurationS, peers: scenario.peers, network: { ...scenario.network, schedule } },
      { timeScale: scenario.timeScale },
    );
    const withoutRamp = configuredRtt({ configured: configuredTimeline(compiled, scenario.durationS), routes: compiled.routes }, 'p0', 'p1');
    for (const peer of ['p0', 'p1']) {
      const verdict = judge(peer, withoutRamp);
      assert.equal(verdict.ok, false, `${peer} passed against a schedule without ${ramp.label}:\n${verdict.summary}`);
      assert.equal(verdict.windows[index].verdict, 'fail', verdict.summary);
    }
  }

  // For real: a short call whose schedule lacks the first ramp keeps a flat RTT, which fails against that ramp.
  const file = derivedScenario('latency-variation', (raw) => ({
    ...raw, name: 'latency-variation-no-ramp', network: { ...raw.network, schedule: raw.network.schedule.slice(1) },
  }));
  // Compressed 4× and judged against the full schedule at 4×: its first ramp then spans 0–15 s, 10 s after the warm-up.
  const flatRun = await runScenarioCli(file, ['--time-scale', String(TIME_SCALE), '--duration', '16', '--warmup', '5']);
  assert.equal(flatRun.code, 0, `the call without the ramp exited ${flatRun.code}:\n${flatRun.stdout}\n${flatRun.stderr}`);
  const { file: scenarioFile, nominalDurationS, peers } = scenario;
  const fullSchedule = { file: scenarioFile, durationS: nominalDurationS, peers, network: scenario.network };
  const fullAtFlatScale = compileNetwork(fullSchedule, { timeScale: TIME_SCALE });
  const configuredAtFlatScale = configuredRtt({ configured: configuredTimeline(fullAtFlatScale, 16), routes: fullAtFlatScale.routes }, 'p0', 'p1');
  const [firstRamp] = rampWindows({ ...scenario, timeScale: TIME_SCALE }, 'oneWayDelayMs');
  for (const peer of ['p0', 'p1']) {
    const measured = flatRun.result.timeline.filter((e) => e.peer === peer);
    const flat = rttTracking({ measured, configured: configuredAtFlatScale, windows: [firstRamp], fromS: 5 });
    assert.equal(flat.ok, false, `${peer}'s flat RTT passed as tracking the ramp:\n${flat.summary}`);
    assert.equal(flat.windows[0].verdict, 'fail');
    assert.ok(flat.windows[0].samples >= 8, flat.summary);
  }
});

test('latency-bandwidth-handoff: the mobile peer sends and receives at different rates (asymmetric links)', async () => {
  // Compressed only 2×: the peer's feedback crosses its own congested uplink (RFC 8867 §5.3), and J16 measured
  // 16–18 s to a steady rate, so 15 s segments would end before the downlink flow recovers. Minute 2 carries the check
  // (750/250 kbps at p0); the later minutes repeat it at other rates, for the nightly suite. Minute 1 (3000 kbps each
  // way) only brings the call up to a rate before the switch and nothing judges it: cut to 20 s (the run's 10 s warm-up).
  const timeScale = 0.5;
  const segmentS = 60 * timeScale;
  const cutS = 40;
  const file = derivedScenario('latency-bandwidth-handoff', (raw) => ({
    ...raw, name: 'latency-bandwidth-handoff-short-minute-1', durationS: raw.durationS - cutS,
    network: { ...raw.network, schedule: raw.network.schedule.map((entry) => ({ ...entry, at: entry.at - cutS })) },
  }));
  const switchS = (60 - cutS) * timeScale;
  const run = await runScenarioCli(file, ['--time-scale', String(timeScale), '--duration', String(switchS + segmentS)]);
  assert.equal(run.code, 0, `latency-bandwidth-handoff exited ${run.code}:\n${run.stdout}\n${run.stderr}`);
  const { timeline, network } = run.result;
  assert.deepEqual(network.scheduleEvents.filter((e) => e.atS === switchS).map((e) => [e.link, e.params.rateKbps]).sort(),
    [['p0.down', 750], ['p0.up', 250]], 'minute 2 begins at the switch');
  const [downKbps, upKbps] = [750, 250];
  // The last 10 s of minute 2, 20 s after the switch: 15 s after it (J16's 16–18 s to a steady rate, on a busy host
  // longer) the downlink flow had not recovered in one CI run (p0 received 145 kbps, p1 125).
  const from = switchS + segmentS - 10;
  const to = switchS + segmentS;
  const p0Send = medianOf(timeline, 'p0', from, to, (e) => e.video.sendKbps);
  const p0Recv = medianOf(timeline, 'p0', from, to, (e) => e.video.recvKbps);
  const p1Recv = medianOf(timeline, 'p1', from, to, (e) => e.video.recvKbps);
  const trace = `minute 2 (${from}–${to} s): p0 sends ${p0Send}, receives ${p0Recv}; p1 receives ${p1Recv} kbps`;
  console.log(trace);
  assert.ok(p1Recv <= upKbps, `${trace}: p1 receives more than p0's uplink ${upKbps}`);
  assert.ok(p0Recv <= downKbps, `${trace}: p0 receives more than its downlink ${downKbps}`);
  assert.ok(p0Recv > 1.3 * p1Recv, `${trace}: no asymmetry`);
});
