// Load participants (issue 41), their pure part: the scenario's `load` field, every line a load participant's process
// writes checked as hostile input, and result.json's `load` section from its counters.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { MAX_LOAD_LINE_CHARS, MAX_LOAD_PARTICIPANTS } from '../../orchestrator/lib/input/limits.js';
import { describeLoadSubscription, loadOf, loadRates, loadSection, parseLoadLine } from '../../orchestrator/lib/media/load-participants.js';
import { loadScenario } from '../../orchestrator/lib/scenario/scenario-file.js';
import { InputError } from '../../orchestrator/lib/system/errors.js';
import { tempDir } from '../helpers/cli.js';

const where = { file: 'x.json', topology: 'sfu', peers: 2 };
const counts = (sentBytes, receivedBytes, extra = {}) => ({
  sentPackets: sentBytes / 1000, sentBytes, receivedPackets: receivedBytes / 1000, receivedBytes,
  nacksReceived: 0, plisReceived: 0, ...extra,
});

test('a scenario\'s load names its participants; a bad one, or one beyond the limit, is refused at load naming the field', () => {
  assert.equal(loadOf(undefined, where), null);
  assert.deepEqual(loadOf({ participants: 3 }, where), { participants: 3, subscribe: 'none', speaker: null, browsersReceive: 'full', names: ['load0', 'load1', 'load2'] });
  assert.equal(loadOf({ participants: 1, subscribe: 'all' }, where)?.subscribe, 'all');
  // The speaker is the first browser peer unless the scenario names another.
  assert.deepEqual(loadOf({ participants: 1, subscribe: 'speaker' }, where), {
    participants: 1, subscribe: 'speaker', speaker: 'p0', browsersReceive: 'full', names: ['load0'],
  });
  assert.equal(loadOf({ participants: 1, subscribe: 'speaker', speaker: 'p1' }, where)?.speaker, 'p1');
  assert.equal(loadOf({ participants: 1, browsersReceive: 'thumbnail' }, where)?.browsersReceive, 'thumbnail');
  /** @type {Array<[unknown, string|RegExp]>} */
  const refused = [
    [{ participants: 10_000 }, `x.json: load.participants: must be an integer from 1 to ${MAX_LOAD_PARTICIPANTS}, got 10000`],
    [{ participants: 0 }, /load\.participants: must be an integer from 1/],
    [{ participants: 2.5 }, /load\.participants: must be an integer/],
    [{ participants: '3' }, /load\.participants: must be an integer/],
    [{ participants: 2, subscribe: 'loudest' }, /load\.subscribe: "loudest" is not one of none, speaker, all/],
    [{ participants: 2, subscribe: 'speaker', speaker: 'p2' }, /load\.speaker: "p2" is not a browser peer of this call \(p0, p1\)/],
    [{ participants: 2, subscribe: 'speaker', speaker: 'load0' }, /load\.speaker: "load0" is not a browser peer/],
    [{ participants: 2, subscribe: 'speaker', speaker: ['p0'] }, /load\.speaker: .* is not a browser peer/],
    [{ participants: 2, speaker: 'p0' }, /load\.speaker: a speaker is whom load participants receive with "subscribe": "speaker"/],
    [{ participants: 2, browsersReceive: 'lowest' }, /load\.browsersReceive: "lowest" is not one of full, thumbnail/],
    [{ participants: 2, bots: 3 }, /load: unknown field 'bots'/],
    [[2], /load: must be an object/],
  ];
  for (const [raw, message] of refused) {
    assert.throws(() => loadOf(raw, where), (error) => error instanceof InputError
      && (typeof message === 'string' ? error.message === message : message.test(error.message)), JSON.stringify(raw));
  }
  assert.throws(() => loadOf({ participants: 2 }, { file: 'x.json', topology: 'mesh', peers: 2 }), /x\.json: load: load participants join an SFU room; give "topology": "sfu"/);
});

