/**
 * Guardian of one run's device cgroups (the protocol: lib/guardian.js), started by cgroups.js. When the orchestrator
 * dies without removing the cgroups, it waits for the browsers in them to exit (Chromium on a pipe quits when the
 * orchestrator is gone), kills what is left and removes the cgroups.
 *
 * Usage: node cgroup-guardian.js <logFile> <ownerFile> <cgroup dir>...
 */
import { readFileSync, rmdirSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { guardOrchestrator, guardianLog } from '../lib/guardian.js';

const [logFile, ownerFile, ...dirs] = process.argv.slice(2);
if (!logFile || !ownerFile || !dirs.length) {
  console.error('usage: node cgroup-guardian.js <logFile> <ownerFile> <cgroup dir>... (started by orchestrator/run/cgroups.js)');
  process.exit(2);
}
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
        if (error.code !== 'ENOENT') log(`failed: rmdir ${dir}: ${error.message}`);
      }
    }
  },
});
