// The host side of bench/resolution.js: the media (a preset re-generated with another noise strength) and the
// CPU time of the browsers and of the machine, from /proc.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, readdir, rename, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ensureMedia, videoArgs } from '../../media/generate.js';
import { PRESETS } from '../../orchestrator/lib/media/media-presets.js';

/** Runs ffmpeg with these arguments. @param {string[]} args @returns {Promise<void>} */
const ffmpeg = (args) => new Promise((resolve, reject) => {
  const child = spawn('ffmpeg', args, { stdio: ['ignore', 'ignore', 'inherit'] });
  child.on('error', reject);
  child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`ffmpeg exited ${code}`))));
});

/**
 * The media: a preset or file as the CLI resolves it, or with a noise strength a preset generated into the temp dir.
 * @param {string} video a preset name or a .y4m file @param {string|undefined} noiseFlag --noise
 * @returns {Promise<{ video: string, audio: string, width: number, height: number, fps: number }>}
 */
export async function resolveMedia(video, noiseFlag) {
  if (noiseFlag === undefined) return ensureMedia(video);
  const preset = PRESETS[video];
  if (!preset) throw new Error(`--noise needs a preset --video (${Object.keys(PRESETS).join(', ')})`);
  const noise = Number(noiseFlag);
  const file = path.join(os.tmpdir(), `wtb-resolution-${video}-noise${noise}.y4m`);
  if (!existsSync(file)) {
    const args = videoArgs(preset, `${file}.tmp`).map((arg) => (arg.includes('noise=alls=')
      ? arg.replace(/noise=alls=\d+:allf=t\+u/, noise > 0 ? `noise=alls=${noise}:allf=t+u` : 'null') : arg));
    console.log(`generating ${file} (${video}, noise ${noise})`);
    try {
      await ffmpeg(args);
      await rename(`${file}.tmp`, file);
    } finally {
      await rm(`${file}.tmp`, { force: true });
    }
  }
  return ensureMedia(file);
}

/** Frame size, rate and count of a .y4m file by ffprobe (null without ffprobe). @param {string} file */
export async function probeY4m(file) {
  /** @type {string|null} */
  const output = await new Promise((resolve) => {
    const child = spawn('ffprobe', ['-v', 'error', '-select_streams', 'v:0', '-count_packets', '-show_entries',
      'stream=width,height,r_frame_rate,pix_fmt,nb_read_packets', '-of', 'default=noprint_wrappers=1', file], { stdio: ['ignore', 'pipe', 'ignore'] });
    let text = '';
    child.stdout.on('data', (chunk) => { text += chunk; });
    child.on('error', () => resolve(null));
    child.on('exit', () => resolve(text));
  });
  return output ? output.trim().split('\n').join(' ') : null;
}

/** CPU time (clock ticks) of a process and all its descendants, from /proc. @param {number} rootPid */
export async function treeCpuTicks(rootPid) {
  const rows = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = await readFile(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      rows.push({ pid: Number(entry), ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) });
    } catch {
      // The process ended while we listed it.
    }
  }
  const inTree = new Set([rootPid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const row of rows) if (!inTree.has(row.pid) && inTree.has(row.ppid)) { inTree.add(row.pid); grew = true; }
  }
  return rows.filter((row) => inTree.has(row.pid)).reduce((sum, row) => sum + row.ticks, 0);
}

/** Machine-wide busy and total clock ticks from /proc/stat. */
export async function machineTicks() {
  const [cpu] = (await readFile('/proc/stat', 'utf8')).split('\n');
  const fields = cpu.split(/\s+/).slice(1).map(Number);
  const total = fields.reduce((sum, value) => sum + value, 0);
  return { busy: total - fields[3] - fields[4], total };
}
