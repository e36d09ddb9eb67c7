// result.json from what a call collected (run/final-result.js): whatever the pages sent, a result is written.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { loadScenario } from '../../orchestrator/lib/scenario/scenario-file.js';
import { parseResult } from '../../orchestrator/report/result-file.js';
import { writeRunReport } from '../../orchestrator/report/write.js';
import { finalResult } from '../../orchestrator/run/final-result.js';
import { writeResultFile } from '../../orchestrator/run/output.js';
import { MAX_PAGE_EVENTS_PER_PEER, MAX_PAGE_EVENTS_PER_TYPE, createRecorder } from '../../orchestrator/run/recorder.js';

const START_MS = 1_790_000_000_000;
const MEDIA_MS = START_MS + 5000;

/**
 * What run.js holds once the browsers of a 5 s two-party call have closed, the pages' events recorded through `record`.
 * @param {(recorder: ReturnType<typeof createRecorder>, clock: { nowMs: number }) => void} [record]
 */
function finishedCall(record = () => {}) {
  const clock = { nowMs: START_MS };
  const recorder = createRecorder({ log: () => {}, startedAtEpochMs: START_MS, now: () => clock.nowMs });
  for (const [peer, remote] of [['p0', 'p1'], ['p1', 'p0']]) {
    clock.nowMs = START_MS + 500;
    recorder.event({ type: 'launch-started', peer });
    clock.nowMs = START_MS + 1600;
    recorder.event({ type: 'joined', peer });
    clock.nowMs = START_MS + 2100;
    recorder.pageEvent({ type: 'first-frame', peer, remote, epochMs: START_MS + 2080 });
  }
  recorder.mediaStartEpochMs = MEDIA_MS;
  record(recorder, clock);
  for (let t = 1; t <= 5; t++) {
    for (const [peer, remote] of [['p0', 'p1'], ['p1', 'p0']]) recorder.samples.push({ t, peer, remote, intervalS: 1, video: { recvKbps: 800 }, rttMs: 4 });
  }
  return {
    scenario: loadScenario('unconstrained', { durationS: 5, warmupS: 1 }), recorder, startedAt: new Date(START_MS),
    kinds: { p0: 'chromium', p1: 'chromium' }, executables: { chromium: { path: '/usr/bin/chromium', source: 'test' } },
    media: { peers: {} }, emulator: null, emulatorName: 'relay', commands: [], processes: { rows: [], unavailable: null },
    flowTruth: [], traceStepLateMs: [], pages: new Map(), releases: [], runDir: '', headful: false, onSample: undefined,
    log: () => {},
  };
}

test('a page flooding 200 000 first-frame and ice-state events dated epochMs 1 leaves the result built, set-up times plausible, the drops counted', async () => {
  const call = finishedCall((recorder, clock) => {
    clock.nowMs = MEDIA_MS + 2000;
    for (let i = 0; i < 100_000; i++) {
      recorder.pageEvent({ type: 'first-frame', peer: 'p1', remote: 'p0', epochMs: 1 });
      recorder.pageEvent({ type: 'ice-state', peer: 'p1', remote: 'p0', state: 'connected', epochMs: 8.64e15 });
    }
  });
  const result = await finalResult(/** @type {any} */ (call));
  assert.equal(result.status, 'passed', JSON.stringify(result.errors));
  assert.equal(result.timeline.length, 10);
  assert.equal(result.summary.setupMs.p0, 1580);
  // p1's flood is dated no earlier than its join: a lie about itself, but a bounded one.
  assert.equal(result.summary.setupMs.p1, 1100);
  assert.ok(result.events.length < MAX_PAGE_EVENTS_PER_PEER + 20, `${result.events.length} events kept`);
  const dropped = result.events.find((event) => event.type === 'events-dropped');
  assert.equal(dropped?.peer, 'p1');
  // The honest first-frame plus the flood's, less the two types' caps.
  assert.equal(dropped.dropped, 1 + 200_000 - 2 * MAX_PAGE_EVENTS_PER_TYPE);
  assert.deepEqual(dropped.droppedByType, { 'first-frame': 100_001 - MAX_PAGE_EVENTS_PER_TYPE, 'ice-state': 100_000 - MAX_PAGE_EVENTS_PER_TYPE });
});

test('a result builder that throws still gives a result.json with the error, which the report renders', async () => {
  const call = finishedCall();
  call.processes = /** @type {any} */ ({ rows: null, unavailable: null }); // what no check foresaw: the builder throws on it
  const result = await finalResult(/** @type {any} */ (call));
  assert.equal(result.status, 'failed');
  assert.match(result.errors.at(-1).message, /^building result\.json failed \(TypeError: .*\); the measurements are left out/);
  const runDir = mkdtempSync(path.join(os.tmpdir(), 'wtb-final-result-'));
  const file = await writeResultFile(runDir, result);
  const read = parseResult(readFileSync(file, 'utf8'), file);
  assert.equal(read.status, 'failed');
  assert.equal(read.scenario.name, 'unconstrained');
  assert.match(readFileSync(await writeRunReport(runDir), 'utf8'), /building result\.json failed/);
});
