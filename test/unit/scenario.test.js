import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { InputError } from '../../orchestrator/lib/system/errors.js';
import { normalizeLinkParams, pathConditions, queueLimitBytes } from '../../orchestrator/lib/network/link-model.js';
import { listScenarios, loadScenario } from '../../orchestrator/lib/scenario/scenario-file.js';
import { configuredAt, configuredTimeline } from '../../orchestrator/lib/network/schedule.js';
import { tooDeepAt } from '../../orchestrator/lib/input/json-file.js';
import { MAX_JSON_FILE_BYTES, MAX_RESULT_BYTES } from '../../orchestrator/lib/input/limits.js';
import { estimateResultBytes } from '../../orchestrator/lib/result/result-size.js';

const fixture = (name) => fileURLToPath(new URL(`../fixtures/scenarios/${name}.json`, import.meta.url));

/** J16 §8-1 to §8-3 and F §4.3–4.4 (mesh so far), with queue-size split into its six combinations. */
const CATALOG = [
  'unconstrained', 'latency-50', 'latency-100', 'latency-200', 'latency-250', 'latency-500', 'loss-1', 'loss-5', 'loss-10', 'loss-20',
  'bandwidth-1500', 'bandwidth-750', 'bandwidth-250',
  'changing-bandwidth', 'variable-loss', 'latency-variation', 'latency-bandwidth-handoff', 'seven-minute-mix',
  'queue-size-1000-100ms', 'queue-size-1000-1s', 'queue-size-1000-10s',
  'queue-size-5000-100ms', 'queue-size-5000-1s', 'queue-size-5000-10s', 'loss-latency',
  'mesh-2', 'mesh-3', 'mesh-4', 'sfu-2', 'sfu-3', 'sfu-4', 'sfu-load-4', 'sfu-load-25', 'sfu-simulcast-3', 'sfu-svc-3', 'sfu-simulcast-trace',
  'rtp-cross-traffic', 'tcp-cross-traffic',
  'media-vs-data-2m-uncoupled', 'media-vs-data-5m-data-first', 'media-vs-data-5m-media-first', 'media-vs-data-5m-together',
  'media-vs-data-10m-data-first', 'media-vs-data-10m-media-first', 'media-vs-data-10m-together',
  'rmcat-5.1', 'rmcat-5.2', 'rmcat-5.3', 'rmcat-5.4', 'rmcat-5.5', 'rmcat-5.6-300ms', 'rmcat-5.6-1000ms', 'rmcat-5.7', 'rmcat-5.8',
  'codec-vp8', 'codec-vp9', 'codec-h264', 'codec-av1', 'constrained-device',
  'trace-step-down', 'trace-outage',
  'cross-browser-firefox',
  'turn-udp', 'turn-tcp', 'turn-tls',
  'turn-tcp-loss-5', 'turn-tcp-loss-10', 'turn-tcp-loss-20', 'turn-tcp-bandwidth-250', 'turn-tcp-bandwidth-750', 'turn-tcp-bandwidth-1500',
  'lip-sync', 'lip-sync-audio-300', 'speech-open', 'speech-loss-10', 'meeting-3-talk', 'screen-share', 'screen-share-250',
  'udp-blocked', 'symmetric-nat', 'port-restricted-nat', 'full-cone-nat', 'tcp-443-only', 'sfu-udp-blocked', 'handover-wifi-to-cellular',
];

/** Round-trip time p0 → p1 → p0 as configured at tS. */
const rttMs = (compiled, tS) => {
  const links = configuredAt(compiled, tS);
  return pathConditions(links, compiled.routes['p0->p1']).oneWayDelayMs + pathConditions(links, compiled.routes['p1->p0']).oneWayDelayMs;
};

test('listScenarios lists every catalog scenario in natural order, with a description and repo-relative file', () => {
  const listed = listScenarios();
  const names = listed.map((s) => s.name);
  assert.deepEqual([...names].sort(), [...CATALOG].sort());
  assert.deepEqual(names.filter((name) => /^(loss|bandwidth)-\d/.test(name)),
    ['bandwidth-250', 'bandwidth-750', 'bandwidth-1500', 'loss-1', 'loss-5', 'loss-10', 'loss-20']);
  for (const { name, description, file } of listed) {
    assert.equal(file, `orchestrator/scenarios/${name}.json`);
    assert.ok(description.length > 10, `${name} has a description`);
  }
});

