// Picture quality of captured frames (orchestrator/run/picture-quality.js) with real ffmpeg: matched by the code in
// their own pixels to the source frame, scaled up to the source size, scored with psnr and ssim, and VMAF by the
// set-up's imageio-ffmpeg (`npm run setup`).
import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { codedSource } from './helpers/coded-source.js';
import { IDENTICAL_PSNR_DB, parseStatsFile, parseVmafLog, scoreCaptures, vmafAvailability, VMAF_MODEL } from '../orchestrator/run/picture-quality.js';

test('stats files: psnr_avg and All per frame, inf as the identical-frame value', () => {
  assert.deepEqual(parseStatsFile('n:1 mse_avg:3.20 mse_y:3.20 psnr_avg:43.08 psnr_y:43.08\nn:2 mse_avg:0.00 psnr_avg:inf psnr_y:inf\n', 'psnr'),
    [43.08, IDENTICAL_PSNR_DB]);
  assert.deepEqual(parseStatsFile('n:1 Y:0.912345 All:0.912345 (10.57)\nn:2 Y:x All:x (0)\n', 'ssim'), [0.912345, null]);
});

test('captures are matched by their own code, scored at the source size; a lower resolution scores lower', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'picture-quality-'));
  const { video, frame, halfSize, capture, close } = await codedSource(dir);
  const captures = [
    await capture('exact', await frame(5), 5, 320, 180),
    await capture('half', halfSize(await frame(7)), 7, 160, 90),
    // The page's word is checked: frame 8's pixels filed as frame 9 are not scored.
    await capture('wrong', await frame(8), 9, 320, 180),
  ];
  await close();
  const vmaf = await vmafAvailability();
  assert.ok(vmaf.available, `VMAF: ${vmaf.reason}`);
  const media = { p0: { video, frameCode: true } };
  const { scores, unmatched, vmafFailure } = await scoreCaptures({ captures, media, workDir: dir, vmaf });
  assert.equal(unmatched, 1);
  assert.equal(vmafFailure, null);
  const byCode = Object.fromEntries(scores.map((score) => [score.code, score]));
  assert.deepEqual(Object.keys(byCode), ['5', '7']);
  assert.equal(byCode[5].psnrDb, IDENTICAL_PSNR_DB);
  assert.equal(byCode[5].ssim, 1);
  assert.ok(byCode[7].psnrDb > 10 && byCode[7].psnrDb < 40, `half size: ${byCode[7].psnrDb} dB`);
  assert.ok(byCode[7].ssim < 0.95, `half size SSIM ${byCode[7].ssim}`);
  assert.ok(byCode[5].vmaf > 90, `identical frame VMAF ${byCode[5].vmaf}`);
  assert.ok(byCode[7].vmaf < byCode[5].vmaf - 10, `half size VMAF ${byCode[7].vmaf} vs ${byCode[5].vmaf}`);
  assert.deepEqual(Object.keys(byCode[7]).sort(), ['code', 'epochMs', 'height', 'peer', 'psnrDb', 'remote', 'ssim', 'vmaf', 'width']);
  // Without libvmaf the same pairs keep PSNR and SSIM, and VMAF is null, not a number.
  const plain = await scoreCaptures({ captures, media, workDir: dir });
  assert.deepEqual(plain.scores.map((score) => [score.psnrDb, score.vmaf]), scores.map((score) => [score.psnrDb, null]));
  // A sender whose media carry no code scores nothing.
  const uncoded = await scoreCaptures({ captures, media: { p0: { video, frameCode: false } }, workDir: dir, vmaf });
  assert.deepEqual(uncoded, { scores: [], unmatched: 3, vmafFailure: null });
});

test('VMAF: the set-up ffmpeg has libvmaf and says which; without the venv the reason says to run the set-up', async () => {
  const vmaf = await vmafAvailability();
  assert.equal(vmaf.available, true, vmaf.reason);
  assert.match(vmaf.version, /^ffmpeg version \S+ \(imageio-ffmpeg \d/);
  assert.equal(vmaf.model, VMAF_MODEL);
  const absent = await vmafAvailability({ python: '/nonexistent/venv/bin/python' });
  assert.equal(absent.available, false);
  assert.match(absent.reason, /nonexistent.*npm run setup/);
});

test('libvmaf JSON log: one VMAF per frame in order, null where a frame has none', () => {
  const log = JSON.stringify({ version: 'x', frames: [{ frameNum: 0, metrics: { vmaf: 91.5 } }, { frameNum: 1, metrics: {} },
    { frameNum: 2, metrics: { vmaf: 12 } }] });
  assert.deepEqual(parseVmafLog(log), [91.5, null, 12]);
});
