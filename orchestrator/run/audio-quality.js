// Audio quality of what each page played out, after the run (the browsers are closed, so ViSQOL has the cores): each
// recording (run/audio-collector.js) cut into windows of the measurement range, each window aligned with the sender's
// looping .wav (lib/audio/audio-windows.js), written as a pair of 48 kHz WAV files and scored by ViSQOL v3 (PyPI
// visqol-python, in the venv `npm run setup` made: run/visqol-score.py) in one Python process for all pairs, whose
// command is logged among the run's commands. As for VMAF (run/picture-quality.js), Python runs isolated (-I) from
// the venv, with argv only of paths; a scoring failure is a warning, the rest of the result stands.
import { execFile } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { shellJoin } from '../emulators/script.js';
import { AUDIO_WINDOW_S, MIN_SOUND_SHARE, alignWithLoop, loopSlice, mosSpread, readWavPcm, scoringWindows, soundShare, wavFile } from '../lib/audio/audio-windows.js';
import { errorCode, errorMessage } from '../lib/system/errors.js';
import { VISQOL_PACKAGES, VMAF_VENV } from '../lib/system/paths.js';
import { RECORDING_RATE_HZ } from './audio-input.js';
import { errorStderr as stderrOf } from './picture-quality.js';

const run = promisify(execFile);
export const VISQOL_SCRIPT = fileURLToPath(new URL('./visqol-score.py', import.meta.url));
/** Scoring's limit: ~3 s a window with numba, ~21 s without, plus a first compile of ~25 s that numba caches. */
const SCORING_TIMEOUT_MS = 30 * 60 * 1000;

/**
 * @typedef {import('../lib/audio/audio-windows.js').VisqolAvailability} VisqolAvailability
 * @typedef {import('../lib/audio/audio-windows.js').ScoredWindow} ScoredWindow
 * @typedef {import('../lib/audio/audio-windows.js').ScoredStream} ScoredStream
 * @typedef {import('../lib/audio/audio-windows.js').AudioQuality} AudioQuality
 */

/**
 * Whether ViSQOL can score: the venv's python imports visqol (and says whether numba is there to speed it up).
 * @param {{ python?: string }} [where]  the venv's bin/python (default: the one `npm run setup` made)
 * @returns {Promise<VisqolAvailability>}
 */
export async function visqolAvailability({ python: given = path.join(VMAF_VENV, 'bin', 'python') } = {}) {
  const python = path.resolve(given);
  const venv = path.dirname(path.dirname(python));
  try {
    const { stdout } = await run(python, ['-I', '-c', 'import visqol, importlib.util as u; print(visqol.__version__, bool(u.find_spec("numba")))'], { cwd: venv });
    const [version, numba] = stdout.trim().split(' ');
    return { available: true, reason: `scored by visqol-python ${version}${numba === 'True' ? ' with numba' : ' without numba (slow)'}`, python, version };
  } catch (error) {
    const why = errorCode(error) === 'ENOENT' ? `${python} does not exist` : stderrOf(error)?.trim().split('\n').at(-1) ?? errorMessage(error);
    return { available: false, reason: `no visqol-python to score audio with (${why}); run \`npm run setup\` (installs ${VISQOL_PACKAGES[0]})` };
  }
}

/**
 * Scores every recording's windows within [fromS, toS] of the media clock against its sender's audio file.
 * @param {{ recordings: Iterable<import('./audio-collector.js').Recording>, media: Record<string, { audio: string }>,
 *   mode: string, mediaStartEpochMs: number, fromS: number, toS: number, workDir: string, scorer: VisqolAvailability,
 *   logCommand: (record: import('../emulators/contract.js').CommandRecord) => void, clockS: () => number, windowS?: number }} input
 * @returns {Promise<AudioQuality>}
 */
