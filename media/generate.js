// Fake-device media for the browsers: .y4m video and .wav audio generated with ffmpeg, cached under media/cache/
// by a hash of the exact generator parameters (never committed). Chrome's built-in fake camera yields ~250 kbps,
// so the video has motion, texture and temporal noise an encoder must spend bits on, and the audio is not silence.
// Every generated frame carries its frame code (client-app/frame-code.js) in its top sixth; `--mark` stamps a
// user's .y4m the same way.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { FRAME_CODE_VERSION } from '../client-app/frame-code.js';
import { EnvironmentError, InputError, errorCode, errorMessage, errorProperty } from '../orchestrator/lib/system/errors.js';
import { DEFAULT_PRESET, PRESETS } from '../orchestrator/lib/media/media-presets.js';
import { hasFrameCode, markY4mStream, readY4mLayout } from './y4m.js';
import { MARK_PARAMETERS, markedAudio } from '../orchestrator/lib/audio/lip-sync-marks.js';
import { readWavPcm, wavFile } from '../orchestrator/lib/audio/audio-windows.js';
import { TALK_AUDIO_VERSION, talkAudio } from '../orchestrator/lib/audio/talk.js';
import { SCREEN_VERSION, checkScreenFont, screenArgs, screenCaptureArgs } from './screen.js';

export const CACHE_DIR = fileURLToPath(new URL('./cache/', import.meta.url));
const LOOP_S = 10;
const AUDIO_RATE_HZ = 48000;

/**
 * ffmpeg arguments for a preset's video loop (pure; the cache key hashes them).
 * @param {{ width: number, height: number, fps: number }} preset @param {string} outFile
 */
export function videoArgs({ width, height, fps }, outFile) {
  const filter = [
    `testsrc2=size=${width}x${height}:rate=${fps}`,
    // A drifting hue and moving noise make every frame differ from the last.
    'hue=H=2*PI*t/5',
    'noise=alls=18:allf=t+u',
    'format=yuv420p',
  ].join(',');
  return ['-hide_banner', '-loglevel', 'error', '-y', '-f', 'lavfi', '-i', filter, '-t', String(LOOP_S), '-f', 'yuv4mpegpipe', outFile];
}

/** Three of the IEEE 1969 "Harvard" sentences (public domain), in two voices, each followed by its pause (s). */
const SPEECH = [
  { text: 'The birch canoe slid on the smooth planks.', voice: 'slt', pauseS: 0.7 },
  { text: 'Glue the sheet to the dark blue background.', voice: 'rms', pauseS: 0.9 },
  { text: 'Four hours of steady work faced us.', voice: 'slt', pauseS: 0.6 },
];

/**
 * ffmpeg arguments for the audio loop: speech with pauses, synthesised by ffmpeg's flite filter (libflite, in
 * Debian's and Ubuntu's ffmpeg), so audio quality (ViSQOL) scores what it was made for and the codec's voice activity
 * and the jitter buffer see talk spurts; at 16 kHz (flite's rate) resampled to 48 kHz, padded or cut to the loop.
 * @param {string} outFile
 */
export function audioArgs(outFile) {
  const parts = SPEECH.map(({ text, voice, pauseS }, i) => `flite=text='${text}':voice=${voice},apad=pad_dur=${pauseS}[s${i}]`);
  const joined = `${SPEECH.map((_, i) => `[s${i}]`).join('')}concat=n=${SPEECH.length}:v=0:a=1,aresample=${AUDIO_RATE_HZ},`
    + `apad=whole_dur=${LOOP_S},atrim=end=${LOOP_S},volume=-3dB`;
  return ['-hide_banner', '-loglevel', 'error', '-y', '-filter_complex', [...parts, joined].join(';'),
    '-ac', '1', '-ar', String(AUDIO_RATE_HZ), '-c:a', 'pcm_s16le', '-f', 'wav', outFile];
}

/**
 * ffmpeg arguments for the media-element source (pure): the video and audio loops muxed into one WebM (VP8 +
 * Opus) for a browser without file-backed fake devices (Firefox) to play and capture. Near-lossless (quantiser at
 * most 16): the receiver must see the source's texture and noise, not an encoder's smoothing of it.
 * @param {{ video: string, audio: string }} media @param {string} outFile
 */
