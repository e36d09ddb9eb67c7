#!/usr/bin/env node
// Benchmark: what a measured Chromium peer costs, and what a set of launch flags saves. Pairs of real two-party
// `unconstrained` calls (Chromium, relay, 360p30), one launched as the harness launches it and one with --add flags
// and without --remove flags, their order alternating
// from pair to pair. The flags are changed by a wrapper script given as the browser path, so any set can be tried
// without editing the launch code. Per call: each browser's process-tree CPU over the measurement window (result.json
// `resources`, % of one core), the same split by Chromium process type (`--type=` in /proc/<pid>/cmdline, utility
// processes by their service; mean of the two browsers), and what the call measured (received video kbps and fps by
// getStats, frames the viewer saw per second, glass-to-glass median), so one sees whether a change moved them, and the
// browsers' peak resident memory.
// Prints figures; asserts nothing.
//
// Usage: node bench/browser-cost.js [--pairs 2] [--duration 30] [--add='--flag …'] [--remove='--flag …']
// (it starts browsers: on a machine others share, run it under the machine's lock, e.g. one-at-a-time)
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { parseStat, processTree } from '../orchestrator/lib/devices/proc-stat.js';
import { loadScenario } from '../orchestrator/lib/scenario/scenario-file.js';
import { runValues } from '../orchestrator/lib/result/metric-values.js';
import { resolveBrowserPath } from '../orchestrator/run/browser-path.js';
import { clockTicksPerSecond } from '../orchestrator/run/process-sampler.js';
import { runScenario } from '../orchestrator/run/run.js';

const { values } = parseArgs({ options: {
  pairs: { type: 'string', default: '2' }, duration: { type: 'string', default: '30' },
  add: { type: 'string', default: '' }, remove: { type: 'string', default: '' } } });
const [pairs, durationS] = [Number(values.pairs), Number(values.duration)];
if (!(Number.isInteger(pairs) && pairs > 0 && durationS >= 20)) throw new Error('--pairs must be a positive integer, --duration at least 20 (s)');
const words = (/** @type {string} */ text) => text.split(/\s+/).filter(Boolean);
const WARMUP_S = 10;
const PEERS = ['p0', 'p1'];
const scratch = mkdtempSync(path.join(os.tmpdir(), 'wtb-bench-browser-'));
const chromium = resolveBrowserPath().path;
const ticksPerS = clockTicksPerSecond();
const fmt = (/** @type {number} */ value, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : '–');
const mean = (/** @type {number[]} */ list) => list.reduce((sum, v) => sum + v, 0) / list.length;

/**
 * A script that runs Chromium with the flags Puppeteer gives it, less `remove`, plus `add`. Puppeteer merges every
 * `--enable-features=` and `--disable-features=` into one of each (Chromium reads only the last of a repeated flag),
 * so features are taken out of and added to those lists.
 * @param {string} name @param {string[]} remove @param {string[]} add
 */
function wrapper(name, remove, add) {
  const quote = (/** @type {string} */ s) => `'${s.replaceAll("'", "'\\''")}'`;
  const isFeatures = (/** @type {string} */ flag) => /^--(en|dis)able-features=/.test(flag);
  const featuresOf = (/** @type {string[]} */ flags, /** @type {string} */ which) => flags
    .filter((flag) => flag.startsWith(`--${which}-features=`)).flatMap((flag) => flag.split('=')[1].split(','));
  const lists = ['enable', 'disable'].map((which) => {
    const dropped = featuresOf(remove, which).map((feature) => `v="\${v//,${feature},/,}"; `).join('');
    const added = featuresOf(add, which).map((feature) => `${feature},`).join('');
    return `--${which}-features=*) v=",\${arg#*=},"; ${dropped}v="\${v#,}${added}"; args+=("--${which}-features=\${v%,}") ;;`;
  });
  const removed = remove.filter((flag) => !isFeatures(flag));
  const file = path.join(scratch, `${name}.sh`);
  writeFileSync(file, [
    '#!/usr/bin/env bash',
    'args=()',
    `for arg in "$@"; do case "$arg" in ${removed.length ? `${removed.map(quote).join('|')}) ;;` : ''}`,
    ...lists.map((list) => `  ${list}`),
    '  *) args+=("$arg") ;; esac; done',
    `exec ${quote(chromium)} "\${args[@]}" ${add.filter((flag) => !isFeatures(flag)).map(quote).join(' ')}`,
    '',
  ].join('\n'));
  chmodSync(file, 0o755);
  return file;
}
const ARMS = {
  before: wrapper('before', [], []),
  after: wrapper('after', words(values.remove), words(values.add)),
};

