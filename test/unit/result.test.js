import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildResult, SCHEMA_VERSION } from '../../orchestrator/lib/result/result.js';
import { loadScenario } from '../../orchestrator/lib/scenario/scenario-file.js';
import { parseResult } from '../../orchestrator/report/result-file.js';

const START_MS = 1_700_000_000_000;
const MEDIA_MS = START_MS + 4000;

/**
 * Two peers, 6 s of samples, as the signaling edge hands them over (out of order); the environment and network hold only
 * what buildResult passes through or reads.
 * @param {object} [overrides]
 */
function fixture(overrides = {}) {
  const scenario = loadScenario('bandwidth-750', { durationS: 5, warmupS: 1 });
  const samples = [];
  for (let t = 6; t >= 1; t -= 1) {
    for (const [peer, remote] of [['p1', 'p0'], ['p0', 'p1']]) {
      samples.push({ t, peer, remote, intervalS: 1, video: { recvKbps: 600 + t }, audio: { recvKbps: 40 }, rttMs: 20 });
    }
  }
  return /** @type {Parameters<typeof buildResult>[0]} */ ({
    status: 'passed',
    errors: [],
    scenario,
    environment: { harnessVersion: 'test' },
    samples,
    events: [
      { type: 'call-started', epochMs: MEDIA_MS },
      { type: 'first-frame', peer: 'p0', remote: 'p1', epochMs: MEDIA_MS - 1500 },
      { type: 'launch-started', peer: 'p0', epochMs: MEDIA_MS - 4000 },
      { type: 'launch-started', peer: 'p1', epochMs: MEDIA_MS - 4100 },
      { type: 'first-frame', peer: 'p1', remote: 'p0', epochMs: MEDIA_MS - 1500 },
    ],
    network: {
      emulator: 'relay',
      truth: [{ epochMs: MEDIA_MS + 1000, link: 'p0.up', packetsIn: 10 }],
      commands: [{ atS: 2, cmd: 'tc qdisc show', ok: true }],
      scheduleEvents: [],
    },
    clock: { startedAtEpochMs: START_MS, mediaStartEpochMs: MEDIA_MS },
    peers: ['p0', 'p1'],
    ...overrides,
  });
}

test('buildResult: schema version, timeline sorted and cut at the duration, compiled network kept out of the scenario', () => {
  const result = buildResult(fixture());
  assert.equal(result.schemaVersion, SCHEMA_VERSION);
  assert.deepEqual(result.timeline.map((e) => `${e.t}${e.peer}`), ['1p0', '1p1', '2p0', '2p1', '3p0', '3p1', '4p0', '4p1', '5p0', '5p1']);
  assert.equal(result.scenario.compiled, undefined);
  assert.equal(result.scenario.name, 'bandwidth-750');
  assert.deepEqual(Object.keys(result.network.routes).sort(), ['p0->p1', 'p1->p0']);
  assert.equal(result.network.configured[0].rateKbps, 750);
});

test('buildResult: wall-clock times go onto the media clock (negative before the call started)', () => {
  const result = buildResult(fixture());
  assert.deepEqual(result.events.map((e) => [e.type, e.atS]), [['launch-started', -4.1], ['launch-started', -4], ['first-frame', -1.5], ['first-frame', -1.5], ['call-started', 0]]);
  assert.equal(result.network.truth[0].t, 1);
  assert.equal(result.network.truth[0].epochMs, undefined);
  assert.equal(result.network.commands[0].atS, -2, 'a command 2 s after the run started, 4 s before media start');
});

test('buildResult: before the call started (no media start) times stay unknown and commands keep the run clock', () => {
  const result = buildResult(fixture({ status: 'failed', samples: [], clock: { startedAtEpochMs: START_MS, mediaStartEpochMs: null } }));
  assert.equal(result.events[0].atS, null);
  assert.equal(result.network.commands[0].atS, 2);
  assert.equal(result.timeline.length, 0);
});

test('buildResult: summary over the measurement window, with set-up time and utilisation', () => {
  const { summary } = buildResult(fixture());
  assert.deepEqual(summary.windowS, [1, 5]);
  assert.equal(summary.peers.p0['video.recvKbps'].n, 4);
  assert.deepEqual(summary.setupMs, { p0: 2500, p1: 2600, max: 2600 });
  assert.ok(summary.utilization.overall > 0.8 && summary.utilization.overall < 0.9, `utilisation ${summary.utilization.overall}`);
});

test('buildResult: the set-up breakdown per peer from the events; summary.setupMs is its first frame', () => {
  const { setup, summary } = buildResult(fixture());
  const notReached = { negotiated: null, iceConnected: null, dtlsConnected: null, firstRtp: null };
  assert.deepEqual(setup.peers.p1.remotes, { p0: { ...notReached, firstFrame: 2600 } });
  assert.equal(setup.peers.p0.launchEpochMs, MEDIA_MS - 4000);
  for (const peer of ['p0', 'p1']) assert.equal(setup.peers[peer].sinceLaunchMs.firstFrame, summary.setupMs[peer]);
  const failed = buildResult(fixture({ status: 'failed', events: [{ type: 'launch-started', peer: 'p0', epochMs: START_MS }] }));
  assert.deepEqual(failed.summary.setupMs, { p0: null, p1: null, max: null });
  assert.equal(failed.setup.peers.p1.launchEpochMs, null);
});