export function captureArgs({ video, audio }, outFile) {
  return ['-hide_banner', '-loglevel', 'error', '-y', '-i', video, '-i', audio,
    '-c:v', 'libvpx', '-b:v', '40M', '-qmin', '0', '-qmax', '16', '-deadline', 'good', '-cpu-used', '5', '-g', '30',
    '-c:a', 'libopus', '-b:a', '128k', '-ac', '1', '-shortest', '-f', 'webm', outFile];
}

/** @param {unknown} args */
const hashOf = (args) => createHash('sha256').update(JSON.stringify(args)).digest('hex').slice(0, 12);

/** The default audio loop's file name: named by its arguments, so a result's media names the loop its peers sent. */
export const SPEECH_AUDIO_FILE = `audio-${hashOf(audioArgs('x'))}.wav`;

/**
 * Runs ffmpeg; with `onStdout`, its standard output is handed over (and awaited) instead of ignored.
 * @param {string[]} args @param {(stdout: import('node:stream').Readable) => Promise<unknown>} [onStdout]
 */
function runFfmpeg(args, onStdout) {
  return new Promise((resolve, reject) => {
    const child = spawn('ffmpeg', args, { stdio: ['ignore', onStdout ? 'pipe' : 'ignore', 'pipe'] });
    let stderr = '';
    // Both piped above whenever they are read.
    child.stderr?.on('data', (chunk) => { stderr += chunk; });
    const reading = onStdout && child.stdout ? onStdout(child.stdout).catch((error) => { child.kill(); throw error; }) : undefined;
    // Settles once ffmpeg has exited and, with onStdout, its output has been consumed.
    child.on('error', (/** @type {NodeJS.ErrnoException} */ error) => reject(errorCode(error) === 'ENOENT'
      ? new EnvironmentError('ffmpeg is not installed; run `npm run setup` (or apt-get install ffmpeg) to generate the test media')
      : error));
    child.on('exit', (code) => {
      if (code !== 0) reject(new Error(`ffmpeg ${args.join(' ')} failed (${code}): ${stderr}`));
      else Promise.resolve(reading).then(() => resolve(undefined), reject);
    });
  });
}

/** Writes a marked copy of a .y4m stream to `file`. @param {AsyncIterable<Buffer>} source @param {string} file @param {string} name */
async function writeMarked(source, file, name) {
  const sink = createWriteStream(file);
  try {
    const marked = await markY4mStream(source, sink, name);
    sink.end();
    await finished(sink);
    return marked;
  } catch (error) {
    sink.destroy();
    throw error;
  }
}

/**
 * Makes `file` with `produce(tmp)` unless it exists; writes to a temporary name and renames, so a crash leaves no half file.
 * @param {string} file @param {(tmp: string) => Promise<unknown>} produce
 */
