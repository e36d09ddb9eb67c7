/**
 * Guardian of one netem run's topology (the protocol: lib/system/guardian-protocol.js), started by index.js once the run owns its id.
 * When the orchestrator dies without tearing the topology down (SIGKILL), it removes what `cleanup --run-id` would:
 * the processes inside the run's namespaces (browsers, Janus), the root end of the control veth (with the route to
 * the peers through it) and every `wtb-<id>-*` namespace (with their veths, ifb, qdiscs and nft tables). Every
 * command is logged.
 *
 * Usage: node guardian.js <short run id> <logFile> <ownerFile>
 */
import { guardOrchestrator, guardianLog, guardianRunner } from '../../lib/system/guardian-protocol.js';
import { removeLeftovers } from './cleanup.js';

const [id, logFile, ownerFile] = process.argv.slice(2);
if (!id || !logFile || !ownerFile) {
  console.error('usage: node guardian.js <short run id> <logFile> <ownerFile> (started by orchestrator/emulators/netem/index.js)');
  process.exit(2);
}

const log = guardianLog(logFile);
const runLogged = guardianRunner(log);

guardOrchestrator({
  log,
  ownerFile,
  async onOrphaned() {
    log(`orchestrator gone without removing its netem topology: removing wtb-${id}-* and wtb${id}c`);
    const removed = await removeLeftovers(async (argv) => runLogged(argv), { runId: id });
    log(`killed ${removed.pids.length} processes in the namespaces${removed.pids.length ? ` (${removed.pids.join(' ')})` : ''}`);
  },
});
