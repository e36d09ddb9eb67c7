// Simulcast and SVC through Janus with real Chromium peers (issue 38): sfu-simulcast-3 compressed 4× at 360p, where
// Chromium encodes two of the three layers (docs/scenario-format.md "Publishing"), so every publisher publishes two. The
// harness picks p2's layers from its measured downlink (2500 → 500 → 150 → 2500 kbps); each check of result.json's
// `layers` must hold, and a run whose publishers pause a layer must be caught by the layersSent check. VP9 SVC sends
// its top layer at 360p15 (L2T3; at 30 fps Chromium's quality scaler sends 3/4 of the picture); sfu-svc-3, the same
// call as sfu-simulcast-3 in SVC, runs on LiveKit (Janus 1.1.2 cannot pick SVC layers, below); sfu-simulcast-trace
// puts p2's downlink on a capacity trace its layers must follow.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runScenarioCli } from './helpers/cli.js';

/** @param {any} layers @param {string} check @param {string} peer */
const checkOf = (layers, check, peer) => layers.checks.find((c) => c.check === check && c.peer === peer);

test('sfu-simulcast-3: every layer sent at its resolution, p2 follows its downlink cap down and back up, p0 and p1 stay on top', { timeout: 150_000 }, async () => {
  const run = await runScenarioCli('sfu-simulcast-3', ['--time-scale', '0.25', '--warmup', '6', '--video', '360p30', '--publish', 'simulcast=2']);
  assert.equal(run.code, 0, `scenario exited ${run.code}:\n${run.stdout}\n${run.stderr}`);
  const { environment, layers, events } = run.result;
  assert.equal(environment.sfu.name, 'janus');
  assert.match(environment.sfu.version ?? '', /^\d+\.\d+\.\d+/, 'the version Janus reported');
  const detail = JSON.stringify(layers.checks, null, 1);
  for (const peer of ['p0', 'p1', 'p2']) {
    assert.deepEqual(layers.publishers[peer].layers.map((l) => `${l.rid} ${l.widthPx}×${l.heightPx}`), ['h 320×180', 'f 640×360']);
    assert.equal(checkOf(layers, 'layersSent', peer).passed, true, detail);
    assert.equal(checkOf(layers, 'lowerLayersBelowHigher', peer).passed, true, detail);
  }
  for (const peer of ['p0', 'p1']) assert.equal(checkOf(layers, 'openLinkOnTop', peer).passed, true, detail);
  const follows = checkOf(layers, 'followsDownlinkCap', 'p2');
  assert.equal(follows.passed, true, detail);
  const [down, , up] = follows.moves;
  assert.ok(down.direction === 'down' && down.afterS <= 8, `p2 moved down ${down.afterS} s after the 500 kbps cap`);
  assert.ok(up.direction === 'up' && up.afterS <= 12, `p2 moved back up ${up.afterS} s after the cap lifted`);
  // Every switch the harness asked for is an event with its time and cause; p2's moves start with one.
  const switches = events.filter((event) => event.type === 'layer-switch');
  assert.deepEqual(layers.switches.length, switches.length);
  const p2Down = layers.switches.find((s) => s.peer === 'p2' && s.atS > down.atS);
  assert.ok(p2Down && p2Down.to.spatial < p2Down.from.spatial && /loss|received/.test(p2Down.cause), JSON.stringify(layers.switches));
  assert.ok(layers.switches.filter((s) => s.peer !== 'p2').length <= 2, `open-link subscribers switched: ${JSON.stringify(layers.switches)}`);
  // Per-encoding sender stats each second on the publishers' connections to the SFU.
  const sent = layers.sent.filter((row) => row.peer === 'p0' && row.t > 6);
  assert.ok(sent.length >= 2 * 25, `${sent.length} rows of p0's encodings`);
});

test('a publisher that pauses a layer is caught: layersSent names the layer that was never sent', { timeout: 90_000 }, async () => {
  // Wiring, not convergence: a rid that is never sent is missing from the first second of the window on.
  const run = await runScenarioCli('sfu-3', ['--duration', '9', '--warmup', '3', '--video', '360p30', '--publish', 'simulcast=2,inactiveRids=h']);
  assert.equal(run.code, 0, `scenario exited ${run.code}:\n${run.stdout}\n${run.stderr}`);
  const { layers } = run.result;
  for (const peer of ['p0', 'p1', 'p2']) {
    const sentCheck = checkOf(layers, 'layersSent', peer);
    assert.equal(sentCheck.passed, false, JSON.stringify(layers.checks));
    // The paused rid is named; the one left may still be ramping up to its size in so short a call.
    assert.match(sentCheck.detail, /^not every layer was sent at its resolution: layer 0 \(rid h\) at 320×180 in 0 of 6 s \(sent: nothing\)/);
    assert.equal(layers.publishers[peer].inactiveRids[0], 'h');
  }
  assert.equal(layers.passed, false);
});

