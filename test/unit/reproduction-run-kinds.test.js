// A cause stays on a reproduction's figure only where the records support it: the cores cause on rows whose runs
// were CPU-limited (host-bound.js runCpuLimited), the audio and host-RTT causes quoting their figure per audio loop and
// relay packet path (run-kinds.js), and a row whose runs differ in either saying so.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildReproduction, findReproduction, tableScenarios } from '../../orchestrator/lib/scenario/reproductions.js';
import { runCpuLimited } from '../../orchestrator/lib/scenario/reproductions/host-bound.js';
import {
  TONE_AUDIO_FILE, audioLoopOf, congestionVariantOf, differencePhrase, groupsOf, measuredPhrase, unrecordedAudioNote,
} from '../../orchestrator/lib/scenario/reproductions/run-kinds.js';
import { SPEECH_AUDIO_FILE } from '../../media/generate.js';
import { renderReproductionPage } from '../../orchestrator/suite/render-reproduction.js';

/** A CPU record: p0 and p1 each measured 290 s, p1 CPU-limited for `limitedS` of them. */
const cpuEvidence = (limitedS, { byDesign = false, saturatedShare = 0 } = {}) => ({
  relay: null,
  cpu: {
    peers: { p0: { limitedS: 0, measuredS: 290, byDesign: false }, p1: { limitedS, measuredS: 290, byDesign } },
    saturatedShare,
  },
});

test('a run is CPU-limited when its evidence shows a limited second of an unconstrained peer or saturated cores, else by the older flag', () => {
  assert.equal(runCpuLimited({ repetition: 1, hostEvidence: cpuEvidence(0) }), false);
  assert.equal(runCpuLimited({ repetition: 1, hostEvidence: cpuEvidence(3) }), true);
  assert.equal(runCpuLimited({ repetition: 1, hostEvidence: cpuEvidence(290, { byDesign: true }) }), false, 'a peer throttled on purpose');
  assert.equal(runCpuLimited({ repetition: 1, hostEvidence: cpuEvidence(0, { saturatedShare: 0.2 }) }), true);
  // Evidence outweighs the flag: a record measured clean is not CPU-limited whatever the flag.
  assert.equal(runCpuLimited({ repetition: 1, hostEvidence: cpuEvidence(0), hostLimited: true }), false);
  assert.equal(runCpuLimited({ repetition: 1, hostLimited: true }), true, 'an older record the suite flagged');
  assert.equal(runCpuLimited({ repetition: 1, hostLimited: false }), false, 'an older record without evidence: not shown');
  assert.equal(runCpuLimited({ repetition: 1, hostEvidence: { relay: null, cpu: null } }), false);
});

/**
 * Runs of every row of a table, 2 each, with the fields given per scenario and repetition.
 * @param {import('../../orchestrator/lib/scenario/reproductions.js').Reproduction} table
 * @param {(scenario: string, repetition: number) => object} [fields]
 */
function runsOf(table, fields = () => ({})) {
  return tableScenarios(table).flatMap((scenario) => [1, 2].map((repetition) => ({
    scenario, repetition, status: 'passed', report: null, clock: null,
    values: { 'video.recvFps': 30, 'audio.recvKbps': 32, rttMs: 4 }, ...fields(scenario, repetition),
  })));
}

