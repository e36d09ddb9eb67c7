// The cgroups of a run's constrained devices (lib/devices/cpu-cgroup.js plans them): made before any browser starts, each
// browser's page processes (renderers and their zygote: lib/devices/cpu-cgroup.js pageProcesses) moved in right after its
// launch (renderers forked later inherit the cgroup) and swept once more when the call starts, removed after the
// browsers on success, failure and Ctrl-C; a guardian process removes them when the orchestrator is killed, and
// `cleanup` sweeps those of runs whose guardian died too. On cgroup v2 the controllers the run enabled in the root's
// cgroup.subtree_control are disabled again by both. Every write is logged as the shell line that does the same
// into the run's command log.
import { existsSync } from 'node:fs';
import { mkdir, readFile, rmdir, writeFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { EnvironmentError, errorCode, errorMessage } from '../lib/system/errors.js';
import { startGuardian } from '../lib/system/guardian-protocol.js';
import {
  chooseLayout, cgroupName, moveCommand, pageProcesses, parentSteps, parseCgroupMounts, parseCgroupName, parseCpuStat, peerCgroupPlan,
  revertParentSteps, stepCommand,
} from '../lib/devices/cpu-cgroup.js';
import { ownerAlive, ownerFile, recordOwner, releaseOwner } from '../lib/system/owners.js';

import { shellJoin } from '../emulators/script.js';
import { readTrees } from './process-sampler.js';
import { shortRunId } from '../lib/system/run-id.js';

const GUARDIAN_PATH = fileURLToPath(new URL('./cgroup-guardian.js', import.meta.url));
/** A closed browser's helpers (zygotes, utility processes) exit within moments of it; a cgroup with any is busy. */
const EMPTY_WAIT_MS = 5_000;
const POLL_MS = 50;
/** Owner files (lib/system/owners.js) of a run's cgroups: `cgroup-<short run id>`. */
const ownerKey = (/** @type {string} */ id) => `cgroup-${id}`;

/** @typedef {import('../lib/devices/cpu-cgroup.js').CgroupLayout} CgroupLayout */
/** @typedef {import('../lib/devices/cpu-cgroup.js').CpuLimits} CpuLimits */
/**
 * @typedef {NonNullable<import('../lib/result/result.js').Environment['cgroups']>} CgroupsRecord
 * @typedef {{ record: CgroupsRecord, attach: (peer: string, rootPid: number) => Promise<number>, sweep: () => Promise<void>,
 *   close: () => Promise<void> }} PeerCgroups
 *   attach: moves the page's processes of rootPid's tree into the peer's cgroup and keeps the root for sweep; returns
 *   how many processes it moved
 */

/**
 * @param {string} file @returns {Promise<string|null>}
 */
const readText = (file) => readFile(file, 'utf8').then((text) => text.trim(), () => null);

/**
 * Where the cgroup hierarchies are and which one to use; an EnvironmentError naming the fix where none can limit a
 * browser's CPU.
 * @param {Array<'cpu'|'cpuset'>} needs @param {string} what  the device fields asking, for the message
 * @returns {Promise<CgroupLayout>}
 */
async function findLayout(needs, what) {
  if (process.platform !== 'linux') throw new EnvironmentError(`${what} needs Linux cgroups (this is ${process.platform}); drop it from the scenario's devices`);
  const mounts = parseCgroupMounts(await readText('/proc/self/mounts') ?? '');
  const v2Controllers = mounts.v2 ? await readText(`${mounts.v2}/cgroup.controllers`) : null;
  const chosen = chooseLayout({ mounts, v2Controllers, needs });
  if ('missing' in chosen) {
    throw new EnvironmentError(`${what} needs ${chosen.missing}: mount one (v1: \`mkdir -p /sys/fs/cgroup/cpu && mount -t cgroup -o cpu cgroup /sys/fs/cgroup/cpu\`, `
      + 'likewise cpuset; v2: boot with the cpu controller in the unified hierarchy), or drop the field from the scenario\'s devices');
  }
  return chosen.layout;
}

/**
 * Whether this host can give the peers their CPU limits: the hierarchy to use, or an EnvironmentError naming the fix
 * (no cpu/cpuset controller, not root). Run before anything starts.
 * @param {Record<string, CpuLimits>} limits @param {string} where  the scenario file
 * @returns {Promise<{ layout: CgroupLayout, needs: Array<'cpu'|'cpuset'>, fields: string }>}  fields: the device fields asking
 */
export async function checkCgroups(limits, where) {
  const peers = Object.keys(limits);
  /** @type {Array<'cpu'|'cpuset'>} */
  const needs = [];
  if (peers.some((peer) => limits[peer].cpuQuotaCores !== null)) needs.push('cpu');
  if (peers.some((peer) => limits[peer].cpuCount !== null)) needs.push('cpuset');
  const fields = peers.map((peer) => `${where}: devices.${peer}.${limits[peer].cpuQuotaCores !== null ? 'cpuQuotaCores' : 'cpuCount'}`).join(', ');
  const layout = await findLayout(needs, fields);
  // The cgroups go under the hierarchy's root, which only root may write.
  if (process.getuid?.() !== 0) {
    const under = layout.version === 1 ? [layout.cpu, layout.cpuset].filter(Boolean).join(' and ') : layout.root;
    throw new EnvironmentError(`${fields}: limiting a browser's CPU makes cgroups under ${under}, which needs root; `
      + 'run it with sudo, or drop the field from the scenario\'s devices');
  }
  return { layout, needs, fields };
}

/** @typedef {(cmd: string, ok: boolean, stderr?: string) => void} LogLine  logs a cgroup step as one of the run's commands */

/**
 * Makes the cgroups of the peers with CPU limits, before any browser starts; their closer (and a guardian for a killed
 * orchestrator) is registered before the first directory is made.
 * @param {{ limits: Record<string, CpuLimits>, runId: string, where: string, clock: () => number,
 *   logCommand: (record: import('../emulators/command-runner.js').CommandRecord) => void,
 *   registerCleanup: (name: string, close: () => Promise<void>, options?: { closeNow?: () => void }) => unknown, logFile: string }} options
 *   where: the scenario file, for errors (`<file>: devices.<peer>`); logFile: the guardian's log
 * @returns {Promise<PeerCgroups|null>}  null when no peer has CPU limits
 */
export async function createPeerCgroups({ limits, runId, where, clock, logCommand, registerCleanup, logFile }) {
  const peers = Object.keys(limits);
  if (!peers.length) return null;
  const { layout, needs, fields } = await checkCgroups(limits, where);
  const id = shortRunId(runId);
  const [allowedCpus, mems, subtreeControl] = layout.version === 1
    ? [layout.cpuset && await readText(`${layout.cpuset}/cpuset.effective_cpus`), layout.cpuset && await readText(`${layout.cpuset}/cpuset.effective_mems`), '']
    : [await readText(`${layout.root}/cpuset.cpus.effective`), null, await readText(`${layout.root}/cgroup.subtree_control`) ?? ''];
  const plans = Object.fromEntries(peers.map((peer) => [peer, peerCgroupPlan({
    layout, name: cgroupName(id, peer), limits: limits[peer], allowedCpus, mems, where: `${where}: devices.${peer}`,
  })]));
  const dirs = peers.flatMap((peer) => plans[peer].dirs);
  /** @type {Map<string, number>} */
  const roots = new Map();

  /** @type {LogLine} */
  const logLine = (cmd, ok, stderr) => logCommand({ atS: Number(clock().toFixed(3)), cmd, ok, ...(stderr ? { stderr } : {}) });
  /** @param {import('../lib/devices/cpu-cgroup.js').CgroupStep} step */
  const runStep = (step) => runCgroupStep(step, logLine);

  /** @type {CgroupsRecord} */
  const record = {
    version: layout.version,
    peers: Object.fromEntries(peers.map((peer) => [peer, {
      name: cgroupName(id, peer), paths: plans[peer].dirs, ...limits[peer],
      quotaUs: plans[peer].quotaUs, periodUs: plans[peer].periodUs, cpus: plans[peer].cpus, cpuStat: null,
    }])),
  };
  /** @type {import('../lib/system/guardian-protocol.js').Guardian|null} */
  let guardian = null;
  const parent = parentSteps(layout, needs, subtreeControl);
  /** @type {SubtreeChange|null} what the run enables in the v2 root's subtree_control, once it has */
  let enabledByRun = null;
  let closed = false;
  /** @type {string[]} the cgroup directories made, in order */
  const made = [];
  const close = async () => {
    if (closed) return;
    closed = true;
    /** @type {string[]} */
    const failures = [];
    // How often the quota held the page back, read before the cgroups go.
    for (const peer of peers) {
      const stat = plans[peer].quotaUs === null ? null : await readText(`${plans[peer].dirs[0]}/cpu.stat`);
      record.peers[peer].cpuStat = stat === null ? null : parseCpuStat(stat);
    }
    for (const dir of made.reverse()) {
      await emptyCgroup(dir);
      await runStep({ op: 'rmdir', path: dir }).catch((error) => failures.push(`${dir}: ${errorMessage(error)}`));
    }
    if (enabledByRun) await revertSubtreeControl(enabledByRun, runStep).catch((error) => failures.push(error.message));
    releaseOwner(ownerKey(id));
    guardian?.finish();
    if (failures.length) throw new Error(`removing the devices' cgroups: ${failures.join('; ')}`);
  };
  registerCleanup('device cgroups', close);
  try {
    recordOwner(ownerKey(id));
    const change = layout.version === 2 && parent.enabled.length ? { root: layout.root, enabled: parent.enabled } : null;
    guardian = startGuardian(GUARDIAN_PATH, [logFile, ownerFile(ownerKey(id)), JSON.stringify(change), ...dirs]);
    for (const step of parent.steps) await runStep(step);
    enabledByRun = change;
    for (const peer of peers) {
      for (const step of plans[peer].steps) {
        await runStep(step);
        if (step.op === 'mkdir') made.push(step.path);
      }
    }
  } catch (error) {
    throw setupError(error, fields);
  }

  /** @param {string} peer @param {number} rootPid */
  const move = (peer, rootPid) => moveBrowser(peer, rootPid, plans[peer].procsFiles, logLine);
  return {
    record,
    async attach(peer, rootPid) {
      if (!plans[peer]) return 0;
      roots.set(peer, rootPid);
      return move(peer, rootPid);
    },
    async sweep() {
      for (const [peer, rootPid] of roots) await move(peer, rootPid);
    },
    close,
  };
}

/** @typedef {{ root: string, enabled: string[] }} SubtreeChange  controllers a run enabled in <root>/cgroup.subtree_control */

/**
 * Disables in the v2 root's cgroup.subtree_control the controllers the run enabled (and no others), after its cgroups
 * are gone; while another run's cgroup is there they stay (lib/devices/cpu-cgroup.js revertParentSteps). Used by the run's closer
 * and its guardian.
 * @param {SubtreeChange} change
 * @param {(step: import('../lib/devices/cpu-cgroup.js').CgroupStep) => Promise<void>} runStep  does and logs a step
 * @returns {Promise<string[]>} the other runs' cgroups that kept the controllers enabled
 */
export async function revertSubtreeControl({ root, enabled }, runStep) {
  const { steps, keptFor } = revertParentSteps(root, enabled, await readdir(root).catch(() => []));
  for (const step of steps) await runStep(step);
  return keptFor;
}

/** @param {string} dir @returns {Promise<number[]>} the processes in a cgroup (none once it is gone) */
const cgroupPids = async (dir) => ((await readText(`${dir}/cgroup.procs`)) ?? '').split('\n').filter(Boolean).map(Number);

/**
 * Waits for a cgroup's processes to exit (a closed browser's helpers), then kills what is left: rmdir fails on a
 * cgroup with processes.
 * @param {string} dir @param {number} [waitMs]
 */
async function emptyCgroup(dir, waitMs = EMPTY_WAIT_MS) {
  const deadline = Date.now() + waitMs;
  while ((await cgroupPids(dir)).length && Date.now() < deadline) await sleep(POLL_MS);
  const left = await cgroupPids(dir);
  for (const pid of left) {
    try { process.kill(pid, 'SIGKILL'); } catch { /* exited meanwhile */ }
  }
  for (let i = 0; i < 40 && (await cgroupPids(dir)).length; i++) await sleep(POLL_MS);
}

/**
 * Finds and removes the cgroups of dead runs (`cleanup`): every `wtb-<id>-<peer>` directory in the cpu and cpuset
 * hierarchies whose run's orchestrator is gone (or of the run named), the processes in it killed first.
 * @param {{ runId?: string, dryRun?: boolean }} [options]
 * @returns {Promise<{ cgroups: string[], pids: number[], liveRuns: string[], failed: string[] }>}
 */
export async function removeStaleCgroups({ runId, dryRun = false } = {}) {
  const only = runId === undefined ? null : shortRunId(runId);
  const mounts = parseCgroupMounts(await readText('/proc/self/mounts') ?? '');
  const parents = [...new Set([mounts.v1.cpu, mounts.v1.cpuset, mounts.v2].filter((dir) => dir !== null && existsSync(dir)))];
  const found = [];
  for (const parent of /** @type {string[]} */ (parents)) {
    for (const name of await readdir(parent).catch(() => [])) {
      const parsed = parseCgroupName(name);
      if (parsed) found.push({ dir: path.join(parent, name), id: parsed.id });
    }
  }
  const liveRuns = only === null ? [...new Set(found.map(({ id }) => id))].filter((id) => ownerAlive(ownerKey(id))).sort() : [];
  const stale = found.filter(({ id }) => (only === null ? !liveRuns.includes(id) : id === only));
  const pids = (await Promise.all(stale.map(({ dir }) => cgroupPids(dir)))).flat();
  /** @type {string[]} */
  const failed = [];
  if (!dryRun) {
    for (const { dir } of stale) {
      await emptyCgroup(dir, 0);
      await rmdir(dir).catch((error) => failed.push(`rmdir ${dir}: ${errorMessage(error)}`));
    }
    for (const id of new Set(stale.map((entry) => entry.id))) releaseOwner(ownerKey(id));
  }
  return { cgroups: stale.map(({ dir }) => dir), pids, liveRuns, failed };
}

/**
 * Runs one step of a cgroup's set-up or removal, logged like a command.
 * @param {import('../lib/devices/cpu-cgroup.js').CgroupStep} step @param {LogLine} logLine
 */
async function runCgroupStep(step, logLine) {
  try {
    if (step.op === 'write') await writeFile(step.file, step.value);
    else await (step.op === 'mkdir' ? mkdir : rmdir)(step.path);
    logLine(stepCommand(step, shellJoin), true);
  } catch (error) {
    logLine(stepCommand(step, shellJoin), false, errorMessage(error));
    throw error;
  }
}

/**
 * Moves a browser's page processes (of the tree under rootPid) into its cgroups.
 * @param {string} peer @param {number} rootPid @param {string[]} procsFiles  its cgroups' cgroup.procs
 * @param {LogLine} logLine @returns {Promise<number>} how many processes it moved
 */
async function moveBrowser(peer, rootPid, procsFiles, logLine) {
  const reading = (await readTrees('/proc', new Map([[peer, rootPid]]))).get(peer);
  const tree = await Promise.all([...(reading?.processes.values() ?? [])].map(async ({ pid, ppid }) => ({
    pid, ppid, cmdline: await readText(`/proc/${pid}/cmdline`) ?? '',
  })));
  const pids = pageProcesses(tree);
  if (!pids.length) return 0;
  for (const procsFile of procsFiles) {
    /** @type {string[]} */
    const failed = [];
    for (const pid of pids) {
      // A process that exited since the reading is no longer ours to move.
      await writeFile(procsFile, `${pid}`).catch((error) => { if (errorCode(error) !== 'ESRCH') failed.push(`${pid}: ${errorMessage(error)}`); });
    }
    logLine(moveCommand(pids, procsFile, shellJoin), failed.length === 0, failed.join('; '));
    if (failed.length) throw new Error(`moving ${peer}'s browser into ${procsFile}: ${failed.join('; ')}`);
  }
  return pids.length;
}

/**
 * The error of a set-up that failed, with what to do about it.
 * @param {unknown} error @param {string} fields  the scenario fields that asked for the limit
 */
function setupError(error, fields) {
  const code = errorCode(error);
  const fix = {
    EACCES: 'the hierarchy is not writable here (a container without a delegated cgroup?)',
    EROFS: 'the hierarchy is mounted read-only (a container?)',
    // cgroup v2 hands controllers to child cgroups only from a cgroup without processes of its own.
    EBUSY: 'the cgroup v2 root holds processes (a container?), so it cannot hand its cpu controller to child cgroups; run on the host',
  }[code ?? ''] ?? 'check the cgroup hierarchy named there';
  return new EnvironmentError(`${fields}: could not set up the CPU limit (${errorMessage(error)}): ${fix}; or drop the field from the scenario's devices`);
}