test('VP9 SVC at 360p15 (L2T3): each publisher sends one L2T3 stream, every open-link subscriber receives the top layer each one sends, a publisher Chromium shrank is caught', { timeout: 90_000 }, async () => {
  // At 360p30 Chromium's quality scaler sends 480×270 from ~9 s on, and at 360p15 in a third of the calls one publisher
  // does from its second second (docs/scenario-format.md "Publishing"): layersSent fails for it, its subscribers are
  // judged against what it sent. A publisher whose estimate started low (164 kbps once, three browsers starting on two
  // cores) ramps to the top layer's rate ~10 s in: the window starts after that.
  const run = await runScenarioCli('sfu-3', ['--duration', '22', '--warmup', '10', '--video', '360p15', '--publish', 'codec=vp9,scalabilityMode=L2T3']);
  assert.equal(run.code, 0, `scenario exited ${run.code}:\n${run.stdout}\n${run.stderr}`);
  const { layers, timeline } = run.result;
  const detail = JSON.stringify(layers.checks, null, 1);
  console.log(layers.checks.map((c) => `${c.check} ${c.peer}: ${c.passed ? 'passed' : 'failed'}, ${c.detail}`).join('\n'));
  assert.deepEqual(layers.checks.map((c) => c.check).sort(), ['layersSent', 'layersSent', 'layersSent', 'openLinkOnTop', 'openLinkOnTop', 'openLinkOnTop']);
  for (const peer of ['p0', 'p1', 'p2']) assert.equal(checkOf(layers, 'openLinkOnTop', peer).passed, true, detail);
  const full = [];
  for (const peer of ['p0', 'p1', 'p2']) {
    assert.deepEqual(layers.publishers[peer].layers.map((l) => `${l.rid} ${l.widthPx}×${l.heightPx}`), ['null 320×180', 'null 640×360']);
    // One stream (no rid) in the mode asked for.
    const own = timeline.filter((entry) => entry.peer === peer && entry.remote === 'sfu' && entry.t > 10).flatMap((entry) => entry.encodings);
    assert.ok(own.length >= 10, `${own.length} seconds of ${peer}'s stream`);
    assert.ok(own.every((encoding) => encoding.rid === null && encoding.scalabilityMode === 'L2T3'), JSON.stringify(own.slice(0, 3)));
    const atTop = own.filter((encoding) => encoding.widthPx === 640 && encoding.heightPx === 360 && encoding.kbps > 10).length;
    const sent = checkOf(layers, 'layersSent', peer);
    // layersSent agrees with the stream: at 640×360 in 80 % of the window, or failing with the size it was sent at.
    assert.equal(sent.passed, atTop >= 0.8 * 12, `${peer}: ${atTop} s at 640×360; ${sent.detail}`);
    if (sent.passed) full.push(peer);
    else assert.match(sent.detail, /^not every layer was sent at its resolution: layer 1 at 640×360 in \d+ of 12 s \(sent: .*\d+×\d+/);
  }
  // The top spatial layer crossed the SFU: some publisher sent it (measured: at least two of three in every call).
  assert.ok(full.length >= 1, detail);
  const received = layers.received.filter((row) => full.includes(row.feed) && row.t > 10 && row.layer === 1);
  assert.ok(received.length >= 0.8 * 12 * 2 * full.length, `${received.length} subscriber-seconds of ${full.join(', ')} at layer 1`);
});

// Through Janus 1.1.2, sfu-svc-3 cannot pass (measured three times): VideoRoom 1.1.2 parses SVC only for remote
// publishers' streams, never applying a room's video_svc (fixed in Janus 1.1.3; evidence in scenarios/sfu-svc-3.json's
// reference notes), so it forwards every VP9 layer whatever the harness asks and p2's capped downlink floods. LiveKit
// picks SVC layers itself: on it the same call shows p2 moving down under the cap.
test('sfu-svc-3 on LiveKit (VP9 L2T3_KEY at 360p15): p0 and p1 send their top layer, LiveKit moves p2 down under the 500 kbps cap', { timeout: 150_000 }, async () => {
  // The first cap comes at 10 s of the 4× compressed schedule (500 kbps); the call ends 8 s after it, before the 150 kbps
  // one at 20 s (measured: p2 down 2–4 s after the first in 3 of 3 runs). Under 150 kbps p2's two feeds froze within
  // 3 s in 3 of 3 runs, frames sent before the cap still arriving behind the queue (up to 3 s late), so no layer move
  // can be read there (a CI run caught p2 on a feed's upper layer as it came, and never saw a lower one).
  const run = await runScenarioCli('sfu-svc-3', ['--sfu', 'livekit', '--time-scale', '0.25', '--duration', '18', '--warmup', '6', '--video', '360p15', '--publish', 'codec=vp9,scalabilityMode=L2T3_KEY']);
  assert.equal(run.code, 0, `scenario exited ${run.code}:\n${run.stdout}\n${run.stderr}`);
  const { environment, layers } = run.result;
  assert.equal(environment.sfu.name, 'livekit');
  const detail = JSON.stringify(layers.checks, null, 1);
  // p2's own stream is not checked: its feedback crosses its capped downlink, and its sender backs off (as on Janus).
  for (const peer of ['p0', 'p1']) {
    assert.equal(layers.publishers[peer].scalabilityMode, 'L2T3_KEY');
    assert.equal(checkOf(layers, 'layersSent', peer).passed, true, detail);
  }
  assert.equal(layers.switches.length, 0, 'LiveKit chooses; the harness asks for nothing');
  assert.deepEqual(layers.downlinks.p2.map((change) => change.atS), [0, 10], 'the changes of the call, none after its end');
  const follows = checkOf(layers, 'followsDownlinkCap', 'p2');
  const [move] = follows.moves;
  assert.ok(move.direction === 'down' && move.afterS !== null && move.afterS <= 8, `p2 under the 500 kbps cap: ${JSON.stringify(move)}`);
  assert.equal(follows.passed, true, follows.detail);
});

test('an SVC mode with more spatial layers than Chromium encodes from the source stops the run before any browser starts', { timeout: 30_000 }, async () => {
  const run = await runScenarioCli('sfu-svc-3', ['--video', '360p30']);
  assert.equal(run.code, 2, `${run.stdout}\n${run.stderr}`);
  assert.match(`${run.stdout}${run.stderr}`, /publish\.p0: L3T3 has 3 spatial layers, but Chromium encodes only 2 from p0's 640×360 video \(360p30\).*or publish scalabilityMode L2T3/);
  assert.equal(run.result, null, 'no result: nothing ran');
});

test('sfu-simulcast-trace: p2\'s layers rise and fall with its downlink trace, p0 and p1 stay on top', { timeout: 150_000 }, async () => {
  // A trace is a recording: --time-scale does not compress it, so the call is shortened instead (three 20 s sawteeth).
  const run = await runScenarioCli('sfu-simulcast-trace', ['--duration', '60', '--warmup', '6', '--publish', 'simulcast=2']);
  assert.equal(run.code, 0, `scenario exited ${run.code}:\n${run.stdout}\n${run.stderr}`);
  const { layers, network } = run.result;
  const detail = JSON.stringify(layers.checks, null, 1);
  for (const peer of ['p0', 'p1', 'p2']) assert.equal(checkOf(layers, 'layersSent', peer).passed, true, detail);
  for (const peer of ['p0', 'p1']) assert.equal(checkOf(layers, 'openLinkOnTop', peer).passed, true, detail);
  assert.equal(checkOf(layers, 'followsDownlinkCap', 'p2'), undefined, 'a trace is not a cap step');
  const follows = checkOf(layers, 'followsDownlinkTrace', 'p2');
  // p2 follows the trace: higher layers in the high-capacity third. The check passes from a gap of 0.5 layers; compressed
  // runs here measured 1.0, 0.94 and 0.47 (CI), so the test asks for the direction with a margin over a flat subscriber's 0.
  assert.ok(follows.levelGap >= 0.3 && follows.high.meanLevel > follows.low.meanLevel, detail);
  // A third each of the window's seconds with a picture: 54 s less those of frozen feeds after a fall.
  assert.ok(follows.high.seconds >= 10 && follows.high.seconds === follows.low.seconds, detail);
  // The capacity it was read against is the trace's, as network.configured shows it: low and high within each 20 s.
  const capacity = network.configured.filter((row) => row.link === 'p2.down');
  assert.equal(capacity.length, 61, 'a capacity each second of the 60 s call');
  assert.ok(capacity.every((row) => row.trace === 'synthetic:sawtooth-150-2500-20'));
  assert.ok(Math.min(...capacity.map((row) => row.rateKbps)) < 300 && Math.max(...capacity.map((row) => row.rateKbps)) > 2300);
  // p2 was asked down on congestion and probed up again, more than once.
  const p2 = layers.switches.filter((s) => s.peer === 'p2');
  assert.ok(p2.filter((s) => s.budgetKbps !== null).length >= 2 && p2.filter((s) => s.budgetKbps === null).length >= 2, JSON.stringify(p2));
});
