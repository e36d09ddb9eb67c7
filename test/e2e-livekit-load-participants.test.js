// Load participants in a LiveKit room (issue 41): sfu-load-4 with --sfu livekit through the relay at 360p30, 2 Chromium
// peers and 2 load participants joining with LiveKit's Go SDK (sfu/load-peer -join livekit), publishing pre-encoded
// VP8 simulcast and Opus and receiving everyone. The browsers receive the load participants' video as a peer's; LiveKit
// reports no per-participant counts (capabilities.ownStats false), so each participant's received rate is checked
// against what the browsers receive of the same streams; its token never reaches a command line; nothing is left. A
// participant that writes a description (only one joining through the harness may) fails the run.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { pidsMentioning, processesTagged, runScenarioCli, runTag } from './helpers/cli.js';
import { assertBrowsersReceiveLoad, assertReceivesSpeakerOnly, hostileLoadPeerCache, loadPeerProcesses, sfuLoad4Speaker } from './helpers/load-peer.js';
import { describe as stats } from '../orchestrator/lib/stats/statistics.js';

const median = (values) => stats(values).median;
const LOADS = ['load0', 'load1'];
const BROWSERS = ['p0', 'p1'];

test('sfu-load-4 on LiveKit: the browsers receive the load participants\' video; their counts match what the browsers receive; nothing is left', { timeout: 240_000 }, async () => {
  assert.deepEqual(loadPeerProcesses(), [], 'no load participant running before the run');
  const run = await runScenarioCli('sfu-load-4', ['--sfu', 'livekit', '--duration', '20', '--warmup', '10', '--video', '360p30']);
  assert.equal(run.code, 0, `scenario exited ${run.code}:\n${run.stdout}\n${run.stderr}`);
  const { timeline, scenario, load, events, environment } = run.result;
  assert.equal(environment.sfu.name, 'livekit');
  const inWindow = (row) => row.t > scenario.warmupS && row.t <= scenario.durationS;
  assert.deepEqual(load.participants, LOADS);
  assert.equal(load.subscribe, 'all');
  assert.equal(load.linksShaped, false);
  assert.match(load.linksUnshapedWhy, /^--sfu livekit: its load participants signal to it themselves/, 'the result says why not');
  // Their links left the run's network: the relay carried none.
  assert.deepEqual(run.result.network.truth.filter((row) => row.link.startsWith('load')), []);
  assert.match(readFileSync(`${run.out}/report.html`, 'utf8'), /<strong>Their links are not shaped<\/strong>: [^<]*\(--sfu livekit: its load participants signal/);
  // They join by LiveKit's protocol; their tokens (JWTs, `eyJ…`) went to their stdin, never their command lines.
  assert.equal(load.commands.length, 2);
  for (const argv of load.commands) {
    assert.ok(argv.includes('--pdeathsig') && argv.join(' ').includes('-join livekit -media'), argv.join(' '));
    assert.ok(!argv.some((arg) => /eyJ/.test(arg)), `a token on the command line: ${argv.join(' ')}`);
  }
  /** What `browser` received of `remote` each second, video and audio (kbps), keyed by second. */
  const received = (browser, remote) => new Map(timeline.filter((e) => inWindow(e) && e.peer === browser && e.remote === remote)
    .map((e) => [Math.round(e.t), (e.video.recvKbps ?? 0) + (e.audio.recvKbps ?? 0)]));
  // The pages subscribe without adaptive stream: LiveKit forwards the top layer when it fits.
  assertBrowsersReceiveLoad(timeline.filter(inWindow), { browsers: BROWSERS, loads: LOADS, minSeconds: 8 });
  for (const name of LOADS) {
    const rows = load.rows.filter((row) => inWindow(row) && row.participant === name);
    assert.ok(rows.length >= scenario.durationS - scenario.warmupS - 2, `${rows.length} seconds of ${name}'s counts`);
    assert.ok(median(rows.map((row) => row.sentKbps)) > 300 && rows.every((row) => row.sentPackets > 0), `${name} sends: ${rows.map((row) => row.sentKbps).join(', ')}`);
    // It receives the other three publishers' streams; each is what a browser receives of it (the other browser's of a
    // browser, either browser's of the other participant), second by second.
    const others = [...BROWSERS, ...LOADS].filter((remote) => remote !== name);
    const sources = others.map((remote) => received(BROWSERS.find((browser) => browser !== remote) ?? BROWSERS[0], remote));
    const ratios = rows.map((row) => {
      const second = Math.round(row.t);
      const expected = sources.map((source) => source.get(second));
      return expected.includes(undefined) ? NaN : row.receivedKbps / expected.reduce((sum, kbps) => sum + (kbps ?? 0), 0);
    }).filter(Number.isFinite);
    // Within a few percent (0.93 to 1.05 each second, median 1.00, on 2026-11-29): the participant counts RTP headers,
    // which getStats' bytesReceived leaves out, and its seconds are not the pages'.
    assert.ok(ratios.length >= rows.length - 3 && median(ratios) >= 0.85 && median(ratios) <= 1.15,
      `${name} received / the browsers received of the same streams: ${ratios.map((ratio) => ratio.toFixed(2)).join(', ')}`);
    assert.ok(median(rows.map((row) => row.receivedKbps)) > 2 * 300, `${name} receives three videos`);
  }
  assert.deepEqual(events.filter((event) => event.source === 'load'), [], 'no participant fell silent');
  assert.deepEqual(loadPeerProcesses(), [], 'load participants still running after the run');
  assert.deepEqual(pidsMentioning(run.out), [], 'livekit-server is gone');
});

test('with subscribe "speaker" on LiveKit each load participant subscribes to p1\'s tracks alone and receives them; the browsers receive them as thumbnails', { timeout: 240_000 }, async () => {
  const run = await runScenarioCli(sfuLoad4Speaker('p1'), ['--sfu', 'livekit', '--duration', '14', '--warmup', '6', '--video', '360p30']);
  assert.equal(run.code, 0, `scenario exited ${run.code}:\n${run.stdout}\n${run.stderr}`);
  const { timeline, scenario, load, events } = run.result;
  assert.equal(load.subscribe, 'speaker');
  assert.equal(load.speaker, 'p1');
  const inWindow = (row) => row.t > scenario.warmupS && row.t <= scenario.durationS;
  for (const name of LOADS) assertReceivesSpeakerOnly(run.result, { name, speaker: 'p1', browser: 'p0', inWindow });
  assertBrowsersReceiveLoad(timeline.filter(inWindow), { browsers: BROWSERS, loads: LOADS, minSeconds: 6, thumbnail: true });
  assert.deepEqual(events.filter((event) => event.source === 'load'), [], 'no participant fell silent');
  assert.deepEqual(loadPeerProcesses(), [], 'load participants still running after the run');
});

test('a load participant joining LiveKit that writes a description fails the run naming it, with result.json written and nothing left', { timeout: 240_000 }, async () => {
  const { tag, env } = runTag();
  const run = await runScenarioCli('sfu-load-4', ['--sfu', 'livekit', '--duration', '10', '--warmup', '2', '--video', '360p30'],
    { ...env, ...hostileLoadPeerCache('description') });
  assert.notEqual(run.code, 0, `the run passed:\n${run.stdout}`);
  assert.ok(run.result, `no result.json (exit ${run.code}):\n${run.stderr}`);
  assert.equal(run.result.status, 'failed');
  assert.equal(run.result.environment.sfu.name, 'livekit');
  const errors = JSON.stringify(run.result.errors);
  assert.match(errors, /load participant load[01]: wrote a description, but it joins by livekit/, errors);
  assert.deepEqual(loadPeerProcesses(), [], 'the hostile participants were killed');
  assert.deepEqual(pidsMentioning(run.out), [], 'livekit-server is gone');
  // Browsers and every other descendant of the run carry its tag.
  assert.deepEqual(processesTagged(tag), [], 'nothing of the run is left');
});
