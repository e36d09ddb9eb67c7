// The frame code (client-app/frame-code.js) and the .y4m marker (media/y4m.js): round trips at the sizes the
// encoder scales to, through noise, and through a real lossy ffmpeg encode at 160x90.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { createReadStream, createWriteStream, readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import { test } from 'node:test';
import { CODE_MODULUS, MIN_MARGIN_LUMA, codeStripHeight, readFrameCode, stampFrameCode } from '../../client-app/frame-code.js';
import { markY4mStream, readY4mLayout } from '../../media/y4m.js';

/** A deterministic noisy textured luma plane. */
function texturedLuma(width, height, seed = 1) {
  const luma = new Uint8Array(width * height);
  let state = seed;
  for (let i = 0; i < luma.length; i += 1) {
    state = (state * 1103515245 + 12345) >>> 0;
    luma[i] = ((i % width) * 7 + Math.floor(i / width) * 3 + (state >>> 24)) & 0xff;
  }
  return luma;
}

/** Area-average downscale (what a scaler does at worst: every output pixel mixes its neighbours). */
function downscale(luma, width, height, toWidth, toHeight) {
  const out = new Uint8Array(toWidth * toHeight);
  for (let y = 0; y < toHeight; y += 1) {
    for (let x = 0; x < toWidth; x += 1) {
      const span = (i, from, to) => {
        const start = Math.floor((i * from) / to);
        return [start, Math.max(start + 1, Math.floor(((i + 1) * from) / to))];
      };
      const [x0, x1] = span(x, width, toWidth);
      const [y0, y1] = span(y, height, toHeight);
      let sum = 0;
      for (let yy = y0; yy < y1; yy += 1) for (let xx = x0; xx < x1; xx += 1) sum += luma[yy * width + xx];
      out[y * toWidth + x] = Math.round(sum / ((x1 - x0) * (y1 - y0)));
    }
  }
  return out;
}

test('a code survives every size the encoder scales a 720p or 360p source to, down to 160x90', () => {
  for (const [width, height] of [[1280, 720], [640, 360]]) {
    for (const code of [0, 1, 299, 0x5a5a, CODE_MODULUS - 1]) {
      const luma = texturedLuma(width, height, code + 7);
      stampFrameCode(luma, width, height, code);
      for (const [toWidth, toHeight] of [[width, height], [960, 540], [480, 270], [426, 240], [320, 180], [160, 90]]) {
        if (toWidth > width) continue;
        const scaled = downscale(luma, width, height, toWidth, toHeight);
        const read = readFrameCode(scaled, toWidth, codeStripHeight(toHeight));
        assert.equal(read?.code, code, `${width}x${height} -> ${toWidth}x${toHeight}, code ${code}`);
      }
    }
  }
});

test('the code reads from RGBA (a canvas) and from the strip alone, and wraps at the modulus', () => {
  const [width, height] = [320, 180];
  const luma = texturedLuma(width, height);
  stampFrameCode(luma, width, height, CODE_MODULUS + 5);
  const strip = codeStripHeight(height);
  const rgba = new Uint8ClampedArray(width * strip * 4);
  for (let i = 0; i < width * strip; i += 1) rgba.fill(luma[i], 4 * i, 4 * i + 3).fill(255, 4 * i + 3, 4 * i + 4);
  assert.equal(readFrameCode(rgba, width, strip, 4)?.code, 5);
  // The page draws the strip into a 64x8 canvas.
  assert.equal(readFrameCode(downscale(luma.subarray(0, width * strip), width, strip, 64, 8), 64, 8)?.code, 5);
});

test('noise is tolerated; a frame without a code, or with a smeared bit, reads as no code', () => {
  const [width, height] = [640, 360];
  const luma = texturedLuma(width, height);
  stampFrameCode(luma, width, height, 1234);
  const noisy = luma.map((value, i) => Math.min(255, Math.max(0, value + ((i * 7919) % 61) - 30)));
  assert.equal(readFrameCode(noisy, width, codeStripHeight(height))?.code, 1234);
  assert.equal(readFrameCode(texturedLuma(width, height), width, codeStripHeight(height)), null);
  // One column greyed: its pair differs by less than the margin.
  const smeared = luma.slice();
  for (let y = 0; y < codeStripHeight(height); y += 1) smeared.fill(128, y * width + 200, y * width + 240);
  assert.equal(readFrameCode(smeared, width, codeStripHeight(height)), null);
  assert.ok(MIN_MARGIN_LUMA > 30);
});


/** @param {string} cmd @param {string[]} args @returns {import('node:child_process').ChildProcessWithoutNullStreams} */
const run = (cmd, args) => spawn(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'] });

test('a marked .y4m keeps its codes through a lossy VP8 encode at 160x90 (real ffmpeg)', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'frame-code-'));
  const marked = path.join(dir, 'marked.y4m');
  const frames = 45;
  const source = run('ffmpeg', ['-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc2=size=640x360:rate=30,noise=alls=18:allf=t+u,format=yuv420p',
    '-frames:v', String(frames), '-f', 'yuv4mpegpipe', 'pipe:1']);
  const sink = createWriteStream(marked);
  const result = await markY4mStream(source.stdout, sink, 'test');
  sink.end();
  await finished(sink);
  assert.deepEqual(result, { width: 640, height: 360, fps: 30, frames });
  assert.equal((await readY4mLayout(marked)).frames, frames);

  // 60 kbps at 160x90: far below what the texture needs, so the picture is heavily quantised.
  const webm = path.join(dir, 'lossy.webm');
  execFileSync('ffmpeg', ['-loglevel', 'error', '-i', marked, '-vf', 'scale=160:90', '-c:v', 'libvpx', '-b:v', '60k', '-deadline', 'realtime', '-cpu-used', '8', webm]);
  const gray = execFileSync('ffmpeg', ['-loglevel', 'error', '-i', webm, '-f', 'rawvideo', '-pix_fmt', 'gray', 'pipe:1'], { maxBuffer: 1 << 26 });
  const size = 160 * 90;
  const codes = Array.from({ length: gray.length / size },
    (_, i) => readFrameCode(gray.subarray(i * size, (i + 1) * size), 160, codeStripHeight(90))?.code ?? null);
  assert.deepEqual(codes, Array.from({ length: frames }, (_, i) => i));
  // The marked copy of an existing file (the --mark path) reads back the same.
  const again = path.join(dir, 'again.y4m');
  const out = createWriteStream(again);
  await markY4mStream(createReadStream(marked), out, 'again');
  out.end();
  await finished(out);
  assert.deepEqual(readFileSync(again), readFileSync(marked));
});
