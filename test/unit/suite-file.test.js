import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { InputError } from '../../orchestrator/lib/system/errors.js';
import { listScenarios } from '../../orchestrator/lib/scenario/scenario-file.js';
import { DEFAULT_ASSERTIONS_FILE } from '../../orchestrator/suite/assertions.js';
import { DEFAULT_REGRESSION } from '../../orchestrator/suite/baseline.js';
import { entryAssertions, listSuites, loadSuite } from '../../orchestrator/suite/suite-file.js';
import { planRuns } from '../../orchestrator/suite/plan.js';
import { sfuNames } from '../../orchestrator/sfu/index.js';
import { parsePublishFlag } from '../../orchestrator/lib/media/publish.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'wtb-suite-file-'));
/** Writes <dir>/<name>.json and returns its path. */
const suiteFile = (name, content) => {
  const file = path.join(dir, `${name}.json`);
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
};
const inputError = (pattern) => (error) => error instanceof InputError && pattern.test(error.message);

test('built-in suites: smoke is four short issue-2 calls at 360p30, nightly runs every scenario 5 times at full length', () => {
  assert.deepEqual(listSuites().map((s) => s.name), ['nightly', 'sfu-side-by-side', 'smoke']);
  const smoke = loadSuite('smoke');
  assert.equal(smoke.video, '360p30');
  assert.equal(smoke.emulator, 'relay');
  assert.equal(smoke.assertionsFile, DEFAULT_ASSERTIONS_FILE);
  assert.deepEqual(smoke.regression, DEFAULT_REGRESSION);
  const smokeSeconds = smoke.entries.reduce((sum, e) => sum + e.repetitions * (e.scenario.durationS + 15), 0);
  assert.ok(smokeSeconds <= 5 * 60, `smoke takes about ${smokeSeconds} s`);
  assert.deepEqual(smoke.entries.map((e) => e.name), ['unconstrained', 'latency-250', 'bandwidth-750', 'loss-20']);
  assert.ok(smoke.entries.length > 0, 'smoke.entries: nothing to check');
  assert.ok(smoke.entries.every((e) => e.scenario.durationS === 30 && e.scenario.nominalDurationS === 300), 'cut to 30 s');
  const nightly = loadSuite('nightly');
  assert.deepEqual(nightly.entries.map((e) => e.name), listScenarios().map((s) => s.name));
  for (const e of nightly.entries) {
    assert.equal(e.repetitions, 5);
    assert.equal(e.scenario.timeScale, 1);
    assert.equal(e.scenario.durationS, e.scenario.nominalDurationS);
  }
});

test('entries: names or paths relative to the suite file, settings per entry over the suite\'s, flags over both', () => {
  const scenario = suiteFile('my-call', { name: 'my-call', description: 'fixture call', network: { link: { rateKbps: 500 } } });
  const file = suiteFile('mine', {
    name: 'mine', description: 'd', repetitions: 2, durationS: 20, warmupS: 5,
    scenarios: ['unconstrained', { scenario: `./${path.basename(scenario)}`, repetitions: 3, durationS: 30 }, { scenario: 'changing-bandwidth', timeScale: 0.1 }],
  });
  const suite = loadSuite(file);
  assert.deepEqual(suite.entries.map((e) => [e.name, e.repetitions, e.scenario.durationS, e.scenario.warmupS]),
    [['unconstrained', 2, 20, 5], ['my-call', 3, 30, 5], ['changing-bandwidth', 2, 20, 5]]);
  assert.equal(suite.video, undefined);
  const overridden = loadSuite(file, { repetitions: 7, video: '720p30' });
  assert.ok(overridden.entries.length > 0, 'overridden.entries: nothing to check');
  assert.ok(overridden.entries.every((e) => e.repetitions === 7));
  assert.equal(overridden.video, '720p30');
  // --duration and --warmup (suite command) over the suite's and each entry's own, after its time scale.
  const shortened = loadSuite(file, { durationS: 12, warmupS: 4 });
  assert.deepEqual(shortened.entries.map((e) => [e.name, e.repetitions, e.scenario.durationS, e.scenario.warmupS, e.scenario.timeScale]),
    [['unconstrained', 2, 12, 4, 1], ['my-call', 3, 12, 4, 1], ['changing-bandwidth', 2, 12, 4, 0.1]]);
  const scaled = loadSuite(suiteFile('scaled', { name: 'scaled', description: 'd', scenarios: [{ scenario: 'changing-bandwidth', timeScale: 0.2 }] }));
  assert.equal(scaled.entries[0].scenario.durationS, 60);
  assert.equal(loadSuite(suiteFile('none', { name: 'none', description: 'd', assertions: null, scenarios: ['unconstrained'] })).assertionsFile, null);
});

