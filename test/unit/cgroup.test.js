// A constrained device's cgroup, planned from /proc/self/mounts of real hosts (fixtures): this machine's cgroup v1
// with a controller-less v2 beside it, a distribution's co-mounted cpu,cpuacct, a systemd host's pure v2, and a host
// without the cpu controller.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import {
  chooseLayout, cgroupName, formatCpuList, moveCommand, pageProcesses, parentSteps, parseCgroupMounts, parseCgroupName, parseCpuList,
  parseCpuStat, peerCgroupPlan, quotaUs, stepCommand,
} from '../../orchestrator/lib/devices/cpu-cgroup.js';
import { shellJoin } from '../../orchestrator/emulators/script.js';

const mounts = (name) => parseCgroupMounts(readFileSync(new URL(`../fixtures/cgroup/mounts-${name}.txt`, import.meta.url), 'utf8'));

test('the cpu and cpuset hierarchies are found in /proc/self/mounts, v1 or v2', () => {
  assert.deepEqual(mounts('v1-hybrid'), { v1: { cpu: '/sys/fs/cgroup/cpu', cpuset: '/sys/fs/cgroup/cpuset' }, v2: '/sys/fs/cgroup/unified' });
  // cpuacct is not cpu, nor net_prio: options are whole words.
  assert.deepEqual(mounts('v1-comounted'), { v1: { cpu: '/sys/fs/cgroup/cpu,cpuacct', cpuset: '/sys/fs/cgroup/cpuset' }, v2: '/sys/fs/cgroup/unified' });
  assert.deepEqual(mounts('v2-systemd'), { v1: { cpu: null, cpuset: null }, v2: '/sys/fs/cgroup' });
  assert.deepEqual(mounts('none'), { v1: { cpu: null, cpuset: null }, v2: '/mnt/my cgroups' });
});

test('v1 is used where it holds the controllers; v2 where its root lists them; else what was found is said', () => {
  assert.deepEqual(chooseLayout({ mounts: mounts('v1-hybrid'), v2Controllers: '', needs: ['cpu', 'cpuset'] }),
    { layout: { version: 1, cpu: '/sys/fs/cgroup/cpu', cpuset: '/sys/fs/cgroup/cpuset' } });
  assert.deepEqual(chooseLayout({ mounts: mounts('v2-systemd'), v2Controllers: 'cpuset cpu io memory hugetlb pids rdma misc', needs: ['cpu'] }),
    { layout: { version: 2, root: '/sys/fs/cgroup' } });
  // A container's v2 without the cpu controller delegated to it.
  assert.deepEqual(chooseLayout({ mounts: mounts('v2-systemd'), v2Controllers: 'memory pids', needs: ['cpu'] }),
    { missing: 'the cpu controller of cgroup v1 or v2 (found: v1 none; v2 at /sys/fs/cgroup with memory pids)' });
  assert.deepEqual(chooseLayout({ mounts: mounts('none'), v2Controllers: '', needs: ['cpu', 'cpuset'] }),
    { missing: 'the cpu and cpuset controllers of cgroup v1 or v2 (found: v1 none; v2 at /mnt/my cgroups with no controllers)' });
  const onlyCpu = { v1: { cpu: '/sys/fs/cgroup/cpu', cpuset: null }, v2: null };
  assert.match(/** @type {{ missing: string }} */ (chooseLayout({ mounts: onlyCpu, v2Controllers: null, needs: ['cpu', 'cpuset'] })).missing, /v1 cpu at \/sys\/fs\/cgroup\/cpu; v2 not mounted/);
});

test('cgroup names carry the run and the peer; anything else is not ours', () => {
  assert.equal(cgroupName('1a2b3c4d', 'p1'), 'wtb-1a2b3c4d-p1');
  assert.deepEqual(parseCgroupName('wtb-1a2b3c4d-p12'), { id: '1a2b3c4d', peer: 'p12' });
  for (const name of ['wtb-1a2b3c4d', 'wtb-1a2b3c4d-r', 'wtbx-1a2b-p1', 'docker', 'wtb-UPPER-p1', 'wtb-123456789-p1']) assert.equal(parseCgroupName(name), null, name);
});

