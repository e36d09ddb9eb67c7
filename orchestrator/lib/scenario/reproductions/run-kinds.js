// What a row's runs may differ in besides their scenario, and the figure each moves (pure): the relay's packet path
// (the RTT of an open link) and the fake microphone's audio loop (Opus is VBR in Chromium: a loop with pauses costs
// fewer bits than a steady tone). A row whose runs differ says so on the page, and a cause about such a figure states
// it per kind, computed from the records (lib/scenario/reproductions.js).
import { fieldOf, isRecord } from '../../input/validate.js';
import { percentile } from '../../stats/statistics.js';

/**
 * The fake microphone's default loop before commit ed77610 (2026-11-29), which made speech the default: a gliding
 * tone under pink noise, pulsed at 2.5 Hz. media/generate.js names a loop's file by a hash of its ffmpeg arguments;
 * this is the name ed77610^'s arguments give.
 */
export const TONE_AUDIO_FILE = 'audio-2cba5f7924a8.wav';

/** The commit that made speech the default loop, and when it was committed (a run started before could not run it). */
export const SPEECH_DEFAULT_SINCE = Object.freeze({ commit: 'ed77610', committedAt: '2026-11-29T12:29:28Z' });

/** The record fields a row's runs may differ in. */
export const RUN_KINDS = Object.freeze(/** @type {const} */ (['emulator', 'audio']));

/** @typedef {{ repetition: number, emulator?: string|null, audio?: string|null }} KindRun */

/**
 * The audio loop a run's peers sent, from its result's environment.media: 'speech' (the file named speechFile), 'tone'
 * (TONE_AUDIO_FILE), else the file's name (a lip-sync or talk loop); several joined with ' + '; null when it names none.
 * @param {unknown} media result.environment.media, of any harness version
 * @param {string} speechFile the default loop's file name (media/generate.js SPEECH_AUDIO_FILE)
 * @returns {string|null}
 */
export function audioLoopOf(media, speechFile) {
  const peers = fieldOf(media, 'peers');
  const files = [fieldOf(media, 'audio'), ...Object.values(isRecord(peers) ? peers : {}).map((peer) => fieldOf(peer, 'audio'))]
    .filter(/** @returns {file is string} */ (file) => typeof file === 'string' && file !== '');
  const loops = new Set(files.map((file) => {
    const name = file.split(/[\\/]/).pop();
    return name === speechFile ? 'speech' : name === TONE_AUDIO_FILE ? 'tone' : String(name);
  }));
  return loops.size ? [...loops].join(' + ') : null;
}

/**
 * How a run changed the browsers' congestion control from its shipped scenario (--field-trials, --bandwidth-estimation):
 * one phrase per change, [] for none. Such a run is an experiment on the paper's scenario, not its set-up.
 * @param {unknown} recorded the run's result.scenario, of any harness version (a field it lacks is the default)
 * @param {{ fieldTrials: string|null, bandwidthEstimation: string }} shipped the scenario file's own
 * @returns {string[]}
 */
export function congestionVariantOf(recorded, shipped) {
  const fieldTrials = fieldOf(recorded, 'fieldTrials') ?? null;
  const estimation = fieldOf(recorded, 'bandwidthEstimation');
  // A record is input: what it names goes into a message and onto a page only as a short plain text.
  const named = (/** @type {unknown} */ value, /** @type {RegExp} */ shape) => (typeof value === 'string' && shape.test(value) ? value : 'another');
  return [
    ...(fieldTrials !== shipped.fieldTrials ? [`field trials ${fieldTrials === null ? 'none' : named(fieldTrials, /^[\x21-\x7e]{1,300}$/)}`] : []),
    ...((estimation ?? 'send-side') !== shipped.bandwidthEstimation ? [`${named(estimation, /^[a-z-]{1,20}$/)} bandwidth estimation`] : []),
  ];
}

