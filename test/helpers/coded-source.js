// A small frame-coded source for the picture-quality tests: 20 frames of 320x180 from ffmpeg's testsrc2 with noise,
// coded as the media generator codes them, and the captures a page would file for it.
import { execFileSync, spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { open, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import { markY4mStream, readLuma, readY4mLayout } from '../../media/y4m.js';

/**
 * Writes dir/source.y4m; `frame(i)` reads a frame's luma, `halfSize(luma)` scales it to 160x90, `capture(…)` files it.
 * @param {string} dir
 */
export async function codedSource(dir) {
  const video = path.join(dir, 'source.y4m');
  const source = spawn('ffmpeg', ['-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc2=size=320x180:rate=30,noise=alls=10:allf=t+u,format=yuv420p',
    '-frames:v', '20', '-f', 'yuv4mpegpipe', 'pipe:1'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const sink = createWriteStream(video);
  await markY4mStream(source.stdout, sink, 'source');
  sink.end();
  await finished(sink);
  const layout = await readY4mLayout(video);
  const handle = await open(video, 'r');
  return {
    video,
    /** @param {number} index */
    frame: (index) => readLuma(handle, layout, index),
    /** @param {Buffer} luma */
    halfSize: (luma) => execFileSync('ffmpeg', ['-loglevel', 'error', '-f', 'rawvideo', '-pix_fmt', 'gray', '-s', '320x180', '-i', 'pipe:0',
      '-vf', 'scale=160:90', '-f', 'rawvideo', '-pix_fmt', 'gray', 'pipe:1'], { input: luma }),
    /**
     * A capture p1 filed of p0's video.
     * @param {string} name @param {Buffer} luma @param {number} code @param {number} width @param {number} height
     */
    capture: async (name, luma, code, width, height) => {
      const file = path.join(dir, `${name}.gray`);
      await writeFile(file, luma);
      return { peer: 'p1', remote: 'p0', epochMs: 1e12 + code, code, width, height, file };
    },
    close: () => handle.close(),
  };
}
