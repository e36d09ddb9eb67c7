// A constrained device's CPU as a cgroup (pure): which hierarchy holds the cpu and cpuset controllers (cgroup v1 or
// v2, from /proc/self/mounts), the directories a peer's cgroup needs there and what to write into them (a CFS quota
// of `cpuQuotaCores` cores' time per period, the first `cpuCount` of the allowed cores), and the same as shell lines
// for the run's command log. run/cgroups.js does the writes. DevTools' CPU throttling slows only the renderer's main
// thread; a quota on the whole browser tree slows WebRTC's encoder threads too, so its encoder can report `cpu`.
import { EnvironmentError } from '../system/errors.js';

/** Every cgroup of a run is `wtb-<short run id>-<peer>`, so `cleanup` can find those of dead runs. */
export const CGROUP_PREFIX = 'wtb-';
/**
 * The CFS period; the quota is a share of it. Not the kernel's 100 ms: held to its quota over 100 ms, a page ran in
 * one burst and then stalled; over 10 ms it is slowed evenly, as a slower CPU would be.
 */
export const CFS_PERIOD_US = 10_000;
/** The kernel refuses a CFS quota under 1 ms. */
export const MIN_QUOTA_US = 1000;
const NAME = /^wtb-([a-z0-9]{1,8})-(p\d+)$/;

/**
 * @typedef {{ version: 1, cpu: string|null, cpuset: string|null } | { version: 2, root: string }} CgroupLayout
 *   v1: the mount point of each controller's hierarchy (one may be missing); v2: the unified hierarchy's mount point
 * @typedef {{ cpuQuotaCores: number|null, cpuCount: number|null }} CpuLimits
 * @typedef {{ op: 'mkdir'|'rmdir', path: string } | { op: 'write', file: string, value: string }} CgroupStep
 * @typedef {{ dirs: string[], steps: CgroupStep[], procsFiles: string[], cpus: string|null, quotaUs: number|null,
 *   periodUs: number }} PeerCgroupPlan
 *   dirs: made in this order, removed in reverse; steps: what makes and configures them (after the parent's steps);
 *   procsFiles: where each process of the browser's tree is written; cpus: the cpuset's cores (cpu list format)
 */

/** @param {string} file @param {string} value @returns {CgroupStep} */
const write = (file, value) => ({ op: 'write', file, value });

/** @param {string} field  /proc/mounts escapes space, tab, newline and backslash as octal */
const unescapeMount = (field) => field.replace(/\\([0-7]{3})/g, (_, octal) => String.fromCharCode(parseInt(octal, 8)));

/**
 * Where the cgroup hierarchies are mounted, from /proc/self/mounts.
 * @param {string} mountsText
 * @returns {{ v1: { cpu: string|null, cpuset: string|null }, v2: string|null }}
 */
export function parseCgroupMounts(mountsText) {
  /** @type {{ v1: { cpu: string|null, cpuset: string|null }, v2: string|null }} */
  const found = { v1: { cpu: null, cpuset: null }, v2: null };
  for (const line of mountsText.split('\n')) {
    const [, mountPoint, type, options] = line.split(' ');
    if (!mountPoint) continue;
    if (type === 'cgroup2') found.v2 ??= unescapeMount(mountPoint);
    if (type !== 'cgroup') continue;
    const controllers = options.split(',');
    for (const controller of /** @type {const} */ (['cpu', 'cpuset'])) {
      if (controllers.includes(controller)) found.v1[controller] ??= unescapeMount(mountPoint);
    }
  }
  return found;
}

/**
 * The hierarchy to use: cgroup v1 where it holds every controller needed (a hybrid host's v2 then has none of them),
 * else v2 where its root lists them in cgroup.controllers.
 * @param {{ mounts: ReturnType<typeof parseCgroupMounts>, v2Controllers: string|null, needs: Array<'cpu'|'cpuset'> }} input
 *   v2Controllers: the text of <v2 mount>/cgroup.controllers (null without one)
 * @returns {{ layout: CgroupLayout } | { missing: string }}  missing: what was looked for and found, for the error
 */
export function chooseLayout({ mounts, v2Controllers, needs }) {
  if (needs.every((controller) => mounts.v1[controller])) return { layout: { version: 1, ...mounts.v1 } };
  const v2 = (v2Controllers ?? '').split(/\s+/).filter(Boolean);
  if (mounts.v2 && needs.every((controller) => v2.includes(controller))) return { layout: { version: 2, root: mounts.v2 } };
  const v1Found = Object.entries(mounts.v1).filter(([, at]) => at).map(([controller, at]) => `${controller} at ${at}`);
  return {
    missing: `the ${needs.join(' and ')} controller${needs.length > 1 ? 's' : ''} of cgroup v1 or v2 (found: v1 ${v1Found.join(', ') || 'none'}; `
      + `v2 ${mounts.v2 ? `at ${mounts.v2} with ${v2.join(' ') || 'no controllers'}` : 'not mounted'})`,
  };
}

