// Traces: mahimahi parsing, conversion from throughput logs, synthetic traces, the capacity arithmetic, rate steps
// for tc/dummynet and their error, and traces in scenarios (validation, network.configured).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { InputError } from '../../orchestrator/lib/system/errors.js';
import { MAX_TRACE_FILE_BYTES, MAX_TRACE_MS } from '../../orchestrator/lib/input/limits.js';
import { loadScenario } from '../../orchestrator/lib/scenario/scenario-file.js';
import { compileNetwork, configuredTimeline } from '../../orchestrator/lib/network/schedule.js';
import {
  capacityKbps, checkTrace, formatMahimahi, meanKbps, opportunityClock, parseBandwidthLog, parseMahimahi, parseThroughputCsv,
  syntheticTrace, traceFromSegments,
} from '../../orchestrator/lib/network/trace.js';
import { compareSteps, steppedNetwork, traceSteps } from '../../orchestrator/lib/network/trace-steps.js';

const rejects = (fn, pattern) => assert.throws(fn, (error) => error instanceof InputError && pattern.test(error.message));

test('parseMahimahi reads one opportunity per line and names the file and line of what it refuses', () => {
  const trace = parseMahimahi('0\n5\n5\n20\n', 'up.mahi');
  assert.deepEqual(trace, { name: 'up.mahi', opportunitiesMs: [0, 5, 5, 20], periodMs: 20 });
  assert.equal(formatMahimahi(trace), '0\n5\n5\n20\n');
  assert.deepEqual(parseMahimahi('3\r\n7', 'crlf').opportunitiesMs, [3, 7]);
  rejects(() => parseMahimahi('1\n2.5\n', 'f'), /^f:2: not a whole number of milliseconds;/);
  rejects(() => parseMahimahi('1\n\n3\n', 'f'), /^f:2: empty line/);
  rejects(() => parseMahimahi('5\n4\n', 'f'), /^f:2: earlier than the line before it/);
  rejects(() => parseMahimahi('0\n0\n', 'f'), /^f:2: the last timestamp is 0/);
  rejects(() => parseMahimahi('', 'f'), /^f: no timestamps/);
});

test('the opportunity clock loops every period, duplicates included, and capacity counts 1500 bytes each', () => {
  const trace = parseMahimahi('0\n5\n5\n20\n', 'f');
  const clock = opportunityClock(trace, 100);
  assert.deepEqual([0, 1, 2, 3, 4, 5, 7].map((k) => clock.timeOf(k)), [100, 105, 105, 120, 120, 125, 140]);
  assert.equal(clock.firstFrom(105), 1);
  assert.equal(clock.firstFrom(105, true), 3);
  assert.equal(clock.timeOf(clock.firstFrom(99)), 100);
  assert.equal(clock.timeOf(-1), 100);
  // 4 opportunities per 20 ms = 6000 bytes per 20 ms = 2400 kbps
  assert.equal(meanKbps(trace), 2400);
  assert.equal(capacityKbps(trace, 0, 0, 200), 2400);
  assert.equal(capacityKbps(trace, 0, 6, 20), 0);
  assert.equal(capacityKbps(trace, 0, 1, 6), (2 * 1500 * 8) / 5);
});

