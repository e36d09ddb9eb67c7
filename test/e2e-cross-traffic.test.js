// Cross traffic on a shared bottleneck with real browsers, iperf3 and the relay (issue 12), compressed and at 360p:
// TCP against a call with the configured delay in force, three calls joining and one leaving, a data channel
// against the video, and an RMCAT case with two media flows and capacity steps. Each test is one run, as short as its
// checks allow: they check wiring (each flow present, in its phase, at a rate; the delay, the steps, the counts in
// force), not a converged share, so a window lets a few seconds of start-up go missing and no more.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { tempDir } from './helpers/cli.js';
import { loadScenario } from '../orchestrator/lib/scenario/scenario-file.js';
import { runScenario } from '../orchestrator/run/run.js';
import { normalizeResult } from '../orchestrator/report/result-file.js';
import { buildRunCharts } from '../orchestrator/report/series.js';

const RUN_TIMEOUT_MS = 180_000;

/** @param {ReturnType<typeof loadScenario>} scenario */
async function run(scenario) {
  const { result } = await runScenario({ scenario, video: '360p30', outDir: tempDir(`wtb-${scenario.name}-`) });
  assert.equal(result.status, 'passed', JSON.stringify(result.errors));
  return result;
}

/** @param {any} result @param {string} flow @param {number} fromS @param {number} toS */
const flowRates = (result, flow, fromS, toS) => result.flows.rows.filter((row) => row.flow === flow && row.t >= fromS && row.t <= toS);
const mean = (values) => values.reduce((sum, v) => sum + v, 0) / values.length;
const show = (rows) => rows.map((row) => `${row.t}:${Math.round(row.rateKbps)}`).join(' ');
/** The rows a per-second window [fromS, toS] holds, less `missingS` seconds of slack. */
const rowsAtLeast = (fromS, toS, missingS) => toS - fromS + 1 - missingS;
/** @param {any} result */
const forwardFairness = (result) => result.summary.fairness?.links?.['bottleneck.fwd'];

