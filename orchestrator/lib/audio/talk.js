// Speaking turns (pure): who speaks when in a multi-party call (scenario `talk`), the audio each peer's fake microphone
// plays for it, and whether what a receiver hears follows the sender's talk spurts (result.json `talk`).
import { InputError } from '../system/errors.js';
import { describeValue, expectNumber, expectObject } from '../input/validate.js';
import { createRandom, deriveSeed } from '../stats/random.js';

/**
 * ITU-T P.59 (03/93) "Artificial conversational speech", table 1: a talker's talk spurt lasts 1.004 s and its pause
 * 1.587 s on average, both close to exponential. Each peer here follows the one-talker on/off model with these means on
 * its own; P.59's two-party states (double talk, mutual silence) are not imposed, so peers may talk over each other.
 */
export const P59 = Object.freeze({ meanTalkSpurtS: 1.004, meanPauseS: 1.587 });
/** Draws below this are lengthened to it: shorter bursts are below what a per-second level can show. */
export const MIN_TALK_EVENT_S = 0.2;
/** The talk file's longest length: longer calls repeat the pattern with this period (48 kHz 16-bit: 28.8 MB). */
export const MAX_TALK_PERIOD_S = 300;
export const MAX_SPURTS_PER_PEER = 1000;
/** Part of the talk file's cache key (media/generate.js): a change to talkAudio must bump it. */
export const TALK_AUDIO_VERSION = 1;
/** The follows-spurts check: the received level's Pearson correlation with the sender's talk share per second. */
export const MIN_TALK_CORRELATION = 0.6;
/** ...and the mean level in pause seconds at most this share of the mean level in spurt seconds. */
export const MAX_PAUSE_TO_SPURT_LEVEL = 0.25;
/** The sender's file start and the receiver's playout are tried this far apart (network, jitter buffer, capture start). */
export const MAX_TALK_LAG_S = 1;
const LAG_STEP_S = 0.1;
/** A pause second: no spurt within this margin of it, so the lag's error cannot put speech in it. */
const PAUSE_MARGIN_S = 0.25;
const MIN_CHECKED_SECONDS = 3;

/**
 * @typedef {Array<[number, number]>} Spurts  [startS, stopS] pairs, sorted, not overlapping
 * @typedef {{ model: 'p59'|'explicit', periodS: number, peers: Record<string, Spurts> }} TalkPattern
 *   every main-call peer's spurts over one period of its talk file (on the file's clock); a peer with none is silent
 */

/**
 * A P.59-style on/off pattern over [0, periodS): pause first, then alternating spurts and pauses, seeded.
 * @param {number} seed @param {number} periodS @returns {Spurts}
 */
export function p59Spurts(seed, periodS) {
  const random = createRandom(seed);
  const draw = (/** @type {number} */ meanS) => Math.max(MIN_TALK_EVENT_S, -meanS * Math.log(1 - random()));
  /** @type {Spurts} */
  const spurts = [];
  for (let atS = draw(P59.meanPauseS); atS < periodS && spurts.length < MAX_SPURTS_PER_PEER;) {
    const stopS = Math.min(periodS, atS + draw(P59.meanTalkSpurtS));
    spurts.push([round3(atS), round3(stopS)]);
    atS = stopS + draw(P59.meanPauseS);
  }
  return spurts;
}

const round3 = (/** @type {number} */ value) => Math.round(value * 1000) / 1000;
const mean = (/** @type {number[]} */ values) => values.reduce((sum, v) => sum + v, 0) / values.length;

/**
 * The scenario's `talk`, validated: "p59" (every peer, seeded by the scenario's name and the peer) or an object of peer
 * names to lists of [startS, stopS] on the scenario's clock as written (scaled by the time scale; within the call and
 * MAX_TALK_PERIOD_S). The talk file is as long as the run, at most MAX_TALK_PERIOD_S, and repeats after that.
 * @param {unknown} raw
 * @param {{ file: string, name: string, peers: number, nominalDurationS: number, timeScale: number, runDurationS: number }} context
 * @returns {TalkPattern|null}
 */
