// Firefox as a peer (issue 13), with real browsers at 360p30: Chromium↔Firefox and Firefox↔Firefox calls through the
// relay and a Chromium↔Firefox call through netem namespaces, with video both ways and stats from both sides; Firefox
// gone after a SIGKILL of the orchestrator; and the runs Firefox cannot make (no Firefox: exit 3; dummynet: exit 2)
// refused before any browser starts.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { netemCapabilities } from '../orchestrator/emulators/netem/capabilities.js';
import { describe as stats } from '../orchestrator/lib/stats/statistics.js';
import { processesTagged, runCli, runTag, tempDir } from './helpers/cli.js';

const median = (values) => stats(values).median;
const caps = await netemCapabilities();
const noNetem = caps.netns && caps.htb ? false : `needs root with network namespaces and htb: ${caps.reasons.join('; ')}`;
const cappedFirefox = fileURLToPath(new URL('./fixtures/scenarios/firefox-bandwidth-1000.json', import.meta.url));
// What these calls check is that the browsers interoperate and are measured, not a converged rate. Through the relay,
// 20 s: its byte counters must see over 1 MB on every link, and Firefox ramps up slowly (in 14 s calls its links
// carried 610-770 kB). Through netem, no byte count: 10 s after a 4 s warm-up.
const RELAY_CALL = ['--duration', '20'];
const NETEM_CALL = ['--duration', '14', '--warmup', '4'];
/** The Firefox profiles an orchestrator made (run/browsers.js: wtb-firefox-<its pid>-…). @param {number} pid */
const profilesOf = (pid) => readdirSync(os.tmpdir()).filter((name) => name.startsWith(`wtb-firefox-${pid}-`));

/**
 * Runs a scenario like a user, remembering the orchestrator's pid (its Firefox profiles carry it).
 * @param {string[]} args
 * @param {{ env?: object, onOutput?: (text: string, child: import('node:child_process').ChildProcess) => void }} [options]
 */
async function runScenario(args, { env, onOutput } = {}) {
  const out = tempDir('wtb-firefox-run-');
  let pid = 0;
  const run = await runCli(['scenario', ...args, '--video', '360p30', '--out', out], {
    env,
    onOutput: (text, child) => { pid = child.pid ?? 0; onOutput?.(text, child); },
  });
  const file = path.join(out, 'result.json');
  return { ...run, pid, out, result: existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : null };
}

/**
 * Both peers received video from each other after the warm-up, with frames, and each side sampled its stats.
 * @param {any} result @param {Record<string, string>} expected  peer → browser name pattern
 */
function assertVideoBothWays(result, expected) {
  const window = result.timeline.filter((entry) => entry.t > result.scenario.warmupS);
  for (const peer of Object.keys(expected)) {
    const own = window.filter((entry) => entry.peer === peer);
    assert.ok(own.length >= 8, `${peer} took ${own.length} samples after the warm-up`);
    const recvKbps = median(own.map((entry) => entry.video.recvKbps ?? 0));
    const sendKbps = median(own.map((entry) => entry.video.sendKbps ?? 0));
    const recvFps = median(own.map((entry) => entry.video.recvFps ?? 0));
    console.log(`${peer}: ${own.length} samples after the warm-up, video ${recvKbps} kbps in, ${sendKbps} out, ${recvFps} fps (medians)`);
    assert.ok(recvKbps > 100, `${peer} receives ${recvKbps} kbps of video (median)`);
    assert.ok(sendKbps > 100, `${peer} sends ${sendKbps} kbps of video (median)`);
    assert.ok(recvFps > 10, `${peer} decodes ${recvFps} fps (median)`);
    assert.ok(median(own.map((entry) => entry.audio.recvKbps ?? 0)) > 10, `${peer} receives audio`);
    assert.ok(own.some((entry) => entry.rttMs > 0), `${peer} measures an RTT`);
    const browser = result.environment.browsers[peer];
    assert.match(browser.name, new RegExp(expected[peer]), `${peer}'s browser`);
    assert.match(browser.version, /^\d+\.\d+/, `${peer}'s browser version`);
    const source = /firefox/.test(expected[peer]) ? 'media-element' : 'fake-device';
    assert.equal(result.environment.media.peers[peer].source, source, `${peer}'s media source`);
  }
  // The relay carried the media of every link: nothing bypassed it.
  for (const link of Object.keys(expected).flatMap((peer) => [`${peer}.up`, `${peer}.down`])) {
    const bytes = result.network.truth.filter((row) => row.link === link).reduce((sum, row) => sum + row.bytesIn, 0);
    assert.ok(bytes > 1_000_000, `${link} carried ${bytes} bytes`);
  }
}