test('a one-way call starting at 6 s and iperf3 share a bottleneck with 25 ms each way: both rates, the delay in the browsers\' and TCP\'s RTT', { timeout: RUN_TIMEOUT_MS }, async () => {
  // TCP runs 12 s: cubic fills the 300 ms queue within 2 s of its start and holds it full (docs/reproductions.md), so
  // every second judged (12–21 s) is one of the shared bottleneck. (A 32 s call judged 12–27 s before: every row there in
  // three runs, TCP 1417–1676 kbps, the call 217–476 kbps: wiring, not a share, so 24 s are enough.)
  const [tcpStartS, tcpStopS, fromS, toS] = [10, 22, 12, 21];
  const minRows = rowsAtLeast(fromS, toS, 3);
  const file = path.join(tempDir('wtb-tcp-scenario-'), 'tcp-e2e.json');
  writeFileSync(file, JSON.stringify({
    name: 'tcp-e2e', description: 'a call and one TCP flow on a 2000 kbps bottleneck with 50 ms RTT', durationS: 24, warmupS: 5,
    network: { bottleneck: { rateKbps: 2000, queueMs: 300, oneWayDelayMs: 25 } },
    mainCall: { startS: 6, direction: 'forward' },
    flows: [{ name: 'tcp', kind: 'tcp', startS: tcpStartS, stopS: tcpStopS }],
  }));
  const result = await run(loadScenario(file));
  const tcp = flowRates(result, 'tcp', fromS, toS);
  assert.ok(tcp.length >= minRows && tcp.every((row) => row.source === 'iperf3'), `iperf3 rows ${show(tcp)}`);
  assert.ok(mean(tcp.map((row) => row.rateKbps)) > 200, `TCP gets a share: ${show(tcp)}`);
  assert.deepEqual(flowRates(result, 'tcp', 0, 9), [], 'no TCP before it starts');
  // The relay's view of the same flow: what left the bottleneck carries at least the goodput (headers, retransmissions).
  const wire = result.flows.truth.filter((row) => row.flow === 'tcp' && row.direction === 'forward' && row.t >= fromS && row.t <= toS);
  assert.ok(wire.length >= minRows && mean(wire.map((row) => row.rateKbps)) >= 0.9 * mean(tcp.map((row) => row.rateKbps)), `wire ${show(wire)}`);
  const call = flowRates(result, 'call:fwd', fromS, toS);
  // mainCall: p0's media starts at 6 s; p1 never sends media (one way), only RTCP.
  /** @param {string} peer @param {string} remote @returns {Array<[number, number]>} */
  const video = (peer, remote) => result.timeline.filter((e) => e.peer === peer && e.remote === remote)
    .map((e) => [e.t, /** @type {number} */ (e.video?.recvKbps ?? 0)]);
  assert.deepEqual(video('p1', 'p0').filter(([t, kbps]) => t <= 5 && kbps > 0), [], `p1 got video before 6 s: ${video('p1', 'p0')}`);
  assert.ok(mean(call.map((row) => row.rateKbps)) > 100, `the call's video flows after its start: ${show(call)}`);
  assert.deepEqual(video('p0', 'p1').filter(([, kbps]) => kbps > 0), [], `p0 got video from p1 in a one-way call: ${video('p0', 'p1')}`);
  assert.deepEqual(result.flows.list.find((flow) => flow.main).series.map((series) => series.name), ['call:fwd']);
  // Both share one 2000 kbps link. The link's own count, every second, holds at its cap (2 %: a datagram or two
  // crossing a second's edge); the two goodputs together stay under it over the phase. iperf3's one-second intervals
  // are not the relay's seconds: one alone read 2144 kbps (a CI run), so a per-second sum of goodputs cannot judge it.
  const bottleneck = result.network.truth.filter((row) => row.link === 'bottleneck.fwd' && row.t >= fromS && row.t <= toS);
  assert.ok(bottleneck.length >= minRows, `bottleneck.fwd truth rows ${bottleneck.length}`);
  for (const row of bottleneck) {
    assert.ok((row.bytesOut * 8) / 1000 <= 2000 * 1.02, `${row.t} s: bottleneck.fwd delivered ${(row.bytesOut * 8) / 1000} kbps`);
  }
  const goodputKbps = mean(tcp.map((row) => row.rateKbps)) + mean(call.map((row) => row.rateKbps));
  assert.ok(goodputKbps <= 2000, `tcp + call goodput ${goodputKbps} kbps over ${fromS}–${toS} s`);
  // The delay is in force for the browsers: 50 ms configured RTT plus queueing.
  const rtts = result.timeline.filter((e) => e.peer === 'p0' && e.t > 5 && typeof e.rttMs === 'number').map((e) => /** @type {number} */ (e.rttMs));
  console.log(`${fromS}–${toS} s: TCP ${Math.round(mean(tcp.map((row) => row.rateKbps)))} kbps (> 200) in ${tcp.length} rows (>= ${minRows}), `
    + `the call ${Math.round(mean(call.map((row) => row.rateKbps)))} kbps (> 100); ${rtts.length} browser RTTs (> 15)`);
  // One a second after 5 s: 19 in a 24 s call (27 of 27 in the 32 s calls before).
  assert.ok(rtts.length > 15 && Math.min(...rtts) >= 47, `browser RTT ${rtts.join(' ')}`);
  // And for TCP: iperf3's own RTT (its sender's TCP_INFO, which Linux always gives).
  const tcpRtts = tcp.map((row) => row.rttMs).filter((v) => typeof v === 'number');
  assert.ok(tcpRtts.length > 0 && Math.min(...tcpRtts) >= 45, `TCP RTT ${tcpRtts.join(' ') || 'in no row'}`);
  const fairness = forwardFairness(result);
  const shared = fairness.phases.find((phase) => phase.flows.includes('tcp') && phase.flows.includes('call:fwd'));
  assert.ok(shared && shared.jainIndex > 0 && shared.jainIndex <= 1, `phase with both flows: ${JSON.stringify(fairness.phases)}`);
  assert.ok(result.network.commands.some((c) => /iperf3/.test(c.cmd)), 'iperf3 commands are logged');
  // TCP's own drops and delay per second (its tunnel's truth): its drops are among the link's, and in the one FIFO its
  // packets wait what every packet there waits (the link's own one-way delay), above the configured 25 ms.
  const tcpTruth = result.flows.truth.filter((row) => row.flow === 'tcp' && row.direction === 'forward');
  const countsDrops = (row) => Number.isInteger(row.dropsQueue) && Number.isInteger(row.dropsLoss);
  assert.ok(tcpTruth.length >= tcpStopS - tcpStartS && tcpTruth.every(countsDrops),
    `tcp truth rows ${tcpTruth.length}: ${JSON.stringify(tcpTruth[0])}`);
  const sum = (rows, field) => rows.reduce((total, row) => total + row[field], 0);
  const linkTruth = result.network.truth.filter((row) => row.link === 'bottleneck.fwd');
  assert.ok(sum(tcpTruth, 'dropsQueue') <= sum(linkTruth, 'dropsQueue'), `tcp dropped ${sum(tcpTruth, 'dropsQueue')}, the link ${sum(linkTruth, 'dropsQueue')}`);
  const delayFromS = tcpStartS + 8;
  const delayMs = (rows) => mean(rows.filter((row) => row.t >= delayFromS && row.t <= toS && row.oneWayDelayMsP50 !== null)
    .map((row) => row.oneWayDelayMsP50));
  const [tcpDelayMs, linkDelayMs] = [delayMs(tcpTruth), delayMs(linkTruth)];
  assert.ok(tcpDelayMs >= 25 && Math.abs(tcpDelayMs - linkDelayMs) < 20, `one-way p50, ${delayFromS}–${toS} s: tcp ${tcpDelayMs} ms, the link ${linkDelayMs} ms`);
  const panels = buildRunCharts(normalizeResult(result)).sections.flatMap((section) => section.panels).map((panel) => panel.id);
  assert.ok(panels.includes('flows-bottleneck_fwd-drops') && panels.includes('flows-bottleneck_fwd-delay'), `report panels ${panels}`);
});