export function talkOf(raw, { file, name, peers, nominalDurationS, timeScale, runDurationS }) {
  if (raw === undefined || raw === null) return null;
  const periodS = round3(Math.min(runDurationS, MAX_TALK_PERIOD_S));
  const names = Array.from({ length: peers }, (_, i) => `p${i}`);
  if (raw === 'p59') {
    return { model: 'p59', periodS, peers: Object.fromEntries(names.map((peer) => [peer, p59Spurts(deriveSeed(0, name, 'talk', peer), periodS)])) };
  }
  if (typeof raw === 'string') throw new InputError(`${file}: talk: ${describeValue(raw)} is not a talk model: use "p59" or an object of peer names to [startS, stopS] lists`);
  const byPeer = expectObject(raw, `${file}: talk`, names, { what: '"p59" or an object of peer names to [startS, stopS] lists, e.g. {"p0": [[2, 5]]}' });
  const limitS = Math.min(nominalDurationS, MAX_TALK_PERIOD_S / timeScale);
  /** @type {Record<string, Spurts>} */
  const spurtsByPeer = {};
  for (const [peer, list] of Object.entries(byPeer)) {
    const where = `${file}: talk.${peer}`;
    if (!Array.isArray(list) || list.length > MAX_SPURTS_PER_PEER) throw new InputError(`${where}: must be a list of at most ${MAX_SPURTS_PER_PEER} [startS, stopS] pairs, got ${describeValue(list)}`);
    let lastStopS = 0;
    spurtsByPeer[peer] = list.map((pair, i) => {
      if (!Array.isArray(pair) || pair.length !== 2) throw new InputError(`${where}[${i}]: must be a [startS, stopS] pair, got ${describeValue(pair)}`);
      const startS = expectNumber(pair[0], `${where}[${i}][0]`, { min: lastStopS, max: limitS });
      const stopS = expectNumber(pair[1], `${where}[${i}][1]`, { above: startS, max: limitS });
      lastStopS = stopS;
      return /** @type {[number, number]} */ ([round3(startS * timeScale), round3(stopS * timeScale)]);
    }).filter(([startS]) => startS < periodS).map(([startS, stopS]) => [startS, Math.min(stopS, periodS)]);
  }
  return { model: 'explicit', periodS, peers: Object.fromEntries(names.map((peer) => [peer, spurtsByPeer[peer] ?? []])) };
}

/**
 * A peer's talk file: digital silence, and in each spurt the default speech with its own pauses left out (20 ms frames
 * under a tenth of its loudest frame's RMS), so a spurt is speech throughout; 5 ms ramps keep the edges click-free.
 * @param {Int16Array} speech @param {number} rateHz @param {Spurts} spurts @param {number} periodS
 * @returns {Int16Array}
 */
export function talkAudio(speech, rateHz, spurts, periodS) {
  const voiced = voicedSamples(speech, rateHz);
  const out = new Int16Array(Math.round(periodS * rateHz));
  const rampFrames = Math.round(0.005 * rateHz);
  let cursor = 0;
  for (const [startS, stopS] of spurts) {
    const start = Math.round(startS * rateHz);
    const stop = Math.min(out.length, Math.round(stopS * rateHz));
    for (let i = start; i < stop; i += 1) {
      const gain = Math.min(1, (i - start + 0.5) / rampFrames, (stop - i - 0.5) / rampFrames);
      out[i] = Math.round(voiced[cursor] * gain);
      cursor = (cursor + 1) % voiced.length;
    }
  }
  return out;
}

/** @param {Int16Array} speech @param {number} rateHz */
function voicedSamples(speech, rateHz) {
  const frame = Math.round(0.02 * rateHz);
  const frames = [];
  for (let at = 0; at + frame <= speech.length; at += frame) {
    let energy = 0;
    for (let i = at; i < at + frame; i += 1) energy += speech[i] * speech[i];
    frames.push({ at, rms: Math.sqrt(energy / frame) });
  }
  const loudest = Math.max(0, ...frames.map((f) => f.rms));
  const kept = frames.filter((f) => loudest > 0 && f.rms >= loudest / 10);
  if (!kept.length) throw new RangeError('the speech has no voiced frame');
  const voiced = new Int16Array(kept.length * frame);
  kept.forEach((f, k) => voiced.set(speech.subarray(f.at, f.at + frame), k * frame));
  return voiced;
}

