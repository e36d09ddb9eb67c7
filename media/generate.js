// Fake-device media for the browsers: .y4m video and .wav audio generated with ffmpeg, cached under media/cache/
// by a hash of the exact generator parameters (never committed). Chrome's built-in fake camera yields ~250 kbps,
// so the video has motion, texture and temporal noise an encoder must spend bits on, and the audio is not silence.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { EnvironmentError, InputError } from '../orchestrator/lib/errors.js';
import { DEFAULT_PRESET, PRESETS } from '../orchestrator/lib/media-presets.js';

export const CACHE_DIR = fileURLToPath(new URL('./cache/', import.meta.url));
const LOOP_S = 10;
const AUDIO_RATE_HZ = 48000;

/** ffmpeg arguments for a preset's video loop (pure; the cache key hashes them). */
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

/** ffmpeg arguments for the audio loop: a gliding tone under pink noise, pulsed like speech. */
export function audioArgs(outFile) {
  const source = `aevalsrc=0.25*sin(2*PI*(220+80*sin(2*PI*0.3*t))*t):s=${AUDIO_RATE_HZ}:d=${LOOP_S}`;
  const noise = `anoisesrc=color=pink:amplitude=0.08:sample_rate=${AUDIO_RATE_HZ}:duration=${LOOP_S}`;
  return ['-hide_banner', '-loglevel', 'error', '-y', '-f', 'lavfi', '-i', source, '-f', 'lavfi', '-i', noise,
    '-filter_complex', '[0][1]amix=inputs=2:normalize=0,tremolo=f=2.5:d=0.7', '-ac', '1', '-c:a', 'pcm_s16le', '-f', 'wav', outFile];
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

const hashOf = (args) => createHash('sha256').update(JSON.stringify(args)).digest('hex').slice(0, 12);

function runFfmpeg(args) {
  return new Promise((resolve, reject) => {
    const child = spawn('ffmpeg', args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => { stderr += chunk; });
    child.on('error', (/** @type {NodeJS.ErrnoException} */ error) => reject(error.code === 'ENOENT'
      ? new EnvironmentError('ffmpeg is not installed; run `npm run setup` (or apt-get install ffmpeg) to generate the test media')
      : error));
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`ffmpeg ${args.join(' ')} failed (${code}): ${stderr}`))));
  });
}

/** Generates `file` with ffmpeg unless it exists; writes to a temporary name and renames, so a crash leaves no half file. */
async function cached(file, makeArgs) {
  if (existsSync(file)) return file;
  await mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp${path.extname(file)}`;
  try {
    await runFfmpeg(makeArgs(tmp));
    await rename(tmp, file);
  } finally {
    await rm(tmp, { force: true });
  }
  return file;
}

/** Reads width, height and frame rate from a .y4m header. */
export async function readY4mHeader(file) {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (error) {
    throw new InputError(`--video ${file}: cannot open (${error.code}); give a preset (${Object.keys(PRESETS).join(', ')}) or an existing .y4m file`);
  }
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(256), 0, 256, 0);
    const header = buffer.subarray(0, bytesRead).toString('latin1').split('\n')[0];
    if (!header.startsWith('YUV4MPEG2 ')) throw new InputError(`--video ${file}: not a YUV4MPEG2 (.y4m) file; convert it with ffmpeg -i in.mp4 -f yuv4mpegpipe out.y4m`);
    const field = (letter) => header.split(' ').find((part) => part.startsWith(letter))?.slice(1);
    const [num, den] = (field('F') ?? '30:1').split(':').map(Number);
    return { width: Number(field('W')), height: Number(field('H')), fps: Number((num / den).toFixed(3)) };
  } finally {
    await handle.close();
  }
}

/**
 * @typedef {{ preset: string|null, video: string, audio: string, width: number, height: number, fps: number }} Media
 */

/**
 * The video and audio files for a preset name or a user .y4m path, generating them if needed.
 * @param {string} [video] preset name or path to a .y4m file
 * @returns {Promise<Media>}
 */
export async function ensureMedia(video = DEFAULT_PRESET) {
  const audio = await cached(path.join(CACHE_DIR, `audio-${hashOf(audioArgs('x'))}.wav`), audioArgs);
  if (PRESETS[video]) {
    const preset = PRESETS[video];
    const file = path.join(CACHE_DIR, `${video}-${hashOf(videoArgs(preset, 'x'))}.y4m`);
    await cached(file, (tmp) => videoArgs(preset, tmp));
    return { preset: video, video: file, audio, ...preset };
  }
  if (!video.endsWith('.y4m')) {
    throw new InputError(`--video ${video}: unknown preset and not a .y4m file; use one of ${Object.keys(PRESETS).join(', ')} or a path to a .y4m file`);
  }
  const file = path.resolve(video);
  return { preset: null, video: file, audio, ...(await readY4mHeader(file)) };
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
  return cached(path.join(CACHE_DIR, `${path.basename(media.video, '.y4m')}-capture-${key}.webm`), (tmp) => captureArgs(media, tmp));
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
 * @returns {Promise<Media & { peers: Record<string, PeerMedia> }>}
 * @typedef {'fake-device'|'media-element'} MediaSource
 * @typedef {Media & { source: MediaSource, capture?: string }} PeerMedia
 */
export async function ensureRunMedia(video, peers, perPeer = {}, sources = {}) {
  const runMedia = await ensureMedia(video);
  /** @type {Map<string, Media>} */
  const byPreset = new Map();
  // One after another: two generations at once would share the audio file's temporary name.
  for (const preset of new Set(Object.values(perPeer))) byPreset.set(preset, await ensureMedia(preset));
  /** @type {Record<string, PeerMedia>} */
  const byPeer = {};
  for (const peer of peers) {
    const media = byPreset.get(perPeer[peer]) ?? runMedia;
    const source = sources[peer] ?? 'fake-device';
    byPeer[peer] = source === 'media-element' ? { ...media, source, capture: await ensureCaptureFile(media) } : { ...media, source };
  }
  return { ...runMedia, peers: byPeer };
}

// `node media/generate.js [--capture] [preset...]` pre-generates presets (npm run setup does the default ones);
// --capture also their media-element WebMs, which a Firefox peer plays (setup does it where Firefox is installed).
if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const args = process.argv.slice(2);
  const presets = args.filter((arg) => arg !== '--capture');
  for (const preset of presets.length ? presets : [DEFAULT_PRESET]) {
    const media = await ensureMedia(preset);
    console.log(`${preset}: ${media.video} + ${media.audio}${args.includes('--capture') ? ` + ${await ensureCaptureFile(media)}` : ''}`);
  }
}