test('cpu lists: ranges and single cores, both ways', () => {
  assert.deepEqual(parseCpuList('0-3,6,8-9\n'), [0, 1, 2, 3, 6, 8, 9]);
  assert.deepEqual(parseCpuList('0'), [0]);
  assert.deepEqual(parseCpuList(''), []);
  assert.throws(() => parseCpuList('0-'), /not a cpu list/);
  assert.equal(formatCpuList([0, 1, 2, 3, 6, 8, 9]), '0-3,6,8-9');
  assert.equal(formatCpuList([1]), '1');
});

test('a quota is a share of the 10 ms period, at least the kernel\'s 1 ms', () => {
  assert.equal(quotaUs(0.25), 2500);
  assert.equal(quotaUs(1.5), 15_000);
  assert.equal(quotaUs(0.05), 1000);
});

const V1 = { version: /** @type {const} */ (1), cpu: '/sys/fs/cgroup/cpu', cpuset: '/sys/fs/cgroup/cpuset' };
const V2 = { version: /** @type {const} */ (2), root: '/sys/fs/cgroup' };

test('v1: a quota in the cpu hierarchy, the first cores and the memory nodes in the cpuset one', () => {
  const plan = peerCgroupPlan({ layout: V1, name: 'wtb-ab-p1', limits: { cpuQuotaCores: 0.3, cpuCount: 1 }, allowedCpus: '0-1', mems: '0', where: 'f: devices.p1' });
  assert.deepEqual(plan.dirs, ['/sys/fs/cgroup/cpu/wtb-ab-p1', '/sys/fs/cgroup/cpuset/wtb-ab-p1']);
  assert.deepEqual(plan.steps.map((step) => stepCommand(step, shellJoin)), [
    'mkdir /sys/fs/cgroup/cpu/wtb-ab-p1',
    'mkdir /sys/fs/cgroup/cpuset/wtb-ab-p1',
    'echo 10000 > /sys/fs/cgroup/cpu/wtb-ab-p1/cpu.cfs_period_us',
    'echo 3000 > /sys/fs/cgroup/cpu/wtb-ab-p1/cpu.cfs_quota_us',
    'echo 0 > /sys/fs/cgroup/cpuset/wtb-ab-p1/cpuset.cpus',
    'echo 0 > /sys/fs/cgroup/cpuset/wtb-ab-p1/cpuset.mems',
  ]);
  assert.deepEqual(plan.procsFiles, ['/sys/fs/cgroup/cpu/wtb-ab-p1/cgroup.procs', '/sys/fs/cgroup/cpuset/wtb-ab-p1/cgroup.procs']);
  assert.deepEqual([plan.cpus, plan.quotaUs, plan.periodUs], ['0', 3000, 10_000]);
  // Only what is asked: a quota alone makes no cpuset.
  const quotaOnly = peerCgroupPlan({ layout: V1, name: 'wtb-ab-p1', limits: { cpuQuotaCores: 0.3, cpuCount: null }, allowedCpus: null, mems: null, where: 'f' });
  assert.deepEqual([quotaOnly.dirs, quotaOnly.cpus], [['/sys/fs/cgroup/cpu/wtb-ab-p1'], null]);
  assert.deepEqual(parentSteps(V1, ['cpu', 'cpuset'], ''), { steps: [], enabled: [] });
});

test('v2: one directory with cpu.max and cpuset.cpus, the controllers enabled for the root\'s children first where they are not', () => {
  const plan = peerCgroupPlan({ layout: V2, name: 'wtb-ab-p0', limits: { cpuQuotaCores: 0.5, cpuCount: 2 }, allowedCpus: '0-7', mems: null, where: 'f' });
  assert.deepEqual(plan.steps.map((step) => stepCommand(step, shellJoin)), [
    'mkdir /sys/fs/cgroup/wtb-ab-p0',
    'echo \'5000 10000\' > /sys/fs/cgroup/wtb-ab-p0/cpu.max',
    'echo 0-1 > /sys/fs/cgroup/wtb-ab-p0/cpuset.cpus',
  ]);
  assert.deepEqual(plan.procsFiles, ['/sys/fs/cgroup/wtb-ab-p0/cgroup.procs']);
  const parent = parentSteps(V2, ['cpu', 'cpuset'], 'cpu io memory pids');
  assert.deepEqual(parent.steps.map((step) => stepCommand(step, shellJoin)), ['echo +cpuset > /sys/fs/cgroup/cgroup.subtree_control']);
  assert.deepEqual(parent.enabled, ['cpuset']);
  assert.deepEqual(parentSteps(V2, ['cpu'], 'cpuset cpu io'), { steps: [], enabled: [] });
});