/**
 * A run's value of a kind field as the page names it: "not recorded" for a record without one; runs.json is a committed
 * file, and a value that is not a plain name (a hand-edited record) goes onto the page as "another".
 * @param {KindRun} run @param {typeof RUN_KINDS[number]} field
 */
function kindOf(run, field) {
  const value = run[field];
  if (typeof value !== 'string' || value === '') return 'not recorded';
  return /^[A-Za-z0-9 .()+-]{1,80}$/.test(value) ? value : 'another';
}

/**
 * The runs by their value of a field, in the order the values first appear.
 * @template {KindRun} T
 * @param {T[]} runs @param {typeof RUN_KINDS[number]} field
 * @returns {Array<{ kind: string, runs: T[] }>}
 */
export function groupsOf(runs, field) {
  /** @type {Map<string, T[]>} */
  const groups = new Map();
  for (const run of runs) groups.set(kindOf(run, field), [...(groups.get(kindOf(run, field)) ?? []), run]);
  return [...groups].map(([kind, mine]) => ({ kind, runs: mine }));
}

/** @param {KindRun[]} runs */
const repetitions = (runs) => `run${runs.length === 1 ? '' : 's'} ${runs.map((run) => run.repetition).join(', ')}`;

/**
 * How a row's runs differ, or '' when they do not: "emulator: relay (dgram) in runs 1, 2, relay (native) in run 3".
 * @param {KindRun[]} runs
 */
export function differencePhrase(runs) {
  return RUN_KINDS.map((field) => {
    const groups = groupsOf(runs, field);
    return groups.length > 1 ? `${field}: ${groups.map((g) => `${g.kind} in ${repetitions(g.runs)}`).join(', ')}` : '';
  }).filter(Boolean).join('; ');
}

/**
 * A figure per row and per kind of run: "Unconstrained: relay (dgram) 4.3 ms (runs 1, 2, 3), relay (native) 3.0 ms
 * (runs 4, 5)"; the median of the runs' values, rows without one left out; 'no runs yet' when none has one.
 * @template {KindRun & { values: Record<string, number> }} T
 * @param {{ path: string, by: typeof RUN_KINDS[number], unit: string }} measure
 * @param {Array<{ label: string, runs: T[] }>} rows each with its passed runs
 */
export function measuredPhrase({ path, by, unit }, rows) {
  const phrases = rows.flatMap(({ label, runs }) => {
    const groups = groupsOf(runs.filter((run) => Number.isFinite(run.values[path])), by).map(({ kind, runs: mine }) => {
      const values = mine.map((run) => run.values[path]).sort((a, b) => a - b);
      return `${kind} ${Number(percentile(values, 50)).toFixed(1)} ${unit} (${repetitions(mine)})`;
    });
    return groups.length ? [`${label}: ${groups.join(', ')}`] : [];
  });
  return phrases.join('; ') || 'no runs yet';
}

/**
 * What the page says of the records that do not name their audio loop: how many, and whether every one started before
 * speech became the default (so its checkout's commit generated the tone; an uncommitted change is not ruled out, as
 * those records did not keep their tree's state); '' when every record names it.
 * @param {Array<{ audio?: string|null, startedAt?: string|null }>} runs
 */
export function unrecordedAudioNote(runs) {
  const unrecorded = runs.filter((run) => typeof run.audio !== 'string' || run.audio === '');
  if (!unrecorded.length) return '';
  const since = Date.parse(SPEECH_DEFAULT_SINCE.committedAt);
  const before = unrecorded.every((run) => typeof run.startedAt === 'string' && Date.parse(run.startedAt) < since);
  return `${unrecorded.length} record${unrecorded.length === 1 ? ' does' : 's do'} not name the loop, made before the field`
    + (before ? `; all started before ${SPEECH_DEFAULT_SINCE.commit} of ${SPEECH_DEFAULT_SINCE.committedAt.slice(0, 10)} made speech `
      + 'the default, so their commits generated the tone, but they did not record uncommitted changes: the page does not '
      + 'assume it' : '');
}
