// Simulcast through Janus with real Chromium peers (issue 38): sfu-simulcast-3 compressed 4× at 360p, where Chromium
// encodes two of the three layers (docs/scenario-format.md "Publishing"), so every publisher publishes two. The
// harness picks p2's layers from its measured downlink (2500 → 500 → 150 → 2500 kbps); each check of result.json's
// `layers` must hold, and a run whose publishers pause a layer must be caught by the layersSent check.
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
  const run = await runScenarioCli('sfu-3', ['--duration', '12', '--warmup', '4', '--video', '360p30', '--publish', 'simulcast=2,inactiveRids=h']);
  assert.equal(run.code, 0, `scenario exited ${run.code}:\n${run.stdout}\n${run.stderr}`);
  const { layers } = run.result;
  for (const peer of ['p0', 'p1', 'p2']) {
    const sentCheck = checkOf(layers, 'layersSent', peer);
    assert.equal(sentCheck.passed, false, JSON.stringify(layers.checks));
    // The paused rid is named; the one left may still be ramping up to its size in so short a call.
    assert.match(sentCheck.detail, /^not every layer was sent at its resolution: layer 0 \(rid h\) at 320×180 in 0 of 8 s \(sent: nothing\)/);
    assert.equal(layers.publishers[peer].inactiveRids[0], 'h');
  }
  assert.equal(layers.passed, false);
});
