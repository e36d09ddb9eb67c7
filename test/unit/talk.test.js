// Speaking turns' pure parts (orchestrator/lib/audio/talk.js): the seeded P.59 pattern, the scenario field's
// validation, the talk file's audio, the spurts on the media clock and the follows-spurts check on synthetic levels.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  MAX_SPURTS_PER_PEER, MAX_TALK_PERIOD_S, MIN_TALK_EVENT_S, P59, checkFollowsSpurts, p59Spurts, spurtsOnMediaClock, talkAudio, talkOf,
  talkSection,
} from '../../orchestrator/lib/audio/talk.js';
import { loadScenario } from '../../orchestrator/lib/scenario/scenario-file.js';
import { buildTalkSection, renderAudioSections, renderTalk } from '../../orchestrator/report/render-talk.js';

const context = { file: 'x.json', name: 'x', peers: 3, nominalDurationS: 60, timeScale: 1, runDurationS: 60 };

test('p59Spurts is seeded, bounded, sorted and has P.59-like means', () => {
  const spurts = p59Spurts(7, 3000);
  assert.deepEqual(p59Spurts(7, 3000), spurts);
  assert.notDeepEqual(p59Spurts(8, 3000), spurts);
  assert.ok(spurts.length > 500 && spurts.length <= MAX_SPURTS_PER_PEER, `${spurts.length} spurts`);
  let lastStopS = 0;
  for (const [startS, stopS] of spurts) {
    assert.ok(startS >= lastStopS + MIN_TALK_EVENT_S - 1e-9 && stopS > startS && stopS <= 3000, `${startS}-${stopS} after ${lastStopS}`);
    lastStopS = stopS;
  }
  const talk = spurts.slice(0, -1).map(([a, b]) => b - a);
  const meanTalkS = talk.reduce((s, v) => s + v, 0) / talk.length;
  assert.ok(Math.abs(meanTalkS - P59.meanTalkSpurtS) < 0.15, `mean spurt ${meanTalkS} s`);
  const pauses = spurts.slice(1).map(([a], i) => a - spurts[i][1]);
  const meanPauseS = pauses.reduce((s, v) => s + v, 0) / pauses.length;
  assert.ok(Math.abs(meanPauseS - P59.meanPauseS) < 0.2, `mean pause ${meanPauseS} s`);
  // A shorter period is the same pattern cut.
  assert.deepEqual(p59Spurts(7, 20), spurts.filter(([a]) => a < 20).map(([a, b]) => [a, Math.min(b, 20)]));
});

test('talkOf: "p59" gives every peer its own seeded pattern over the run, at most MAX_TALK_PERIOD_S', () => {
  assert.equal(talkOf(undefined, context), null);
  const talk = talkOf('p59', context);
  assert.equal(talk?.model, 'p59');
  assert.equal(talk?.periodS, 60);
  assert.deepEqual(Object.keys(talk?.peers ?? {}), ['p0', 'p1', 'p2']);
  assert.notDeepEqual(talk?.peers.p0, talk?.peers.p1);
  assert.ok((talk?.peers.p0.length ?? 0) > 5);
  assert.deepEqual(talkOf('p59', context), talk);
  assert.equal(talkOf('p59', { ...context, nominalDurationS: 3600, runDurationS: 3600 })?.periodS, MAX_TALK_PERIOD_S);
});

test('talkOf: explicit spurts are validated, scaled by the time scale and cut to the run', () => {
  const talk = talkOf({ p0: [[2, 5], [10, 12.5]], p2: [] }, context);
  assert.deepEqual(talk, { model: 'explicit', periodS: 60, peers: { p0: [[2, 5], [10, 12.5]], p1: [], p2: [] } });
  assert.deepEqual(talkOf({ p0: [[2, 5], [10, 40]] }, { ...context, timeScale: 0.5, runDurationS: 10 })?.peers.p0, [[1, 2.5], [5, 10]]);
  const bad = /** @type {Array<[unknown, RegExp]>} */ ([
    ['p60', /talk: "p60" is not a talk model/],
    [{ p3: [] }, /x\.json: talk.*p3/],
    [{ p0: 'x' }, /talk\.p0: must be a list/],
    [{ p0: [[1]] }, /talk\.p0\[0\]: must be a \[startS, stopS\] pair/],
    [{ p0: [[5, 4]] }, /talk\.p0\[0\]\[1\]: must be a number > 5/],
    [{ p0: [[1, 61]] }, /talk\.p0\[0\]\[1\]/],
    [{ p0: [[1, 5], [4, 6]] }, /talk\.p0\[1\]\[0\]: must be a number from 5/],
    [{ p0: Array.from({ length: MAX_SPURTS_PER_PEER + 1 }, (_, i) => [i / 100, i / 100 + 0.001]) }, /at most 1000/],
  ]);
  for (const [raw, message] of bad) assert.throws(() => talkOf(raw, context), message, JSON.stringify(raw).slice(0, 40));
});