test('throughput logs convert to opportunities that carry the same bytes', () => {
  // 1200 kbps for a second = 150 000 bytes = 100 opportunities, one every 10 ms
  const constant = traceFromSegments([{ durationMs: 1000, bytes: 150_000 }], 'c', 'c');
  assert.equal(constant.opportunitiesMs.length, 100);
  assert.deepEqual(constant.opportunitiesMs.slice(0, 3), [10, 20, 30]);
  assert.equal(constant.periodMs, 1000);
  // Bytes short of an opportunity carry over; the last opportunity sits at the end (mahimahi's length).
  const carried = traceFromSegments([{ durationMs: 1000, bytes: 1000 }, { durationMs: 1000, bytes: 1000 }, { durationMs: 1000, bytes: 0 }], 'x', 'x');
  assert.deepEqual(carried.opportunitiesMs, [3000]);
  rejects(() => traceFromSegments([{ durationMs: 1000, bytes: 100 }], 'x', 'log.csv'), /^log\.csv: carries 100 bytes in 1000 ms/);

  const csv = parseThroughputCsv('time,throughput\n0,1.2\n1,2.4\n3,0\n', 'tput.csv', { unit: 'mbps' });
  assert.deepEqual(csv, [{ durationMs: 1000, bytes: 150_000 }, { durationMs: 2000, bytes: 600_000 }, { durationMs: 1000, bytes: 0 }]);
  const trace = traceFromSegments(csv, 'tput.csv', 'tput.csv');
  // Each opportunity sits where its 1500th byte is reached; the last one (at 3000 ms) moves to the end, 4000 ms, which
  // is also the instant the trace starts again (looping both ways, it serves the first second).
  assert.deepEqual([0, 1, 2, 3].map((s) => capacityKbps(trace, 0, s * 1000, (s + 1) * 1000)), [1200, 2400, 2400, 0]);
  assert.deepEqual(parseThroughputCsv('500\n250\n', 'k.csv'), [{ durationMs: 1000, bytes: 62_500 }, { durationMs: 1000, bytes: 31_250 }]);
  rejects(() => parseThroughputCsv('0,100\n0,200\n', 'k.csv'), /^k\.csv:2: its time is not after/);
  rejects(() => parseThroughputCsv('100\n1,200\n', 'k.csv'), /^k\.csv:2: 2 columns where line 1 had 1/);
  rejects(() => parseThroughputCsv('1 2 3\n', 'k.csv'), /^k\.csv:1: 3 columns.*--from bandwidth-log/);
  rejects(() => parseThroughputCsv('100\n', 'k.csv', { unit: /** @type {any} */ ('gbps') }), /^--unit gbps: unknown/);

  // Riiser et al.'s HSDPA log format: column 5 bytes, column 6 ms since the previous row.
  const log = '1289406399 549692 59.851754 10.781778 248069 1008\n1289406400 550772 59.851864 10.781833 191698 1080\n';
  assert.deepEqual(parseBandwidthLog(log, 'bus.log'), [{ durationMs: 1008, bytes: 248069 }, { durationMs: 1080, bytes: 191698 }]);
  rejects(() => parseBandwidthLog('1 2 3 4 5\n', 'bus.log'), /^bus\.log:1: 5 columns; a bandwidth log has 6/);
  rejects(() => parseBandwidthLog('1 2 3 4 100 0\n', 'bus.log'), /^bus\.log:1: column 6 .* must be a number > 0/);
});

test('synthetic traces have the capacity their names say, and bad names list the shapes', () => {
  // Rounded to 50 kbps: opportunities are whole 1500-byte units placed at whole milliseconds.
  const perSecond = (trace, seconds) => Array.from({ length: seconds },
    (_, s) => Math.round(capacityKbps(trace, 0, s * 1000, (s + 1) * 1000) / 50) * 50);
  assert.deepEqual(perSecond(syntheticTrace('synthetic:step-1500-500-2', 'w'), 6), [1500, 1500, 500, 500, 1500, 1500]);
  assert.deepEqual(perSecond(syntheticTrace('synthetic:outage-1200-2-1', 'w'), 6), [1200, 1200, 0, 1200, 1200, 0]);
  assert.deepEqual(perSecond(syntheticTrace('synthetic:constant-3000', 'w'), 3), [3000, 3000, 3000]);
  assert.deepEqual(perSecond(syntheticTrace('synthetic:sawtooth-1000-3000-3', 'w'), 4), [1000, 2000, 3000, 1000]);
  rejects(() => syntheticTrace('synthetic:ramp-1', 'network.link.trace'), /^network\.link\.trace: 'synthetic:ramp-1' is not a synthetic trace; use one of .*step-<kbpsA>/);
  rejects(() => syntheticTrace('synthetic:step-1000-500', 'w'), /step takes 3 numbers/);
  rejects(() => syntheticTrace('synthetic:constant-4', 'w'), /4 kbps is out of range/);
});

test('rate steps carry each step\'s bytes; their error is per second and the burstiness they smooth away', () => {
  // Ten opportunities at the start of each second: 120 kbps, all in the first millisecond.
  const bursty = parseMahimahi(`${Array(10).fill(1000).join('\n')}\n`, 'bursty');
  const steps = traceSteps(bursty, 0, 3000, 100);
  assert.equal(steps.length, 30);
  // The ten opportunities sit at the instant each loop starts: all in the first step of each second.
  assert.deepEqual(steps.slice(0, 2).map((s) => s.rateKbps), [1200, 8]);
  assert.deepEqual([steps[9].rateKbps, steps[10].rateKbps], [8, 1200]);
  const comparison = compareSteps(bursty, steps);
  assert.equal(comparison.clampedSteps, 27);
  assert.ok(comparison.maxBacklogBytes > 10_000, `the whole second's bytes arrive at once: ${comparison.maxBacklogBytes}`);
  // The same trace in 1000 ms steps: each second holds its bytes exactly.
  const perSecond = compareSteps(bursty, traceSteps(bursty, 0, 3000, 1000));
  assert.deepEqual(perSecond.secondErrorsKbps, [0, 0, 0]);

  const smooth = syntheticTrace('synthetic:constant-1200', 'w');
  const smoothComparison = compareSteps(smooth, traceSteps(smooth, 0, 5000, 100));
  assert.deepEqual(smoothComparison.secondErrorsKbps, [0, 0, 0, 0, 0]);
  assert.ok(smoothComparison.maxBacklogBytes <= 1500);
  assert.equal(smoothComparison.clampedSteps, 0);
});

