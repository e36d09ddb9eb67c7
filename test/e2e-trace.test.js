// Real two-browser calls through a step-down capacity trace (1200 kbps for 14 s, then 400 kbps, on both uplinks):
// packet by packet on the relay, as 100 ms htb rate steps on netem. The received video rate must follow the trace:
// never above its capacity (+5 % for the pages' sampling) in any second, and down after the step.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { netemCapabilities } from '../orchestrator/emulators/netem/capabilities.js';
import { pathConditions } from '../orchestrator/lib/network/link-model.js';
import { linksAt } from '../orchestrator/lib/result/run-summary.js';
import { runScenarioCli } from './helpers/cli.js';

const STEP_DOWN = fileURLToPath(new URL('./fixtures/scenarios/trace-step-down-short.json', import.meta.url));
// 14 s each side of the step (20 s before): the rate is near the 1200 kbps by 10 s and under 400 within 8 s of the
// step. In two runs of each backend: medians 881-1063 kbps in 10-14 s (> 500 asserted), 179-282 kbps in 22-28 s
// (100-400).
const STEP_AT_S = 14;
/** The call's length (the fixture's durationS). */
const END_S = 28;

/**
 * The capacity of a route (its links) over the interval a sample covers, (t − intervalS, t], from network.configured
 * (each row: the trace's mean capacity over [t, t + 1)).
 * @param {any} result @param {string[]} links @param {number} t @param {number} intervalS
 */
function capacityOver(result, links, t, intervalS) {
  let kbit = 0;
  for (let s = Math.floor(t - intervalS); s < Math.ceil(t); s++) {
    const overlapS = Math.min(t, s + 1) - Math.max(t - intervalS, s);
    if (overlapS > 0) kbit += overlapS * pathConditions(linksAt(result.network.configured, s), links).rateKbps;
  }
  return kbit / intervalS;
}

/**
 * Per-second checks shared by both backends.
 * @param {any} result @param {number} [lateS]  how late the emulator may have applied a capacity change (netem's rate
 *   steps are tc commands: network.traceSteps.appliedLateMs); the capacity then is the trace's at any time that late
 */
function assertFollowsTrace(result, lateS = 0) {
  assert.equal(result.status, 'passed', JSON.stringify(result.errors));
  const rows = result.network.configured.filter((row) => row.link === 'p0.up');
  assert.ok(rows.length > 0, 'rows: nothing to check');
  assert.ok(rows.every((row) => row.trace === `synthetic:step-1200-400-${STEP_AT_S}`), 'network.configured names the trace');
  const near = (t, kbps) => Math.abs(rows.find((row) => row.t === t).rateKbps - kbps) < 15;
  assert.ok(near(10, 1200) && near(STEP_AT_S + 10, 400), `network.configured shows the trace's capacity per second: ${rows.map((row) => row.rateKbps).join(' ')}`);
  const over = [];
  for (const sample of result.timeline) {
    const videoKbps = sample.video?.recvKbps;
    if (typeof videoKbps !== 'number' || sample.t < 2) continue;
    const route = result.network.routes[`${sample.remote}->${sample.peer}`];
    const intervalS = sample.intervalS ?? 1;
    const capacityKbps = Math.max(capacityOver(result, route, sample.t, intervalS),
      capacityOver(result, route, sample.t - lateS, intervalS));
    if (videoKbps > capacityKbps * 1.05) over.push(`${sample.peer} t=${sample.t}: ${videoKbps} kbps > ${capacityKbps.toFixed(0)}`);
  }
  assert.deepEqual(over, [], 'received video stays within the trace capacity (+5 %) every second');
  for (const peer of ['p0', 'p1']) {
    const rates = (from, to) => result.timeline.filter((e) => e.peer === peer && e.t > from && e.t <= to)
      .map((e) => e.video?.recvKbps ?? 0);
    const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
    const before = median(rates(10, STEP_AT_S));
    const after = median(rates(STEP_AT_S + 8, END_S));
    console.log(`${result.environment.emulator}: ${peer} median ${before} kbps in 10-${STEP_AT_S} s, ${after} kbps in ${STEP_AT_S + 8}-${END_S} s`);
    assert.ok(before > 500, `${peer} uses the 1200 kbps before the step: median ${before} kbps`);
    assert.ok(after < 400 && after > 100, `${peer} follows the trace down to 400 kbps and keeps sending: median ${after} kbps`);
  }
}

test('relay: a call through a step-down trace follows the trace capacity, second by second', async () => {
  const run = await runScenarioCli(STEP_DOWN);
  assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
  assert.equal(run.result.environment.emulator, 'relay');
  assertFollowsTrace(run.result);
  assert.equal(run.result.network.traceSteps, null, 'the relay replays the trace itself, not as steps');
  // The relay's own delivery: bytes out of p0.up in each of its seconds (t − 1, t] never exceed the trace's opportunities
  // (two opportunities of slack: the relay's seconds are placed on the media clock to a few milliseconds).
  for (const row of run.result.network.truth.filter((r) => r.link === 'p0.up' && r.t >= 2 && r.t <= END_S)) {
    const capacityKbps = capacityOver(run.result, ['p0.up'], row.t, 1);
    assert.ok((row.bytesOut * 8) / 1000 <= capacityKbps + 24, `relay p0.up t=${row.t}: ${(row.bytesOut * 8) / 1000} kbps out for ${capacityKbps}`);
  }
});

const caps = await netemCapabilities();
const skip = caps.netns && caps.htb ? false : `needs root with network namespaces and htb: ${caps.reasons.join('; ')}`;

test('netem: the same trace as 100 ms htb rate steps runs here, follows it, and reports the steps\' error', { skip }, async () => {
  const run = await runScenarioCli(STEP_DOWN, ['--emulator', 'netem']);
  assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
  assert.equal(run.result.environment.emulator, 'netem');
  const { traceSteps, commands, scheduleEvents } = run.result.network;
  assertFollowsTrace(run.result, traceSteps.appliedLateMs.max / 1000);
  assert.equal(traceSteps.stepMs, 100);
  for (const link of ['p0.up', 'p1.up']) {
    assert.equal(traceSteps.links[link].steps, END_S * 10, `${link}: ${END_S} s of 100 ms steps`);
    assert.ok(traceSteps.links[link].maxAbsErrorKbps <= 1, `${link}: 100 ms steps hold each second's bytes: ${JSON.stringify(traceSteps.links[link])}`);
  }
  assert.ok(traceSteps.appliedLateMs.n > 100 && traceSteps.appliedLateMs.p50 < 100, `steps applied on time: ${JSON.stringify(traceSteps.appliedLateMs)}`);
  assert.match(run.stdout, /traces as 100 ms rate steps/);
  assert.ok(commands.some((c) => / htb rate 1200000bit /.test(c.cmd)) && commands.some((c) => / htb rate (360|480)000bit /.test(c.cmd)),
    'htb follows the trace');
  assert.deepEqual(scheduleEvents, [], 'rate steps are counted in traceSteps, not listed as schedule events');
});