/**
 * A peer's spurts on the media clock: its file starts playing at fileStartS (its getUserMedia) and loops every periodS.
 * @param {Spurts} spurts @param {number} periodS @param {number} fileStartS @param {number} durationS
 * @returns {Spurts}
 */
export function spurtsOnMediaClock(spurts, periodS, fileStartS, durationS) {
  /** @type {Spurts} */
  const out = [];
  for (let loopS = fileStartS; loopS < durationS; loopS += periodS) {
    for (const [startS, stopS] of spurts) {
      const a = Math.max(0, startS + loopS);
      const b = Math.min(durationS, stopS + loopS);
      if (b > a) out.push([round3(a), round3(b)]);
    }
  }
  return out;
}

/** The share of (fromS, toS] covered by the spurts. @param {Spurts} spurts @param {number} fromS @param {number} toS */
function coverage(spurts, fromS, toS) {
  let covered = 0;
  for (const [a, b] of spurts) covered += Math.max(0, Math.min(b, toS) - Math.max(a, fromS));
  return covered / (toS - fromS);
}

/** @param {number[]} xs @param {number[]} ys */
function pearson(xs, ys) {
  const mx = mean(xs);
  const my = mean(ys);
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  xs.forEach((x, i) => { sxy += (x - mx) * (ys[i] - my); sxx += (x - mx) ** 2; syy += (ys[i] - my) ** 2; });
  // A constant series (to rounding) has no correlation.
  return sxx > 1e-12 && syy > 1e-12 ? sxy / Math.sqrt(sxx * syy) : null;
}

/**
 * Whether a received stream's level per second follows its sender's spurts: the Pearson correlation of the level with
 * the share of each second the sender spoke, at the lag (within ±MAX_TALK_LAG_S) where it is highest, and the mean
 * level in spurt seconds (spoken at least half the second) against pause seconds (no spurt within PAUSE_MARGIN_S).
 * Seconds with no level (no audio yet) are left out; null verdict when too few seconds of either kind remain.
 * @param {{ spurts: Spurts, levels: Array<[number, number|null]>, windowS: [number, number] }} input
 *   spurts on the media clock; levels: [t, level] for the second (t − 1, t]
 * @returns {TalkCheck}
 * @typedef {{ seconds: number, spurtSeconds: number, pauseSeconds: number, lagS: number|null, correlation: number|null,
 *   meanSpurtLevel: number|null, meanPauseLevel: number|null, passed: boolean|null, reason: string }} TalkCheck
 */
export function checkFollowsSpurts({ spurts, levels, windowS: [fromS, toS] }) {
  const rows = levels.filter(([t, level]) => t - 1 >= fromS && t <= toS && level !== null && Number.isFinite(level));
  const ys = rows.map(([, level]) => /** @type {number} */ (level));
  let best = { lagS: /** @type {number|null} */ (null), correlation: /** @type {number|null} */ (null) };
  for (let lagS = -MAX_TALK_LAG_S; lagS <= MAX_TALK_LAG_S + 1e-9; lagS += LAG_STEP_S) {
    const correlation = pearson(rows.map(([t]) => coverage(spurts, t - 1 - lagS, t - lagS)), ys);
    if (correlation !== null && (best.correlation === null || correlation > best.correlation)) best = { lagS: round3(lagS), correlation };
  }
  const lag = best.lagS ?? 0;
  const widened = /** @type {Spurts} */ (spurts.map(([a, b]) => [a - PAUSE_MARGIN_S, b + PAUSE_MARGIN_S]));
  const spurtLevels = rows.filter(([t]) => coverage(spurts, t - 1 - lag, t - lag) >= 0.5).map(([, level]) => /** @type {number} */ (level));
  const pauseLevels = rows.filter(([t]) => coverage(widened, t - 1 - lag, t - lag) === 0).map(([, level]) => /** @type {number} */ (level));
  const figures = {
    seconds: rows.length, spurtSeconds: spurtLevels.length, pauseSeconds: pauseLevels.length, lagS: best.lagS,
    correlation: best.correlation === null ? null : round3(best.correlation),
    meanSpurtLevel: spurtLevels.length ? round5(mean(spurtLevels)) : null,
    meanPauseLevel: pauseLevels.length ? round5(mean(pauseLevels)) : null,
  };
  if (spurtLevels.length < MIN_CHECKED_SECONDS || pauseLevels.length < MIN_CHECKED_SECONDS || figures.correlation === null) {
    return { ...figures, passed: null, reason: `needs ${MIN_CHECKED_SECONDS} spurt and ${MIN_CHECKED_SECONDS} pause seconds with a level in the window; has ${spurtLevels.length} and ${pauseLevels.length}` };
  }
  const ratio = /** @type {number} */ (figures.meanPauseLevel) / Math.max(1e-9, /** @type {number} */ (figures.meanSpurtLevel));
  const passed = figures.correlation >= MIN_TALK_CORRELATION && ratio <= MAX_PAUSE_TO_SPURT_LEVEL;
  return {
    ...figures, passed,
    reason: `correlation ${figures.correlation} (at least ${MIN_TALK_CORRELATION}), pause level ${round3(ratio)} of the spurt level (at most ${MAX_PAUSE_TO_SPURT_LEVEL})`,
  };
}