test('steppedNetwork turns traces into rate events merged with the schedule, and reports their error', () => {
  const compiled = compileNetwork({
    file: 'f.json', durationS: 4,
    network: { link: { trace: 'synthetic:step-1200-600-2' }, schedule: [{ at: 3, set: { lossPct: 1 } }], traceStepMs: 500 },
  });
  const { compiled: stepped, traceSteps: report } = steppedNetwork(compiled, 4);
  assert.equal(stepped.links['p0.up'].trace, null);
  assert.equal(stepped.links['p0.up'].rateKbps, 1200);
  const p0 = stepped.events.filter((event) => event.link === 'p0.up');
  assert.deepEqual(p0.map((event) => [event.atS, event.params.rateKbps, event.params.lossPct, Boolean(event.traceStep)]),
    [[2, 600, 0, true], [3, 600, 1, false]]);
  assert.match(p0[1].cause, /^network\.schedule\[0\] step; trace synthetic:step-1200-600-2$/);
  assert.deepEqual(report, {
    stepMs: 500,
    links: Object.fromEntries(['p0.up', 'p1.up'].map((link) => [link, {
      traces: ['synthetic:step-1200-600-2'], steps: 8, seconds: 4, meanAbsErrorKbps: 0, maxAbsErrorKbps: 0, maxBacklogBytes: 1500, clampedSteps: 0,
    }])),
  });
  assert.deepEqual(steppedNetwork(compileNetwork({ file: 'f', durationS: 4, network: { link: { rateKbps: 500 } } }), 4).traceSteps, null);
});

test('scenarios: a trace per link and direction, switched on by a schedule step, shown per second in network.configured', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'trace-scenario-'));
  writeFileSync(path.join(dir, 'down.mahi'), `${Array.from({ length: 25 }, (_, i) => (i + 1) * 40).join('\n')}\n`); // 300 kbps
  writeFileSync(path.join(dir, 'x.json'), JSON.stringify({
    name: 'x', description: 'a trace scenario', durationS: 20, warmupS: 1,
    network: {
      link: { trace: 'synthetic:constant-1000' },
      peers: { p1: { uplink: { rateKbps: 800 }, downlink: { trace: 'down.mahi' } } },
      bottleneck: { trace: 'synthetic:constant-2000' },
      bottleneckBack: { trace: 'synthetic:constant-500' },
      schedule: [{ at: 10, links: ['p1.up'], set: { trace: 'synthetic:step-1500-300-5' } }],
    },
  }));
  const scenario = loadScenario(path.join(dir, 'x.json'));
  const { links, traces } = scenario.compiled;
  assert.deepEqual(Object.keys(traces).sort(), ['down.mahi', 'synthetic:constant-1000', 'synthetic:constant-2000', 'synthetic:constant-500', 'synthetic:step-1500-300-5']);
  assert.deepEqual([links['p0.up'].trace, links['p1.up'].trace, links['p1.up'].rateKbps, links['p1.down'].trace], ['synthetic:constant-1000', null, 800, 'down.mahi']);
  const rows = configuredTimeline(scenario.compiled, 20);
  const rate = (link, t) => rows.find((row) => row.link === link && row.t === t).rateKbps;
  const near = (kbps) => Math.round(kbps / 50) * 50;
  assert.deepEqual([rate('p0.up', 3), rate('p1.down', 3), rate('bottleneck.fwd', 3), rate('bottleneck.back', 3)].map(near), [1000, 300, 2000, 500]);
  // The step trace starts when the step switches it on (10 s): 1500 for 5 s, then 300.
  assert.deepEqual([9, 10, 14, 15, 19].map((t) => Math.round(rate('p1.up', t) / 100) * 100), [800, 1500, 1500, 300, 300]);
  assert.equal(rows.find((row) => row.link === 'p1.up' && row.t === 12).trace, 'synthetic:step-1500-300-5');
});

