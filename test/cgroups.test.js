// Device cgroups against the real kernel (root, cgroup v1 or v2 with the cpu and cpuset controllers): made with their
// quota and cores, a process tree moved in (and what it forks later inherits it), every write in the command log,
// removed on close, by the guardian when the orchestrator is killed, and by `cleanup` when both are gone; a
// non-root user gets exit 3 naming the fix. No browser: `sleep` trees stand for them.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseCgroupMounts } from '../orchestrator/lib/devices/cpu-cgroup.js';
import { createPeerCgroups, removeStaleCgroups } from '../orchestrator/run/cgroups.js';
import { runCli, tempDir } from './helpers/cli.js';

const mounts = parseCgroupMounts(readFileSync('/proc/self/mounts', 'utf8'));
const v2Controllers = mounts.v2 ? readFileSync(`${mounts.v2}/cgroup.controllers`, 'utf8') : '';
const hasCpu = (mounts.v1.cpu && mounts.v1.cpuset) || /\bcpu\b/.test(v2Controllers);
const skip = process.getuid?.() !== 0 ? 'needs root' : !hasCpu ? 'no cpu/cpuset cgroup controllers here' : false;
const cpuDir = mounts.v1.cpu ?? mounts.v2;
const cpusetDir = mounts.v1.cpuset ?? mounts.v2;
const procs = (dir) => (existsSync(`${dir}/cgroup.procs`) ? readFileSync(`${dir}/cgroup.procs`, 'utf8').split('\n').filter(Boolean).map(Number) : []);
const REPO = fileURLToPath(new URL('..', import.meta.url));