/** @param {string} id  a short run id ([a-z0-9]{1,8}) @param {string} peer */
export const cgroupName = (id, peer) => `${CGROUP_PREFIX}${id}-${peer}`;

/** The run id and peer of one of our cgroups' names; null for anything else. @param {string} name */
export function parseCgroupName(name) {
  const match = NAME.exec(name);
  return match ? { id: match[1], peer: match[2] } : null;
}

/**
 * Cores in the kernel's cpu list format ("0-3,6").
 * @param {string} text @returns {number[]}
 */
export function parseCpuList(text) {
  const cpus = [];
  for (const part of text.trim().split(',').filter(Boolean)) {
    const match = /^(\d+)(?:-(\d+))?$/.exec(part);
    if (!match) throw new Error(`not a cpu list: ${JSON.stringify(text)}`);
    const [from, to] = [Number(match[1]), Number(match[2] ?? match[1])];
    for (let cpu = from; cpu <= to; cpu++) cpus.push(cpu);
  }
  return cpus;
}

/** @param {number[]} cpus  ascending @returns {string} */
export function formatCpuList(cpus) {
  /** @type {Array<[number, number]>} */
  const ranges = [];
  for (const cpu of cpus) {
    const last = ranges.at(-1);
    if (last && last[1] === cpu - 1) last[1] = cpu;
    else ranges.push([cpu, cpu]);
  }
  return ranges.map(([from, to]) => (from === to ? `${from}` : `${from}-${to}`)).join(',');
}

/** The CFS quota for a share of cores' time. @param {number} cores */
export const quotaUs = (cores) => Math.max(MIN_QUOTA_US, Math.round(cores * CFS_PERIOD_US));

/**
 * What enables the controllers for child cgroups of the v2 root: a write to its cgroup.subtree_control for the ones
 * its text does not list yet (none on v1, where every hierarchy's children have its controllers).
 * @param {CgroupLayout} layout @param {Array<'cpu'|'cpuset'>} needs @param {string} subtreeControl  its text (v2)
 * @returns {{ steps: CgroupStep[], enabled: string[] }}  enabled: the controllers the steps add, for revertParentSteps
 */
export function parentSteps(layout, needs, subtreeControl) {
  if (layout.version === 1) return { steps: [], enabled: [] };
  const already = subtreeControl.split(/\s+/);
  const enabled = needs.filter((controller) => !already.includes(controller));
  return { steps: enabled.length ? [write(`${layout.root}/cgroup.subtree_control`, enabled.map((c) => `+${c}`).join(' '))] : [], enabled };
}

/**
 * What undoes parentSteps once the run's cgroups are gone: `-<controller>` for each controller the run enabled, and
 * only those. v2 takes a controller from every child cgroup at once, so while another run's cgroup is still there
 * (it may have started after this one enabled it) the controllers stay.
 * @param {string} root  the v2 mount point @param {string[]} enabled  from parentSteps
 * @param {string[]} children  the names of the root's child cgroups now
 * @returns {{ steps: CgroupStep[], keptFor: string[] }}  keptFor: the harness's cgroups that kept them
 */
export function revertParentSteps(root, enabled, children) {
  const keptFor = children.filter((name) => parseCgroupName(name) !== null).sort();
  if (!enabled.length || keptFor.length) return { steps: [], keptFor: enabled.length ? keptFor : [] };
  return { steps: [write(`${root}/cgroup.subtree_control`, enabled.map((c) => `-${c}`).join(' '))], keptFor: [] };
}

/**
 * A peer's cgroup: its directories, the quota and cpuset written into them, and where its processes go.
 * @param {{ layout: CgroupLayout, name: string, limits: CpuLimits, allowedCpus: string|null, mems: string|null, where: string }} input
 *   allowedCpus: the parent's effective cpus (needed with cpuCount); mems: the v1 parent's effective memory nodes (a
 *   v1 cpuset takes no process before its mems are set; v2 inherits them); where: the device, for errors
 * @returns {PeerCgroupPlan}
 */