async function cached(file, produce) {
  if (existsSync(file)) return file;
  await mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp${path.extname(file)}`;
  try {
    await produce(tmp);
    await rename(tmp, file);
  } finally {
    await rm(tmp, { force: true });
  }
  return file;
}

/**
 * Stamps the frame code into every frame of a user's .y4m (`node media/generate.js --mark in.y4m [out.y4m]`).
 * @param {string} input @param {string} [output] default: in.marked.y4m beside the input
 */
export async function markY4mFile(input, output = input.replace(/(\.y4m)?$/, '.marked.y4m')) {
  if (path.resolve(output) === path.resolve(input)) throw new InputError(`--mark ${input}: the output must be another file than the input`);
  await readY4mLayout(input, `--mark ${input}`);
  const tmp = `${output}.${process.pid}.tmp.y4m`;
  try {
    const marked = await writeMarked(createReadStream(input, { highWaterMark: 1 << 20 }), tmp, `--mark ${input}`);
    await rename(tmp, output);
    return { ...marked, file: output };
  } finally {
    await rm(tmp, { force: true });
  }
}

/**
 * The audio loop: the speech, or with lip-sync marks (lib/audio/lip-sync-marks.js) the speech marked, its audio
 * `audioDelayMs` late against the video. The marked file is keyed by the speech file, the marks' parameters and the delay.
 * @param {{ audioDelayMs: number }|null} lipSync
 */
async function ensureAudio(lipSync) {
  const speech = await cached(path.join(CACHE_DIR, SPEECH_AUDIO_FILE), (tmp) => runFfmpeg(audioArgs(tmp)));
  if (!lipSync) return speech;
  const key = hashOf({ speech: path.basename(speech), marks: MARK_PARAMETERS, audioDelayMs: lipSync.audioDelayMs });
  return cached(path.join(CACHE_DIR, `audio-lip-sync-${key}.wav`), async (tmp) => {
    const { rateHz, samples } = readWavPcm(await readFile(speech));
    await writeFile(tmp, wavFile(markedAudio(samples, rateHz, lipSync.audioDelayMs), rateHz));
  });
}

/**
 * A peer's talk file (lib/audio/talk.js talkAudio): the default speech in its spurts, silence elsewhere, one period long
 * (Chromium's fake microphone loops it). Keyed by the speech file, the spurts, the period and the generator's version.
 * @param {import('../orchestrator/lib/audio/talk.js').Spurts} spurts @param {number} periodS
 */
async function ensureTalkAudio(spurts, periodS) {
  const speech = await ensureAudio(null);
  const key = hashOf({ speech: path.basename(speech), spurts, periodS, version: TALK_AUDIO_VERSION });
  return cached(path.join(CACHE_DIR, `audio-talk-${key}.wav`), async (tmp) => {
    const { rateHz, samples } = readWavPcm(await readFile(speech));
    await writeFile(tmp, wavFile(talkAudio(samples, rateHz, spurts, periodS), rateHz));
  });
}

/**
 * @typedef {{ preset: string|null, video: string, audio: string, width: number, height: number, fps: number,
 *   frames: number, frameCode: boolean }} Media  frames: the video's length (the fake camera loops it);
 *   frameCode: whether its frames carry the frame code (generated media always; a user's file once marked)
 */

/**
 * The video and audio files for a preset name or a user .y4m path, generating them if needed.
 * @param {string} [video] preset name or path to a .y4m file
 * @param {{ audioDelayMs: number }|null} [lipSync]  the audio with lip-sync marks (ensureAudio)
 * @returns {Promise<Media>}
 */
export async function ensureMedia(video = DEFAULT_PRESET, lipSync = null) {
  const audio = await ensureAudio(lipSync);
  if (PRESETS[video]) {
    const preset = PRESETS[video];
    // The frame code's version is part of the key: a new code is a new file, and runs of the old one keep theirs.
    const file = path.join(CACHE_DIR, `${video}-${hashOf({ args: videoArgs(preset, 'x'), frameCode: FRAME_CODE_VERSION })}.y4m`);
    await cached(file, (tmp) => runFfmpeg(videoArgs(preset, 'pipe:1'), (stdout) => writeMarked(stdout, tmp, `preset ${video}`)));
    return { preset: video, video: file, audio, ...preset, frames: Math.round(LOOP_S * preset.fps), frameCode: true };
  }
  if (!video.endsWith('.y4m')) {
    throw new InputError(`--video ${video}: unknown preset and not a .y4m file; use one of ${Object.keys(PRESETS).join(', ')} or a path to a .y4m file`);
  }
  const file = path.resolve(video);
  const { width, height, fps, frames } = await readY4mLayout(file, `--video ${video}`);
  // The marks are frame codes of the video and tones of the audio: both must loop together.
  if (lipSync && (frames !== Math.round(LOOP_S * fps) || !await hasFrameCode(file))) {
    throw new InputError(`--video ${video}: lip sync needs a video of exactly ${LOOP_S} s (${Math.round(LOOP_S * fps)} frames at ${fps} fps, the audio loop's length) `
      + `carrying the frame code; it has ${frames} frames: use a preset, or cut and mark the video (node media/generate.js --mark)`);
  }
  return { preset: null, video: file, audio, width, height, fps, frames, frameCode: await hasFrameCode(file) };
}

/**
 * The WebM a media-element source plays (captureArgs), generated once per video and audio file. A user's .y4m is
 * keyed by its size and modification time as well, so an edited file is encoded again.
 * @param {Media} media
 * @returns {Promise<string>}
 */
export async function ensureCaptureFile(media) {
  const { size, mtimeMs } = await stat(media.video);
  const key = hashOf([captureArgs(media, 'x'), size, mtimeMs]);
  return cached(path.join(CACHE_DIR, `${path.basename(media.video, '.y4m')}-capture-${key}.webm`), (tmp) => runFfmpeg(captureArgs(media, tmp)));
}