test('trace validation names the file, the field and what to do', () => {
  const compile = (network) => () => compileNetwork({ file: 's.json', durationS: 60, network }, { loadTrace: () => { throw new InputError('loadTrace called'); } });
  rejects(compile({ link: { trace: 'synthetic:constant-500', rateKbps: 100 } }), /^s\.json: network\.link: set only one of rateKbps and trace/);
  rejects(compile({ link: { trace: 'synthetic:constant-500', queueMs: 100 } }), /^s\.json: network\.link: queueMs 100 with trace .*give queuePackets/);
  rejects(compile({ link: { trace: 7 } }), /^s\.json: network\.link\.trace: must be a trace file/);
  rejects(compile({ link: { trace: 'synthetic:nope-1' } }), /^s\.json: network\.link\.trace: 'synthetic:nope-1' is not a synthetic trace/);
  rejects(compile({ link: { rateKbps: 100 }, traceStepMs: 200 }), /^s\.json: network\.traceStepMs: no link has a trace/);
  rejects(compile({ link: { trace: 'synthetic:constant-500' }, traceStepMs: 50 }), /^s\.json: network\.traceStepMs: must be a number from 100 to 60000/);
  rejects(compile({
    link: { rateKbps: 1000 },
    schedule: [{ at: 0, ramp: { field: 'rateKbps', from: 1000, to: 200, durationS: 30 } }, { at: 10, set: { trace: 'synthetic:constant-500' } }],
  }), /network\.schedule\[1\]: step at 10 s changes trace on p0\.up while network\.schedule\[0\]/);
  const dir = mkdtempSync(path.join(tmpdir(), 'trace-missing-'));
  writeFileSync(path.join(dir, 'm.json'), JSON.stringify({ name: 'm', description: 'missing trace', network: { link: { trace: 'nowhere.mahi' } } }));
  rejects(() => loadScenario(path.join(dir, 'm.json')), /m\.json: network\.link\.trace: trace 'nowhere\.mahi' not found \(looked for .*orchestrator\/traces\/nowhere\.mahi\)/);
  writeFileSync(path.join(dir, 'bad.mahi'), '10\nten\n');
  writeFileSync(path.join(dir, 'b.json'), JSON.stringify({ name: 'b', description: 'bad trace', network: { link: { trace: 'bad.mahi' } } }));
  rejects(() => loadScenario(path.join(dir, 'b.json')), /bad\.mahi:2: not a whole number/);
  assert.equal(loadScenario('trace-step-down', { traceStepMs: 250 }).compiled.traceStepMs, 250);
  rejects(() => loadScenario('trace-step-down', { traceStepMs: 5 }), /^--trace-step-ms: must be a number from 100 to 60000/);
});

/** A scenario in a fresh folder whose p0 uplink plays `trace`. @param {string} trace */
function traceScenario(trace) {
  const dir = mkdtempSync(path.join(tmpdir(), 'trace-paths-'));
  const file = path.join(dir, 's.json');
  writeFileSync(file, JSON.stringify({ name: 's', description: 'a trace by path', durationS: 20, warmupS: 1, network: { link: { trace } } }));
  return { dir, file };
}
const ONE_SECOND = `${Array.from({ length: 10 }, (_, i) => (i + 1) * 100).join('\n')}\n`;