const FAKE_CHROMIUM = fileURLToPath(new URL('./fixtures/cgroup/fake-chromium.sh', import.meta.url));
/** A browser stand-in: a zygote with two renderers and a capture service, all gone with the test process. */
const fakeChromium = () => spawn('setpriv', ['--pdeathsig', 'KILL', '--', FAKE_CHROMIUM], { stdio: 'ignore', detached: true });
const cmdline = (pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');

async function until(predicate, what, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

test('a peer\'s cgroup has its quota and cores, takes the page\'s processes, holds them to the quota and is gone after close', { skip }, async () => {
  const commands = [];
  const closers = [];
  const runId = `t${process.pid.toString(36)}`.slice(0, 8);
  const cgroups = await createPeerCgroups({
    limits: { p1: { cpuQuotaCores: 0.25, cpuCount: 1 } }, runId, where: 'x.json', clock: () => 0, logFile: path.join(tempDir(), 'guardian.log'),
    logCommand: (record) => commands.push(record), registerCleanup: (name, close) => closers.push(close),
  });
  assert.ok(cgroups);
  const name = `wtb-${runId}-p1`;
  try {
    assert.equal(closers.length, 1, 'the closer is registered');
    const { p1 } = cgroups.record.peers;
    assert.deepEqual({ ...p1, paths: undefined },
      { name, paths: undefined, cpuQuotaCores: 0.25, cpuCount: 1, quotaUs: 2500, periodUs: 10_000, cpus: p1.cpus, cpuStat: null });
    assert.match(p1.cpus, /^\d+$/);
    if (mounts.v1.cpu) assert.equal(readFileSync(`${cpuDir}/${name}/cpu.cfs_quota_us`, 'utf8').trim(), '2500');
    else assert.equal(readFileSync(`${cpuDir}/${name}/cpu.max`, 'utf8').trim(), '2500 10000');
    assert.equal(readFileSync(`${cpusetDir}/${name}/cpuset.cpus`, 'utf8').trim(), p1.cpus);

    const browser = fakeChromium();
    await sleep(300);
    const moved = await cgroups.attach('p1', browser.pid);
    // The page's processes only: the zygote and its two renderers, not the browser or its capture service.
    assert.equal(moved, 3);
    for (const dir of p1.paths) {
      const types = procs(dir).map((pid) => cmdline(pid).find((arg) => arg.startsWith('--type='))).sort();
      assert.deepEqual(types, ['--type=renderer', '--type=renderer', '--type=zygote'], dir);
    }
    await cgroups.sweep();
    // The two busy renderers hit the quota in every period.
    await sleep(500);
    assert.ok(commands.length > 0, 'commands: nothing to check');
    assert.ok(commands.every((record) => record.ok), JSON.stringify(commands));
    const lines = commands.map((record) => record.cmd);
    assert.ok(lines.includes(`mkdir ${cpuDir}/${name}`), lines.join('\n'));
    assert.ok(lines.some((line) => /^echo 2500 > .*cpu\.cfs_quota_us$|^echo '2500 10000' > .*cpu\.max$/.test(line)), lines.join('\n'));
    assert.ok(lines.some((line) => line.startsWith('for pid in ') && line.endsWith(`> ${cpuDir}/${name}/cgroup.procs; done`)), lines.join('\n'));
    process.kill(-browser.pid, 'SIGKILL');
  } finally {
    await closers[0]();
  }
  for (const dir of cgroups.record.peers.p1.paths) assert.ok(!existsSync(dir), `${dir} removed`);
  const { cpuStat } = cgroups.record.peers.p1;
  assert.ok(cpuStat.periods >= 3 && cpuStat.throttledPeriods >= 3 && cpuStat.throttledMs > 0, JSON.stringify(cpuStat));
  assert.ok(commands.map((record) => record.cmd).includes(`rmdir ${cpuDir}/${name}`));
});

test('a killed orchestrator\'s cgroups are removed by its guardian once its browser is gone', { skip }, async () => {
  const script = `
    import { createPeerCgroups } from './orchestrator/run/cgroups.js';
    import { spawn } from 'node:child_process';
    const cgroups = await createPeerCgroups({ limits: { p0: { cpuQuotaCores: 0.5, cpuCount: null } }, runId: process.argv[1], where: 'x.json',
      clock: () => 0, logFile: process.argv[2], logCommand: () => {}, registerCleanup: () => {} });
    const browser = spawn('setpriv', ['--pdeathsig', 'KILL', '--', process.argv[3]], { stdio: 'ignore' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await cgroups.attach('p0', browser.pid);
    console.log(JSON.stringify(cgroups.record.peers.p0.paths));
    setInterval(() => {}, 1000);`;
  const runId = `k${process.pid.toString(36)}`.slice(0, 8);
  const logFile = path.join(tempDir(), 'guardian.log');
  const child = spawn(process.execPath, ['--input-type=module', '-e', script, runId, logFile, FAKE_CHROMIUM], { cwd: REPO, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk) => { out += chunk; });
  await until(() => out.includes('\n'), 'the cgroup');
  const [dir] = JSON.parse(out);
  assert.equal(procs(dir).length, 3, 'the browser stand-in\'s page processes are in it');
  child.kill('SIGKILL');
  await until(() => !existsSync(dir), `${dir} removed by the guardian`);
  assert.match(readFileSync(logFile, 'utf8'), /orchestrator gone without removing its cgroups[\s\S]*ok: rmdir/);
});

test('cleanup removes the cgroups of dead runs and leaves a live run\'s alone', { skip }, async () => {
  const dead = `${cpuDir}/wtb-${`d${process.pid.toString(36)}`.slice(0, 8)}-p1`;
  mkdirSync(dead);
  const closers = [];
  const live = await createPeerCgroups({
    limits: { p0: { cpuQuotaCores: 0.5, cpuCount: null } }, runId: `l${process.pid.toString(36)}`.slice(0, 8), where: 'x.json', clock: () => 0,
    logFile: path.join(tempDir(), 'guardian.log'), logCommand: () => {}, registerCleanup: (name, close) => closers.push(close),
  });
  try {
    const dry = await runCli(['cleanup', '--dry-run']);
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, new RegExp(`would remove .*cgroups? \\(.*${path.basename(dead)}`));
    assert.ok(existsSync(dead));
    const found = await removeStaleCgroups();
    assert.ok(found.cgroups.includes(dead), JSON.stringify(found));
    assert.ok(!existsSync(dead), 'the dead run\'s cgroup is gone');
    const livePath = live?.record.peers.p0.paths[0] ?? '';
    assert.ok(existsSync(livePath), 'the live run\'s cgroup stays');
    assert.ok(found.liveRuns.length >= 1);
  } finally {
    await closers[0]?.();
  }
});

test('without root the run stops before anything starts with exit 3 naming the fix', { skip: process.getuid?.() !== 0 ? 'needs root to become nobody' : false }, async () => {
  const out = tempDir();
  spawnSync('chmod', ['777', out]);
  const run = spawnSync('setpriv', ['--reuid', '65534', '--regid', '65534', '--clear-groups', '--', process.execPath,
    'orchestrator/bin/cli.js', 'scenario', 'constrained-device', '--duration', '15', '--warmup', '2', '--out', path.join(out, 'run')], { cwd: REPO, encoding: 'utf8', env: { ...process.env, HOME: out } });
  assert.equal(run.status, 3, `${run.stdout}\n${run.stderr}`);
  assert.match(run.stderr, /devices\.p1\.cpuQuotaCores: limiting a browser's CPU makes cgroups under .*, which needs root; run it with sudo, or drop the field/);
});
