// Speaking turns end to end: three real Chromium peers through a real Janus (meeting-3-talk), each fake microphone playing
// its own seeded ITU-T P.59 talk file (speech in its spurts, digital silence otherwise), each page's getStats energy turned
// into a received level per second (client-app/stats.js) and checked against the sender's spurts (lib/audio/talk.js).
// Each received stream must follow its own sender's spurts better than another peer's, and be near silent in its pauses.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { before, test } from 'node:test';
import { runScenarioCli } from './helpers/cli.js';
import { checkFollowsSpurts } from '../orchestrator/lib/audio/talk.js';

/**
 * A short call: 40 s, 5 s of warm-up, so 35 seconds of levels per stream: p0's first 40 s of P.59 pattern talk so much
 * that a shorter window can hold fewer than the check's 3 pause seconds (whatever its file's start).
 */
const ARGS = ['--duration', '40', '--warmup', '5'];
const PEERS = ['p0', 'p1', 'p2'];

/** @type {{ code: number|null, result: any, stdout: string, stderr: string, out: string }} */
let run;

before(async () => {
  run = await runScenarioCli('meeting-3-talk', ARGS);
});

test('meeting-3-talk: every received level follows its sender\'s P.59 spurts through Janus, near silent in its pauses', () => {
  assert.equal(run.code, 0, `exit ${run.code}:\n${run.stdout}\n${run.stderr}`);
  const { result } = run;
  assert.equal(result.status, 'passed', JSON.stringify(result.errors));
  const { talk } = result;
  assert.ok(talk, 'result.json has no talk section');
  assert.deepEqual([talk.model, talk.periodS, Object.keys(talk.peers)], ['p59', 40, PEERS]);
  for (const peer of PEERS) {
    assert.equal(typeof talk.peers[peer].fileStartS, 'number', `${peer}: its talk file's start is unknown`);
    assert.ok(talk.peers[peer].spurts.length >= 3, `${peer}: ${JSON.stringify(talk.peers[peer])}`);
  }
  // Every receiver hears both others, and nothing else.
  const keys = talk.streams.map((s) => `${s.remote}->${s.peer}`).sort();
  assert.deepEqual(keys, ['p0->p1', 'p0->p2', 'p1->p0', 'p1->p2', 'p2->p0', 'p2->p1']);
  for (const stream of talk.streams) {
    const key = `${stream.remote} → ${stream.peer}`;
    const { check } = stream;
    assert.ok(check.seconds >= 30, `${key}: ${check.seconds} seconds with a level in the window`);
    assert.equal(check.passed, true, `${key}: ${check.reason} (${JSON.stringify({ ...stream, levels: undefined })}, levels ${JSON.stringify(stream.levels)})`);
    // A sender in a pause: near digital silence, whatever the level of its spurts.
    assert.ok(check.meanPauseLevel < 0.01 && check.meanPauseLevel < check.meanSpurtLevel / 10, `${key}: pause ${check.meanPauseLevel}, spurt ${check.meanSpurtLevel}`);
    assert.ok(Math.abs(check.lagS) <= 0.5, `${key}: lag ${check.lagS} s between the sender's file and the received level`);
    // The check tells senders apart: another peer's spurts fit this stream worse.
    const other = PEERS.find((p) => p !== stream.peer && p !== stream.remote);
    const wrong = checkFollowsSpurts({ spurts: talk.peers[other].spurts, levels: stream.levels, windowS: talk.windowS });
    assert.ok((wrong.correlation ?? -1) < check.correlation - 0.2, `${key}: ${other}'s spurts fit too (${wrong.correlation} vs ${check.correlation})`);
  }
  assert.deepEqual([result.summary.talk.streams, result.summary.talk.passed], [6, 6]);
  assert.ok(result.summary.talk.minCorrelation >= 0.6);
  const levels = result.timeline.filter((e) => typeof e.audio?.recvLevel === 'number');
  assert.ok(levels.length >= 6 * 30, `${levels.length} timeline entries carry audio.recvLevel`);
  const report = readFileSync(path.join(run.out, 'report.html'), 'utf8');
  assert.match(report, /<section id="talk"/);
  assert.match(report, /Level follows the spurts/);
});