test('--field-trials and --bandwidth-estimation reach every entry\'s scenario; one an entry cannot take names the suite file and entry', () => {
  const trials = 'WebRTC-Bwe-LossBasedBweV2/Enabled:false/';
  const smoke = loadSuite('smoke', { fieldTrials: trials, bandwidthEstimation: 'remb' });
  assert.ok(smoke.entries.length > 0, 'smoke.entries: nothing to check');
  assert.ok(smoke.entries.every((e) => e.scenario.fieldTrials === trials && e.scenario.bandwidthEstimation === 'remb'));
  assert.ok(loadSuite('smoke').entries.every((e) => e.scenario.fieldTrials === null && e.scenario.bandwidthEstimation === 'send-side'));
  assert.throws(() => loadSuite('nightly', { bandwidthEstimation: 'remb' }),
    inputError(/^orchestrator\/suites\/nightly\.json: scenarios\[\d+\]: --bandwidth-estimation: remb needs a mesh call/));
  assert.throws(() => loadSuite('smoke', { fieldTrials: 'A/b --no-sandbox/' }), inputError(/smoke\.json: scenarios\[0\]: --field-trials: /));
});

test('a suite whose file name carries shell lines, or is . or .., is rejected naming the file and field', () => {
  for (const bad of ['x\n$(id)', '..']) {
    const message = `: name: a suite's name is its file's base name, and ${JSON.stringify(bad)} is not a valid one`;
    assert.throws(() => loadSuite(suiteFile(bad, { name: bad, description: 'd', scenarios: ['unconstrained'] })),
      (error) => error instanceof InputError && error.message.includes(message));
  }
});