test('every shipped scenario loads, compiles and restates valid params in time order', () => {
  for (const name of CATALOG) {
    const scenario = loadScenario(name);
    assert.equal(scenario.name, name);
    assert.equal(scenario.durationS, scenario.nominalDurationS);
    assert.ok(scenario.warmupS < scenario.durationS);
    assert.ok(scenario.reference === null || typeof scenario.reference.source === 'string', `${name} cites its source`);
    const { events } = scenario.compiled;
    events.forEach((event, i) => {
      assert.ok(event.atS > 0 && event.atS <= scenario.durationS, `${name} event ${i} inside the run`);
      if (i > 0) assert.ok(event.atS >= events[i - 1].atS, `${name} events sorted`);
      assert.deepEqual(normalizeLinkParams(event.params, name), event.params);
    });
    assert.equal(configuredTimeline(scenario.compiled, scenario.durationS).length, (scenario.durationS + 1) * Object.keys(scenario.compiled.links).length, `${name}: one row per link per second`);
  }
});

test('static scenarios carry the catalog conditions in each direction', () => {
  const path = (name) => {
    const { compiled } = loadScenario(name);
    return pathConditions(compiled.links, compiled.routes['p1->p0']);
  };
  assert.deepEqual(path('unconstrained'), { rateKbps: null, oneWayDelayMs: 0, jitterMs: 0, lossPct: 0 });
  assert.equal(rttMs(loadScenario('latency-500').compiled, 0), 1000);
  assert.equal(path('loss-20').lossPct, 20);
  assert.equal(path('bandwidth-750').rateKbps, 750);
  assert.equal(loadScenario('bandwidth-750').compiled.links['p0.up'].queuePackets, 50);
  const queue = loadScenario('queue-size-1000-100ms').compiled.links['p0.up'];
  assert.equal(queueLimitBytes(queue) / 1500, 1000 / (8 * 1500) * 0.1 * 1000, 'F eq. 3: 8.33 packets');
  assert.equal(queueLimitBytes(loadScenario('queue-size-5000-10s').compiled.links['p1.up']), 6250000);
  assert.deepEqual(path('loss-latency'), { rateKbps: 1000, oneWayDelayMs: 50, jitterMs: 0, lossPct: 10 });
});

test('latency-bandwidth-handoff constrains only p0, asymmetric, with the RTT split over p0.up and p0.down', () => {
  const { compiled } = loadScenario('latency-bandwidth-handoff');
  const minutes = [30, 90, 150, 210, 270].map((tS) => {
    const links = configuredAt(compiled, tS);
    return [rttMs(compiled, tS), links['p0.down'].rateKbps, links['p0.up'].rateKbps];
  });
  assert.deepEqual(minutes, [[60, 3000, 3000], [200, 750, 250], [500, 250, 100], [150, 1250, 500], [200, 750, 250]]);
  const p1 = configuredAt(compiled, 150);
  assert.deepEqual([p1['p1.up'].rateKbps, p1['p1.down'].rateKbps, p1['p1.up'].oneWayDelayMs], [null, null, 0]);
});

test('seven-minute-mix follows J16 table 8-7 minute by minute', () => {
  const scenario = loadScenario('seven-minute-mix');
  assert.equal(scenario.durationS, 420);
  const at = (tS) => {
    const up = configuredAt(scenario.compiled, tS)['p0.up'];
    return [up.rateKbps, rttMs(scenario.compiled, tS), up.lossPct];
  };
  assert.deepEqual([30, 90, 135, 150, 165, 210, 270, 330, 390, 420].map(at), [
    [null, 0, 0], [1250, 0, 0], [1250, 250, 0], [1250, 500, 0], [1250, 250, 0],
    [null, 0, 0], [null, 0, 15], [null, 0, 0], [1250, 250, 0], [1250, 500, 0],
  ]);
});

