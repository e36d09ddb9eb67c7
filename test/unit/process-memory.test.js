import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import {
  browserMemoryMb, checkMemoryReply, checkPidList, MAX_ANCESTORS, MAX_MEMORY_PIDS, parseSmapsRollup, pidsUnder,
} from '../../orchestrator/lib/devices/process-memory.js';
import { parseStat } from '../../orchestrator/lib/devices/proc-stat.js';
import { readProcessMemory } from '../../orchestrator/emulators/node-relay/process-memory.js';

const fixture = (name) => readFileSync(new URL(`../fixtures/proc/${name}`, import.meta.url), 'utf8');

test('smaps_rollup gives Rss and Pss in kB; a text without them gives null', () => {
  assert.deepEqual(parseSmapsRollup(fixture('smaps_rollup')), { rssKb: 183636, pssKb: 61194 });
  assert.equal(parseSmapsRollup('Rss: 12 kB\n'), null);
  assert.equal(parseSmapsRollup(''), null);
});

// A node's processes as /proc/<pid>/stat has them: java (the Selenium node) → chromedriver → chrome → its zygote → a
// renderer; beside them the node's own relay, another user's process, and a process whose parent chain loops.
const STATS = [
  '1 (systemd) S 0 1 1 0 -1 0 0 0 0 0 10 10 0 0 20 0 1 0 1 0',
  '900 (java) S 1 900 900 0 -1 0 0 0 0 0 10 10 0 0 20 0 1 0 50 0',
  '901 (chromedriver) S 900 900 900 0 -1 0 0 0 0 0 10 10 0 0 20 0 1 0 60 0',
  '902 (chrome) S 901 900 900 0 -1 0 0 0 0 0 10 10 0 0 20 0 1 0 61 0',
  '903 (chrome (zygote)) S 902 900 900 0 -1 0 0 0 0 0 10 10 0 0 20 0 1 0 62 0',
  '904 (chrome) S 903 900 900 0 -1 0 0 0 0 0 10 10 0 0 20 0 1 0 63 0',
  '800 (node) S 1 800 800 0 -1 0 0 0 0 0 10 10 0 0 20 0 1 0 40 0',
  '700 (ssh-agent) S 1 700 700 0 -1 0 0 0 0 0 10 10 0 0 20 0 1 0 30 0',
  '600 (loop) S 601 600 600 0 -1 0 0 0 0 0 10 10 0 0 20 0 1 0 30 0',
  '601 (loop) S 600 600 600 0 -1 0 0 0 0 0 10 10 0 0 20 0 1 0 30 0',
].map(parseStat);
const PPID_OF = new Map(STATS.map(({ pid, ppid }) => [pid, ppid]));

test('a node answers only for its Selenium node\'s descendants: not the node itself, its relay, another\'s process, a gone one', () => {
  assert.deepEqual(pidsUnder([904, 902, 700, 800, 900, 1, 600, 12345], PPID_OF, 900), [904, 902]);
  assert.deepEqual(pidsUnder([902], PPID_OF, 777), [], 'no root, no answer');
  assert.deepEqual(pidsUnder([601, 600], PPID_OF, 1), [], 'a loop ends');
  // A chain deeper than MAX_ANCESTORS is not followed to its end.
  const deep = new Map(Array.from({ length: MAX_ANCESTORS + 2 }, (_, i) => [1000 + i, i === 0 ? 900 : 999 + i]));
  assert.deepEqual(pidsUnder([1000, 1000 + MAX_ANCESTORS - 1, 1000 + MAX_ANCESTORS + 1], deep, 900), [1000, 1000 + MAX_ANCESTORS - 1]);
});

test('a request names 1 to 256 distinct process ids; anything else is refused saying what to send', () => {
  assert.deepEqual(checkPidList([902, 904]), [902, 904]);
  for (const bad of [[], null, 'x', [0], [-3], [1.5], ['902'], [5_000_000], [902, 902], Array.from({ length: MAX_MEMORY_PIDS + 1 }, (_, i) => i + 1)]) {
    assert.throws(() => checkPidList(bad), /processMemory: /, JSON.stringify(bad)?.slice(0, 40));
  }
});

