/**
 * Guardian of one run's kernel flows (the protocol: lib/system/guardian-protocol.js), started by kernel-flows.js, which tells it the
 * pid and start time of every process it starts and forgets each once it has exited. When the orchestrator dies
 * without removing the flows, it kills those still running (never a process that reused a pid) and removes the run's
 * namespaces (`<namespacePrefix>*`) and root-namespace TUN devices (`<linkPrefix>*`).
 *
 * Usage: node guardian.js <namespacePrefix> <linkPrefix> <logFile> <ownerFile>
 */
import { guardOrchestrator, guardianLog, guardianRunner, killOwned } from '../lib/system/guardian-protocol.js';

const [namespacePrefix, linkPrefix, logFile, ownerFile] = process.argv.slice(2);
if (!namespacePrefix || !linkPrefix || !logFile || !ownerFile) {
  console.error('usage: node guardian.js <namespacePrefix> <linkPrefix> <logFile> <ownerFile> (started by orchestrator/cross/kernel-flows.js)');
  process.exit(2);
}

const log = guardianLog(logFile);
const runLogged = guardianRunner(log);
const run = (/** @type {string[]} */ argv) => runLogged(argv).stdout;
/** @param {number} pid */
const kill = (pid) => { try { process.kill(pid, 'SIGKILL'); } catch { /* exited already */ } };

guardOrchestrator({
  log,
  ownerFile,
  onOrphaned({ processes }) {
    log(`orchestrator gone without removing its kernel flows: sweeping ${namespacePrefix}* and ${linkPrefix}*; `
      + `processes told: ${processes.map(({ pid }) => pid).join(' ') || 'none'}`);
    killOwned(processes, log);
    const namespaces = run(['ip', 'netns', 'list']).split('\n').map((line) => line.split(' ')[0]).filter((name) => name.startsWith(namespacePrefix));
    for (const name of namespaces) {
      for (const pid of run(['ip', 'netns', 'pids', name]).split('\n').filter(Boolean)) kill(Number(pid));
    }
    for (const name of namespaces) run(['ip', 'netns', 'del', name]);
    const links = [...run(['ip', '-o', 'link', 'show']).matchAll(/^\d+: ([^:@\s]+)/gm)].map((match) => match[1]).filter((name) => name.startsWith(linkPrefix));
    for (const name of links) run(['ip', 'link', 'del', 'dev', name]);
  },
});