test('references keep the catalog figures', () => {
  assert.deepEqual(loadScenario('latency-500').reference.metrics.rttMs, { mean: 1000.3, sd: 0.78 });
  assert.deepEqual(loadScenario('unconstrained').reference.metrics['video.recvKbps'], { mean: 2456.2, sd: 295 });
  assert.equal(loadScenario('loss-10').reference.metrics.lossPct.mean, 10.18);
  assert.deepEqual(loadScenario('changing-bandwidth').reference.metrics.utilization, { mean: 0.77, sd: null });
  assert.equal(loadScenario('latency-bandwidth-handoff').reference.metrics.utilization.mean, 0.69);
  assert.equal(loadScenario('queue-size-1000-1s').group, 'queue-size');
  assert.equal(loadScenario('latency-500').group, null);
  assert.equal(loadScenario('queue-size-5000-10s').reference.metrics['video.recvKbps'].mean, 1420.55);
  // F table 4: "Loss" as the receiver counts it, and the residual loss after retransmission/FEC.
  const queue = loadScenario('queue-size-1000-100ms').reference.metrics;
  assert.deepEqual([queue.lossPct.mean, queue.residualLossPct.mean], [1.98, 0.59]);
  // J16's settling times after the increases at 1:00 and 3:00, and after the loss is removed at 1:00.
  assert.deepEqual(loadScenario('changing-bandwidth').reference.metrics.timeToSteadyS, { mean: 17, sd: null, byChangeAtS: { 60: 16, 180: 18 } });
  assert.deepEqual(loadScenario('variable-loss').reference.metrics.timeToSteadyS, { mean: 30, sd: null, byChangeAtS: { 60: 30 } });
});

test('time scale, --duration and --warmup set the run; warmup must fit inside it', () => {
  const scaled = loadScenario('latency-500', { timeScale: 0.1 });
  assert.deepEqual([scaled.durationS, scaled.nominalDurationS, scaled.timeScale, scaled.warmupS], [30, 300, 0.1, 10]);
  assert.equal(loadScenario('latency-500', { durationS: 20 }).durationS, 20);
  assert.throws(() => loadScenario('latency-500', { timeScale: 0.02 }), {
    name: 'InputError',
    message: "orchestrator/scenarios/latency-500.json: warmupS (10 s, from the file) must be less than the run's duration (6 s, 300 s × time scale 0.02); pass --duration above 10, a larger --time-scale, or a lower --warmup",
  });
  assert.equal(loadScenario('latency-500', { timeScale: 0.02, warmupS: 2 }).warmupS, 2);
  assert.throws(() => loadScenario('latency-500', { durationS: 20, warmupS: 20 }), /warmupS \(20 s, set by --warmup\) must be less than the run's duration \(20 s, set by --duration\)/);
  assert.throws(() => loadScenario('latency-500', { warmupS: -1 }), { message: 'warmupS (--warmup): must be a number >= 0, got -1' });
  assert.throws(() => loadScenario('latency-500', { timeScale: 0 }), { message: 'timeScale (--time-scale): must be a number > 0, got 0' });
  assert.throws(() => loadScenario('latency-500', { durationS: -1 }), { message: 'durationS (--duration): must be a number > 0 and <= 86400, got -1' });
});

test('a path loads any scenario file, with file shown repo-relative', () => {
  const scenario = loadScenario(fixture('three-peers-bottleneck'));
  assert.equal(scenario.file, 'test/fixtures/scenarios/three-peers-bottleneck.json');
  assert.deepEqual([scenario.peers, scenario.warmupS, scenario.reference], [3, 5, null]);
  assert.equal(Object.keys(scenario.compiled.links).length, 8);
  assert.equal(pathConditions(configuredAt(scenario.compiled, 45), scenario.compiled.routes['p2->p1']).rateKbps, 1000);
  assert.deepEqual(scenario.network.schedule[0].set, { rateKbps: 1000 }, 'network as written');
});

test('loading errors are InputErrors (exit 2) naming the file and field', () => {
  /** @type {Array<[string, RegExp|string]>} */
  const cases = [
    ['nope', /^unknown scenario 'nope'; known: bandwidth-250, bandwidth-750, bandwidth-1500, .*, variable-loss$/],
    [fixture('missing'), /^test\/fixtures\/scenarios\/missing\.json: cannot read the scenario \(no such file\)/],
    [fixture('bad-json'), /^test\/fixtures\/scenarios\/bad-json\.json:4:1: invalid JSON in the scenario: Expected double-quoted property name$/],
    [fixture('wrong-name'), "test/fixtures/scenarios/wrong-name.json: name: must equal the file's base name 'wrong-name', got \"right-name\""],
    [fixture('typo-delay'), /^test\/fixtures\/scenarios\/typo-delay\.json: network\.link: unknown field 'delayMs'/],
    [fixture('bad-reference'), /^test\/fixtures\/scenarios\/bad-reference\.json: reference\.metrics: unknown field 'video\.recvKbs'; allowed: video\.sendKbps, video\.recvKbps/],
  ];
  for (const [nameOrPath, expected] of cases) {
    assert.throws(() => loadScenario(nameOrPath), (error) => {
      assert.ok(error instanceof InputError);
      assert.equal(error.exitCode, 2);
      if (typeof expected === 'string') assert.equal(error.message, expected);
      else assert.match(error.message, expected);
      return true;
    });
  }
});

/** Writes <tmp>/<baseName>.json and returns its path. */
const scenarioFile = (baseName, content) => {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'wtb-scenario-')), `${baseName}.json`);
  writeFileSync(file, JSON.stringify(content));
  return file;
};