test('bad suite files name the file and the field', () => {
  const cases = [
    [{ name: 'b1', description: 'd', scenarios: ['unconstrained'], repeat: 2 }, /b1\.json: unknown field 'repeat'; allowed: /],
    [{ name: 'other', description: 'd', scenarios: ['unconstrained'] }, /b2\.json: name: must equal the file's base name 'b2'/],
    [{ name: 'b3', description: 'd', scenarios: [] }, /b3\.json: scenarios: must be "all" or a non-empty array/],
    [{ name: 'b4', description: 'd', scenarios: ['latency-5000'] }, /b4\.json: scenarios\[0\]: unknown scenario 'latency-5000'; known: .*latency-500/],
    [{ name: 'b5', description: 'd', scenarios: [{ scenario: 'unconstrained', repetitions: 0 }] }, /b5\.json: scenarios\[0\]\.repetitions: must be an integer >= 1, got 0/],
    [{ name: 'b6', description: 'd', timeScale: -1, scenarios: ['unconstrained'] }, /b6\.json: timeScale: must be a number > 0, got -1/],
    [{ name: 'b7', description: 'd', scenarios: [{ scenario: 'unconstrained', durationS: 5 }] }, /b7\.json: scenarios\[0\]: .*warmupS \(10 s, from the file\) must be less than the run's duration \(5 s/],
    [{ name: 'b8', description: 'd', emulator: 'ns3', scenarios: ['unconstrained'] }, /b8\.json: emulator: unknown emulator "ns3"/],
    [{ name: 'b9', description: 'd', video: '4k', scenarios: ['unconstrained'] }, /b9\.json: video: "4k" is neither a preset/],
    [{ name: 'b10', description: 'd', scenarios: ['unconstrained', 'unconstrained'] }, /b10\.json: scenarios\[1\]: scenario 'unconstrained' is listed twice/],
    [{ name: 'b11', description: 'd', regression: { alpha: 0 }, scenarios: ['unconstrained'] }, /b11\.json: regression\.alpha: must be a number/],
    [{ name: 'b12', description: 'd', scenarios: [{ scenario: './missing.json' }] }, /b12\.json: scenarios\[0\]: .*missing\.json: cannot read the scenario \(no such file\)/],
    [{ name: 'b13', scenarios: ['unconstrained'] }, /b13\.json: description: must be a non-empty string/],
    [{ name: 'b14', description: 'd', scenarios: [{ name: 'unconstrained' }] }, /b14\.json: scenarios\[0\]: unknown field 'name'; allowed: scenario, /],
  ];
  cases.forEach(([content, pattern], i) => {
    assert.throws(() => loadSuite(suiteFile(`b${i + 1}`, content)), inputError(pattern), `case b${i + 1}`);
  });
  assert.throws(() => loadSuite(suiteFile('broken', '{"name": "broken",\n  "description": }')), inputError(/broken\.json:2:19: invalid JSON in the suite/));
  assert.throws(() => loadSuite('nightlyy'), inputError(/unknown suite 'nightlyy'; built-in suites: nightly, sfu-side-by-side, smoke/));
  assert.throws(() => loadSuite(path.join(dir, 'nope.json')), inputError(/nope\.json: cannot read the suite \(no such file\)/));
});

test('sfu-side-by-side: the simulcast scenarios through each SFU of the registry, a run of its own per SFU', () => {
  const suite = loadSuite('sfu-side-by-side');
  const scenarios = [['sfu-simulcast-3', 160], ['sfu-simulcast-trace', 120]];
  assert.deepEqual(suite.entries.map((e) => [e.name, e.sfu, e.scenario.name, e.scenario.durationS]),
    scenarios.flatMap(([name, durationS]) => sfuNames().map((sfu) => [`${name}.${sfu}`, sfu, name, durationS])));
  // The entry's SFUs stand over --sfu: it names which SFUs to set side by side.
  assert.deepEqual(loadSuite('sfu-side-by-side', { sfu: 'livekit' }).entries.map((e) => e.sfu), [...sfuNames(), ...sfuNames()]);
  assert.deepEqual(planRuns(suite.entries).map((run) => run.dir),
    scenarios.flatMap(([name]) => sfuNames().map((sfu) => `${name}.${sfu}/run-1`)));
});

test('an entry\'s sfu: one SFU or several over the suite\'s; each runs as <scenario>.<sfu>, with the scenario\'s assertions', () => {
  const file = suiteFile('sfus', {
    name: 'sfus', description: 'd', sfu: 'livekit', durationS: 20, warmupS: 5,
    scenarios: ['sfu-2', { scenario: 'sfu-3', sfu: 'janus' }, { scenario: 'sfu-simulcast-3', sfu: ['livekit', 'janus'], repetitions: 2 }, 'mesh-2'],
  });
  const suite = loadSuite(file);
  assert.deepEqual(suite.entries.map((e) => [e.name, e.sfu, e.repetitions]), [
    ['sfu-2', undefined, 1], ['sfu-3.janus', 'janus', 1], ['sfu-simulcast-3.livekit', 'livekit', 2], ['sfu-simulcast-3.janus', 'janus', 2],
    ['mesh-2', undefined, 1],
  ]);
  assert.equal(suite.sfu, 'livekit', 'the entries without one take the suite\'s');
  assert.equal(loadSuite(file, { sfu: 'janus' }).sfu, 'janus');
  const check = { check: 'rttMs median <= 250', level: 'error', why: null };
  const own = { check: 'rttMs median <= 100', level: 'warn', why: null };
  const byEntry = entryAssertions({ 'sfu-3': [check], 'sfu-simulcast-3.janus': [own], 'sfu-simulcast-3': [check] }, suite.entries);
  assert.deepEqual([byEntry['sfu-3.janus'], byEntry['sfu-simulcast-3.livekit'], byEntry['sfu-simulcast-3.janus'], byEntry['sfu-2']],
    [[check], [check], [own], undefined]);
});

test('a bad entry sfu names the suite file and the entry', () => {
  const cases = [
    [{ scenario: 'sfu-3', sfu: 'mediasoup' }, /s1\.json: scenarios\[0\]\.sfu mediasoup: unknown SFU; use one of janus, livekit/],
    [{ scenario: 'sfu-3', sfu: ['janus', 'mediasoup'] }, /s2\.json: scenarios\[0\]\.sfu\[1\] mediasoup: unknown SFU; use one of janus, livekit/],
    [{ scenario: 'sfu-3', sfu: [] }, /s3\.json: scenarios\[0\]\.sfu: must be an SFU name or a non-empty array of them \(janus, livekit\), got \[\]/],
    [{ scenario: 'sfu-3', sfu: ['janus', 'janus'] }, /s4\.json: scenarios\[0\]\.sfu: "janus" is listed twice; raise the entry's repetitions instead/],
    [{ scenario: 'sfu-3', sfu: [7] }, /s5\.json: scenarios\[0\]\.sfu\[0\]: must be an SFU name \(janus, livekit\), got 7/],
    [{ scenario: 'mesh-2', sfu: ['janus', 'livekit'] }, /s6\.json: scenarios\[0\]\.sfu: mesh-2 is a mesh call, which no SFU carries; drop the entry's sfu/],
    // What the SFU does not forward stops the suite before any browser starts, naming the entry.
    [{ scenario: 'sfu-3', sfu: ['janus', 'livekit'] }, /s7\.json: scenarios\[0\]\.sfu livekit forwards SVC of vp9 in modes L2T3_KEY, L3T3_KEY, not vp9 L3T3/],
  ];
  cases.forEach(([entry, pattern], i) => {
    const content = { name: `s${i + 1}`, description: 'd', durationS: 20, warmupS: 5, scenarios: [entry] };
    const overrides = i === 6 ? { publish: parsePublishFlag('codec=vp9,scalabilityMode=L3T3') } : {};
    assert.throws(() => loadSuite(suiteFile(`s${i + 1}`, content), overrides), inputError(pattern), `case s${i + 1}`);
  });
});