export async function scoreAudio({
  recordings, media, mode, mediaStartEpochMs, fromS, toS, workDir, scorer, logCommand, clockS, windowS = AUDIO_WINDOW_S,
}) {
  /** @type {ScoredStream[]} */
  const streams = [];
  /** @type {Array<{ window: ScoredWindow, files: [string, string] }>} */
  const pairs = [];
  for (const recording of recordings) {
    const reference = readWavPcm(await readFile(media[recording.remote].audio));
    if (reference.rateHz !== RECORDING_RATE_HZ) throw new Error(`${media[recording.remote].audio}: ${reference.rateHz} Hz; the scorer compares at ${RECORDING_RATE_HZ}`);
    const received = await readPcm(recording.file);
    const recordingStartS = (recording.firstSampleEpochMs - mediaStartEpochMs) / 1000;
    const windows = scoringWindows({ recordingStartS, samples: received.length, rateHz: RECORDING_RATE_HZ, fromS, toS, windowS });
    /** @type {ScoredWindow[]} */
    const scored = [];
    for (const { startS, endS, fromSample, toSample } of windows) {
      const part = received.subarray(fromSample, toSample);
      const { offset, correlation } = alignWithLoop(reference.samples, part);
      const referencePart = loopSlice(reference.samples, offset, part.length);
      const share = soundShare(referencePart);
      /** @type {ScoredWindow} */
      const window = { startS, endS, offsetMs: Math.round(offset / (RECORDING_RATE_HZ / 1000)), correlation: Number(correlation.toFixed(3)),
        soundShare: Number(share.toFixed(2)), mosLqo: null };
      scored.push(window);
      if (share < MIN_SOUND_SHARE) {
        window.skipped = `the reference is sound for ${Math.round(share * 100)} % of it (under ${MIN_SOUND_SHARE * 100} %)`;
        continue;
      }
      const files = /** @type {[string, string]} */ ([0, 1].map((i) => path.join(workDir, `window-${pairs.length}-${i ? 'received' : 'reference'}.wav`)));
      await writeFile(files[0], wavFile(referencePart, RECORDING_RATE_HZ));
      await writeFile(files[1], wavFile(part, RECORDING_RATE_HZ));
      pairs.push({ window, files });
    }
    streams.push({ peer: recording.peer, remote: recording.remote, recordedS: Number((received.length / RECORDING_RATE_HZ).toFixed(1)),
      droppedSamples: recording.droppedSamples, windows: scored, mosLqo: null });
  }
  const startedMs = Date.now();
  const failure = scorer.available && scorer.python && pairs.length
    ? await runVisqol({ python: scorer.python, mode, pairs, logCommand, clockS })
    : null;
  const scoringS = Number(((Date.now() - startedMs) / 1000).toFixed(1));
  await Promise.all(pairs.flatMap(({ files }) => files.map((file) => rm(file, { force: true }))));
  for (const stream of streams) stream.mosLqo = mosSpread(stream.windows);
  return { mode, windowS, scorer, streams, overall: mosSpread(streams.flatMap((stream) => stream.windows)), scoringS, failure };
}

/**
 * One Python process scores every pair; its scores go into the pairs' windows. A failure of the whole run is returned.
 * @param {{ python: string, mode: string, pairs: Array<{ window: ScoredWindow, files: [string, string] }>,
 *   logCommand: (record: import('../emulators/contract.js').CommandRecord) => void, clockS: () => number }} input
 * @returns {Promise<string|null>}
 */
async function runVisqol({ python, mode, pairs, logCommand, clockS }) {
  const argv = [python, '-I', VISQOL_SCRIPT, mode, ...pairs.flatMap(({ files }) => files)];
  const atS = Number(clockS().toFixed(3));
  try {
    const options = { cwd: path.dirname(path.dirname(python)), timeout: SCORING_TIMEOUT_MS, maxBuffer: 1 << 22 };
    const { stdout } = await run(argv[0], argv.slice(1), options);
    const scores = JSON.parse(stdout.trim().split('\n').at(-1) ?? '').scores;
    if (!Array.isArray(scores) || scores.length !== pairs.length) throw new Error(`expected ${pairs.length} scores, got ${stdout.slice(0, 200)}`);
    pairs.forEach(({ window }, i) => {
      const mos = scores[i]?.mosLqo;
      if (typeof mos === 'number' && Number.isFinite(mos)) window.mosLqo = Number(mos.toFixed(3));
      else window.skipped = `ViSQOL failed: ${String(scores[i]?.error).slice(0, 300)}`;
    });
    logCommand({ atS, cmd: shellJoin(argv), ok: true });
    return null;
  } catch (error) {
    const stderr = stderrOf(error)?.trim().slice(-2000) || errorMessage(error);
    logCommand({ atS, cmd: shellJoin(argv), ok: false, stderr });
    return `ViSQOL failed: ${stderr}`;
  }
}

/** A recording's 16-bit little-endian samples. @param {string} file @returns {Promise<Int16Array>} */
async function readPcm(file) {
  const read = await readFile(file);
  const bytes = read.byteOffset % 2 ? Buffer.from(read) : read; // an Int16Array view needs an even offset
  return new Int16Array(bytes.buffer, bytes.byteOffset, Math.floor(bytes.length / 2));
}