test('a scenario file asking for 10 000 load participants is refused when it is loaded, with the limit named', () => {
  const dir = tempDir('wtb-load-');
  const file = path.join(dir, 'huge-room.json');
  writeFileSync(file, JSON.stringify({ name: 'huge-room', description: 'hostile', peers: 2, topology: 'sfu', load: { participants: 10_000 } }));
  assert.throws(() => loadScenario(file), (error) => error instanceof InputError
    && error.message.endsWith(`huge-room.json: load.participants: must be an integer from 1 to ${MAX_LOAD_PARTICIPANTS}, got 10000`));
  assert.equal(loadScenario('sfu-load-4').load?.participants, 2);
  assert.deepEqual(loadScenario('sfu-load-25').load, {
    participants: 23, subscribe: 'speaker', speaker: 'p0', browsersReceive: 'thumbnail', names: Array.from({ length: 23 }, (_, i) => `load${i}`),
  });
  assert.equal(loadScenario('sfu-2').load, null);
});

test('a load participant\'s lines are taken only in their known shapes', () => {
  assert.deepEqual(parseLoadLine(JSON.stringify({ type: 'offer', pc: 'pub', sdp: 'v=0\r\n' })), { line: { type: 'offer', pc: 'pub', sdp: 'v=0\r\n' } });
  assert.deepEqual(parseLoadLine(JSON.stringify({ type: 'answer', pc: 'p0', sdp: 'v=0\r\n' })), { line: { type: 'answer', pc: 'p0', sdp: 'v=0\r\n' } });
  assert.deepEqual(parseLoadLine('{"type":"state","pc":"pub","state":"connected"}'), { line: { type: 'state', pc: 'pub', state: 'connected' } });
  const good = counts(5000, 2000, { nacksReceived: 3 });
  // Fields beyond the counters are dropped, never carried into the result.
  assert.deepEqual(parseLoadLine(JSON.stringify({ type: 'counts', ...good, extra: 'x'.repeat(100) })), { line: { type: 'counts', counts: good } });
  assert.equal(/** @type {any} */ (parseLoadLine(JSON.stringify({ type: 'error', error: 'e'.repeat(10_000) }))).line.error.length, 500);
  const hostile = [
    'x'.repeat(MAX_LOAD_LINE_CHARS + 1), 'not json', '[1,2]', 'null', '"counts"', '{}',
    JSON.stringify({ type: 'offer', pc: 'pub', sdp: '<script>' }),
    JSON.stringify({ type: 'offer', pc: '../../etc', sdp: 'v=0' }),
    JSON.stringify({ type: 'offer', pc: 'x'.repeat(65), sdp: 'v=0' }),
    JSON.stringify({ type: 'answer', pc: 'pub', sdp: 42 }),
    JSON.stringify({ type: 'state', pc: 'pub', state: 'exploded' }),
    JSON.stringify({ type: 'counts', ...good, sentBytes: -1 }),
    JSON.stringify({ type: 'counts', ...good, sentBytes: 1.5 }),
    JSON.stringify({ type: 'counts', ...good, sentBytes: '100' }),
    JSON.stringify({ type: 'counts', ...good, sentBytes: 2 ** 60 }),
    JSON.stringify({ type: 'counts', sentBytes: 1 }),
    JSON.stringify({ type: 'error', error: { toString: 1 } }),
    JSON.stringify({ type: 'x'.repeat(1000) }),
  ];
  for (const line of hostile) {
    const parsed = parseLoadLine(line);
    assert.ok('reason' in parsed, `taken: ${line.slice(0, 80)}`);
    assert.ok(parsed.reason.length < 100, 'the reason never quotes the line');
  }
});

