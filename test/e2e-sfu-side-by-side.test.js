// SFUs side by side (issue 38): a suite entry naming two SFUs runs sfu-simulcast-3 through Janus and through LiveKit,
// compressed 4× at 360p with two layers per publisher, each run in a directory named for its SFU; the suite writes
// sfu-comparison.json and a page section with both SFUs' figures per subscriber, and `compare` of the two runs sets
// them side by side too. On netem (it carries both SFUs). About 2 minutes; run it alone:
//   node --test test/e2e-sfu-side-by-side.test.js
// The LiveKit run is also the test of LiveKit through netem (test/e2e-livekit.test.js has it on the relay): the run
// records which SFU ran, each peer receives both others, each publisher's layers are sent at their resolutions, LiveKit
// (not the harness) picks p2's layers, its tokens reach the pages only, and nothing of LiveKit is left.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { netemCapabilities } from '../orchestrator/emulators/netem/capabilities.js';
import { LIVEKIT_SERVER_VERSION } from '../orchestrator/lib/system/paths.js';
import { pidsMentioning, runCli, tempDir } from './helpers/cli.js';

const caps = await netemCapabilities();
const skip = caps.netns && caps.htb ? false : `needs root with network namespaces and htb: ${caps.reasons.join('; ')}`;
const SUITE = fileURLToPath(new URL('./fixtures/suites/e2e-sfu-side-by-side.json', import.meta.url));
const SFUS = ['janus', 'livekit'];
/** @param {string} file */
const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));
/** @param {any} layers @param {string} check @param {string} peer */
const checkOf = (layers, check, peer) => layers.checks.find((/** @type {any} */ c) => c.check === check && c.peer === peer);

/** The LiveKit run on its own, as a user of `--sfu livekit --emulator netem` reads it. @param {any} result @param {string} output */
function checkLivekitRun(result, output) {
  const { environment, layers, timeline } = result;
  assert.deepEqual(environment.sfu, { name: 'livekit', version: LIVEKIT_SERVER_VERSION });
  for (const peer of ['p0', 'p1', 'p2']) {
    for (const remote of ['p0', 'p1', 'p2'].filter((other) => other !== peer)) {
      const frames = timeline.filter((/** @type {any} */ e) => e.peer === peer && e.remote === remote && e.t > 6
        && (e.video?.recvKbps ?? 0) > 20);
      assert.ok(frames.length >= 15, `${peer} received ${remote}'s video in ${frames.length} of 34 measured seconds`);
    }
    const detail = JSON.stringify(layers.checks, null, 1);
    assert.deepEqual(layers.publishers[peer].layers.map((/** @type {any} */ l) => `${l.rid} ${l.widthPx}×${l.heightPx}`), ['h 320×180', 'f 640×360']);
    assert.equal(checkOf(layers, 'layersSent', peer).passed, true, detail);
    assert.equal(checkOf(layers, 'lowerLayersBelowHigher', peer).passed, true, detail);
  }
  // LiveKit chooses; the harness switches nothing and only records what p2 received.
  assert.equal(layers.switches.length, 0);
  // Its access tokens (JWTs) reached the pages only: neither result.json nor the suite's output holds one.
  assert.doesNotMatch(JSON.stringify(result) + output, /eyJhbGciOiJIUzI1Ni/);
}

test('sfu-simulcast-3 through Janus and LiveKit: a run directory per SFU, both SFUs side by side per subscriber on the suite page and in compare', { skip, timeout: 240_000 }, async () => {
  const out = tempDir('wtb-sfu-side-by-side-');
  const run = await runCli(['suite', SUITE, '--out', out, '--publish', 'simulcast=2', '--no-fail'], { timeoutMs: 230_000, env: { GITHUB_STEP_SUMMARY: '' } });
  assert.equal(run.code, 0, `suite exited ${run.code}:\n${run.stdout}\n${run.stderr}`);
  const summary = readJson(path.join(out, 'summary.json'));
  assert.deepEqual(summary.runs.map((/** @type {any} */ r) => [r.dir, r.status, r.sfu]),
    SFUS.map((sfu) => [`sfu-simulcast-3.${sfu}/run-1`, 'passed', sfu]), JSON.stringify(summary.runs));
  checkLivekitRun(readJson(path.join(out, 'sfu-simulcast-3.livekit/run-1/result.json')), run.stdout + run.stderr);
  assert.deepEqual(pidsMentioning(out), [], 'livekit-server and Janus are gone');
  for (const sfu of SFUS) {
    assert.equal(readJson(path.join(out, `sfu-simulcast-3.${sfu}/run-1/result.json`)).environment.sfu.name, sfu);
    // The scenario's assertions hold for each SFU's runs too.
    assert.ok(summary.scenarios.find((/** @type {any} */ s) => s.name === `sfu-simulcast-3.${sfu}`).assertions.length > 0);
  }

  const { comparisons } = readJson(path.join(out, 'sfu-comparison.json'));
  assert.equal(comparisons.length, 1);
  const [comparison] = comparisons;
  assert.deepEqual([comparison.scenario, comparison.sfus, comparison.peers], ['sfu-simulcast-3', SFUS, ['p0', 'p1', 'p2']]);
  for (const figures of comparison.runs) {
    for (const subscriber of figures.subscribers) {
      const { received } = subscriber;
      const where = `${figures.sfu} ${subscriber.peer}: ${JSON.stringify(received)}`;
      assert.deepEqual(received.feeds, ['p0', 'p1', 'p2'].filter((peer) => peer !== subscriber.peer), where);
      assert.deepEqual(received.layers.map((/** @type {any} */ l) => l.label), ['L0 · 180p', 'L1 · 360p'], where);
      const onLayers = received.layers.reduce((/** @type {number} */ sum, /** @type {any} */ l) => sum + l.seconds, 0);
      assert.ok(onLayers >= 0.5 * received.windowS && onLayers <= received.windowS, `${onLayers} s on layers of ${received.windowS}: ${where}`);
      assert.ok(subscriber.freezes && subscriber.glassToGlassMs?.length === 2, `viewer figures: ${JSON.stringify(subscriber)}`);
    }
    // p2's downlink is capped at 10, 20 and 27.5 s: each change has a move, timed or not.
    const p2 = figures.subscribers.find((/** @type {any} */ s) => s.peer === 'p2');
    assert.deepEqual(p2.received.capMoves.map((/** @type {any} */ m) => [m.atS, m.direction]), [[10, 'down'], [20, 'down'], [27.5, 'up']]);
    assert.ok(p2.received.capMoves[0].afterS !== null && p2.received.layers[0].seconds > 0, `${figures.sfu}: p2 moved down under 500 kbps`);
  }
  const page = readFileSync(path.join(out, 'report.html'), 'utf8');
  assert.match(page, /<section class="block" id="sfus"><h2>SFUs side by side<\/h2>/);
  for (const sfu of SFUS) assert.match(page, new RegExp(`<th scope="col" data-sfu="${sfu}">`));

  const comparePage = path.join(out, 'compare.html');
  const compared = await runCli(['compare', ...SFUS.map((sfu) => path.join(out, `sfu-simulcast-3.${sfu}/run-1`)), '--out', comparePage]);
  assert.equal(compared.code, 0, compared.stderr);
  assert.ok(existsSync(comparePage));
  const html = readFileSync(comparePage, 'utf8');
  assert.match(html, /id="sfus"/);
  for (const peer of ['p0', 'p1', 'p2']) assert.match(html, new RegExp(`<table class="summary compact sfu-side-by-side" data-peer="${peer}">`));
});
