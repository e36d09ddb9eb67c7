// Load participants beside the measured browsers (issue 41): sfu-load-4 through Janus and the relay at 360p30, 2
// Chromium peers and 2 Pion load participants publishing pre-encoded VP8 simulcast and Opus and receiving everyone.
// The browsers receive the load participants' video as a peer's, the participants' own counts match what Janus says
// it sent them, their media crosses links of their own on the relay, and nothing is left running. A participant that
// stops answering is noticed.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCli, runScenarioCli, tempDir } from './helpers/cli.js';
import { assertBrowsersReceiveLoad, assertReceivesSpeakerOnly, hostileLoadPeerCache, loadPeerProcesses, sfuLoad4Speaker, sfuLoad4With } from './helpers/load-peer.js';
import { MAX_LOAD_LINE_CHARS } from '../orchestrator/lib/input/limits.js';
import { describe as stats } from '../orchestrator/lib/stats/statistics.js';

const median = (values) => stats(values).median;
const LOADS = ['load0', 'load1'];
const BROWSERS = ['p0', 'p1'];

/** LOAD_DELAY_MS one way on load1's uplink alone, from the start: a delay moves no rate, so the other checks hold. */
const LOAD_DELAY_MS = 100;

/** sfu-load-4 with load1's uplink delayed, as a scenario file of the test's own. */
const delayedLoadScenario = () => sfuLoad4With('sfu-load-4-delayed', { links: ['load1.up'], set: { oneWayDelayMs: LOAD_DELAY_MS } });

test('sfu-load-4: the browsers receive the load participants\' video through Janus; their counts match Janus\'s; their links carry them; nothing is left', { timeout: 240_000 }, async () => {
  assert.deepEqual(loadPeerProcesses(), [], 'no load participant running before the run');
  // Wiring, not convergence: the participants send pre-encoded video at its rate from the start.
  const run = await runScenarioCli(delayedLoadScenario(), ['--duration', '22', '--warmup', '8', '--video', '360p30']);
  assert.equal(run.code, 0, `scenario exited ${run.code}:\n${run.stdout}\n${run.stderr}`);
  const { timeline, scenario, sfu, load, resources, events, network } = run.result;
  const inWindow = (row) => row.t > scenario.warmupS && row.t <= scenario.durationS;
  assert.deepEqual(load.participants, LOADS);
  assert.equal(load.subscribe, 'all');
  assert.equal(load.linksShaped, true, 'the result says their links are shaped');
  assert.equal(load.linksUnshapedWhy, null);
  // Their media crossed their own links on the relay: its truth counts their bytes each way, near what they count.
  for (const name of LOADS) {
    const rows = load.rows.filter((row) => inWindow(row) && row.participant === name);
    for (const [link, field] of [[`${name}.up`, 'sentKbps'], [`${name}.down`, 'receivedKbps']]) {
      const truth = network.truth.filter((row) => inWindow(row) && row.link === link);
      const relayedKbps = truth.reduce((sum, row) => sum + row.bytesOut * 8 / 1000, 0);
      const countedKbps = rows.reduce((sum, row) => sum + row[field], 0);
      assert.ok(countedKbps > 0 && relayedKbps > 0.8 * countedKbps && relayedKbps < 1.25 * countedKbps,
        `${link}: the relay forwarded ${relayedKbps.toFixed(0)} kbit, ${name} counted ${countedKbps.toFixed(0)}`);
    }
  }
  // load1's uplink held its packets the delay it was given, load0's did not (Janus measures no RTT to Pion's reports).
  const linkDelayMs = (link) => median(network.truth.filter((row) => inWindow(row) && row.link === link)
    .map((row) => row.oneWayDelayMsP50));
  assert.ok(Math.abs(linkDelayMs('load1.up') - LOAD_DELAY_MS) < 2, `load1.up held packets ${linkDelayMs('load1.up')} ms`);
  assert.ok(linkDelayMs('load0.up') < 2, `load0.up held packets ${linkDelayMs('load0.up')} ms`);
  // Their command lines are in the result, under the death signal, with nothing secret on them.
  assert.equal(load.commands.length, 2);
  for (const argv of load.commands) {
    assert.ok(argv.includes('--pdeathsig') && argv.includes('KILL'), argv.join(' '));
    assert.deepEqual(argv.slice(-2)[0], '-media');
  }
  // Janus forwards the top layer unless the harness picks another.
  const pairs = assertBrowsersReceiveLoad(timeline.filter(inWindow), { browsers: BROWSERS, loads: LOADS, minSeconds: 10 });
  for (const { browser, remote } of pairs) {
    const forwarded = sfu.rows.filter((row) => inWindow(row) && row.peer === browser && row.feed === remote && row.kind === 'video' && row.direction === 'toPeer');
    assert.ok(median(forwarded.map((row) => row.bitrateKbps)) > 300, `Janus forwards ${remote}'s video to ${browser}`);
  }
  for (const name of LOADS) {
    const rows = load.rows.filter((row) => inWindow(row) && row.participant === name);
    assert.ok(rows.length >= scenario.durationS - scenario.warmupS - 2, `${rows.length} seconds of ${name}'s counts`);
    assert.ok(median(rows.map((row) => row.sentKbps)) > 300 && rows.every((row) => row.sentPackets > 0), `${name} sends: ${rows.map((row) => row.sentKbps).join(', ')}`);
    // It receives both browsers' and the other participant's audio and video: what Janus says it sent it, second by second.
    const ratios = rows.map((row) => {
      const janus = sfu.rows.filter((r) => r.peer === name && r.direction === 'toPeer' && Math.abs(r.t - row.t) < 0.5);
      return row.receivedKbps / janus.reduce((sum, r) => sum + r.bitrateKbps, 0);
    }).filter(Number.isFinite);
    assert.ok(ratios.length >= rows.length - 2 && median(ratios) >= 0.85 && median(ratios) <= 1.15,
      `${name} received / Janus sent it: ${ratios.map((ratio) => ratio.toFixed(2)).join(', ')}`);
    assert.ok(median(rows.map((row) => row.receivedKbps)) > 2 * 300, `${name} receives three videos`);
    // Sampled like a browser, and cheap: a fraction of one browser's core.
    const cpu = resources.summary[name]?.cpuPct;
    assert.ok(cpu && cpu.median < 30, `${name}'s CPU ${JSON.stringify(cpu)}`);
  }
  assert.deepEqual(events.filter((event) => event.source === 'load'), [], 'no participant fell silent');
  // The viewer read the browsers' video of each other, and none of the participants' (their frames have no camera log).
  assert.deepEqual(Object.keys(run.result.summary.viewer.streams).sort(), ['p0->p1', 'p1->p0']);
  const report = readFileSync(`${run.out}/report.html`, 'utf8');
  assert.ok(report.includes('<h2>Load participants</h2>'), 'the report shows them apart');
  assert.ok(report.includes('Their media crossed links of their own'), 'the report says their links were shaped');
  assert.deepEqual(loadPeerProcesses(), [], 'load participants still running after the run');
});

