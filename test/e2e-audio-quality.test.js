// Audio quality end to end: two real Chromium peers through the relay, each page recording what it plays out of the
// other's audio (client-app/audio-recorder.js), the orchestrator aligning it with the sent .wav and scoring 10 s windows
// with ViSQOL (visqol-python, speech mode). An open call (`unconstrained`, --audio-quality) scores high both ways in two
// windows each; a call with 40 % random loss on p0's uplink only (a fixture asking for it with `audioQuality`) scores
// that direction clearly below the open one in its one window, while its receiver conceals far more samples (getStats).
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runScenarioCli } from './helpers/cli.js';

const LOSSY = fileURLToPath(new URL('./fixtures/scenarios/audio-loss-one-way.json', import.meta.url));
/** The lossy direction must score at least this far below the open one: two windows of one direction differ by ~0.05. */
const CLEARLY_LOWER = 0.2;
/** 3 s of warm-up, then 10 s windows: two in the open call, one in the lossy one (the fixture's 26 s shortened). */
const WARMUP_S = 3;
const OPEN_WINDOWS = 2;
const LOSSY_WINDOWS = 1;
/** @param {number} windows @returns {string[]} the calls' arguments: the windows and 1 s after them */
const lasting = (windows) => ['--duration', String(WARMUP_S + 10 * windows + 1), '--warmup', String(WARMUP_S)];

let open;
let lossy;

before(async () => {
  open = await runScenarioCli('unconstrained', [...lasting(OPEN_WINDOWS), '--audio-quality', 'speech']);
  lossy = await runScenarioCli(LOSSY, lasting(LOSSY_WINDOWS));
});

/** @param {{ code: number, result: any, stdout: string, stderr: string }} run */
const passed = (run) => {
  assert.equal(run.code, 0, `exit ${run.code}:\n${run.stdout}\n${run.stderr}`);
  assert.equal(run.result.status, 'passed', JSON.stringify(run.result.errors));
  assert.ok(run.result.audio, 'result.json has no audio section');
  assert.equal(run.result.audio.scorer.available, true, run.result.audio.scorer.reason);
  assert.equal(run.result.audio.failure, null);
  return run.result;
};

/** @param {any} result @param {string} from @param {string} to @param {number} windows  how many must be scored */
const stream = (result, from, to, windows) => {
  const found = result.audio.streams.find((s) => s.remote === from && s.peer === to);
  assert.ok(found, `no recording of ${from} → ${to}`);
  const scored = found.windows.filter((w) => w.mosLqo !== null);
  assert.equal(scored.length, windows, `${from} → ${to}: ${JSON.stringify(found.windows)}`);
  return { ...found, scored };
};

test('an open call scores high both ways, each window aligned with the sent audio, the scoring command logged and the recordings removed', (t) => {
  const result = passed(open);
  assert.equal(result.scenario.audioQuality, 'speech');
  for (const [from, to] of [['p0', 'p1'], ['p1', 'p0']]) {
    const { scored, droppedSamples } = stream(result, from, to, OPEN_WINDOWS);
    assert.equal(droppedSamples, 0);
    t.diagnostic(`${from} → ${to}: MOS-LQO ${scored.map((window) => window.mosLqo).join(', ')} (> 4)`);
    for (const window of scored) {
      assert.ok(window.mosLqo > 4, `${from} → ${to} ${window.startS}-${window.endS} s: MOS-LQO ${window.mosLqo}`);
      assert.ok(window.correlation > 0.5, `${from} → ${to}: envelope correlation ${window.correlation}`);
    }
  }
  const command = result.network.commands.find((c) => c.cmd.includes('visqol-score.py'));
  assert.ok(command?.ok, 'the ViSQOL command is among the run\'s commands');
  assert.match(command.cmd, / -I .*visqol-score\.py speech /);
  assert.equal(existsSync(path.join(open.out, 'audio')), false, 'the recordings are removed once scored');
  // Each second of a scored window carries its score; the summary and the report pick it up from the catalogue.
  const scoredSeconds = result.timeline.filter((e) => typeof e.audio?.mosLqo === 'number');
  assert.ok(scoredSeconds.length >= 36, `${scoredSeconds.length} seconds carry a MOS-LQO`);
  assert.ok(result.summary.peers.p1['audio.mosLqo'].mean > 4);
  assert.ok(typeof result.summary.peers.p1['audio.concealedPct'].mean === 'number', 'getStats concealment is sampled');
  assert.match(readFileSync(path.join(open.out, 'report.html'), 'utf8'), /Audio MOS-LQO \(ViSQOL\)/);
});

test('40 % loss on one uplink: that direction scores clearly lower than the open direction and the open call, and conceals more', (t) => {
  const result = passed(lossy);
  const hurt = stream(result, 'p0', 'p1', LOSSY_WINDOWS);
  const clean = stream(result, 'p1', 'p0', LOSSY_WINDOWS);
  const openMos = Math.min(stream(open.result, 'p0', 'p1', OPEN_WINDOWS).mosLqo.mean, stream(open.result, 'p1', 'p0', OPEN_WINDOWS).mosLqo.mean);
  const scores = `lossy ${hurt.mosLqo.mean}, its open direction ${clean.mosLqo.mean}, the open call ${openMos}`;
  t.diagnostic(`MOS-LQO: ${scores} (the lossy one ${CLEARLY_LOWER} below both, the open direction > 4); concealed %: `
    + `p1 ${result.summary.peers.p1['audio.concealedPct'].mean}, p0 ${result.summary.peers.p0['audio.concealedPct'].mean} (5 apart)`);
  assert.ok(hurt.mosLqo.mean < clean.mosLqo.mean - CLEARLY_LOWER, scores);
  assert.ok(hurt.mosLqo.mean < openMos - CLEARLY_LOWER, scores);
  assert.ok(clean.mosLqo.mean > 4, scores);
  const concealed = (peer) => result.summary.peers[peer]['audio.concealedPct'].mean;
  assert.ok(concealed('p1') > concealed('p0') + 5, `concealed: p1 ${concealed('p1')} %, p0 ${concealed('p0')} %`);
});
