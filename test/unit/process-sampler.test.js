import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { readTrees, startProcessSampler } from '../../orchestrator/run/process-sampler.js';

// A parent that idles while its child spins: the busy process is a descendant, not the tracked root.
const BUSY_TREE = "require('node:child_process').spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'inherit' }); setInterval(() => {}, 1000)";

test('samples a process tree once a second: a busy grandchild counts, an idle process does not', { skip: process.platform !== 'linux' }, async (t) => {
  const busy = spawn(process.execPath, ['-e', BUSY_TREE], { stdio: 'ignore', detached: true });
  const idle = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  t.after(() => {
    process.kill(-busy.pid, 'SIGKILL');
    idle.kill('SIGKILL');
  });
  await Promise.all([once(busy, 'spawn'), once(idle, 'spawn')]);
  const sampler = startProcessSampler({ intervalMs: 500 });
  assert.equal(sampler.unavailable, null);
  sampler.track('busy', busy.pid);
  sampler.track('idle', idle.pid);
  await sleep(2_600);
  const rows = await sampler.stop();
  const busyRows = rows.filter((row) => row.process === 'busy');
  const idleRows = rows.filter((row) => row.process === 'idle');
  assert.ok(busyRows.length >= 3 && idleRows.length >= 3, JSON.stringify(rows));
  const last = busyRows.at(-1);
  assert.equal(last.processCount, 2);
  // One spinning core; other work on a 2-core machine can take some of it.
  assert.ok(last.cpuPct > 30 && last.cpuPct < 130, `busy tree at ${last.cpuPct} %`);
  assert.ok(last.rssMb > 20 && last.rssMb < 1000, `busy tree holds ${last.rssMb} MB`);
  assert.ok(idleRows.at(-1).cpuPct < 15, `idle process at ${idleRows.at(-1).cpuPct} %`);
  assert.ok(rows.length > 0, 'rows: nothing to check');
  assert.ok(rows.every((row, i) => i === 0 || row.epochMs >= rows[i - 1].epochMs));
  const count = rows.length;
  await sleep(700);
  assert.equal(sampler.rows.length, count, 'no rows after stop()');
});

test('a root that exits stops producing rows; no /proc gives a reason and no rows', async () => {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 600)'], { stdio: 'ignore' });
  await once(child, 'spawn');
  const sampler = startProcessSampler({ intervalMs: 200 });
  sampler.track('short', child.pid);
  await once(child, 'exit');
  await sleep(100);
  const countAtExit = sampler.rows.length;
  await sleep(600);
  assert.equal((await sampler.stop()).length, countAtExit);

  const none = startProcessSampler({ procDir: '/nonexistent-proc' });
  none.track('x', process.pid);
  assert.match(none.unavailable, /\/nonexistent-proc does not exist/);
  assert.deepEqual(await none.stop(), []);
});

// A child listed in the directory whose status is gone by the second read exited in between: it is not counted.
test('a process that exits between its stat and its status is left out of the tree, not counted with no memory', async (t) => {
  const procDir = await mkdtemp(path.join(tmpdir(), 'wtb-proc-'));
  t.after(() => rm(procDir, { recursive: true, force: true }));
  const stat = (/** @type {number} */ pid, /** @type {number} */ ppid) => `${pid} (chrome) S ${ppid} ${'0 '.repeat(9)}7 3 ${'0 '.repeat(6)}42 0`;
  for (const [pid, ppid] of [[100, 1], [101, 100]]) {
    await mkdir(path.join(procDir, String(pid)));
    await writeFile(path.join(procDir, String(pid), 'stat'), stat(pid, ppid));
  }
  await writeFile(path.join(procDir, '100', 'status'), 'Name:\tchrome\nVmRSS:\t  51200 kB\n');
  const reading = (await readTrees(procDir, new Map([['p0', 100]]))).get('p0');
  assert.deepEqual([...(reading?.processes.keys() ?? [])], [100]);
  assert.equal(reading?.processes.get(100)?.rssKb, 51200);
  assert.equal(reading?.processes.get(100)?.cpuTicks, 10);
});
