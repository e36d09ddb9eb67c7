// Media generation and user-supplied .y4m files (real ffmpeg).
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { codeStripHeight, readFrameCode } from '../client-app/frame-code.js';
import { CACHE_DIR, ensureCaptureFile, ensureMedia } from '../media/generate.js';
import { PRESETS } from '../orchestrator/lib/media/media-presets.js';
import { tempDir } from './helpers/cli.js';

test('a preset is generated once and cached by its parameters, with no temporary file left', async () => {
  const first = await ensureMedia('360p30');
  const second = await ensureMedia('360p30');
  assert.equal(second.video, first.video);
  assert.deepEqual([first.width, first.height, first.fps], [PRESETS['360p30'].width, PRESETS['360p30'].height, 30]);
  assert.ok(existsSync(first.audio) && first.audio.endsWith('.wav'));
  assert.deepEqual(readdirSync(CACHE_DIR).filter((name) => name.includes('.tmp')), []);
});

test('the generated audio is not silence and the video is not a still frame', async () => {
  const { video, audio } = await ensureMedia('360p30');
  // ffmpeg prints its analysis on stderr.
  const ffmpegReport = (args) => execFileSync('sh', ['-c', `ffmpeg -hide_banner ${args} -f null - 2>&1`], { encoding: 'utf8' });
  const meanDb = Number(/mean_volume: (-?[\d.]+) dB/.exec(ffmpegReport(`-i ${audio} -af volumedetect`))?.[1]);
  assert.ok(meanDb > -40, `mean volume ${meanDb} dB`);
  // Consecutive frames differ (motion and temporal noise): mean luma difference to the previous frame well above 0.
  const diff = ffmpegReport(`-i ${video} -frames:v 3 -vf "signalstats,metadata=print:key=lavfi.signalstats.YDIF"`);
  const ydif = [...diff.matchAll(/YDIF=([\d.]+)/g)].map((m) => Number(m[1])).slice(1);
  assert.ok(ydif.length >= 2 && ydif.every((d) => d > 1), `mean luma difference between frames: ${ydif.join(', ')}`);
});

test('the media-element WebM a Firefox peer plays is the same video and audio: VP8 + Opus, same size, rate and length, ~lossless', async () => {
  const media = await ensureMedia('360p30');
  const capture = await ensureCaptureFile(media);
  assert.equal(await ensureCaptureFile(media), capture, 'encoded once, then cached');
  const probe = JSON.parse(execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'stream=codec_name,width,height,r_frame_rate',
    '-show_entries', 'format=duration', '-of', 'json', capture], { encoding: 'utf8' }));
  assert.deepEqual(probe.streams.map((stream) => stream.codec_name), ['vp8', 'opus']);
  assert.deepEqual([probe.streams[0].width, probe.streams[0].height, probe.streams[0].r_frame_rate], [640, 360, '30/1']);
  assert.ok(Math.abs(Number(probe.format.duration) - 10) < 0.1, `duration ${probe.format.duration} s`);
  // Frame by frame against the .y4m the Chromium peers read: an encoder's smoothing of the noise would show here.
  const psnr = execFileSync('sh', ['-c', `ffmpeg -hide_banner -i ${capture} -i ${media.video} -lavfi "[0:v][1:v]psnr" -frames:v 60 -f null - 2>&1`], { encoding: 'utf8' });
  const averageDb = Number(/PSNR .*average:([\d.]+)/.exec(psnr)?.[1]);
  assert.ok(averageDb > 40, `PSNR against the source ${averageDb} dB`);
  // Encoded from the marked .y4m: every frame a Firefox peer sends carries its frame code, in source order.
  const frames = 60;
  const luma = execFileSync('ffmpeg', ['-loglevel', 'error', '-i', capture, '-frames:v', String(frames), '-pix_fmt', 'gray', '-f', 'rawvideo', 'pipe:1'],
    { maxBuffer: 64 * 1024 * 1024 });
  const size = media.width * media.height;
  const codeOf = (i) => readFrameCode(luma.subarray(i * size, (i + 1) * size), media.width, codeStripHeight(media.height))?.code;
  const codes = Array.from({ length: frames }, (_, i) => codeOf(i));
  assert.deepEqual(codes, Array.from({ length: frames }, (_, i) => i));
});

test('a user .y4m is used as is, its size and rate read from the header', async () => {
  const file = path.join(tempDir(), 'mine.y4m');
  execFileSync('ffmpeg', ['-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc2=size=160x90:rate=25', '-frames:v', '3', '-f', 'yuv4mpegpipe', file]);
  const media = await ensureMedia(file);
  assert.deepEqual({ preset: media.preset, video: media.video, width: media.width, height: media.height, fps: media.fps },
    { preset: null, video: file, width: 160, height: 90, fps: 25 });
});

test('bad --video values are input errors naming the flag and what to give instead', async () => {
  const notY4m = path.join(tempDir(), 'clip.y4m');
  writeFileSync(notY4m, 'RIFF....');
  await assert.rejects(ensureMedia('4k60'), { name: 'InputError', message: /--video 4k60: unknown preset .*360p30, 360p15, 720p30, 1080p50/ });
  await assert.rejects(ensureMedia(notY4m), { name: 'InputError', message: /not a YUV4MPEG2 \(\.y4m\) file; convert it with ffmpeg/ });
  await assert.rejects(ensureMedia('/nonexistent/x.y4m'), { name: 'InputError', message: /--video \/nonexistent\/x\.y4m: cannot open \(ENOENT\)/ });
});

test('generated media carry the frame code; a user .y4m gets it with --mark, and the media say which has it', async () => {
  const preset = await ensureMedia('360p30');
  assert.deepEqual([preset.frameCode, preset.frames], [true, 300]);
  const dir = tempDir();
  const plain = path.join(dir, 'plain.y4m');
  execFileSync('ffmpeg', ['-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc2=size=320x180:rate=25', '-frames:v', '4', '-pix_fmt', 'yuv420p', '-f', 'yuv4mpegpipe', plain]);
  const generator = new URL('../media/generate.js', import.meta.url).pathname;
  const printed = execFileSync(process.execPath, [generator, '--mark', plain], { encoding: 'utf8' });
  assert.match(printed, /plain\.marked\.y4m: 4 frames of 320x180 at 25 fps/);
  assert.deepEqual([(await ensureMedia(plain)).frameCode, (await ensureMedia(path.join(dir, 'plain.marked.y4m'))).frameCode], [false, true]);
  const refused = spawnSync(process.execPath, [generator, '--mark', path.join(dir, 'none.y4m')], { encoding: 'utf8' });
  assert.equal(refused.status, 2);
  assert.match(refused.stderr, /--mark .*none\.y4m: cannot open \(ENOENT\)/);
});