test('buildResult: samples with junk peer names cannot make the sort throw', () => {
  const samples = [{ t: 1, peer: 7, remote: null }, { t: 1, peer: 'p0', remote: 'p1' }, { t: 1, remote: 'p0' }];
  assert.doesNotThrow(() => buildResult(fixture({ samples })));
});

test('the report reader accepts what buildResult writes', () => {
  const result = buildResult(fixture());
  const read = parseResult(JSON.stringify(result), 'result.json');
  assert.equal(read.timeline.length, result.timeline.length);
  assert.equal(read.status, 'passed');
});

test('buildResult: the truth on the media clock gives each received flow its wire loss per second; summary.loss over the window', () => {
  // The relay's seconds end 0.2 s after the timeline's: the row for media second t ends at t + 0.2.
  const truth = [];
  for (let t = 1; t <= 5; t += 1) {
    for (const link of ['p0.up', 'p0.down', 'p1.up', 'p1.down']) {
      truth.push({ epochMs: MEDIA_MS + (t + 0.2) * 1000, link, packetsIn: 100, dropsLoss: link === 'p0.up' ? t : 0, dropsQueue: 0 });
    }
  }
  const samples = fixture().samples.map((s) => ({
    ...s, residualLossPct: 1, video: { ...s.video, residualLossPct: 0.5 }, audio: { ...s.audio, lossPct: 2 },
  }));
  const result = buildResult(fixture({ samples, network: { ...fixture().network, truth } }));
  const p1 = result.timeline.filter((e) => e.peer === 'p1');
  assert.deepEqual(p1.map((e) => e.wireLossPct), [1, 2, 3, 4, 5], 'p0->p1 crosses p0.up, which drops t % in second t');
  assert.deepEqual(p1.map((e) => e.video.recoveredLossPct), [0.5, 1.5, 2.5, 3.5, 4.5]);
  const p0 = result.timeline.filter((e) => e.peer === 'p0');
  assert.ok(p0.length > 0 && p0.every((e) => e.wireLossPct === 0 && e.recoveredLossPct === -1));
  assert.equal(result.summary.loss.links['p0.up'].wireLossPct, 3.5, 'seconds 2..5 (after the 1 s warm-up): 14 of 400');
  assert.equal(result.summary.loss.flows['p0->p1'].wireLossPct.mean, 3.5);
  assert.equal(result.summary.peers.p1.wireLossPct.mean, 3.5, 'a per-second metric like any other');
});

test('buildResult: Janus\'s readings go onto the media clock, sorted and cut at the duration; no SFU, no section', () => {
  const row = (s, peer, feed, direction) => ({ epochMs: MEDIA_MS + s * 1000, peer, feed, role: 'x', kind: 'video', direction, bitrateKbps: 500 });
  const sfu = { rows: [row(6, 'p0', 'p0', 'fromPeer'), row(2, 'p1', 'p0', 'toPeer'), row(2, 'p0', 'p1', 'toPeer'), row(-1, 'p0', 'p0', 'fromPeer')], unavailable: null };
  const result = buildResult(fixture({ sfu }));
  assert.deepEqual(result.sfu.rows.map((r) => [r.t, r.peer, r.feed, r.direction]), [[-1, 'p0', 'p0', 'fromPeer'], [2, 'p0', 'p1', 'toPeer'], [2, 'p1', 'p0', 'toPeer']]);
  assert.equal(result.sfu.rows[0].epochMs, undefined);
  assert.equal(result.sfu.unavailable, null);
  assert.equal(buildResult(fixture()).sfu, null);
  assert.deepEqual(buildResult(fixture({ sfu: { rows: [], unavailable: 'why' } })).sfu, { rows: [], unavailable: 'why' });
});

test('buildResult: the emulator\'s own load goes onto the media clock and a second it fell behind is in summary.emulatorBehind', () => {
  const row = (s, behind) => ({
    epochMs: MEDIA_MS + s * 1000, packetsIn: 800, packetsOut: 790, busyPct: 35.5,
    lateP99Ms: behind ? 3.1 : 0.2, lateMaxMs: behind ? 12.5 : 0.4, timerWakeMaxMs: behind ? 2.9 : 0.1, behind,
  });
  const emulatorLoad = [row(-0.7, true), row(0.3, false), row(1.3, false), row(2.3, true), row(3.3, false)];
  const network = { ...fixture().network, emulatorLoad };
  const result = buildResult(fixture({ network }));
  assert.deepEqual(result.network.emulatorLoad[3], {
    t: 2.3, packetsIn: 800, packetsOut: 790, busyPct: 35.5, lateP99Ms: 3.1, lateMaxMs: 12.5, timerWakeMaxMs: 2.9, behind: true,
  });
  assert.equal(result.network.emulatorLoad.length, 5, 'set-up seconds are kept in the rows');
  // The set-up second that fell behind is not the call's; in the call's, the relay's own timer woke as late (a host stall).
  assert.deepEqual(result.summary.emulatorBehind, {
    behind: true, seconds: 1, measuredSeconds: 4, spans: [{ fromS: 1, toS: 2 }], lateMaxMs: 12.5, hostStallSeconds: 1,
  });
  // A backend that does not measure itself (netem, dummynet) has no rows and no verdict, not an empty "kept up".
  const netem = buildResult(fixture());
  assert.equal(netem.network.emulatorLoad, null);
  assert.equal(netem.summary.emulatorBehind, null);
  assert.deepEqual(parseResult(JSON.stringify(result), 'result.json').network.emulatorLoad, result.network.emulatorLoad, 'the report reader keeps them');
});