const round5 = (/** @type {number} */ value) => Math.round(value * 1e5) / 1e5;

/**
 * result.json `talk`: every peer's spurts on the media clock, from its talk file's start (its `media-ready`: getUserMedia
 * resolved, when Chromium's fake microphone starts reading), and per receiver and talking remote the received level per
 * second and the follows-spurts check over the measurement window; `overall` the checks' counts and the lowest
 * correlation (summary.talk, the per-run metric `talkCorrelation`).
 * @param {{ talk: TalkPattern, events: Array<{ type: string, peer?: string|null, atS: number|null }>,
 *   timeline: Array<{ t: number, peer: string, remote: string, audio?: { recvLevel?: number|null } }>, warmupS: number,
 *   durationS: number }} input
 * @returns {TalkResult}
 * @typedef {{ peer: string, remote: string, levels: Array<[number, number|null]>, check: TalkCheck }} TalkStream
 * @typedef {{ streams: number, passed: number, failed: number, unchecked: number, minCorrelation: number|null }} TalkOverall
 * @typedef {{ model: TalkPattern['model'], periodS: number, windowS: [number, number], peers: Record<string, { fileStartS: number|null,
 *   spurts: Spurts }>, streams: TalkStream[], overall: TalkOverall }} TalkResult
 */
export function talkSection({ talk, events, timeline, warmupS, durationS }) {
  const peers = Object.fromEntries(Object.entries(talk.peers).map(([peer, spurts]) => {
    const fileStartS = events.find((event) => event.type === 'media-ready' && event.peer === peer)?.atS ?? null;
    return [peer, { fileStartS, spurts: fileStartS === null ? [] : spurtsOnMediaClock(spurts, talk.periodS, fileStartS, durationS) }];
  }));
  /** @type {Map<string, { peer: string, remote: string, levels: Array<[number, number|null]> }>} */
  const streams = new Map();
  for (const entry of timeline) {
    if (!Object.hasOwn(peers, entry.remote) || peers[entry.remote].fileStartS === null) continue;
    const key = `${entry.peer}\u0000${entry.remote}`;
    const stream = streams.get(key) ?? { peer: entry.peer, remote: entry.remote, levels: [] };
    stream.levels.push([entry.t, entry.audio?.recvLevel ?? null]);
    streams.set(key, stream);
  }
  /** @type {[number, number]} */
  const windowS = [warmupS, durationS];
  /** @type {TalkStream[]} */
  const list = [...streams.values()].map((stream) => ({
    ...stream, check: checkFollowsSpurts({ spurts: peers[stream.remote].spurts, levels: stream.levels, windowS }),
  })).sort((a, b) => a.peer.localeCompare(b.peer) || a.remote.localeCompare(b.remote));
  const count = (/** @type {boolean|null} */ passed) => list.filter((s) => s.check.passed === passed).length;
  const correlations = list.flatMap((s) => (s.check.passed === null || s.check.correlation === null ? [] : [s.check.correlation]));
  return {
    model: talk.model, periodS: talk.periodS, windowS, peers, streams: list,
    overall: {
      streams: list.length, passed: count(true), failed: count(false), unchecked: count(null),
      minCorrelation: correlations.length ? Math.min(...correlations) : null,
    },
  };
}