test('the cores cause marks only the rows with a CPU-limited run, and is not listed when no row has one', () => {
  const table = findReproduction('j16-table-8-2');
  const environment = { video: '720p30', cpus: 2 };
  const build = (runs) => buildReproduction(table, { runs, references: {}, environment });
  const fpsCauses = (built, scenario) => built.rows.find((r) => r.scenario === scenario).cells.find((c) => c.path === 'video.recvFps').causes;
  const clean = build(runsOf(table, () => ({ hostEvidence: cpuEvidence(0) })));
  for (const scenario of tableScenarios(table)) assert.ok(!fpsCauses(clean, scenario).includes('cores'), scenario);
  assert.ok(!clean.causes.some((c) => c.id === 'cores'), 'no row carries it: not listed');
  assert.ok(clean.causes.some((c) => c.id === 'source'), 'the others stay');

  const one = build(runsOf(table, (scenario, repetition) => ({
    hostEvidence: cpuEvidence(scenario === 'latency-250' && repetition === 2 ? 12 : 0),
  })));
  assert.ok(fpsCauses(one, 'latency-250').includes('cores'));
  assert.ok(!fpsCauses(one, 'latency-100').includes('cores') && !fpsCauses(one, 'latency-500').includes('cores'));
  assert.ok(one.causes.some((c) => c.id === 'cores'));
  const audio = one.rows.find((r) => r.scenario === 'latency-250').cells.find((c) => c.path === 'audio.recvKbps');
  assert.ok(!audio.causes.includes('cores'), 'the cause bears on resolution and frame rate only');

  const unmeasured = build(runsOf(table));
  assert.ok(!unmeasured.causes.some((c) => c.id === 'cores'), 'records without evidence or flag do not carry it');
  const failed = build(runsOf(table, () => ({ hostLimited: true, status: 'failed' })));
  assert.ok(!failed.causes.some((c) => c.id === 'cores'), 'only passed runs make the figure');
});

test('the audio loop is named from the result\'s media: speech, the tone, another loop, or null', () => {
  const at = (name) => `/work/main/media/cache/${name}`;
  assert.match(SPEECH_AUDIO_FILE, /^audio-[0-9a-f]{12}\.wav$/);
  assert.notEqual(SPEECH_AUDIO_FILE, TONE_AUDIO_FILE);
  assert.equal(audioLoopOf({ audio: at(SPEECH_AUDIO_FILE), peers: { p0: { audio: at(SPEECH_AUDIO_FILE) } } }, SPEECH_AUDIO_FILE), 'speech');
  assert.equal(audioLoopOf({ audio: at(TONE_AUDIO_FILE) }, SPEECH_AUDIO_FILE), 'tone');
  assert.equal(audioLoopOf({ audio: at(SPEECH_AUDIO_FILE), peers: { p0: { audio: at('audio-talk-1.wav') } } }, SPEECH_AUDIO_FILE),
    'speech + audio-talk-1.wav');
  for (const media of [undefined, null, {}, { audio: 3 }, { audio: '' }, { peers: 'x' }]) assert.equal(audioLoopOf(media, SPEECH_AUDIO_FILE), null);
});

test('a row\'s runs by emulator and audio: how they differ, and a figure per kind', () => {
  const runs = [
    { repetition: 1, emulator: 'relay (dgram)', values: { rttMs: 4.1 } },
    { repetition: 2, emulator: 'relay (dgram)', values: { rttMs: 5.3 } },
    { repetition: 3, emulator: 'relay (dgram)', values: { rttMs: 4.3 } },
    { repetition: 4, emulator: 'relay (native)', audio: 'speech', values: { rttMs: 3.0 } },
    { repetition: 5, emulator: 'relay (native)', audio: 'speech', values: { rttMs: 2.96 } },
  ];
  assert.deepEqual(groupsOf(runs, 'emulator').map((g) => [g.kind, g.runs.map((r) => r.repetition)]),
    [['relay (dgram)', [1, 2, 3]], ['relay (native)', [4, 5]]]);
  assert.equal(differencePhrase(runs),
    'emulator: relay (dgram) in runs 1, 2, 3, relay (native) in runs 4, 5; audio: not recorded in runs 1, 2, 3, speech in runs 4, 5');
  assert.equal(differencePhrase(runs.slice(0, 3)), '', 'alike runs say nothing');
  assert.equal(differencePhrase([runs[0], { ...runs[1], emulator: 'relay <b>*x*</b>' }]), 'emulator: relay (dgram) in run 1, another in run 2',
    'a hand-edited value that is not a plain name is not put on the page');
  assert.equal(measuredPhrase({ path: 'rttMs', by: 'emulator', unit: 'ms' }, [{ label: 'Open', runs }, { label: 'Empty', runs: [] }]),
    'Open: relay (dgram) 4.3 ms (runs 1, 2, 3), relay (native) 3.0 ms (runs 4, 5)');
  assert.equal(measuredPhrase({ path: 'rttMs', by: 'emulator', unit: 'ms' }, [{ label: 'Empty', runs: [] }]), 'no runs yet');
});

