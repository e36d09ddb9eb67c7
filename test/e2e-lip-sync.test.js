// Lip sync end to end: two real Chromium peers through the relay, the media marked with tone bursts at known frames,
// each page finding the tones' onsets in what it plays (client-app/lip-sync.js) and the orchestrator pairing them with
// the times the marks' frames were shown (orchestrator/lib/audio/lip-sync.js), less the senders' capture skew. An open
// call (`lip-sync`) stays in sync both ways; the same call with every source's audio 300 ms late (`lip-sync-audio-300`)
// measures about +300 ms both ways, and so does what its pages saw and captured against the open call's: the delay
// really is in the media and crosses the call.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { before, test } from 'node:test';
import { runScenarioCli } from './helpers/cli.js';

/** Short calls: 15 s, 3 s of warm-up, so 6 marks in each direction's window. */
const ARGS = ['--duration', '15', '--warmup', '3'];
/** At least this many of each direction's 6 marks in the window must be heard and paired. */
const MIN_MARKS = 4;

let open;
let late;

/** A sender's own capture skew in a run (its page's measure of its camera against its microphone), or null. */
const captureOf = (/** @type {any} */ run, /** @type {string} */ peer) => run.result?.lipSync?.capture
  ?.find((/** @type {any} */ c) => c.peer === peer)?.summary.medianMs ?? null;

// The cross-run checks below compare the two calls' captures and what their pages saw: they hold when each sender's
// fake camera and microphone started as far apart in both launches. They usually do (2-140 ms), but once in five CI
// runs one sender's started 250 ms further apart in the late call (its capture moved 49 ms for the 300). Then both
// calls run once more: a delay missing from the media moves nothing in either attempt, and fails.
before(async () => {
  for (let attempt = 1; attempt <= 2; attempt += 1) {
    open = await runScenarioCli('lip-sync', ARGS);
    late = await runScenarioCli('lip-sync-audio-300', ARGS);
    // Only the phases earn a second attempt: a call that failed, or measured no capture, is reported as it is.
    const moved = ['p0', 'p1'].map((peer) => (captureOf(late, peer) ?? NaN) - (captureOf(open, peer) ?? NaN));
    const outOfPhase = moved.filter((ms) => Math.abs(ms - 300) > 80);
    if (open.code !== 0 || late.code !== 0 || moved.some(Number.isNaN) || outOfPhase.length === 0) return;
    console.log(`attempt ${attempt}: the senders' captures moved ${moved.map((ms) => ms.toFixed(1)).join(' and ')} ms between the calls`);
  }
});

/** @param {{ code: number, result: any, stdout: string, stderr: string }} run */
const passed = (run) => {
  assert.equal(run.code, 0, `exit ${run.code}:\n${run.stdout}\n${run.stderr}`);
  assert.equal(run.result.status, 'passed', JSON.stringify(run.result.errors));
  assert.ok(run.result.lipSync, 'result.json has no lipSync section');
  const refused = run.result.events.filter((e) => e.type === 'rejected' && e.messageType === 'lip-sync-drain');
  assert.deepEqual(refused, [], 'no page drain was refused');
  return run.result;
};

/**
 * Both directions' streams, each with enough marks paired in the window.
 * @param {any} result @returns {any[]}
 */
const streams = (result) => {
  const found = ['p0->p1', 'p1->p0'].map((key) => {
    const [from, to] = key.split('->');
    const stream = result.lipSync.streams.find((s) => s.remote === from && s.peer === to);
    assert.ok(stream, `no lip-sync stream ${key}: ${JSON.stringify(result.lipSync.streams.map((s) => `${s.remote}->${s.peer}`))}`);
    assert.ok(stream.summary.n >= MIN_MARKS, `${key}: ${stream.summary.n} of ${stream.expectedMarks} marks paired: ${JSON.stringify(stream)}`);
    return stream;
  });
  assert.equal(found.length, 2);
  return found;
};

// 28-30 ms on a quiet host (the audio jitter buffer's lead over video's); 57 ms with the cores busy beside the call.
// Under 90 ms still tells an open link from the 300 ms one, inside BT.1359's undetectable +125 ms.
test('an open call stays in sync both ways: median |offset| under 90 ms, BT.1359 undetectable, in the timeline, summary and report', () => {
  const result = passed(open);
  assert.deepEqual(result.scenario.lipSync, { audioDelayMs: 0 });
  for (const stream of streams(result)) {
    const { medianMs, verdict } = stream.summary;
    assert.ok(Math.abs(medianMs) < 90, `${stream.remote} → ${stream.peer}: median offset ${medianMs} ms (${JSON.stringify(stream.marks)})`);
    assert.equal(verdict, 'undetectable');
  }
  assert.equal(result.lipSync.capture.length, 2, 'each sender\'s own capture skew is measured');
  const marked = result.timeline.filter((e) => typeof e.audio?.lipSyncOffsetMs === 'number');
  assert.ok(marked.length >= 2 * MIN_MARKS, `${marked.length} seconds carry a mark's offset`);
  assert.equal(typeof result.summary.lipSync.p95AbsMs, 'number');
  const report = readFileSync(path.join(open.out, 'report.html'), 'utf8');
  assert.match(report, /<section id="lip-sync"/);
  assert.match(report, /Lip sync offset \(audio − video\)/);
});

test('every source\'s audio 300 ms late: each direction measures 300 ± 80 ms, BT.1359 unacceptable, as seen and captured too', () => {
  const result = passed(late);
  assert.deepEqual(result.scenario.lipSync, { audioDelayMs: 300 });
  const openStreams = streams(open.result);
  for (const stream of streams(result)) {
    const { medianMs, verdict } = stream.summary;
    const key = `${stream.remote} → ${stream.peer}`;
    assert.ok(Math.abs(medianMs - 300) <= 80, `${key}: median offset ${medianMs} ms (${JSON.stringify(stream.marks)})`);
    assert.equal(verdict, 'unacceptable');
    // Not the correction's doing: what the page saw, and its sender's capture, moved by the 300 ms against the open call.
    const openStream = openStreams.find((s) => s.remote === stream.remote && s.peer === stream.peer);
    const seenMoved = stream.seen.medianMs - openStream.seen.medianMs;
    assert.ok(Math.abs(seenMoved - 300) <= 80, `${key}: seen ${stream.seen.medianMs} ms, the open call's ${openStream.seen.medianMs} ms`);
    const moved = captureOf(late, stream.remote) - captureOf(open, stream.remote);
    assert.ok(Math.abs(moved - 300) <= 80, `${stream.remote}'s capture: ${captureOf(late, stream.remote)} ms, open ${captureOf(open, stream.remote)} ms`);
  }
  assert.ok(result.summary.lipSync.p95AbsMs > 200, `p95 |offset| ${result.summary.lipSync.p95AbsMs} ms`);
});
