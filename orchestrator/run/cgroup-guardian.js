/**
 * Guardian of one run's device cgroups (the protocol: lib/system/guardian-protocol.js), started by cgroups.js. When the orchestrator
 * dies without removing the cgroups, it waits for the browsers in them to exit (Chromium on a pipe quits when the
 * orchestrator is gone), kills what is left, removes the cgroups and, on cgroup v2, disables the controllers the run
 * enabled in the root's cgroup.subtree_control (cgroups.js revertSubtreeControl).
 *
 * Usage: node cgroup-guardian.js <logFile> <ownerFile> <subtree change> <cgroup dir>...
 *   subtree change: JSON `{"root": "<v2 mount>", "enabled": ["cpu", …]}`, or `null` when the run enabled none
 */
import { readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { stepCommand } from '../lib/devices/cpu-cgroup.js';
import { guardOrchestrator, guardianLog } from '../lib/system/guardian-protocol.js';
import { shellJoin } from '../emulators/script.js';
import { revertSubtreeControl } from './cgroups.js';
import { errorCode, errorMessage } from '../lib/system/errors.js';

const [logFile, ownerFile, changeJson, ...dirs] = process.argv.slice(2);
if (!logFile || !ownerFile || !changeJson || !dirs.length) {
  console.error('usage: node cgroup-guardian.js <logFile> <ownerFile> <subtree change JSON|null> <cgroup dir>... (started by orchestrator/run/cgroups.js)');
  process.exit(2);
}
/** @type {import('./cgroups.js').SubtreeChange|null} */
const change = JSON.parse(changeJson);
const WAIT_MS = 10_000;
const POLL_MS = 100;

const log = guardianLog(logFile);
/** @param {string} dir @returns {number[]} */
const pidsIn = (dir) => {
  try {
    return readFileSync(`${dir}/cgroup.procs`, 'utf8').split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
};

guardOrchestrator({
  log,
  ownerFile,
  async onOrphaned() {
    log(`orchestrator gone without removing its cgroups: removing ${dirs.join(' ')}`);
    const deadline = Date.now() + WAIT_MS;
    while (dirs.some((dir) => pidsIn(dir).length) && Date.now() < deadline) await sleep(POLL_MS);
    for (const dir of dirs) {
      for (const pid of pidsIn(dir)) {
        try { process.kill(pid, 'SIGKILL'); } catch { /* exited meanwhile */ }
      }
    }
    for (let i = 0; i < 20 && dirs.some((dir) => pidsIn(dir).length); i++) await sleep(POLL_MS);
    for (const dir of [...dirs].reverse()) {
      try {
        rmdirSync(dir);
        log(`ok: rmdir ${dir}`);
      } catch (error) {
        if (errorCode(error) !== 'ENOENT') log(`failed: rmdir ${dir}: ${errorMessage(error)}`);
      }
    }
    if (!change) return;
    const keptFor = await revertSubtreeControl(change, async (step) => {
      if (step.op !== 'write') throw new Error(`a subtree_control revert only writes, not ${step.op}`);
      try {
        writeFileSync(step.file, step.value);
        log(`ok: ${stepCommand(step, shellJoin)}`);
      } catch (error) {
        log(`failed: ${stepCommand(step, shellJoin)}: ${errorMessage(error)}`);
      }
    });
    if (keptFor.length) log(`left ${change.enabled.map((c) => `+${c}`).join(' ')} in ${change.root}/cgroup.subtree_control: ${keptFor.join(', ')} still there`);
  },
});