test('talkAudio: speech in the spurts, digital silence elsewhere', () => {
  const rateHz = 8000;
  // Speech stand-in: a tone with a silent gap, which the spurts must skip.
  const speech = new Int16Array(rateHz).map((_, i) => (i > 4000 && i < 6000 ? 0 : Math.round(8000 * Math.sin(i / 3))));
  const out = talkAudio(speech, rateHz, [[0.5, 1.5], [2, 2.2]], 3);
  assert.equal(out.length, 3 * rateHz);
  const rms = (/** @type {number} */ a, /** @type {number} */ b) => Math.sqrt(
    out.slice(a * rateHz, b * rateHz).reduce((s, v) => s + v * v, 0) / ((b - a) * rateHz));
  assert.equal(rms(0, 0.5), 0);
  assert.equal(rms(1.5, 2), 0);
  assert.equal(rms(2.2, 3), 0);
  // Voiced throughout: every 100 ms of the spurt is loud (the gap was left out).
  for (let atS = 0.5; atS < 1.4; atS += 0.1) assert.ok(rms(atS, atS + 0.1) > 3000, `quiet at ${atS} s`);
  assert.throws(() => talkAudio(new Int16Array(rateHz), rateHz, [[0, 1]], 1), /no voiced frame/);
});

test('spurtsOnMediaClock shifts by the file start and repeats every period', () => {
  assert.deepEqual(spurtsOnMediaClock([[1, 2], [8, 10]], 10, -1.5, 25), [[0, 0.5], [6.5, 8.5], [9.5, 10.5], [16.5, 18.5], [19.5, 20.5]]);
});

/**
 * Levels per second for spurts at a lag, with noise in pauses.
 * @param {Array<[number, number]>} spurts @param {number} lagS @param {number} pauseLevel
 */
function levelsFor(spurts, lagS, pauseLevel) {
  return Array.from({ length: 60 }, (_, i) => {
    const t = i + 1;
    let covered = 0;
    for (const [a, b] of spurts) covered += Math.max(0, Math.min(b + lagS, t) - Math.max(a + lagS, t - 1));
    return /** @type {[number, number|null]} */ ([t, 0.1 * covered + pauseLevel * (1 - covered) * ((t % 3) / 2)]);
  });
}

test('checkFollowsSpurts passes when the level follows the spurts, at the lag it finds', () => {
  const spurts = p59Spurts(3, 60);
  const check = checkFollowsSpurts({ spurts, levels: levelsFor(spurts, 0.3, 0.001), windowS: [5, 60] });
  assert.equal(check.passed, true, check.reason);
  assert.equal(check.lagS, 0.3);
  assert.ok((check.correlation ?? 0) > 0.95);
  assert.ok(check.spurtSeconds >= 3 && check.pauseSeconds >= 3);
  assert.ok((check.meanPauseLevel ?? 1) < 0.002 && (check.meanSpurtLevel ?? 0) > 0.05);
});

test('checkFollowsSpurts fails on another pattern, on a loud pause and on a constant level; null with too few seconds', () => {
  const spurts = p59Spurts(3, 60);
  const other = checkFollowsSpurts({ spurts, levels: levelsFor(p59Spurts(4, 60), 0, 0.001), windowS: [5, 60] });
  assert.equal(other.passed, false, other.reason);
  const loud = checkFollowsSpurts({ spurts, levels: levelsFor(spurts, 0, 0.2), windowS: [5, 60] });
  assert.equal(loud.passed, false, loud.reason);
  const flat = checkFollowsSpurts({ spurts, levels: levelsFor([], 0, 0.05).map(([t]) => [t, 0.05]), windowS: [5, 60] });
  assert.equal(flat.passed, null);
  const none = checkFollowsSpurts({ spurts, levels: levelsFor(spurts, 0, 0).map(([t]) => [t, null]), windowS: [5, 60] });
  assert.deepEqual([none.passed, none.seconds], [null, 0]);
  assert.equal(checkFollowsSpurts({ spurts: [], levels: levelsFor(spurts, 0, 0), windowS: [5, 60] }).passed, null);
});