test('a scenario whose file name (and so name) carries shell lines is rejected, naming the file and field', () => {
  const evil = 'x\nrm -rf ~; $(touch pwned) `id`';
  const file = scenarioFile(evil, { name: evil, description: 'evil' });
  assert.throws(() => loadScenario(file), (error) => error instanceof InputError
    && error.message === `${file}: name: a scenario's name is its file's base name, and ${JSON.stringify(evil)} is not a valid one: rename the file to letters, digits, '.', '_' and '-' only (not '.' or '..') and set name to match`);
  for (const dots of ['.', '..']) {
    assert.throws(() => loadScenario(scenarioFile(dots, { name: dots, description: 'd' })), /: name: a scenario's name is its file's base name, and "\.{1,2}" is not a valid one/);
  }
  assert.throws(() => loadScenario(scenarioFile('plain', { name: 'plain\necho hi', description: 'd' })), /: name: must equal the file's base name 'plain', got "plain\\necho hi"/);
  assert.equal(loadScenario(scenarioFile('My_call-2.v1', { name: 'My_call-2.v1', description: 'd' })).name, 'My_call-2.v1');
});

test('run length and peers have ranges: durationS and --duration up to a day, also after time scaling; 2 to 32 peers', () => {
  const rejects = (content, options, pattern) => assert.throws(() => loadScenario(scenarioFile('r', { name: 'r', description: 'd', ...content }), options), pattern);
  rejects({ durationS: 1e6 }, {}, /r\.json: durationS: must be a number > 0 and <= 86400, got 1000000/);
  rejects({ peers: 33 }, {}, /r\.json: peers: must be an integer from 2 to 32, got 33/);
  rejects({}, { durationS: 86_401 }, /^InputError: durationS \(--duration\): must be a number > 0 and <= 86400, got 86401$/);
  // --duration does not shorten the schedule, which is compiled at the scaled length
  rejects({}, { timeScale: 1000, durationS: 60 }, /r\.json: durationS 300 × time scale 1000 is 300000 s; at most 86400 s: lower --time-scale/);
  // A day of 32 peers is a valid scenario; its result would fit only when --duration shortens the run.
  assert.equal(loadScenario(scenarioFile('r', { name: 'r', description: 'd', durationS: 86_400, peers: 32 }), { durationS: 160 }).nominalDurationS, 86_400);
});

test('a run whose result.json would not fit in one string is refused at load, naming the longest that fits', () => {
  const day = scenarioFile('day', { name: 'day', description: 'd', durationS: 86_400, peers: 4 });
  assert.throws(() => loadScenario(day), (error) => error instanceof InputError
    && /day\.json: durationS: a 86400 s run of 4 peers makes a result\.json of about 1879 MiB; at most 256 MiB .*the longest run that fits for 4 peers is 11773 s: pass --duration 11773 or less/.test(error.message));
  assert.throws(() => loadScenario(day, { durationS: 20_000 }), /^InputError: --duration: a 20000 s run of 4 peers .*is 11773 s/);
  assert.equal(loadScenario(day, { durationS: 11_773 }).durationS, 11_773);
  assert.ok(estimateResultBytes({ durationS: 11_773, peers: 4, allPeers: 4, links: 8, scheduleEvents: 0 }) <= MAX_RESULT_BYTES);
});

test('an input file that is not a regular file, too large or too deep is refused before it is parsed', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'scenario-limits-'));
  assert.throws(() => loadScenario('/dev/zero'), /^InputError: \/dev\/zero: the scenario is not a regular file \(a device, FIFO or socket\); give a regular file$/);
  const fifo = path.join(dir, 'fifo.json');
  execFileSync('mkfifo', [fifo]);
  assert.throws(() => loadScenario(fifo), /fifo\.json: the scenario is not a regular file/, 'a FIFO without a writer does not block the load');
  const big = path.join(dir, 'big.json');
  writeFileSync(big, `{"name": "big", "description": "${'x'.repeat(MAX_JSON_FILE_BYTES)}"}`);
  assert.throws(() => loadScenario(big), /big\.json: the scenario is larger than 16 MiB, the limit/);
  // 20 000 levels: an InputError naming the line and column, not a RangeError from a recursive walk.
  const deep = path.join(dir, 'deep.json');
  writeFileSync(deep, `{"name": "deep", "description": "d",\n "network": ${'['.repeat(20_000)}${']'.repeat(20_000)}}`);
  assert.throws(() => loadScenario(deep), (error) => error instanceof InputError
    && /deep\.json:2:\d+: the scenario nests arrays and objects more than 64 deep/.test(error.message));
  assert.equal(tooDeepAt('{"a": "[[[[[[[[[["}', 2), -1, 'brackets inside strings do not count');
  assert.equal(tooDeepAt('{"a": "\\"", "b": [[1]]}', 2), 18);
});