test('the orchestrator checks a node\'s answer as hostile: only pids it asked, once, whole kB, Pss at most Rss', () => {
  const asked = [902, 904];
  assert.deepEqual(checkMemoryReply([{ pid: 904, rssKb: 100, pssKb: 40 }, { pid: 902, rssKb: 50, pssKb: null }], asked),
    [{ pid: 904, rssKb: 100, pssKb: 40 }, { pid: 902, rssKb: 50, pssKb: null }]);
  assert.deepEqual(checkMemoryReply([], asked), []);
  const bad = [
    [null, /not a list/], [{}, /not a list/], [[{ pid: 1, rssKb: 1, pssKb: 1 }], /\[0\]\.pid/],
    [[{ pid: 902, rssKb: 1, pssKb: 1 }, { pid: 902, rssKb: 1, pssKb: 1 }], /\[1\]\.pid/],
    [[{ pid: 902, rssKb: -1, pssKb: null }], /rssKb/], [[{ pid: 902, rssKb: 1.5, pssKb: null }], /rssKb/],
    [[{ pid: 902, rssKb: 2 ** 40, pssKb: null }], /rssKb/], [[{ pid: 902, rssKb: '1', pssKb: null }], /rssKb/],
    [[{ pid: 902, rssKb: 10, pssKb: 11 }], /pssKb/], [[{ pid: 902, rssKb: 10 }], /pssKb/], [[null], /pid/],
    [[1, 2, 3], /at most 2/],
  ];
  for (const [reply, message] of bad) assert.throws(() => checkMemoryReply(reply, asked), message, JSON.stringify(reply));
});

test('a browser\'s memory sums its processes in MB; its PSS only when every process has one', () => {
  const both = [{ pid: 1, rssKb: 102400, pssKb: 51200 }, { pid: 2, rssKb: 51200, pssKb: 10240 }];
  assert.deepEqual(browserMemoryMb(both), { rssMb: 150, pssMb: 60 });
  assert.deepEqual(browserMemoryMb([{ pid: 1, rssKb: 1536, pssKb: 1024 }, { pid: 2, rssKb: 512, pssKb: null }]), { rssMb: 2, pssMb: null });
  assert.equal(browserMemoryMb([]), null);
});

test('on a node, this machine\'s /proc: a child of the root is answered with its memory, the root and pid 1 are not', { skip: process.platform !== 'linux' }, async (t) => {
  const child = spawn(process.execPath, ['-e', 'process.stdout.write("up"); setInterval(() => {}, 1000)'], { stdio: ['ignore', 'pipe', 'ignore'] });
  t.after(() => child.kill('SIGKILL'));
  await once(child.stdout, 'data'); // its Node.js up and running, its memory with it
  const answer = readProcessMemory({ pids: [1, process.pid, /** @type {number} */ (child.pid)], rootPid: process.pid });
  assert.equal(answer.length, 1, JSON.stringify(answer));
  const [{ pid, rssKb, pssKb }] = answer;
  assert.equal(pid, child.pid);
  // A Node.js process holds some tens of MB.
  assert.ok(rssKb > 10_000 && rssKb < 1_000_000, `${rssKb} kB`);
  assert.ok(pssKb !== null && pssKb > 0 && pssKb <= rssKb, `pss ${pssKb} kB of ${rssKb} kB`);
  assert.deepEqual(checkMemoryReply(answer, [1, process.pid, /** @type {number} */ (child.pid)]), answer);
  assert.throws(() => readProcessMemory({ pids: 'all', rootPid: process.pid }), /params\.pids must be a list/);
  // A grandchild is answered too: parents are walked up to the root.
  const viaGrandparent = readProcessMemory({ pids: [/** @type {number} */ (child.pid)], rootPid: process.ppid });
  assert.deepEqual(viaGrandparent.map((memory) => memory.pid), [child.pid]);
});
