// The SFU servers a run owns (Janus, livekit-server) must not outlive it: started by a stand-in orchestrator
// (test/fixtures/<server>/start-*.js), they are gone after its SIGINT (its closers run) and its SIGKILL (the kernel's
// death signal).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseStat } from '../../orchestrator/lib/devices/proc-stat.js';

/** Gone = no such process, or a zombie waiting for a reaper (it runs nothing and holds no port). @param {number} pid */
export async function isGone(pid) {
  try {
    return parseStat(await readFile(`/proc/${pid}/stat`, 'utf8')).state === 'Z';
  } catch {
    return true;
  }
}

/** @param {number} pid @param {number} withinMs @param {string} what  the server, for the message */
export async function assertGoneWithin(pid, withinMs, what) {
  const deadline = Date.now() + withinMs;
  while (!(await isGone(pid))) {
    assert.ok(Date.now() < deadline, `${what} (pid ${pid}) still running ${withinMs} ms later`);
    await sleep(50);
  }
}

/**
 * A stand-in orchestrator that starts the server and prints {"pid": …}.
 * @param {string} fixture @param {string} runDir @param {string} what
 */
async function standIn(fixture, runDir, what) {
  const child = spawn(process.execPath, [fixture, runDir], { stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk) => { output += chunk; });
  const deadline = Date.now() + 15_000;
  while (!output.includes('\n')) {
    assert.ok(Date.now() < deadline && child.exitCode === null, `the stand-in orchestrator did not start ${what}: ${output}`);
    await sleep(50);
  }
  return { child, pid: /** @type {{ pid: number }} */ (JSON.parse(output)).pid };
}

/**
 * @param {string} fixture  the stand-in orchestrator @param {(name: string) => string} runDirOf  a run folder per case
 * @param {string} what @param {number} stopWithinMs  how long its SIGTERM may take
 */
export async function assertGoneAfterInterruptAndKill(fixture, runDirOf, what, stopWithinMs) {
  const interrupted = await standIn(fixture, runDirOf('sigint'), what);
  assert.equal(await isGone(interrupted.pid), false);
  interrupted.child.kill('SIGINT');
  const [code] = await once(interrupted.child, 'exit');
  assert.equal(code, 130);
  await assertGoneWithin(interrupted.pid, stopWithinMs, what);

  const killed = await standIn(fixture, runDirOf('sigkill'), what);
  assert.equal(await isGone(killed.pid), false);
  killed.child.kill('SIGKILL');
  await once(killed.child, 'exit');
  await assertGoneWithin(killed.pid, 3_000, what);
}
