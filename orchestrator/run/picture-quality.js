// Picture quality of the captured received frames, after the run: each capture (decoded size, luma, written by
// run/viewer-collector.js) is matched by its frame code to the source frame of the sender's .y4m, scaled up to the
// source size (what a viewer at the source size sees; a lower resolution counts against it), the code strip cut from
// both, and scored with ffmpeg's psnr and ssim filters. One ffmpeg per sender and captured size.
import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import { access, open, readFile, realpath, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { codeStripHeight, readFrameCode } from '../../client-app/frame-code.js';
import { readLuma, readY4mLayout } from '../../media/y4m.js';
import { IMAGEIO_FFMPEG_VERSION, VMAF_VENV } from '../lib/system/paths.js';
import { finiteOrNull } from '../lib/stats/statistics.js';
import { errorCode, errorMessage, errorProperty } from '../lib/system/errors.js';
import { sourceMedia } from '../lib/media/screen-share.js';

const run = promisify(execFile);

/**
 * @typedef {{ peer: string, remote: string, epochMs: number, code: number, width: number, height: number, file: string }} StoredCapture
 *   peer: the receiver; remote: the sender; file: width × height luma bytes
 * @typedef {import('../lib/viewer/viewer.js').VmafAvailability} VmafAvailability
 */

/** libvmaf's built-in model (the filter's default, named so the result says which scored). */
export const VMAF_MODEL = 'vmaf_v0.6.1';

/**
 * Whether VMAF can be scored: the static ffmpeg of PyPI's imageio-ffmpeg in the set-up's venv, with its libvmaf filter.
 * Debian's ffmpeg (which scores PSNR and SSIM) is built without libvmaf and Debian 12 packages none.
 * This runs as root under netem, started from any folder: Python runs isolated (-I: no working directory, PYTHON*
 * variables or user site-packages on its import path) in the venv, without imageio-ffmpeg's IMAGEIO_FFMPEG_EXE
 * override, and the ffmpeg it names runs only if it is an executable file inside the venv.
 * @param {{ python?: string }} [where]  the venv's bin/python (default: the one `npm run setup` made)
 * @returns {Promise<VmafAvailability>}
 */
export async function vmafAvailability({ python: given = path.join(VMAF_VENV, 'bin', 'python') } = {}) {
  // Absolute: it runs with the venv as its working directory.
  const python = path.resolve(given);
  const venv = path.dirname(path.dirname(python));
  const { IMAGEIO_FFMPEG_EXE: _override, ...env } = process.env;
  let named;
  let wrapper;
  try {
    const { stdout } = await run(python, ['-I', '-c', 'import imageio_ffmpeg as m; print(m.get_ffmpeg_exe()); print(m.__version__)'],
      { cwd: venv, env });
    [named, wrapper] = stdout.trim().split('\n');
  } catch (error) {
    const why = errorCode(error) === 'ENOENT' ? `${python} does not exist` : errorStderr(error)?.trim().split('\n').at(-1) ?? errorMessage(error);
    return { available: false, reason: `no imageio-ffmpeg to score VMAF with (${why}); run \`npm run setup\`` };
  }
  const ffmpeg = await executableInside(venv, named);
  if (!ffmpeg) {
    return { available: false, reason: `imageio-ffmpeg named ${JSON.stringify(named)}, not an executable file inside ${venv}; reinstall imageio-ffmpeg==${IMAGEIO_FFMPEG_VERSION} with \`npm run setup\`` };
  }
  try {
    const [{ stdout: filters }, { stdout: version }] = await Promise.all([
      run(ffmpeg, ['-hide_banner', '-filters'], { maxBuffer: 1 << 22 }), run(ffmpeg, ['-hide_banner', '-version'])]);
    const found = { ffmpeg, version: `${version.split('\n')[0].replace(/ Copyright.*/, '').trim()} (imageio-ffmpeg ${wrapper})`, model: VMAF_MODEL };
    return /\blibvmaf\b/.test(filters)
      ? { available: true, reason: `scored by ${found.version} with libvmaf model ${VMAF_MODEL}`, ...found }
      : { available: false, reason: `${ffmpeg} has no libvmaf filter; reinstall imageio-ffmpeg==${IMAGEIO_FFMPEG_VERSION} with \`npm run setup\``, ...found };
  } catch (error) {
    return { available: false, reason: `${ffmpeg} -filters failed: ${errorMessage(error)}` };
  }
}

/**
 * The real path of file when it is an absolute path to an executable regular file inside dir, else null.
 * @param {string} dir @param {string|undefined} file @returns {Promise<string|null>}
 */
async function executableInside(dir, file) {
  if (!file || !path.isAbsolute(file)) return null;
  try {
    const [real, root] = await Promise.all([realpath(file), realpath(dir)]);
    if (!real.startsWith(root + path.sep) || !(await stat(real)).isFile()) return null;
    await access(real, constants.X_OK);
    return real;
  } catch {
    return null; // missing, unreadable or not executable: not the venv's ffmpeg
  }
}

/**
 * Per-frame VMAF from libvmaf's JSON log (log_fmt=json), in frame order.
 * @param {string} text @returns {Array<number|null>}
 */
export function parseVmafLog(text) {
  const frames = JSON.parse(text).frames ?? [];
  return frames.map((/** @type {{ metrics?: { vmaf?: unknown } }|null} */ frame) => finiteOrNull(frame?.metrics?.vmaf));
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
 * Scores every capture whose own pixels carry the code it was filed under (the page's word is checked); VMAF too when
 * `vmaf` is available, by its ffmpeg on the same pairs, scaled and cut alike. A failed VMAF leaves PSNR and SSIM.
 * @param {{ captures: StoredCapture[], media: Record<string, SenderVideo & { screen?: SenderVideo }>, workDir: string,
 *   vmaf?: VmafAvailability }} input  media: each sending peer's video, and its screen's (lib/media/screen-share.js sourceMedia)
 * @typedef {{ video: string, frameCode: boolean }} SenderVideo file
 * @returns {Promise<{ scores: import('../lib/viewer/viewer.js').QualityScore[], unmatched: number, vmafFailure: string|null }>}
 */
export async function scoreCaptures({ captures, media, workDir, vmaf }) {
  /** @type {Map<string, StoredCapture[]>} */
  const groups = new Map();
  let unmatched = 0;
  /** @type {Map<string, Buffer>} */
  const lumaOf = new Map();
  for (const capture of captures) {
    const luma = await readFile(capture.file);
    const read = readFrameCode(luma, capture.width, codeStripHeight(capture.height));
    if (!sourceMedia(media, capture.remote)?.frameCode || read?.code !== capture.code) {
      unmatched += 1;
      continue;
    }
    lumaOf.set(capture.file, luma);
    const key = `${capture.remote}\n${capture.width}x${capture.height}`;
    const grouped = groups.get(key);
    if (grouped) grouped.push(capture);
    else groups.set(key, [capture]);
  }
  /** @type {import('../lib/viewer/viewer.js').QualityScore[]} */
  const scores = [];
  let group = 0;
  /** @type {string|null} */
  let vmafFailure = null;
  for (const members of groups.values()) {
    const { remote, width, height } = members[0];
    const source = /** @type {SenderVideo} */ (sourceMedia(media, remote)).video;
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
    const received = `received-${group}.gray`;
    const original = `source-${group}.gray`;
    await writeFile(path.join(workDir, received), Buffer.concat(usable.map((capture) => keptLuma(lumaOf, capture.file))));
    await writeFile(path.join(workDir, original), Buffer.concat(sourceFrames));
    try {
      const scored = await scoreFiles({ received, original, size: `${width}x${height}`, layout, workDir, group, vmaf });
      vmafFailure = scored.vmafFailure ?? vmafFailure;
      usable.forEach(({ file, ...capture }, i) => scores.push({
        ...capture, psnrDb: scored.psnr[i] ?? null, ssim: scored.ssim[i] ?? null, vmaf: scored.vmaf[i] ?? null }));
    } finally {
      await Promise.all([received, original].map((file) => rm(path.join(workDir, file), { force: true })));
    }
  }
  return { scores, unmatched, vmafFailure };
}

/**
 * A grouped capture's luma, read when it was grouped.
 * @param {Map<string, Buffer>} lumaOf @param {string} file @returns {Buffer}
 */
function keptLuma(lumaOf, file) {
  const luma = lumaOf.get(file);
  if (!luma) throw new Error(`${file}: grouped without its luma; report this as a bug`);
  return luma;
}

/**
 * ffmpeg's psnr and ssim (system ffmpeg) and libvmaf (`vmaf.ffmpeg`) on two raw luma files of paired frames.
 * ffmpeg runs in workDir and sees only bare file names: workDir (a run's --out) never reaches the filter graph, where
 * , : ' \ ; [ ] are syntax (a folder named with them wrote stray files and broke the scoring).
 * @param {{ received: string, original: string, size: string, layout: { width: number, height: number }, workDir: string,
 *   group: number, vmaf?: VmafAvailability }} input  received, original: file names in workDir; size: the received frames' WxH
 * @returns {Promise<{ psnr: Array<number|null>, ssim: Array<number|null>, vmaf: Array<number|null>, vmafFailure: string|null }>}
 */
async function scoreFiles({ received, original, size, layout, workDir, group, vmaf }) {
  const psnrLog = `psnr-${group}.log`;
  const ssimLog = `ssim-${group}.log`;
  const vmafLog = `vmaf-${group}.json`;
  const inWorkDir = (/** @type {string} */ file) => path.join(workDir, file);
  const options = { cwd: workDir, maxBuffer: 1 << 22 };
  const strip = codeStripHeight(layout.height);
  const crop = `crop=${layout.width}:${layout.height - strip}:0:${strip}`;
  // The received frame scaled up to the source size: what a viewer at that size sees.
  const pair = `[0]scale=${layout.width}:${layout.height}:flags=bicubic,${crop}`;
  /** @param {string} frameSize @param {string} file */
  const raw = (frameSize, file) => ['-f', 'rawvideo', '-pix_fmt', 'gray', '-s', frameSize, '-r', '1', '-i', file];
  const inputs = ['-hide_banner', '-loglevel', 'error', ...raw(size, received), ...raw(`${layout.width}x${layout.height}`, original)];
  try {
    await run('ffmpeg', [...inputs, '-filter_complex', `${pair},split[r1][r2];[1]${crop},split[s1][s2];`
      + `[r1][s1]psnr=stats_file=${psnrLog}[p];[r2][s2]ssim=stats_file=${ssimLog}[q]`,
    '-map', '[p]', '-f', 'null', '-', '-map', '[q]', '-f', 'null', '-'], options);
    const psnr = parseStatsFile(await readFile(inWorkDir(psnrLog), 'utf8'), 'psnr');
    const ssim = parseStatsFile(await readFile(inWorkDir(ssimLog), 'utf8'), 'ssim');
    if (!vmaf?.available || !vmaf.ffmpeg) return { psnr, ssim, vmaf: [], vmafFailure: null };
    try {
      await run(vmaf.ffmpeg, [...inputs, '-filter_complex', `${pair}[r];[1]${crop}[s];`
        + `[r][s]libvmaf=model=version=${VMAF_MODEL}:log_fmt=json:log_path=${vmafLog}`, '-f', 'null', '-'], options);
      return { psnr, ssim, vmaf: parseVmafLog(await readFile(inWorkDir(vmafLog), 'utf8')), vmafFailure: null };
    } catch (error) {
      return { psnr, ssim, vmaf: [], vmafFailure: `${vmaf.ffmpeg} libvmaf failed: ${errorStderr(error)?.trim() || errorMessage(error)}` };
    }
  } finally {
    await Promise.all([psnrLog, ssimLog, vmafLog].map((file) => rm(inWorkDir(file), { force: true })));
  }
}

/** A child process's stderr, from an execFile error. @param {unknown} error @returns {string | undefined} */
export function errorStderr(error) {
  const stderr = errorProperty(error, 'stderr');
  return stderr === undefined || stderr === null ? undefined : String(stderr);
}