/**
 * The screen-share source (media/screen.js) at a preset's size and rate: the marked slides as .y4m, the picture
 * quality's reference, and their lossless WebM, which the sharing page plays and captures. Keyed like a preset's video.
 * @param {string} preset
 * @returns {Promise<ScreenMedia>}
 * @typedef {{ video: string, capture: string, width: number, height: number, fps: number, frames: number, frameCode: boolean }} ScreenMedia
 */
export async function ensureScreenMedia(preset) {
  const layout = PRESETS[preset];
  if (!layout) throw new InputError(`screen share: ${preset} is not a video preset; use one of ${Object.keys(PRESETS).join(', ')}`);
  checkScreenFont();
  const key = hashOf({ args: screenArgs(layout, LOOP_S, 'x'), frameCode: FRAME_CODE_VERSION, version: SCREEN_VERSION });
  const video = path.join(CACHE_DIR, `screen-${preset}-${key}.y4m`);
  await cached(video, (tmp) => runFfmpeg(screenArgs(layout, LOOP_S, 'pipe:1'), (stdout) => writeMarked(stdout, tmp, `screen ${preset}`)));
  const capture = await cached(video.replace(/\.y4m$/, '.webm'), (tmp) => runFfmpeg(screenCaptureArgs(video, tmp)));
  return { video, capture, ...layout, frames: Math.round(LOOP_S * layout.fps), frameCode: true };
}

/** The preset a peer's screen is drawn at: its video's. @param {string} peer @param {string|null} preset */
function screenPreset(peer, preset) {
  if (preset) return preset;
  throw new InputError(`screen share: ${peer} sends a .y4m file of its own, and the slides are drawn at a preset's size; use --video <preset> (${Object.keys(PRESETS).join(', ')})`);
}

/**
 * ffmpeg arguments for a load participant's files (pure): the video as three VP8 simulcast layers in IVF (rid `f` at
 * the source's size, `h` at half, `q` at a quarter; a keyframe every 30 frames, so a PLI is answered from the file within
 * a second) or the audio as Opus in Ogg, one packet per page (sfu/load-peer reads a page as a packet).
 * @param {{ video: string, audio: string, width: number, height: number, fps: number }} media @param {'f'|'h'|'q'|'audio'} part
 * @param {string} outFile
 */
export function loadMediaArgs({ video, audio, width, height, fps }, part, outFile) {
  const head = ['-hide_banner', '-loglevel', 'error', '-y'];
  if (part === 'audio') return [...head, '-i', audio, '-c:a', 'libopus', '-b:a', '32k', '-ac', '1', '-page_duration', '20000', '-f', 'ogg', outFile];
  const scale = { f: 1, h: 2, q: 4 }[part];
  // Even sizes, as a browser's simulcast layers; about 0.1 bit per pixel, near what Chromium spends at 360p.
  const [w, h] = [width, height].map((size) => 2 * Math.max(1, Math.round(size / scale / 2)));
  const kbps = Math.max(30, Math.round((w * h * fps * 0.1) / 1000));
  return [...head, '-i', video, '-vf', `scale=${w}:${h}`, '-c:v', 'libvpx', '-deadline', 'realtime', '-cpu-used', '8', '-g', '30',
    '-keyint_min', '30', '-b:v', `${kbps}k`, '-an', '-f', 'ivf', outFile];
}

/**
 * A load participant's files (loadMediaArgs) in a folder of their own, made once per video and audio file.
 * @param {Media} media @returns {Promise<string>} the folder: f.ivf, h.ivf, q.ivf, audio.ogg
 */
export async function ensureLoadMedia(media) {
  const [video, audio] = await Promise.all([stat(media.video), stat(media.audio)]);
  const key = hashOf([loadMediaArgs(media, 'f', 'x'), loadMediaArgs(media, 'audio', 'x'), video.size, video.mtimeMs, audio.size, audio.mtimeMs]);
  const dir = path.join(CACHE_DIR, `${path.basename(media.video, '.y4m')}-load-${key}`);
  for (const part of /** @type {const} */ (['f', 'h', 'q', 'audio'])) {
    await cached(path.join(dir, part === 'audio' ? 'audio.ogg' : `${part}.ivf`), (tmp) => runFfmpeg(loadMediaArgs(media, part, tmp)));
  }
  return dir;
}