test('the load section: rates between readings on the media clock, a counter that went down skipped, links declared unshaped', () => {
  const readings = [
    { epochMs: 10_000, participant: 'load0', counts: counts(0, 0) },
    { epochMs: 10_500, participant: 'load1', counts: counts(1000, 0) },
    { epochMs: 11_000, participant: 'load0', counts: counts(125_000, 250_000, { plisReceived: 1 }) },
    { epochMs: 11_500, participant: 'load1', counts: counts(126_000, 0) },
    { epochMs: 12_000, participant: 'load0', counts: counts(100_000, 250_000) },
    { epochMs: 13_000, participant: 'load0', counts: counts(225_000, 250_000) },
  ];
  const rates = loadRates(readings);
  assert.deepEqual(rates.map((row) => [row.participant, row.sentKbps, row.receivedKbps]),
    [['load0', 1000, 2000], ['load1', 1000, 0], ['load0', 1000, 0]]);
  assert.equal(rates[0].plisReceived, 1);
  assert.equal(rates[0].sentPackets, 125);
  const request = /** @type {import('../../orchestrator/lib/media/load-participants.js').LoadRequest} */ ({
    participants: 2, subscribe: 'speaker', speaker: 'p1', browsersReceive: 'thumbnail', names: ['load0', 'load1'],
  });
  // Media starts at 10.6 s: the first row (11.0 s) is at 0.4 s; nothing after the call's 2 s.
  const atS = (/** @type {number} */ epochMs) => (epochMs - 10_600) / 1000;
  const why = '--sfu livekit: its load participants signal to it themselves, so the harness sees no candidate of theirs to steer';
  const section = loadSection({ request, readings, commands: [['load-peer', '-media', 'dir']], links: { shaped: false, why } }, atS, 2);
  assert.equal(section.linksShaped, false);
  assert.equal(section.linksUnshapedWhy, why);
  assert.deepEqual([section.subscribe, section.speaker, section.browsersReceive], ['speaker', 'p1', 'thumbnail']);
  assert.equal(describeLoadSubscription(section), 'the speaker (p1) only; the browsers receive their lowest layer (thumbnails)');
  assert.equal(describeLoadSubscription({ subscribe: 'all' }), 'every other publisher', 'a result from before speaker and thumbnails');
  assert.deepEqual(section.rows.map((row) => [row.t, row.participant]), [[0.4, 'load0'], [0.9, 'load1']]);
  assert.deepEqual(section.summary, {
    load0: { sentKbpsMean: 1000, receivedKbpsMean: 2000 }, load1: { sentKbpsMean: 1000, receivedKbpsMean: 0 },
  });
  const empty = loadSection({ request, readings: [], commands: [], links: { shaped: true, why: null } }, () => null, 2);
  assert.equal(empty.linksShaped, true);
  assert.deepEqual(empty.summary.load0, { sentKbpsMean: null, receivedKbpsMean: null });
});

test('a load participant\'s stdout is cut into lines, and a line over the bound is refused before it is all buffered', async () => {
  const { boundedLines } = await import('../../orchestrator/sfu/load-participants.js');
  const { PassThrough } = await import('node:stream');
  const stream = new PassThrough();
  /** @type {string[]} */
  const lines = [];
  /** @type {string[]} */
  const refused = [];
  boundedLines(stream, (line) => lines.push(line), (reason) => refused.push(reason));
  stream.write('{"a":');
  stream.write('1}\n{"b":2}\n{"c"');
  stream.write(':3}\n');
  // A line that never ends: refused once it passes the bound, and nothing after it is read.
  for (let i = 0; i < 5; i += 1) stream.write('x'.repeat(MAX_LOAD_LINE_CHARS / 4));
  stream.write('\n{"d":4}\n');
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(lines, ['{"a":1}', '{"b":2}', '{"c":3}']);
  assert.deepEqual(refused, [`a line over ${MAX_LOAD_LINE_CHARS} characters`]);
  // A whole line over the bound in one chunk is refused too, not skipped.
  const whole = new PassThrough();
  /** @type {string[]} */
  const seen = [];
  boundedLines(whole, (line) => seen.push(line), (reason) => seen.push(`refused: ${reason}`));
  whole.write(`${'y'.repeat(MAX_LOAD_LINE_CHARS + 1)}\n{"e":5}\n`);
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(seen, [`refused: a line over ${MAX_LOAD_LINE_CHARS} characters`]);
});
