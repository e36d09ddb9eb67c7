// The guardian protocol (lib/guardian.js): the orchestrator's lines, a guardian that outlives the terminal's signals
// and cleans up only when its orchestrator goes without `done`, and an orchestrator that a guardian does not keep alive.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseGuardianInput } from '../../orchestrator/lib/guardian.js';
import { tempDir } from '../helpers/cli.js';

const ECHO_GUARDIAN = fileURLToPath(new URL('../fixtures/guardian/echo-guardian.js', import.meta.url));
const GUARDIAN_MODULE = new URL('../../orchestrator/lib/guardian.js', import.meta.url).href;

test('only whole lines count: pids of `pid <n>` lines, once each, and whether `done` came', () => {
  assert.deepEqual(parseGuardianInput(''), { pids: [], done: false });
  assert.deepEqual(parseGuardianInput('pid 12\npid 7\n pid 12 \ndone\n'), { pids: [12, 7], done: true });
  // The orchestrator died while writing the last line.
  assert.deepEqual(parseGuardianInput('pid 12\npid 3'), { pids: [12], done: false });
  assert.deepEqual(parseGuardianInput('pid 12\ndo'), { pids: [12], done: false });
  // Pid 0 and negative pids would signal the guardian's own process group.
  assert.deepEqual(parseGuardianInput('pid\npid 0\npid -5\npid x\npid 1.5\npid 4 4\ndone now\nDONE\n'), { pids: [], done: false });
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

test('a guardian ignores Ctrl-C, hang-up and SIGTERM; when its stdin closes without `done` it cleans up with the pids told, removes the owner file, exits 0', async () => {
  const files = runFiles();
  const { child, exited } = await echoGuardian(files);
  child.stdin.write('pid 41\npid 42\n');
  for (const signal of ['SIGINT', 'SIGHUP', 'SIGTERM']) child.kill(signal);
  await sleep(200);
  assert.equal(child.exitCode, null, 'still running after the signals');
  child.stdin.end('pid 4');
  assert.deepEqual(await exited, { code: 0, signal: null });
  assert.match(logOf(files.logFile), /^\S+Z orphaned, told pids: 41 42\n$/);
  assert.ok(!existsSync(files.ownerFile), 'the owner file is removed');
});

test('after `done` a guardian exits 0 without cleaning up', async () => {
  const files = runFiles();
  const { child, exited } = await echoGuardian(files);
  child.stdin.end('pid 41\ndone\n');
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

/** An orchestrator that starts the echo guardian, tells it a pid and exits on its own, with or without finish(). */
function orchestrator(files, finish) {
  const script = `
    import { startGuardian } from ${JSON.stringify(GUARDIAN_MODULE)};
    const guardian = startGuardian(${JSON.stringify(ECHO_GUARDIAN)}, ${JSON.stringify([files.logFile, files.ownerFile])});
    guardian.tell('pid 77');
    ${finish ? 'guardian.finish();' : ''}`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: 'inherit' });
  return new Promise((resolve) => { child.on('exit', (code) => resolve(code)); });
}

async function until(predicate, what, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

test('the guardian keeps no orchestrator alive; one gone without finish() is cleaned up after, one that finished is not', async () => {
  const orphaned = runFiles();
  assert.equal(await orchestrator(orphaned, false), 0);
  await until(() => !existsSync(orphaned.ownerFile), 'the owner file removed by the guardian');
  assert.match(logOf(orphaned.logFile), /orphaned, told pids: 77\n/);

  const finished = runFiles();
  assert.equal(await orchestrator(finished, true), 0);
  await sleep(500);
  assert.equal(logOf(finished.logFile), '');
  assert.ok(existsSync(finished.ownerFile));
});