/**
 * A run's media: the run's own (`video`, the CLI's --video) with, per peer, the files its browser sends: the
 * scenario's preset for that peer (its `media` field), else the run's. Peers with the same choice share files. How a
 * peer's browser reads them is its `source`: `fake-device` (Chromium's fake camera and microphone read the .y4m and
 * .wav) or `media-element` (the page plays `capture`, a WebM of both, in a <video> and sends its captureStream()).
 * @param {string|undefined} video
 * @param {string[]} peers
 * @param {Record<string, string>} [perPeer]  peer → preset, validated by the scenario loader
 * @param {Record<string, MediaSource>} [sources]  peer → how its browser reads the media; default fake-device
 * @param {{ audioDelayMs: number }|null} [lipSync]  every peer's audio carries the lip-sync marks (ensureAudio)
 * @param {import('../orchestrator/lib/audio/talk.js').TalkPattern|null} [talk]  the named peers' audio is their talk file
 * @param {import('../orchestrator/lib/media/screen-share.js').ScreenShare|null} [screenShare]  the named peers also send
 *   a screen (ensureScreenMedia) at their video's preset
 * @returns {Promise<Media & { peers: Record<string, PeerMedia> }>}
 * @typedef {'fake-device'|'media-element'} MediaSource
 * @typedef {Media & { source: MediaSource, capture?: string, screen?: ScreenMedia }} PeerMedia
 */
export async function ensureRunMedia(video, peers, perPeer = {}, sources = {}, lipSync = null, talk = null, screenShare = null) {
  const runMedia = await ensureMedia(video, lipSync);
  /** @type {Map<string, Media>} */
  const byPreset = new Map();
  // One after another: two generations at once would share the audio file's temporary name.
  for (const preset of new Set(Object.values(perPeer))) byPreset.set(preset, await ensureMedia(preset, lipSync));
  /** @type {Record<string, PeerMedia>} */
  const byPeer = {};
  for (const peer of peers) {
    const spurts = talk?.peers[peer];
    const shared = byPreset.get(perPeer[peer]) ?? runMedia;
    const media = talk && spurts ? { ...shared, audio: await ensureTalkAudio(spurts, talk.periodS) } : shared;
    const source = sources[peer] ?? 'fake-device';
    // A media element loops a WebM cut to the video's 10 s: the talk file's period would be lost.
    if (spurts && source === 'media-element') throw new InputError(`talk: peer ${peer} runs Firefox, which has no file-backed microphone; speaking turns need Chromium peers`);
    byPeer[peer] = source === 'media-element' ? { ...media, source, capture: await ensureCaptureFile(media) } : { ...media, source };
    if (screenShare?.peers.includes(peer)) byPeer[peer].screen = await ensureScreenMedia(screenPreset(peer, media.preset));
  }
  return { ...runMedia, peers: byPeer };
}

// `node media/generate.js [--capture] [preset...]` pre-generates presets (npm run setup does the default ones);
// --capture also their media-element WebMs, which a Firefox peer plays (setup does it where Firefox is installed).
// `node media/generate.js --mark in.y4m [out.y4m]` writes a copy of a user's video with the frame code in every frame.
if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const args = process.argv.slice(2);
  try {
    if (args[0] === '--mark') {
      if (!args[1]) throw new InputError('--mark needs a .y4m file: node media/generate.js --mark in.y4m [out.y4m]');
      const marked = await markY4mFile(args[1], args[2]);
      console.log(`${marked.file}: ${marked.frames} frames of ${marked.width}x${marked.height} at ${marked.fps} fps, each with its frame code`);
    } else {
      const presets = args.filter((arg) => arg !== '--capture');
      for (const preset of presets.length ? presets : [DEFAULT_PRESET]) {
        const media = await ensureMedia(preset);
        console.log(`${preset}: ${media.video} + ${media.audio}${args.includes('--capture') ? ` + ${await ensureCaptureFile(media)}` : ''}`);
      }
    }
  } catch (error) {
    console.error(errorMessage(error));
    process.exitCode = Number(errorProperty(error, 'exitCode') ?? 1);
  }
}