// A TCP flow whose socket buffers are capped (windowBytes, iperf3 -w) sends about a window per round trip, on a 4 Mbps
// link it could otherwise fill: 580-621 kbps a second against 8 KB per 100 ms = 655 kbps (2026-11-30), flat from its
// first judged second, so a 12 s call judged 6-11 s (16 s, 8-15 s before) shows it. Linux doubles the
// buffer asked for (half of it for its own bookkeeping), so twice that is the ceiling judged.
test('a TCP flow with windowBytes 8192 is held to its window per round trip, far under a link it could fill, and -w is on its command', { timeout: RUN_TIMEOUT_MS }, async () => {
  const [windowBytes, rttMs, fromS, toS] = [8192, 100, 6, 11];
  const file = path.join(tempDir('wtb-tcp-window-'), 'tcp-window.json');
  writeFileSync(file, JSON.stringify({
    name: 'tcp-window', description: 'a window-limited TCP flow on a 4000 kbps bottleneck with 100 ms RTT', durationS: 12, warmupS: 3,
    network: { bottleneck: { rateKbps: 4000, queueMs: 300, oneWayDelayMs: rttMs / 2 } },
    mainCall: { direction: 'forward' },
    flows: [{ name: 'tcp', kind: 'tcp', startS: 4, stopS: 12, windowBytes }],
  }));
  const result = await run(loadScenario(file));
  assert.equal(result.flows.list.find((flow) => flow.name === 'tcp')?.windowBytes, windowBytes);
  assert.ok(result.network.commands.some((c) => /iperf3 .*-c .* -w 8192 /.test(c.cmd)), 'iperf3 ran with -w 8192');
  const tcp = flowRates(result, 'tcp', fromS, toS);
  const ceilingKbps = (2 * windowBytes * 8) / rttMs;
  console.log(`windowBytes ${windowBytes}: TCP ${show(tcp)} kbps (ceiling ${ceilingKbps})`);
  assert.ok(tcp.length >= rowsAtLeast(fromS, toS, 2), `iperf3 rows ${show(tcp)}`);
  assert.ok(mean(tcp.map((row) => row.rateKbps)) > 200, `TCP still flows: ${show(tcp)}`);
  assert.ok(tcp.every((row) => row.rateKbps <= ceilingKbps * 1.1), `TCP over its window per round trip: ${show(tcp)}`);
});