test('the audio and host-RTT causes quote their figure per loop and relay from the table\'s passed runs', () => {
  const table = findReproduction('j16-table-8-1');
  const runs = [
    ...[1, 2, 3].map((repetition) => ({ emulator: 'relay (dgram)', values: { 'audio.recvKbps': 32.1, rttMs: 4 + repetition / 10 }, repetition })),
    ...[4, 5].map((repetition) => ({ emulator: 'relay (native)', audio: 'speech', values: { 'audio.recvKbps': 28, rttMs: 3 }, repetition })),
    { emulator: 'netem', audio: 'speech', values: { 'audio.recvKbps': 1, rttMs: 99 }, repetition: 6, status: 'failed' },
  ].map((run) => ({ scenario: 'unconstrained', status: 'passed', report: null, clock: null, ...run }));
  const built = buildReproduction(table, { runs, references: {}, environment: { video: '720p30', cpus: 2 } });
  const text = (id) => built.causes.find((c) => c.id === id).text;
  assert.match(text('opus-default'), /Unconstrained: not recorded 32\.1 kbps \(runs 1, 2, 3\), speech 28\.0 kbps \(runs 4, 5\)\./);
  assert.match(text('host-rtt'), /Unconstrained: relay \(dgram\) 4\.2 ms \(runs 1, 2, 3\), relay \(native\) 3\.0 ms \(runs 4, 5\)\./);
  assert.doesNotMatch(text('host-rtt'), /netem|\{measured\}/, 'a failed run is not a figure');
});

test('the page says which records do not name their loop, and whether all predate speech', () => {
  assert.equal(unrecordedAudioNote([{ audio: 'speech', startedAt: '2026-11-29T23:00:00Z' }]), '');
  const old = unrecordedAudioNote([{ startedAt: '2026-11-26T00:00:00Z' }, { audio: null, startedAt: '2026-11-27T00:00:00Z' }]);
  assert.match(old, /^2 records do not name the loop, made before the field; all started before ed77610 of 2026-11-29/);
  assert.equal(unrecordedAudioNote([{ startedAt: '2026-11-30T00:00:00Z' }]), '1 record does not name the loop, made before the field');
  assert.equal(unrecordedAudioNote([{ startedAt: null }]), '1 record does not name the loop, made before the field');
});

test('a run\'s congestion control against its shipped scenario: none, other field trials, REMB; a record\'s text is bounded', () => {
  const shipped = { fieldTrials: null, bandwidthEstimation: 'send-side' };
  assert.deepEqual(congestionVariantOf({}, shipped), [], 'an older record without the fields ran the defaults');
  assert.deepEqual(congestionVariantOf({ fieldTrials: null, bandwidthEstimation: 'send-side' }, shipped), []);
  assert.deepEqual(congestionVariantOf({ fieldTrials: 'A/B/', bandwidthEstimation: 'remb' }, shipped), ['field trials A/B/', 'remb bandwidth estimation']);
  assert.deepEqual(congestionVariantOf({}, { fieldTrials: 'A/B/', bandwidthEstimation: 'send-side' }), ['field trials none']);
  assert.deepEqual(congestionVariantOf({ fieldTrials: `<b>${'x'.repeat(400)}`, bandwidthEstimation: 7 }, shipped),
    ['field trials another', 'another bandwidth estimation']);
  assert.deepEqual(congestionVariantOf(null, shipped), []);
});

test('a table of runs under changed congestion control says so on its page', () => {
  const table = findReproduction('j16-cross-traffic');
  const run = (/** @type {string[]} */ variant) => ({ scenario: 'tcp-cross-traffic', repetition: 1, status: 'passed', report: null, values: {}, clock: null, variant });
  assert.deepEqual(buildReproduction(table, { runs: [run([])], references: {} }).variants, []);
  const remb = buildReproduction(table, { runs: [run(['remb bandwidth estimation']), { ...run(['remb bandwidth estimation']), repetition: 2 }], references: {} });
  assert.deepEqual(remb.variants, ['remb bandwidth estimation']);
  assert.match(renderReproductionPage(remb, { suiteName: 'x' }),
    /These runs changed the browsers&#39; congestion control \(remb bandwidth estimation\): an experiment on the paper&#39;s scenarios/);
});