test('Chromium calls Firefox through the relay: video both ways, stats from both sides, what Firefox lacks listed', { timeout: 300_000 }, async () => {
  // A 25 s call gave 260-440 glass-to-glass frames a stream and 1570-1640 frame codes read by Firefox, 2-4× the bounds below.
  const run = await runScenario(['cross-browser-firefox', ...RELAY_CALL]);
  assert.equal(run.code, 0, `exit ${run.code}\n${run.stdout}\n${run.stderr}`);
  const { result } = run;
  assertVideoBothWays(result, { p0: '^chromium$|^chrome$', p1: '^firefox' });
  assert.match(result.environment.browser.name, /^chrom.* \+ firefox/);
  assert.match(result.environment.media.peers.p1.capture, /\.webm$/);
  // Firefox reports neither a quality-limitation reason nor a bandwidth estimate; Chromium both.
  const missing = (peer) => result.environment.browsers[peer].missingFields;
  for (const field of ['video.qualityLimitationReason', 'availableOutgoingKbps', 'video.retransmittedPacketsReceived']) {
    assert.ok(missing('p1').includes(field), `Firefox lacks ${field}: ${missing('p1')}`);
    assert.ok(!missing('p0').includes(field), `Chromium has ${field}`);
    const path = field.split('.');
    const values = result.timeline.filter((entry) => entry.peer === 'p1').map((entry) => path.reduce((node, key) => node?.[key], entry));
    assert.ok(values.length > 0, 'values: nothing to check');
    assert.ok(values.every((value) => value === null), `p1's ${field} stays null`);
  }
  // What the viewer saw, both ways: Firefox reads the frame codes (through a canvas: its frames are BGRA) from the
  // frames it shows and from its source <video>, whose WebM carries them.
  for (const stream of ['p0->p1', 'p1->p0']) {
    const seen = result.summary.viewer.streams[stream];
    const trace = `${stream}: ${JSON.stringify({ unavailable: seen.unavailable, glassToGlassMs: seen.glassToGlassMs, unreadable: seen.unreadableFrames })}`;
    assert.equal(seen.unavailable, null, trace);
    assert.ok(seen.glassToGlassMs.n > 100 && seen.glassToGlassMs.median > 0 && seen.glassToGlassMs.median < 200, trace);
    assert.ok(seen.quality.captures > 0 && seen.quality.psnrDb > 15, trace);
  }
  console.log(`glass-to-glass frames ${['p0->p1', 'p1->p0'].map((stream) => `${stream} ${result.summary.viewer.streams[stream].glassToGlassMs.n}`).join(', ')}; `
    + `Firefox read ${result.viewer.readCost.p1.framesRead} frame codes`);
  assert.ok(result.viewer.readCost.p1.framesRead > 500, `Firefox read ${result.viewer.readCost.p1.framesRead} frame codes`);
  // Its temporary profile went with it.
  assert.deepEqual(profilesOf(run.pid), []);
});

