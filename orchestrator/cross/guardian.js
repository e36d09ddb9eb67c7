/**
 * Guardian of one run's kernel flows (the protocol: lib/guardian.js), started by kernel-flows.js, which tells it the
 * pid of every process it starts. When the orchestrator dies without removing the flows, it kills those processes
 * and removes the run's namespaces (`<namespacePrefix>*`) and root-namespace TUN devices (`<linkPrefix>*`).
 *
 * Usage: node guardian.js <namespacePrefix> <linkPrefix> <logFile> <ownerFile>
 */
import { execFileSync } from 'node:child_process';
import { guardOrchestrator, guardianLog } from '../lib/guardian.js';

const [namespacePrefix, linkPrefix, logFile, ownerFile] = process.argv.slice(2);
if (!namespacePrefix || !linkPrefix || !logFile || !ownerFile) {
  console.error('usage: node guardian.js <namespacePrefix> <linkPrefix> <logFile> <ownerFile> (started by orchestrator/cross/kernel-flows.js)');
  process.exit(2);
}

const log = guardianLog(logFile);
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
/** @param {number} pid */
const kill = (pid) => { try { process.kill(pid, 'SIGKILL'); } catch { /* exited already */ } };

guardOrchestrator({
  log,
  ownerFile,
  onOrphaned({ pids }) {
    log(`orchestrator gone without removing its kernel flows: sweeping ${namespacePrefix}* and ${linkPrefix}*`);
    for (const pid of pids) kill(pid);
    const namespaces = run(['ip', 'netns', 'list']).split('\n').map((line) => line.split(' ')[0]).filter((name) => name.startsWith(namespacePrefix));
    for (const name of namespaces) {
      for (const pid of run(['ip', 'netns', 'pids', name]).split('\n').filter(Boolean)) kill(Number(pid));
    }
    for (const name of namespaces) run(['ip', 'netns', 'del', name]);
    const links = [...run(['ip', '-o', 'link', 'show']).matchAll(/^\d+: ([^:@\s]+)/gm)].map((match) => match[1]).filter((name) => name.startsWith(linkPrefix));
    for (const name of links) run(['ip', 'link', 'del', 'dev', name]);
  },
});