test('a scenario cannot read a trace outside its folder, orchestrator/traces/ or --trace-dir: absolute, ../ and symlinked paths are refused', () => {
  const elsewhere = mkdtempSync(path.join(tmpdir(), 'trace-elsewhere-'));
  writeFileSync(path.join(elsewhere, 'far.mahi'), ONE_SECOND);
  rejects(() => loadScenario(traceScenario('/etc/shadow').file), /s\.json: network\.link\.trace: trace '\/etc\/shadow' is an absolute path; name a file relative to the scenario's folder, a --trace-dir or .*orchestrator\/traces/);
  const { dir, file } = traceScenario(`../${path.basename(elsewhere)}/far.mahi`);
  rejects(() => loadScenario(file), /s\.json: network\.link\.trace: trace '\.\.\/trace-elsewhere-\w+\/far\.mahi' leaves the scenario's folder/);
  symlinkSync(path.join(elsewhere, 'far.mahi'), path.join(dir, 'link.mahi'));
  writeFileSync(file, JSON.stringify({ name: 's', description: 'd', durationS: 20, warmupS: 1, network: { link: { trace: 'link.mahi' } } }));
  rejects(() => loadScenario(file), /s\.json: network\.link\.trace: trace 'link\.mahi' is a link to a file outside the scenario's folder/);
  // --trace-dir allows that folder: by a relative name, and through the link.
  writeFileSync(file, JSON.stringify({ name: 's', description: 'd', durationS: 20, warmupS: 1, network: { link: { trace: 'far.mahi' } } }));
  assert.equal(loadScenario(file, { traceDirs: [elsewhere] }).compiled.traces['far.mahi'].periodMs, 1000);
  writeFileSync(file, JSON.stringify({ name: 's', description: 'd', durationS: 20, warmupS: 1, network: { link: { trace: 'link.mahi' } } }));
  assert.equal(loadScenario(file, { traceDirs: [elsewhere] }).compiled.traces['link.mahi'].periodMs, 1000);
});

test('only a regular trace file under the size limit is read: not /dev/zero, a FIFO or a directory', () => {
  const { dir, file } = traceScenario('zero.mahi');
  symlinkSync('/dev/zero', path.join(dir, 'zero.mahi'));
  // /dev/zero is outside the allowed folders; through --trace-dir /dev it is still no regular file.
  rejects(() => loadScenario(file), /trace 'zero\.mahi' is a link to a file outside/);
  rejects(() => loadScenario(file, { traceDirs: ['/dev'] }), /s\.json: network\.link\.trace: \/dev\/zero: the trace file is not a regular file/);
  execFileSync('mkfifo', [path.join(dir, 'fifo.mahi')]);
  writeFileSync(file, JSON.stringify({ name: 's', description: 'd', durationS: 20, warmupS: 1, network: { link: { trace: 'fifo.mahi' } } }));
  rejects(() => loadScenario(file), /fifo\.mahi: the trace file is not a regular file/);
  mkdirSync(path.join(dir, 'folder.mahi'));
  writeFileSync(file, JSON.stringify({ name: 's', description: 'd', durationS: 20, warmupS: 1, network: { link: { trace: 'folder.mahi' } } }));
  rejects(() => loadScenario(file), /folder\.mahi: the trace file is a directory/);
  const big = path.join(dir, 'big.mahi');
  writeFileSync(big, '');
  truncateSync(big, MAX_TRACE_FILE_BYTES + 1); // sparse: no 64 MiB written
  writeFileSync(file, JSON.stringify({ name: 's', description: 'd', durationS: 20, warmupS: 1, network: { link: { trace: 'big.mahi' } } }));
  rejects(() => loadScenario(file), /big\.mahi: the trace file is larger than 64 MiB, the limit/);
});

test('a trace that is not one is refused by file and line without quoting a byte of it', () => {
  const { dir, file } = traceScenario('shadow');
  writeFileSync(path.join(dir, 'shadow'), 'root:$6$s3cr3tHash:19000:0:99999:7:::\n');
  assert.throws(() => loadScenario(file), (error) => error instanceof InputError
    && /shadow:1: not a whole number of milliseconds/.test(error.message) && !/s3cr3t|root/.test(error.message));
  rejects(() => parseThroughputCsv('a,b\n1,2\nroot:s3cr3t\n', 'k.csv'), /^k\.csv:3: not numbers;/);
  assert.throws(() => parseThroughputCsv('1\nroot:s3cr3t\n', 'k.csv'), (/** @type {Error & { exitCode?: number }} */ error) => !/s3cr3t/.test(error.message));
});

test('every trace number is bounded: a 309-digit timestamp is refused, not read as Infinity', () => {
  rejects(() => parseMahimahi(`10\n${'9'.repeat(309)}\n`, 'f'), new RegExp(`^f:2: a timestamp above ${MAX_TRACE_MS} ms \\(a day\\)`));
  assert.equal(parseMahimahi(`10\n${MAX_TRACE_MS}\n`, 'f').periodMs, MAX_TRACE_MS);
  rejects(() => checkTrace({ name: 'x', opportunitiesMs: [0, Infinity], periodMs: Infinity }, 'w'), /^w:2: timestamps must be whole milliseconds from 0 to 86400000/);
  rejects(() => traceFromSegments([{ durationMs: 2 * MAX_TRACE_MS, bytes: 1e9 }], 'x', 'log'), /^log: lasts 172800000 ms; a trace lasts at most 86400000 ms/);
});