/**
 * A helper process's type from its command line: renderer, gpu-process, zygote, utility:<service>, or '?' when its
 * command line could not be read (it exited, or has none).
 * @param {string} cmdline
 */
function processType(cmdline) {
  const type = /--type=([\w-]+)/.exec(cmdline)?.[1];
  if (!type) return '?';
  if (type !== 'utility') return type;
  const service = /--utility-sub-type=([\w.]+)/.exec(cmdline)?.[1] ?? '?';
  return `utility:${service.split('.')[0]}`;
}

/** CPU ticks by process type over every browser this process launched (children whose command names Chromium). */
async function readBrowserTicks() {
  const pids = (await readdir('/proc')).filter((name) => /^\d+$/.test(name));
  const stats = (await Promise.all(pids.map((pid) => readFile(`/proc/${pid}/stat`, 'utf8').then(parseStat, () => null))))
    .filter((stat) => stat !== null);
  const cmdline = (/** @type {number} */ pid) => readFile(`/proc/${pid}/cmdline`, 'utf8').then((text) => text.replaceAll('\0', ' '), () => '');
  /** @type {number[]} */
  const roots = [];
  for (const stat of stats.filter((s) => s.ppid === process.pid)) if (/chrom/i.test(await cmdline(stat.pid))) roots.push(stat.pid);
  const members = new Set(roots.flatMap((root) => processTree(stats, root)));
  /** @type {Map<string, number>} key: pid/starttime, value: ticks; types by the same key */
  const ticks = new Map();
  /** @type {Map<string, string>} */
  const types = new Map();
  for (const stat of stats.filter((s) => members.has(s.pid))) {
    const key = `${stat.pid}/${stat.startTimeTicks}`;
    ticks.set(key, stat.cpuTicks);
    types.set(key, roots.includes(stat.pid) ? 'browser' : processType(await cmdline(stat.pid)));
  }
  return { atMs: Date.now(), ticks, types, browsers: roots.length };
}

/**
 * % of one core per process type between two readings, per browser.
 * @param {Awaited<ReturnType<typeof readBrowserTicks>>} start @param {Awaited<ReturnType<typeof readBrowserTicks>>} end
 */
function cpuByType(start, end) {
  const elapsedS = (end.atMs - start.atMs) / 1000;
  /** @type {Record<string, number>} */
  const byType = {};
  for (const [key, ticks] of end.ticks) {
    const type = [end.types.get(key), start.types.get(key)].find((t) => t && t !== '?') ?? '?';
    byType[type] = (byType[type] ?? 0) + (100 * (ticks - (start.ticks.get(key) ?? 0))) / ticksPerS / elapsedS / end.browsers;
  }
  return byType;
}

/**
 * One call launched as `arm`: CPU per peer and per process type, and what it measured.
 * @param {'before'|'after'} arm @param {number} index
 */