export function peerCgroupPlan({ layout, name, limits: { cpuQuotaCores, cpuCount }, allowedCpus, mems, where }) {
  let cpus = null;
  if (cpuCount !== null) {
    const allowed = parseCpuList(allowedCpus ?? '');
    if (cpuCount > allowed.length) {
      throw new EnvironmentError(`${where}.cpuCount: ${cpuCount} cores asked, but this machine lets the run use ${allowed.length} (${allowedCpus}); `
        + `give at most ${allowed.length}`);
    }
    cpus = formatCpuList(allowed.slice(0, cpuCount));
  }
  const quota = cpuQuotaCores === null ? null : quotaUs(cpuQuotaCores);
  const [cpuDir, cpusetDir] = layout.version === 1
    ? [layout.cpu && `${layout.cpu}/${name}`, layout.cpuset && `${layout.cpuset}/${name}`]
    : [`${layout.root}/${name}`, `${layout.root}/${name}`];
  const dirs = [...new Set([quota === null ? null : cpuDir, cpus === null ? null : cpusetDir].filter((dir) => dir !== null))];
  /** @type {CgroupStep[]} */
  const steps = dirs.map((path) => ({ op: 'mkdir', path }));
  if (quota !== null) {
    steps.push(...(layout.version === 1
      ? [write(`${cpuDir}/cpu.cfs_period_us`, `${CFS_PERIOD_US}`), write(`${cpuDir}/cpu.cfs_quota_us`, `${quota}`)]
      : [write(`${cpuDir}/cpu.max`, `${quota} ${CFS_PERIOD_US}`)]));
  }
  if (cpus !== null) {
    steps.push(write(`${cpusetDir}/cpuset.cpus`, cpus));
    if (layout.version === 1) steps.push(write(`${cpusetDir}/cpuset.mems`, mems ?? '0'));
  }
  return { dirs, steps, procsFiles: dirs.map((dir) => `${dir}/cgroup.procs`), cpus, quotaUs: quota, periodUs: CFS_PERIOD_US };
}

/**
 * The processes of a Chromium tree a device's limits apply to: its renderers, where the page runs and WebRTC encodes
 * and decodes, and the zygote that forks them (the one without --no-zygote-sandbox, which forks the GPU process), so
 * renderers forked later are born in the cgroup; right after launch it is often the only one there. The browser, GPU,
 * network and audio processes stay outside, and so does the video capture service: the fake camera stands for a
 * phone's camera hardware, which keeps its frame rate however slow the CPU (limited with the rest, it delivered
 * fewer frames).
 * @param {Array<{ pid: number, ppid: number, cmdline: string }>} processes  the browser's tree with /proc/<pid>/cmdline:
 *   NUL-separated, or (Chromium sets its process title) one string with spaces
 * @returns {number[]}
 */
export function pageProcesses(processes) {
  return processes.filter(({ cmdline }) => {
    const args = cmdline.split(/[\0\s]+/);
    return args.includes('--type=renderer') || (args.includes('--type=zygote') && !args.includes('--no-zygote-sandbox'));
  }).map((proc) => proc.pid);
}

/**
 * cpu.stat of a cgroup: how many CFS periods it ran in and how many of them hit the quota (v1: throttled_time in ns;
 * v2: throttled_usec).
 * @param {string} text @returns {{ periods: number, throttledPeriods: number, throttledMs: number }|null}
 */
export function parseCpuStat(text) {
  const fields = Object.fromEntries(text.split('\n').map((line) => line.trim().split(/\s+/)).filter((parts) => parts.length === 2)
    .map(([key, value]) => [key, Number(value)]));
  if (!Number.isFinite(fields.nr_periods) || !Number.isFinite(fields.nr_throttled)) return null;
  const throttledMs = Number.isFinite(fields.throttled_usec) ? fields.throttled_usec / 1000 : (fields.throttled_time ?? 0) / 1e6;
  return { periods: fields.nr_periods, throttledPeriods: fields.nr_throttled, throttledMs: Math.round(throttledMs) };
}

/**
 * A step as the shell line that does the same, for the run's command log (a run reproducible by hand).
 * @param {CgroupStep} step @param {(argv: string[]) => string} shellJoin
 */
export function stepCommand(step, shellJoin) {
  if (step.op === 'write') return `${shellJoin(['echo', step.value])} > ${shellJoin([step.file])}`;
  return shellJoin([step.op, step.path]);
}

/**
 * Moving processes into a cgroup, as one shell line.
 * @param {number[]} pids @param {string} procsFile @param {(argv: string[]) => string} shellJoin
 */
export function moveCommand(pids, procsFile, shellJoin) {
  return `for pid in ${pids.join(' ')}; do echo $pid > ${shellJoin([procsFile])}; done`;
}