test('rtp-cross-traffic (x0.08): three calls join and one leaves, Jain per phase', { timeout: RUN_TIMEOUT_MS }, async () => {
  // 24 s: call-2 joins at 4.8 s, call-3 is up from 9.6 s to 19.2 s. (At x0.1, 30 s: call-3 had every row of the 10
  // judged from 2 s after its join, 318–505 kbps, in three runs; judged here from 2.4 s after it.)
  const result = await run(loadScenario('rtp-cross-traffic', { timeScale: 0.08, warmupS: 3 }));
  const phases = forwardFairness(result).phases;
  const sets = phases.map((phase) => [...phase.flows].sort().join('+'));
  for (const set of [['call:fwd', 'call-2:fwd'], ['call:fwd', 'call-2:fwd', 'call-3:fwd']].map((flows) => flows.sort().join('+'))) {
    assert.ok(sets.includes(set), `phase ${set} in ${sets.join(', ')}`);
  }
  for (const phase of phases.filter((p) => p.flows.length >= 2)) {
    assert.ok(phase.jainIndex > 0 && phase.jainIndex <= 1, `Jain of ${phase.flows} = ${phase.jainIndex}`);
  }
  const third = flowRates(result, 'call-3:fwd', 12, 19);
  console.log(`call-3 ${Math.round(mean(third.map((r) => r.rateKbps)))} kbps (> 50) in ${third.length} rows `
    + `(>= ${rowsAtLeast(12, 19, 3)}); phases ${sets.join(', ')}`);
  assert.ok(third.length >= rowsAtLeast(12, 19, 3) && mean(third.map((r) => r.rateKbps)) > 50, `call-3 while up: ${show(third)}`);
  assert.deepEqual(flowRates(result, 'call-3:fwd', 21, 24).filter((r) => r.rateKbps > 0), [], 'call-3 gone after it left');
});

test('media-vs-data-2m-uncoupled (x0.15): the data channel and the video on one bottleneck', { timeout: RUN_TIMEOUT_MS }, async () => {
  // 18 s: the data channel from 1.5 s on. (At x0.2, 24 s: data 1260–1463 kbps and both flows in every row of 5–22 s, in
  // four runs.)
  const result = await run(loadScenario('media-vs-data-2m-uncoupled', { timeScale: 0.15, warmupS: 3 }));
  const minRows = rowsAtLeast(5, 16, 4);
  const data = flowRates(result, 'data', 5, 16);
  assert.ok(data.length >= minRows && data.every((r) => r.source === 'datachannel') && mean(data.map((r) => r.rateKbps)) > 200, `data ${show(data)}`);
  const video = flowRates(result, 'call:fwd', 5, 16);
  console.log(`data ${Math.round(mean(data.map((r) => r.rateKbps)))} kbps (> 200) in ${data.length} rows, video in ${video.length} (>= ${minRows})`);
  assert.ok(video.length >= minRows, `video ${show(video)}`);
  const shared = forwardFairness(result).phases.find((p) => p.flows.includes('data') && p.flows.includes('call:fwd'));
  assert.ok(shared && shared.jainIndex !== null, 'a phase with both');
});

test('rmcat-5.2 (x0.12): two media flows and the capacity steps', { timeout: RUN_TIMEOUT_MS }, async () => {
  // 15 s: the capacity steps at 3, 6, 9 and 12 s. (At x0.2, 25 s: both flows in every row of 4–24 s, 453–1085 kbps, in
  // four runs: the check is each flow present at a rate and each step applied, not a rate following the steps.)
  const scenario = loadScenario('rmcat-5.2', { timeScale: 0.12, warmupS: 3 });
  const result = await run(scenario);
  const flows = result.flows.list.filter((f) => f.kind === 'call').map((f) => f.name);
  assert.equal(flows.length, 2, `two media flows: ${flows}`);
  for (const series of ['call:fwd', `${flows.find((f) => f !== 'call')}:fwd`]) {
    const rows = flowRates(result, series, 4, 14);
    console.log(`${series}: ${Math.round(mean(rows.map((r) => r.rateKbps)))} kbps (> 50) in ${rows.length} rows`
      + ` (>= ${rowsAtLeast(4, 14, 4)})`);
    assert.ok(rows.length >= rowsAtLeast(4, 14, 4) && mean(rows.map((r) => r.rateKbps)) > 50, `${series}: ${show(rows)}`);
  }
  const steps = result.network.scheduleEvents.filter((e) => e.link === 'bottleneck.fwd').map((e) => e.params.rateKbps);
  assert.deepEqual(steps, [2000, 3500, 1000, 2000]);
  const capacity = result.network.configured.filter((row) => row.link === 'bottleneck.fwd' && row.t === 7);
  assert.equal(capacity[0]?.rateKbps, 3500);
});
