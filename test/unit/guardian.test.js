// The guardian protocol (lib/system/guardian-protocol.js): the orchestrator's lines, a guardian that outlives the terminal's signals
// and cleans up only when its orchestrator goes without `done`, and an orchestrator that a guardian does not keep alive.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseGuardianInput } from '../../orchestrator/lib/system/guardian-protocol.js';
import { parseStat } from '../../orchestrator/lib/devices/proc-stat.js';
import { tempDir } from '../helpers/cli.js';

const ECHO_GUARDIAN = fileURLToPath(new URL('../fixtures/guardian/echo-guardian.js', import.meta.url));
const KERNEL_FLOW_GUARDIAN = fileURLToPath(new URL('../../orchestrator/cross/guardian.js', import.meta.url));
const GUARDIAN_MODULE = new URL('../../orchestrator/lib/system/guardian-protocol.js', import.meta.url).href;

test('only whole lines count: `pid <n> <start ticks>` lines, once each, less those forgotten since, and whether `done` came', () => {
  assert.deepEqual(parseGuardianInput(''), { processes: [], done: false });
  assert.deepEqual(parseGuardianInput('pid 12 500\npid 7 90\n pid 12 500 \nforget 7\ndone\n'), { processes: [{ pid: 12, startTicks: 500 }], done: true });
  // Pid 5 exited, was reused and told again with its new start time.
  assert.deepEqual(parseGuardianInput('pid 5 100\nforget 5\npid 5 200\n'), { processes: [{ pid: 5, startTicks: 200 }], done: false });
  // The orchestrator died while writing the last line.
  assert.deepEqual(parseGuardianInput('pid 12 5\npid 3'), { processes: [{ pid: 12, startTicks: 5 }], done: false });
  assert.deepEqual(parseGuardianInput('pid 12 5\nforget 12'), { processes: [{ pid: 12, startTicks: 5 }], done: false });
  assert.deepEqual(parseGuardianInput('pid 12 5\ndo'), { processes: [{ pid: 12, startTicks: 5 }], done: false });
  // Pid 0 and negative pids would signal the guardian's own process group; a pid without its start time cannot be checked.
  assert.deepEqual(parseGuardianInput('pid\npid 12\npid 0 1\npid -5 1\npid x 1\npid 1.5 1\npid 4 4 4\npid 4 -1\ndone now\nDONE\n'),
    { processes: [], done: false });
});

/** A run's files: the guardian's log and an owner file it is to remove. */
function runFiles() {
  const dir = tempDir('wtb-guardian-');
  const files = { logFile: path.join(dir, 'guardian.log'), ownerFile: path.join(dir, 'owner') };
  writeFileSync(files.ownerFile, '{}');
  return files;
}
const logOf = (/** @type {string} */ logFile) => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : '');

