// Picture quality of the captured received frames, after the run: each capture (decoded size, luma, written by
// run/viewer-collector.js) is matched by its frame code to the source frame of the sender's .y4m, scaled up to the
// source size (what a viewer at the source size sees; a lower resolution counts against it), the code strip cut from
// both, and scored with ffmpeg's psnr and ssim filters. One ffmpeg per sender and captured size.
import { execFile } from 'node:child_process';
import { open, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { codeStripHeight, readFrameCode } from '../../client-app/frame-code.js';
import { readLuma, readY4mLayout } from '../../media/y4m.js';

const run = promisify(execFile);

/**
 * @typedef {{ peer: string, remote: string, epochMs: number, code: number, width: number, height: number, file: string }} StoredCapture
 *   peer: the receiver; remote: the sender; file: width × height luma bytes
 * @typedef {{ available: boolean, reason: string }} VmafAvailability
 */

/**
 * Whether this ffmpeg can compute VMAF. Debian's ffmpeg is built without libvmaf and Debian 12 packages none.
 * @returns {Promise<VmafAvailability>}
 */
export async function vmafAvailability() {
  try {
    const { stdout } = await run('ffmpeg', ['-hide_banner', '-filters'], { maxBuffer: 1 << 22 });
    return /\blibvmaf\b/.test(stdout)
      ? { available: false, reason: 'this ffmpeg has the libvmaf filter, but the harness does not score with it yet' }
      : { available: false, reason: 'this ffmpeg has no libvmaf filter (Debian builds it without; apt-cache search vmaf finds no package on Debian 12)' };
  } catch (error) {
    return { available: false, reason: `ffmpeg -filters failed: ${error.message}` };
  }
}

/** ffmpeg prints 'inf' for an identical frame; recorded as this, like other tools' PSNR caps. */
export const IDENTICAL_PSNR_DB = 100;

/**
 * Per-frame values from ffmpeg's psnr or ssim stats_file: psnr_avg (dB) or All (0-1).
 * @param {string} text @param {'psnr'|'ssim'} kind
 * @returns {Array<number|null>}
 */
export function parseStatsFile(text, kind) {
  const pattern = kind === 'psnr' ? /psnr_avg:(\S+)/ : /All:(\S+)/;
  return text.split('\n').filter((line) => line.trim()).map((line) => {
    const field = pattern.exec(line)?.[1];
    if (field === 'inf') return IDENTICAL_PSNR_DB;
    const value = Number(field);
    return field !== undefined && Number.isFinite(value) ? value : null;
  });
}

/**
 * Scores every capture whose own pixels carry the code it was filed under (the page's word is checked).
 * @param {{ captures: StoredCapture[], media: Record<string, { video: string, frameCode: boolean }>, workDir: string }} input
 *   media: each sending peer's video file
 * @returns {Promise<{ scores: import('../lib/viewer/viewer.js').QualityScore[], unmatched: number }>}
 */
export async function scoreCaptures({ captures, media, workDir }) {
  /** @type {Map<string, StoredCapture[]>} */
  const groups = new Map();
  let unmatched = 0;
  /** @type {Map<string, Buffer>} */
  const lumaOf = new Map();
  for (const capture of captures) {
    const luma = await readFile(capture.file);
    const read = readFrameCode(luma, capture.width, codeStripHeight(capture.height));
    if (!media[capture.remote]?.frameCode || read?.code !== capture.code) {
      unmatched += 1;
      continue;
    }
    lumaOf.set(capture.file, luma);
    const key = `${capture.remote}\n${capture.width}x${capture.height}`;
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(capture);
  }
  const scores = [];
  let group = 0;
  for (const members of groups.values()) {
    const { remote, width, height } = members[0];
    const source = media[remote].video;
    const layout = await readY4mLayout(source);
    const handle = await open(source, 'r');
    const usable = members.filter((capture) => capture.code < layout.frames);
    unmatched += members.length - usable.length;
    if (!usable.length) {
      await handle.close();
      continue;
    }
    const sourceFrames = [];
    try {
      for (const capture of usable) sourceFrames.push(await readLuma(handle, layout, capture.code));
    } finally {
      await handle.close();
    }
    group += 1;
    const received = path.join(workDir, `received-${group}.gray`);
    const original = path.join(workDir, `source-${group}.gray`);
    const psnrLog = path.join(workDir, `psnr-${group}.log`);
    const ssimLog = path.join(workDir, `ssim-${group}.log`);
    await writeFile(received, Buffer.concat(usable.map((capture) => lumaOf.get(capture.file))));
    await writeFile(original, Buffer.concat(sourceFrames));
    const strip = codeStripHeight(layout.height);
    const crop = `crop=${layout.width}:${layout.height - strip}:0:${strip}`;
    const graph = `[0]scale=${layout.width}:${layout.height}:flags=bicubic,${crop},split[r1][r2];[1]${crop},split[s1][s2];`
      + `[r1][s1]psnr=stats_file=${psnrLog}[p];[r2][s2]ssim=stats_file=${ssimLog}[q]`;
    const raw = (size, file) => ['-f', 'rawvideo', '-pix_fmt', 'gray', '-s', size, '-r', '1', '-i', file];
    try {
      await run('ffmpeg', ['-hide_banner', '-loglevel', 'error', ...raw(`${width}x${height}`, received), ...raw(`${layout.width}x${layout.height}`, original),
        '-filter_complex', graph, '-map', '[p]', '-f', 'null', '-', '-map', '[q]', '-f', 'null', '-'], { maxBuffer: 1 << 22 });
      const psnr = parseStatsFile(await readFile(psnrLog, 'utf8'), 'psnr');
      const ssim = parseStatsFile(await readFile(ssimLog, 'utf8'), 'ssim');
      usable.forEach(({ file, ...capture }, i) => scores.push({ ...capture, psnrDb: psnr[i] ?? null, ssim: ssim[i] ?? null }));
    } finally {
      await Promise.all([received, original, psnrLog, ssimLog].map((file) => rm(file, { force: true })));
    }
  }
  return { scores, unmatched };
}