test('more cores than the machine lets the run use is an environment error naming the field', () => {
  assert.throws(() => peerCgroupPlan({ layout: V1, name: 'n', limits: { cpuQuotaCores: null, cpuCount: 4 }, allowedCpus: '0-1', mems: '0', where: 'x.json: devices.p1' }),
    (/** @type {Error & { exitCode?: number }} */ error) => error.name === 'EnvironmentError' && error.exitCode === 3
      && /^x\.json: devices\.p1\.cpuCount: 4 cores asked, but this machine lets the run use 2 \(0-1\); give at most 2$/.test(error.message));
});

test('moving processes is one shell line per cgroup', () => {
  assert.equal(moveCommand([101, 102], '/sys/fs/cgroup/cpu/wtb-ab-p1/cgroup.procs', shellJoin),
    'for pid in 101 102; do echo $pid > /sys/fs/cgroup/cpu/wtb-ab-p1/cgroup.procs; done');
  assert.equal(stepCommand({ op: 'rmdir', path: '/mnt/my cgroups/wtb-ab-p1' }, shellJoin), 'rmdir \'/mnt/my cgroups/wtb-ab-p1\'');
});

test('the page\'s processes of a Chromium tree: its renderers and their zygote, not the capture service or the browser', () => {
  // Chromium 156's tree on this machine after getUserMedia (pids, parents and flags as /proc showed them): Chromium sets
  // its process title, so its cmdline is one string with spaces.
  const chromium = (type, extra = []) => ['/usr/lib/chromium/chromium', ...(type ? [`--type=${type}`] : []), ...extra, '--no-sandbox'].join(' ');
  const tree = [
    { pid: 100, ppid: 1, cmdline: chromium(null) },
    { pid: 101, ppid: 100, cmdline: chromium('zygote', ['--no-zygote-sandbox']) },
    { pid: 102, ppid: 100, cmdline: chromium('zygote') },
    { pid: 103, ppid: 101, cmdline: chromium('gpu-process') },
    { pid: 104, ppid: 100, cmdline: chromium('utility', ['--utility-sub-type=network.mojom.NetworkService']) },
    { pid: 105, ppid: 102, cmdline: chromium('utility', ['--utility-sub-type=storage.mojom.StorageService']) },
    { pid: 106, ppid: 102, cmdline: chromium('renderer', ['--top-chrome-webui']) },
    { pid: 107, ppid: 102, cmdline: chromium('renderer') },
    { pid: 108, ppid: 100, cmdline: chromium('utility', ['--utility-sub-type=video_capture.mojom.VideoCaptureService']) },
    { pid: 109, ppid: 100, cmdline: chromium('utility', ['--utility-sub-type=audio.mojom.AudioService']) },
  ];
  assert.deepEqual(pageProcesses(tree), [102, 106, 107]);
  assert.deepEqual(pageProcesses(tree.slice(0, 3)), [102], 'no renderer yet: the zygote that will fork them');
  // A NUL-separated command line (a process that kept its argv) reads the same.
  assert.deepEqual(pageProcesses([{ pid: 7, ppid: 1, cmdline: 'sh\0fake-chromium.sh\0--type=renderer' }]), [7]);
  assert.deepEqual(pageProcesses([{ pid: 8, ppid: 1, cmdline: 'sh\0--type=renderer-like' }]), []);
});

test('cpu.stat: periods, throttled periods and time, from v1 (ns) and v2 (µs)', () => {
  assert.deepEqual(parseCpuStat('nr_periods 212\nnr_throttled 150\nthrottled_time 9876543210\nnr_bursts 0\nburst_time 0\n'),
    { periods: 212, throttledPeriods: 150, throttledMs: 9877 });
  assert.deepEqual(parseCpuStat('usage_usec 61000\nuser_usec 40000\nsystem_usec 21000\nnr_periods 30\nnr_throttled 12\nthrottled_usec 540000\n'),
    { periods: 30, throttledPeriods: 12, throttledMs: 540 });
  assert.equal(parseCpuStat('usage_usec 5\n'), null);
});