/** Starts the echo guardian with a pipe for stdin, as the orchestrator would; resolves once it listens. */
async function echoGuardian(files, mode = '') {
  const child = spawn(process.execPath, [ECHO_GUARDIAN, files.logFile, files.ownerFile, mode], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise((resolve) => { child.on('exit', (code, signal) => resolve({ code, signal })); });
  await new Promise((resolve) => { child.stdout.once('data', resolve); });
  return { child, exited };
}

test('a guardian ignores Ctrl-C, hang-up and SIGTERM; when its stdin closes without `done` it cleans up with the processes told, removes the owner file, exits 0', async () => {
  const files = runFiles();
  const { child, exited } = await echoGuardian(files);
  child.stdin.write('pid 41 1\npid 42 2\n');
  for (const signal of /** @type {NodeJS.Signals[]} */ (['SIGINT', 'SIGHUP', 'SIGTERM'])) child.kill(signal);
  await sleep(200);
  assert.equal(child.exitCode, null, 'still running after the signals');
  child.stdin.end('pid 4 4');
  assert.deepEqual(await exited, { code: 0, signal: null });
  assert.match(logOf(files.logFile), /^\S+Z orphaned, told pids: 41 42\n$/);
  assert.ok(!existsSync(files.ownerFile), 'the owner file is removed');
});

test('after `done` a guardian exits 0 without cleaning up', async () => {
  const files = runFiles();
  const { child, exited } = await echoGuardian(files);
  child.stdin.end('pid 41 1\ndone\n');
  assert.deepEqual(await exited, { code: 0, signal: null });
  assert.equal(logOf(files.logFile), '');
  assert.ok(existsSync(files.ownerFile), 'the orchestrator removes its owner file itself');
});

test('a clean-up that throws is logged; the owner file is still removed and the guardian exits 0', async () => {
  const files = runFiles();
  const { child, exited } = await echoGuardian(files, 'throw');
  child.stdin.end();
  assert.deepEqual(await exited, { code: 0, signal: null });
  assert.match(logOf(files.logFile), /orphaned, told pids: \n.* failed: Error: the clean-up broke\n/);
  assert.ok(!existsSync(files.ownerFile));
});

/**
 * An orchestrator that starts the echo guardian, makes it own its own process and a `sleep` that exits at once
 * (forgotten once reaped, as kernel-flows.js does), prints its pid and exits on its own, with or without finish().
 * @returns {Promise<{ code: number|null, pid: number }>}
 */
function orchestrator(files, finish) {
  const script = `
    import { spawn } from 'node:child_process';
    import { startGuardian } from ${JSON.stringify(GUARDIAN_MODULE)};
    const guardian = startGuardian(${JSON.stringify(ECHO_GUARDIAN)}, ${JSON.stringify([files.logFile, files.ownerFile])});
    guardian.own(process.pid);
    const sleeper = spawn('sleep', ['0']);
    guardian.own(sleeper.pid);
    sleeper.once('exit', () => {
      guardian.forget(sleeper.pid);
      console.log(process.pid);
      ${finish ? 'guardian.finish();' : ''}
    });`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk) => { out += chunk; });
  return new Promise((resolve) => { child.on('close', (code) => resolve({ code, pid: Number(out) })); });
}

async function until(predicate, what, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

test('the guardian keeps no orchestrator alive; one gone without finish() is cleaned up after with only the processes not forgotten, one that finished is not', async () => {
  const orphaned = runFiles();
  const gone = await orchestrator(orphaned, false);
  assert.equal(gone.code, 0);
  await until(() => !existsSync(orphaned.ownerFile), 'the owner file removed by the guardian');
  // The sleep exited and was forgotten: its pid is free for any process now.
  assert.match(logOf(orphaned.logFile), new RegExp(`orphaned, told pids: ${gone.pid}\n`));

  const finished = runFiles();
  assert.equal((await orchestrator(finished, true)).code, 0);
  await sleep(500);
  assert.equal(logOf(finished.logFile), '');
  assert.ok(existsSync(finished.ownerFile));
});

/** A `sleep` and the start time /proc gives it. */
function sleeper() {
  const child = spawn('sleep', ['30'], { stdio: 'ignore' });
  const exited = new Promise((resolve) => { child.on('exit', (code, signal) => resolve(signal ?? code)); });
  const stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8');
  return { child, exited, startTicks: parseStat(stat).startTimeTicks };
}

test('the kernel-flow guardian kills a pid it was told only while its process has the start time told: a reused pid is left alone', async (t) => {
  const files = runFiles();
  const ours = sleeper();
  // Stands for an unrelated process that got a pid the run's child had: same pid, another start time.
  const unrelated = sleeper();
  t.after(() => unrelated.child.kill('SIGKILL'));
  const guardian = spawn(process.execPath, [KERNEL_FLOW_GUARDIAN, `wtbx-none${process.pid}-`, `wxnone${process.pid}`, files.logFile, files.ownerFile],
    { stdio: ['pipe', 'ignore', 'inherit'] });
  const guardianExited = new Promise((resolve) => { guardian.on('exit', (code) => resolve(code)); });
  guardian.stdin.end(`pid ${ours.child.pid} ${ours.startTicks}\npid ${unrelated.child.pid} ${unrelated.startTicks + 1}\n`);
  assert.equal(await guardianExited, 0);
  assert.equal(await ours.exited, 'SIGKILL', 'the run\'s own process is killed');
  await sleep(200);
  assert.equal(unrelated.child.exitCode, null, 'the unrelated process still runs');
  assert.equal(unrelated.child.signalCode, null, 'the unrelated process was not signalled');
  const log = logOf(files.logFile);
  assert.match(log, new RegExp(`ok: kill -KILL ${ours.child.pid}\n`));
  assert.match(log, new RegExp(`skipped: kill -KILL ${unrelated.child.pid}: pid ${unrelated.child.pid} is another process now`));
});
