import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cpuPercent, parseStat, parseStatusRssKb, processTree, rssMb } from '../../orchestrator/lib/devices/proc-stat.js';

// Real /proc/<pid>/stat lines (Linux 6.x); the second has a command name with a space and a ')' in it.
const CAT_STAT = '25113 (cat) R 25111 25111 5168 0 -1 4194304 101 0 0 0 7 3 0 0 20 0 1 0 128873 3133440 379 '
  + '18446744073709551615 94437870735360 94437870755241 140725301888992 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n';
const ODD_STAT = '4242 (Web Content) x) S 1000 4242 4242 0 -1 4194560 5000 0 0 0 1234 567 8 9 20 0 30 0 99999 '
  + '2000000000 50000 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0';
const STATUS = 'Name:\tchromium\nUmask:\t0022\nState:\tS (sleeping)\nPid:\t4242\nPPid:\t1000\n'
  + 'VmPeak:\t 1200000 kB\nVmSize:\t 1100000 kB\nVmHWM:\t  210000 kB\nVmRSS:\t  204800 kB\nRssAnon:\t  100000 kB\nThreads:\t30\n';
const KTHREAD_STATUS = 'Name:\tkthreadd\nUmask:\t0000\nState:\tS (sleeping)\nPid:\t2\nPPid:\t0\nThreads:\t1\n';

test('parseStat reads ppid, utime+stime and start time, counting fields after the last parenthesis', () => {
  assert.deepEqual(parseStat(CAT_STAT), { pid: 25113, comm: 'cat', state: 'R', ppid: 25111, cpuTicks: 10, startTimeTicks: 128873 });
  assert.deepEqual(parseStat(ODD_STAT), { pid: 4242, comm: 'Web Content) x', state: 'S', ppid: 1000, cpuTicks: 1801, startTimeTicks: 99999 });
  assert.throws(() => parseStat('garbage'), /not a \/proc\/<pid>\/stat line/);
  assert.throws(() => parseStat('1 (a) S x'), /field 4 is not an integer/);
});

test('parseStatusRssKb reads VmRSS, and 0 where there is none (kernel threads)', () => {
  assert.equal(parseStatusRssKb(STATUS), 204800);
  assert.equal(parseStatusRssKb(KTHREAD_STATUS), 0);
});

test('processTree follows parent pids to every descendant, and is empty when the root is gone', () => {
  const processes = [
    { pid: 1, ppid: 0 }, { pid: 10, ppid: 1 }, { pid: 11, ppid: 10 }, { pid: 12, ppid: 10 },
    { pid: 13, ppid: 12 }, { pid: 20, ppid: 1 }, { pid: 21, ppid: 20 },
  ];
  assert.deepEqual(processTree(processes, 10).sort((a, b) => a - b), [10, 11, 12, 13]);
  assert.deepEqual(processTree(processes, 21), [21]);
  assert.deepEqual(processTree(processes, 99), []);
});

/** @param {number} atMs @param {[number, number, number, number?][]} rows pid, cpuTicks, startTimeTicks, rssKb */
const reading = (atMs, rows) => ({
  atMs,
  processes: new Map(rows.map(([pid, cpuTicks, startTimeTicks, rssKb = 0]) => [pid, { pid, comm: 'x', state: 'S', ppid: 1, cpuTicks, startTimeTicks, rssKb }])),
});

test('cpuPercent: tick deltas over wall time in % of one core; new processes count whole, reused pids restart', () => {
  const before = reading(1_000, [[10, 500, 100], [11, 200, 110], [12, 50, 120]]);
  // 2 s later at 100 ticks/s: pid 10 used 150 ticks (75 %), pid 11 30 ticks; pid 12 is a new process reusing the
  // pid (other start time) with 40 ticks; pid 13 was born in between with 20.
  const after = reading(3_000, [[10, 650, 100], [11, 230, 110], [12, 40, 999], [13, 20, 1000]]);
  assert.equal(cpuPercent(before, after, [10], 100), 75);
  assert.equal(cpuPercent(before, after, [10, 11, 12, 13], 100), (150 + 30 + 40 + 20) / 2);
  assert.equal(cpuPercent(before, after, [10, 99], 100), 75, 'a pid not in the reading adds nothing');
  assert.equal(cpuPercent(before, before, [10], 100), null, 'no time passed');
});

test('rssMb sums the tree in MB', () => {
  const r = reading(0, [[10, 0, 1, 204800], [11, 0, 1, 51200]]);
  assert.equal(rssMb(r, [10, 11]), 250);
  assert.equal(rssMb(r, [10, 77]), 200);
});
