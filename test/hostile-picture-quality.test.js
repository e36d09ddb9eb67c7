// The picture-quality step (orchestrator/run/picture-quality.js) against what it is run from and run in: a Python
// module planted in the directory the harness is started from (which runs as root under netem), a venv Python that
// names an ffmpeg outside the venv, and a run directory (--out) whose name is ffmpeg filter-graph syntax. Real
// ffmpeg and the set-up's imageio-ffmpeg (`npm run setup`); about 5 s.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { createWriteStream, existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, open, readdir, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import { test } from 'node:test';
import { markY4mStream, readLuma, readY4mLayout } from '../media/y4m.js';
import { IDENTICAL_PSNR_DB, scoreCaptures, vmafAvailability } from '../orchestrator/run/picture-quality.js';
import { VMAF_VENV } from '../orchestrator/lib/system/paths.js';

/** @param {import('node:test').TestContext} t @param {string[]} paths removed after the test */
const removeAfter = (t, ...paths) => t.after(() => Promise.all(paths.map((file) => rm(file, { recursive: true, force: true }))));

/**
 * Runs work with the process's working directory at dir, as if the harness had been started there.
 * @template T @param {string} dir @param {() => Promise<T>} work @returns {Promise<T>}
 */
async function startedIn(dir, work) {
  const before = process.cwd();
  process.chdir(dir);
  try {
    return await work();
  } finally {
    process.chdir(before);
  }
}

test('an imageio_ffmpeg.py planted in the working directory is not imported, and the ffmpeg chosen is the venv\'s', async (t) => {
  const planted = await mkdtemp(path.join(os.tmpdir(), 'planted-python-'));
  removeAfter(t, planted);
  const marker = path.join(planted, 'planted-module-ran');
  await writeFile(path.join(planted, 'imageio_ffmpeg.py'), [
    `open(${JSON.stringify(marker)}, 'w').close()`,
    '__version__ = "planted"',
    'def get_ffmpeg_exe(): return "/bin/false"', ''].join('\n'));
  const vmaf = await startedIn(planted, () => vmafAvailability());
  assert.equal(existsSync(marker), false, 'the planted module ran');
  assert.equal(vmaf.available, true, vmaf.reason);
  assert.ok(vmaf.ffmpeg?.startsWith(await realpath(VMAF_VENV) + path.sep), `ffmpeg ${vmaf.ffmpeg} is the venv's`);
  assert.match(vmaf.version ?? '', /\(imageio-ffmpeg \d/);
});

test('a venv whose Python names an ffmpeg outside the venv, or a relative one, is refused before that ffmpeg runs', async (t) => {
  const venv = await mkdtemp(path.join(os.tmpdir(), 'fake-venv-'));
  await mkdir(path.join(venv, 'bin'));
  const python = path.join(venv, 'bin', 'python');
  const marker = path.join(venv, 'named-ffmpeg-ran');
  const outside = path.join(os.tmpdir(), `${path.basename(venv)}-ffmpeg`);
  removeAfter(t, venv, outside);
  await writeFile(outside, `#!/bin/sh\ntouch ${marker}\n`);
  await chmod(outside, 0o755);
  for (const named of [outside, 'ffmpeg']) {
    await writeFile(python, `#!/bin/sh\necho '${named}'\necho 0.8.1\n`);
    await chmod(python, 0o755);
    const vmaf = await vmafAvailability({ python });
    assert.equal(vmaf.available, false, `${named}: ${vmaf.reason}`);
    assert.equal(vmaf.ffmpeg, undefined);
    assert.match(vmaf.reason, /not an executable file inside .*npm run setup/);
  }
  assert.equal(existsSync(marker), false, 'the named ffmpeg ran');
});

/**
 * A coded 320x180 source of 20 frames in dir, and captures of frame 5 at full size and frame 7 at half size.
 * @param {string} dir
 */
async function sourceAndCaptures(dir) {
  const video = path.join(dir, 'source.y4m');
  const source = spawn('ffmpeg', ['-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc2=size=320x180:rate=30,noise=alls=10:allf=t+u,format=yuv420p',
    '-frames:v', '20', '-f', 'yuv4mpegpipe', 'pipe:1'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const sink = createWriteStream(video);
  await markY4mStream(source.stdout, sink, 'source');
  sink.end();
  await finished(sink);
  const layout = await readY4mLayout(video);
  const handle = await open(video, 'r');
  const halfSize = (luma) => execFileSync('ffmpeg', ['-loglevel', 'error', '-f', 'rawvideo', '-pix_fmt', 'gray', '-s', '320x180', '-i', 'pipe:0',
    '-vf', 'scale=160:90', '-f', 'rawvideo', '-pix_fmt', 'gray', 'pipe:1'], { input: luma });
  const captures = [];
  const frames = [[5, 320, 180, await readLuma(handle, layout, 5)], [7, 160, 90, halfSize(await readLuma(handle, layout, 7))]];
  for (const [code, width, height, luma] of frames) {
    const file = path.join(dir, `capture-${code}.gray`);
    await writeFile(file, luma);
    captures.push({ peer: 'p1', remote: 'p0', epochMs: 1e12 + code, code, width, height, file });
  }
  await handle.close();
  return { media: { p0: { video, frameCode: true } }, captures };
}

test('a run directory named with filter-graph syntax (, : \' ; [ \\) is scored right, and ffmpeg writes no stray file', async (t) => {
  const base = await mkdtemp(path.join(os.tmpdir(), 'hostile-out-'));
  removeAfter(t, base);
  const workDir = path.join(base, "run,psnr=stats_file=stray:x'y;[z]\\w");
  await mkdir(workDir);
  const { media, captures } = await sourceAndCaptures(workDir);
  const vmaf = await vmafAvailability();
  assert.equal(vmaf.available, true, vmaf.reason);
  /** Every file and folder under base. */
  const tree = async () => (await readdir(base, { recursive: true })).sort();
  const before = await tree();
  // Started from base: a path that ffmpeg cut short at a separator lands here as a relative file.
  const scored = await startedIn(base, () => scoreCaptures({ captures, media, workDir, vmaf }).catch((error) => error));
  assert.deepEqual(await tree(), before, 'no file left beside the run directory or in it');
  assert.ok(!(scored instanceof Error), `scoring failed: ${scored.message}`);
  const { scores, unmatched, vmafFailure } = scored;
  assert.equal(unmatched, 0);
  assert.equal(vmafFailure, null);
  const byCode = Object.fromEntries(scores.map((score) => [score.code, score]));
  assert.deepEqual(Object.keys(byCode), ['5', '7']);
  assert.equal(byCode[5].psnrDb, IDENTICAL_PSNR_DB);
  assert.equal(byCode[5].ssim, 1);
  assert.ok(byCode[5].vmaf > 90, `identical frame VMAF ${byCode[5].vmaf}`);
  assert.ok(byCode[7].psnrDb > 10 && byCode[7].psnrDb < 40, `half size: ${byCode[7].psnrDb} dB`);
  assert.ok(byCode[7].vmaf < byCode[5].vmaf - 10, `half size VMAF ${byCode[7].vmaf}`);
});