async function call(arm, index) {
  const scenario = loadScenario('unconstrained', { durationS, warmupS: WARMUP_S });
  const outDir = path.join(scratch, `call-${index}-${arm}`);
  /** @type {Array<Promise<Awaited<ReturnType<typeof readBrowserTicks>>>>} */
  const readings = [];
  const onSample = (/** @type {{ t: number }} */ sample) => {
    const due = readings.length === 0 ? WARMUP_S + 1 : durationS;
    if (sample.t === due && readings.length < 2) readings.push(readBrowserTicks());
  };
  const browserPath = ARMS[arm];
  const { result } = await runScenario({ scenario, video: '360p30', emulator: 'relay', browserPath, outDir, onSample, log: () => {} });
  if (result.status !== 'passed') throw new Error(`call ${index} (${arm}) ${result.status}: ${JSON.stringify(result.errors)}`);
  // any: the sections read here, as result.json has them (lib/result/result.js).
  const { resources, summary } = /** @type {any} */ (result);
  const [start, end] = await Promise.all(readings);
  const streams = Object.values(summary.viewer?.streams ?? {});
  const measured = runValues(result);
  await rm(outDir, { recursive: true, force: true });
  return {
    cpu: Object.fromEntries(PEERS.map((peer) => [peer, resources.summary[peer]?.cpuPct.mean ?? NaN])),
    byType: start && end ? cpuByType(start, end) : {},
    // Shared pages count once per process (run/process-sampler.js), so fewer processes also read as less memory.
    peakRssMb: mean(PEERS.map((peer) => resources.summary[peer]?.peakRssMb ?? NaN)),
    recvKbps: measured['video.recvKbps'] ?? NaN,
    recvFps: measured['video.recvFps'] ?? NaN,
    // any: lib/viewer/viewer-summary.js streamSummary.
    seenFps: mean(streams.map((/** @type {any} */ s) => s.framesShown / (durationS - WARMUP_S))),
    glassToGlassMs: summary.viewer?.overall?.glassToGlassMs?.median ?? NaN,
  };
}

console.log(`a measured browser's cost: ${pairs} pairs of ${durationS} s calls (unconstrained, 360p30, relay), CPU over ${WARMUP_S + 1}-${durationS} s`);
console.log(`before: as the harness launches it; after: that${values.add ? ` + ${values.add}` : ''}${values.remove ? ` - ${values.remove}` : ''}`);
console.log('pair order         p0 %core before → after (×)   p1 %core before → after (×)   kbps b/a    fps b/a      seen fps b/a  g2g ms b/a  '
  + 'peak RSS MB b/a');
/** @type {number[]} */
const ratios = [];
/** @type {Record<'before'|'after', Array<Record<string, number>>>} */
const types = { before: [], after: [] };
for (let pair = 0; pair < pairs; pair += 1) {
  const order = /** @type {Array<'before'|'after'>} */ (pair % 2 ? ['after', 'before'] : ['before', 'after']);
  const runs = { [order[0]]: await call(order[0], pair), [order[1]]: await call(order[1], pair) };
  const { before, after } = runs;
  types.before.push(before.byType);
  types.after.push(after.byType);
  const cells = PEERS.map((peer) => {
    const ratio = after.cpu[peer] / before.cpu[peer];
    ratios.push(ratio);
    return `${fmt(before.cpu[peer]).padStart(5)} → ${fmt(after.cpu[peer]).padStart(5)} (×${fmt(ratio, 3)})`.padEnd(30);
  });
  /** @param {'recvKbps'|'recvFps'|'seenFps'|'glassToGlassMs'|'peakRssMb'} field */
  const pairOf = (field, digits = 0) => `${fmt(before[field], digits)}/${fmt(after[field], digits)}`;
  console.log(`${String(pair + 1).padEnd(5)}${order.join(',').padEnd(14)}${cells.join('')}${pairOf('recvKbps').padEnd(12)}${pairOf('recvFps', 1).padEnd(13)}`
    + `${pairOf('seenFps', 1).padEnd(14)}${pairOf('glassToGlassMs').padEnd(12)}${pairOf('peakRssMb')}`);
}
console.log(`mean ratio after / before: ×${fmt(mean(ratios), 3)} (range ×${fmt(Math.min(...ratios), 3)}–×${fmt(Math.max(...ratios), 3)})`);
console.log('\nper process type, % of one core per browser (mean over pairs): before → after');
const allTypes = [...new Set([...types.before, ...types.after].flatMap((byType) => Object.keys(byType)))].sort();
for (const type of allTypes) {
  const meanOf = (/** @type {Array<Record<string, number>>} */ list) => mean(list.map((byType) => byType[type] ?? 0));
  console.log(`${type.padEnd(24)}${fmt(meanOf(types.before)).padStart(6)} → ${fmt(meanOf(types.after)).padStart(6)}`);
}
await rm(scratch, { recursive: true, force: true });