test('a SIGKILLed orchestrator leaves no Firefox behind; the next Firefox↔Firefox run removes its profile and calls', { timeout: 400_000 }, async () => {
  const { tag, env } = runTag();
  let killed = false;
  let seen = 0;
  const killedRun = await runScenario(['cross-browser-firefox', '--duration', '60'], {
    env,
    onOutput: (text, child) => {
      if (!killed && /call started/.test(text)) {
        killed = true;
        seen = processesTagged(tag).length;
        child.kill('SIGKILL');
      }
    },
  });
  assert.ok(killed, `the call never started:\n${killedRun.stderr}`);
  assert.ok(seen >= 5, `the orchestrator, relay and both browsers' processes were running (${seen})`);
  let left = processesTagged(tag);
  for (let waitedMs = 0; left.length && waitedMs < 15_000; waitedMs += 500) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    left = processesTagged(tag);
  }
  const commands = left.map((pid) => { try { return readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').slice(0, 2).join(' '); } catch { return pid; } });
  assert.deepEqual(commands, [], 'processes still running 15 s after the orchestrator was killed');
  // Its closers never ran: the profile stays until the next run with Firefox.
  assert.equal(profilesOf(killedRun.pid).length, 1, 'the killed run left its Firefox profile');

  // What is checked here is the clean-up and that two Firefoxes call.
  const run = await runScenario(['unconstrained', '--browser', 'firefox', ...RELAY_CALL]);
  assert.equal(run.code, 0, `exit ${run.code}\n${run.stdout}\n${run.stderr}`);
  assertVideoBothWays(run.result, { p0: '^firefox', p1: '^firefox' });
  assert.deepEqual(profilesOf(killedRun.pid), [], 'the stale profile of the killed run was removed');
});

test('without Firefox a Firefox scenario exits 3 naming the fix, before any browser starts', async () => {
  const nowhere = path.join(tempDir('wtb-no-firefox-'), 'firefox');
  const run = await runScenario(['cross-browser-firefox', '--duration', '20', '--firefox-path', nowhere]);
  assert.equal(run.code, 3, `exit ${run.code}\n${run.stderr}`);
  assert.match(run.stderr, new RegExp(`--firefox-path ${nowhere}: no executable browser there`));
  assert.match(run.stderr, /npm run setup/);
  assert.match(run.stderr, /apt-get install firefox-esr/);
  assert.doesNotMatch(run.stdout + run.stderr, /launched/);
  assert.equal(run.result, null);
});

test('Chromium calls Firefox through netem namespaces: the htb cap holds both ways, BiDi reached through socat', { skip: noNetem, timeout: 300_000 }, async () => {
  const { tag, env } = runTag();
  // The cap is htb's and holds from the first second; the video flows both ways within it.
  const run = await runScenario([cappedFirefox, '--emulator', 'netem', ...NETEM_CALL], { env });
  assert.equal(run.code, 0, `exit ${run.code}\n${run.stdout}\n${run.stderr}`);
  const { result } = run;
  assert.equal(result.environment.emulator, 'netem');
  const window = result.timeline.filter((entry) => entry.t > result.scenario.warmupS);
  for (const peer of ['p0', 'p1']) {
    const recvKbps = window.filter((entry) => entry.peer === peer).map((entry) => entry.video.recvKbps ?? 0);
    console.log(`${peer} through netem: video ${median(recvKbps)} kbps (median), ${stats(recvKbps).p95} (p95)`);
    assert.ok(median(recvKbps) > 100, `${peer} receives ${median(recvKbps)} kbps of video (median)`);
    assert.ok(stats(recvKbps).p95 <= 1000, `${peer} receives ${stats(recvKbps).p95} kbps (p95) through a 1000 kbps cap`);
  }
  assert.match(result.environment.browsers.p1.name, /^firefox/);
  const forward = result.network.commands.filter((command) => /^ip netns exec wtb-\S+-p1 socat STDIO TCP:127\.0\.0\.1:\d+$/.test(command.cmd));
  assert.ok(forward.length >= 1, 'the WebDriver BiDi forwarding is in network.commands');
  assert.deepEqual(processesTagged(tag), [], 'no browser or socat left after the run');
  assert.deepEqual(profilesOf(run.pid), []);
});

test('Firefox on dummynet is refused with exit 2; --browser is validated', async () => {
  const dummynet = await runScenario(['cross-browser-firefox', '--duration', '20', '--emulator', 'dummynet']);
  assert.equal(dummynet.code, 2, `exit ${dummynet.code}\n${dummynet.stderr}`);
  assert.match(dummynet.stderr, /--emulator dummynet: p1 runs Firefox, which gathers no ICE candidate on 127\.0\.0\.1.*; use --emulator relay or --emulator netem/);
  const bad = await runScenario(['unconstrained', '--duration', '20', '--browser', 'safari']);
  assert.equal(bad.code, 2, `exit ${bad.code}\n${bad.stderr}`);
  assert.match(bad.stderr, /browser/);
  assert.match(bad.stderr, /chromium, firefox|"chromium", "firefox"/);
});