test('invalid JSON is reported by line and reason, never by quoting the file', () => {
  const file = scenarioFile('secret', {});
  writeFileSync(file, '{"name": "secret",\n"x": root:$6$s3cr3tHash:19000:0:99999:7:::');
  assert.throws(() => loadScenario(file), (error) => error instanceof InputError
    && /secret\.json:2:\d+: invalid JSON in the scenario: unexpected character$/.test(error.message) && !/s3cr3t|root/.test(error.message));
});

test('topology is mesh unless told otherwise; sfu routes through the SFU node; unknown topologies are refused, naming the field', () => {
  const load = (content) => loadScenario(scenarioFile('t', { name: 't', description: 'd', ...content }));
  assert.equal(load({}).topology, 'mesh');
  assert.equal(load({ peers: 4, topology: 'mesh' }).topology, 'mesh');
  const sfu = load({ peers: 3, topology: 'sfu' });
  assert.equal(sfu.topology, 'sfu');
  assert.deepEqual(Object.keys(sfu.compiled.routes).sort(), ['p0->sfu', 'p1->sfu', 'p2->sfu', 'sfu->p0', 'sfu->p1', 'sfu->p2']);
  assert.throws(() => load({ topology: 'star' }), /t\.json: topology: "star" is not supported: use one of mesh, sfu/);
  assert.throws(() => load({ group: 'a b' }), /t\.json: group: must be a name of letters, digits/);
  assert.deepEqual(['mesh-2', 'mesh-3', 'mesh-4'].map((name) => [loadScenario(name).peers, loadScenario(name).group]), [[2, 'mesh'], [3, 'mesh'], [4, 'mesh']]);
  assert.deepEqual(['sfu-2', 'sfu-3', 'sfu-4'].map((name) => [loadScenario(name).peers, loadScenario(name).topology, loadScenario(name).group]),
    [[2, 'sfu', 'sfu'], [3, 'sfu', 'sfu'], [4, 'sfu', 'sfu']]);
});

test('media gives a peer its own video preset; unknown peers, presets and shapes are refused naming the field and the choices', () => {
  const load = (content) => loadScenario(scenarioFile('m', { name: 'm', description: 'd', peers: 3, ...content }));
  assert.deepEqual(load({}).media, {});
  assert.deepEqual(load({ media: { p2: '180p30', p0: '1080p50' } }).media, { p2: '180p30', p0: '1080p50' });
  assert.throws(() => load({ media: { p3: '180p30' } }), /m\.json: media: unknown field 'p3'; allowed: p0, p1, p2/);
  assert.throws(() => load({ media: { p1: '4k60' } }), /m\.json: media\.p1: "4k60" is not a video preset; use one of 180p30, 360p30, 360p15, 720p30, 1080p50$/);
  // A .y4m file is the run's choice (--video), not a scenario's: the file would not travel with the scenario.
  assert.throws(() => load({ media: { p1: 'clip.y4m' } }), /m\.json: media\.p1: "clip\.y4m" is not a video preset/);
  assert.throws(() => load({ media: { p1: 360 } }), /m\.json: media\.p1: 360 is not a video preset/);
  assert.throws(() => load({ media: { p1: 'toString' } }), /m\.json: media\.p1: "toString" is not a video preset/);
  assert.throws(() => load({ media: '180p30' }), /m\.json: media: must be an object of peer names to video presets, e.g\. \{"p2": "180p30"\}, got "180p30"/);
});