test('with subscribe "speaker" a load participant receives p1\'s streams alone and the browsers see it as a thumbnail; one that stops answering (SIGSTOP) is noticed as a warning, and is killed at the end', { timeout: 240_000 }, async () => {
  const out = tempDir('wtb-load-stop-');
  /** @type {number|null} */
  let stopped = null;
  // Stopped as the call starts, it is noticed 5-6 s later (its watchdog looks once a second): 12 s hold that.
  const run = await runCli(['scenario', sfuLoad4Speaker('p1'), '--duration', '12', '--warmup', '2', '--video', '360p30', '--out', out], {
    onOutput: (text) => {
      if (stopped !== null || !text.includes('call started')) return;
      const [victim] = loadPeerProcesses();
      if (!victim) return;
      stopped = victim.pid;
      process.kill(victim.pid, 'SIGSTOP');
    },
  });
  assert.ok(stopped !== null, `no load participant was found to stop:\n${run.stdout}`);
  assert.equal(run.code, 0, `scenario exited ${run.code}:\n${run.stdout}\n${run.stderr}`);
  const result = JSON.parse(readFileSync(`${out}/result.json`, 'utf8'));
  const warnings = result.events.filter((event) => event.type === 'warning' && event.source === 'load');
  assert.equal(warnings.length, 1, JSON.stringify(warnings));
  assert.match(warnings[0].message, /^load participant load[01] wrote no counters for 5 s: it no longer answers$/);
  assert.deepEqual(loadPeerProcesses(), [], 'the stopped participant was killed');
  // The one still answering received the speaker's audio and video and nothing else: Janus forwarded it p1's feed alone.
  assert.equal(result.load.subscribe, 'speaker');
  assert.equal(result.load.speaker, 'p1');
  const answering = LOADS.find((name) => !warnings[0].message.includes(name)) ?? '';
  const inWindow = (row) => row.t > result.scenario.warmupS && row.t <= result.scenario.durationS;
  const feeds = new Set(result.sfu.rows.filter((row) => inWindow(row) && row.peer === answering && row.direction === 'toPeer' && row.bitrateKbps > 0)
    .map((row) => row.feed));
  assert.deepEqual([...feeds], ['p1'], `Janus forwarded ${answering} ${[...feeds].join(', ')}`);
  assertReceivesSpeakerOnly(result, { name: answering, speaker: 'p1', browser: 'p0', inWindow });
  // Janus switched the pages' subscriptions to it to its lowest layer.
  assertBrowsersReceiveLoad(result.timeline.filter(inWindow), { browsers: BROWSERS, loads: [answering], minSeconds: 8, thumbnail: true });
  assert.match(readFileSync(`${out}/report.html`, 'utf8'), /subscribing to the speaker \(p1\) only; the browsers receive their lowest layer/);
});

test('a load participant writing a line over the bound fails the run naming it, with result.json written and nothing left', { timeout: 240_000 }, async () => {
  const env = hostileLoadPeerCache('longLine');
  const run = await runScenarioCli('sfu-load-4', ['--duration', '10', '--warmup', '2', '--video', '360p30'], env);
  assert.notEqual(run.code, 0, `the run passed:\n${run.stdout}`);
  assert.ok(run.result, `no result.json (exit ${run.code}):\n${run.stderr}`);
  assert.equal(run.result.status, 'failed');
  const errors = JSON.stringify(run.result.errors);
  assert.match(errors, new RegExp(`load participant load[01]: a line over ${MAX_LOAD_LINE_CHARS} characters`), errors);
  assert.ok(existsSync(path.join(run.out, 'result.json')));
  assert.deepEqual(loadPeerProcesses(), [], 'the hostile participants were killed');
});