test('talkSection: spurts from each file start, a check per received stream, the overall counts', () => {
  const talk = /** @type {import('../../orchestrator/lib/audio/talk.js').TalkPattern} */ (talkOf('p59', { ...context, peers: 2 }));
  const events = [{ type: 'media-ready', peer: 'p0', atS: -2 }, { type: 'media-ready', peer: 'p1', atS: -1.5 }, { type: 'first-frame', peer: 'p0', atS: 1 }];
  const onClock = (/** @type {string} */ peer, /** @type {number} */ startS) => spurtsOnMediaClock(talk.peers[peer], 60, startS, 60);
  const p0Levels = levelsFor(onClock('p0', -2), 0.2, 0.001);
  // p0 hears p1 at the level p0 itself talks at: not p1's pattern.
  const timeline = p0Levels.flatMap(([t, level]) => [
    { t, peer: 'p1', remote: 'p0', audio: { recvLevel: level } }, { t, peer: 'p0', remote: 'p1', audio: { recvLevel: level } },
    { t, peer: 'p0', remote: 'janus', audio: {} },
  ]);
  const section = talkSection({ talk, events, timeline, warmupS: 10, durationS: 60 });
  assert.deepEqual(section.peers.p0.spurts, onClock('p0', -2));
  assert.equal(section.peers.p1.fileStartS, -1.5);
  assert.deepEqual(section.streams.map((s) => [s.peer, s.remote, s.levels.length]), [['p0', 'p1', 60], ['p1', 'p0', 60]]);
  assert.deepEqual(section.streams.map((s) => s.check.passed), [false, true]);
  assert.deepEqual({ ...section.overall, minCorrelation: null }, { streams: 2, passed: 1, failed: 1, unchecked: 0, minCorrelation: null });
  assert.ok((section.overall.minCorrelation ?? 1) < 0.6);
  // No media-ready: the sender's spurts are unknown and its streams are not checked.
  assert.deepEqual(talkSection({ talk, events: [], timeline, warmupS: 10, durationS: 60 }).overall.streams, 0);

  // The report: a row per peer and per stream with its verdict, a chart panel per receiver with level and spurt lines.
  const html = renderTalk({ talk: section });
  assert.match(html, /<h2>Speaking turns<\/h2>/);
  assert.match(html, /p1 → p0<\/th>.*does not follow/);
  assert.match(html, /p0 → p1<\/th>.*>follows</);
  assert.equal(renderTalk({ talk: null }), '');
  assert.equal(renderAudioSections({ talk: null, lipSync: null }), '');
  const chart = buildTalkSection({ talk: section }, { colorOf: () => '#0072B2' });
  assert.deepEqual(chart?.panels.map((p) => [p.id, p.series.length]), [['talk-p0', 2], ['talk-p1', 2]]);
  const spurtLine = chart?.panels[1].series[1];
  assert.deepEqual([spurtLine?.axis, spurtLine?.y.slice(0, 4), spurtLine?.x.length], ['y2', [0, 1, 1, 0], 4 * section.peers.p0.spurts.length]);
  assert.equal(buildTalkSection({}, { colorOf: () => '#000000' }), null);
});

test('the meeting-3-talk scenario resolves its P.59 pattern; talk refuses lip sync', () => {
  const scenario = loadScenario('meeting-3-talk', { durationS: 20 });
  assert.equal(scenario.topology, 'sfu');
  assert.deepEqual([scenario.talk?.model, scenario.talk?.periodS, Object.keys(scenario.talk?.peers ?? {})], ['p59', 20, ['p0', 'p1', 'p2']]);
  assert.throws(() => loadScenario('meeting-3-talk', { lipSync: false }) && loadScenario('meeting-3-talk', { lipSync: true }), /talk: speaking turns and lip sync/);
});
