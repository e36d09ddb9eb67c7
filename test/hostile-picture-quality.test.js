// The picture-quality step (orchestrator/run/picture-quality.js) against what it is run from and run in: a Python
// module planted in the directory the harness is started from (which runs as root under netem), a venv Python that
// names an ffmpeg outside the venv, and a run directory (--out) whose name is ffmpeg filter-graph syntax. Real
// ffmpeg and the set-up's imageio-ffmpeg (`npm run setup`); about 5 s.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { codedSource } from './helpers/coded-source.js';
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
  const { video, frame, halfSize, capture, close } = await codedSource(dir);
  const captures = [await capture('capture-5', await frame(5), 5, 320, 180), await capture('capture-7', halfSize(await frame(7)), 7, 160, 90)];
  await close();
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
