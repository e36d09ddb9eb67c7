/**
 * Guardian of one run's kernel flows, started by kernel-flows.js in a session of its own. The orchestrator keeps
 * its stdin open and writes `pid <n>` for every process it starts and `done` once it has removed everything itself.
 * When stdin closes without `done` (the orchestrator died, SIGKILL included), the guardian kills those processes and
 * removes the run's namespaces (`<namespacePrefix>*`) and root-namespace TUN devices (`<linkPrefix>*`).
 *
 * It also removes the run's owner file (see cleanup.js), which `cleanup` would otherwise find stale.
 *
 * Usage: node guardian.js <namespacePrefix> <linkPrefix> <logFile> <ownerFile>
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, rmSync } from 'node:fs';

const [namespacePrefix, linkPrefix, logFile, ownerFile] = process.argv.slice(2);
if (!namespacePrefix || !linkPrefix || !logFile || !ownerFile) {
  console.error('usage: node guardian.js <namespacePrefix> <linkPrefix> <logFile> <ownerFile> (started by orchestrator/cross/kernel-flows.js)');
  process.exit(2);
}

const log = (line) => { try { appendFileSync(logFile, `${new Date().toISOString()} ${line}\n`); } catch { /* the run folder is gone */ } };
/** @param {string[]} argv */
const run = (argv) => {
  try {
    const out = execFileSync(argv[0], argv.slice(1), { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 10_000 });
    log(`ok: ${argv.join(' ')}`);
    return out;
  } catch (error) {
    log(`failed: ${argv.join(' ')}: ${String(error.stderr ?? error.message).trim()}`);
    return '';
  }
};
const kill = (pid) => { try { process.kill(pid, 'SIGKILL'); } catch { /* exited already */ } };

/** @type {Set<number>} */
const pids = new Set();
let done = false;
let buffered = '';
// The terminal's Ctrl-C and hang-up are the orchestrator's to handle; this process only reacts to stdin closing.
for (const signal of ['SIGINT', 'SIGHUP', 'SIGTERM']) process.on(signal, () => {});
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buffered += chunk;
  const lines = buffered.split('\n');
  buffered = lines.pop() ?? '';
  for (const line of lines) {
    const [word, value] = line.trim().split(' ');
    if (word === 'pid' && Number.isInteger(Number(value))) pids.add(Number(value));
    if (word === 'done') done = true;
  }
});
process.stdin.on('error', () => {});
process.stdin.on('close', () => {
  if (done) process.exit(0);
  log(`orchestrator gone without removing its kernel flows: sweeping ${namespacePrefix}* and ${linkPrefix}*`);
  for (const pid of pids) kill(pid);
  const namespaces = run(['ip', 'netns', 'list']).split('\n').map((line) => line.split(' ')[0]).filter((name) => name.startsWith(namespacePrefix));
  for (const name of namespaces) {
    for (const pid of run(['ip', 'netns', 'pids', name]).split('\n').filter(Boolean)) kill(Number(pid));
  }
  for (const name of namespaces) run(['ip', 'netns', 'del', name]);
  const links = [...run(['ip', '-o', 'link', 'show']).matchAll(/^\d+: ([^:@\s]+)/gm)].map((match) => match[1]).filter((name) => name.startsWith(linkPrefix));
  for (const name of links) run(['ip', 'link', 'del', 'dev', name]);
  rmSync(ownerFile, { force: true });
  process.exit(0);
});
