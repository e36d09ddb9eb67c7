/**
 * Guardian of one run's device cgroups, started by cgroups.js in a session of its own. The orchestrator keeps its
 * stdin open and writes `done` once it has removed the cgroups itself. When stdin closes without `done` (the
 * orchestrator died, SIGKILL included), the guardian waits for the browsers in the cgroups to exit (Chromium on a
 * pipe quits when the orchestrator is gone), kills what is left, removes the cgroups and the run's owner file.
 *
 * Usage: node cgroup-guardian.js <logFile> <ownerFile> <cgroup dir>...
 */
import { appendFileSync, readFileSync, rmdirSync, rmSync } from 'node:fs';

const [logFile, ownerFile, ...dirs] = process.argv.slice(2);
if (!logFile || !ownerFile || !dirs.length) {
  console.error('usage: node cgroup-guardian.js <logFile> <ownerFile> <cgroup dir>... (started by orchestrator/run/cgroups.js)');
  process.exit(2);
}
const WAIT_MS = 10_000;
const POLL_MS = 100;

const log = (line) => { try { appendFileSync(logFile, `${new Date().toISOString()} ${line}\n`); } catch { /* the run folder is gone */ } };
const pidsIn = (dir) => {
  try {
    return readFileSync(`${dir}/cgroup.procs`, 'utf8').split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
};
const sleep = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });

let done = false;
// The terminal's Ctrl-C and hang-up are the orchestrator's to handle; this process only reacts to stdin closing.
for (const signal of ['SIGINT', 'SIGHUP', 'SIGTERM']) process.on(signal, () => {});
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => { if (chunk.includes('done')) done = true; });
process.stdin.on('error', () => {});
process.stdin.on('close', async () => {
  if (done) process.exit(0);
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
  rmSync(ownerFile, { force: true });
  process.exit(0);
});
