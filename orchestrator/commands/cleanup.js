import { EnvironmentError } from '../lib/system/errors.js';
import { BACKENDS } from '../emulators/index.js';
import { removeKernelFlowLeftovers } from '../cross/cleanup.js';
import { createCommandRunner } from '../emulators/command-runner.js';
import { removeStaleCgroups } from '../run/cgroups.js';

export const command = 'cleanup';
export const describe = 'Remove what crashed runs left behind: netem\'s wtb-* namespaces (and the nft tables in them), control veths, '
  + 'kernel flows\' wtbx-* namespaces, constrained devices\' wtb-* cgroups, processes inside; runs still in progress are left alone';

/** @param {import('yargs').Argv} yargs */
export const builder = (yargs) => yargs
  .option('run-id', { describe: 'only this run (as in the namespace names wtb-<id>-…), even while its orchestrator runs', type: 'string' })
  .option('dry-run', { describe: 'list what would be removed, remove nothing', type: 'boolean', default: false });

/** @param {{ runId?: string, dryRun: boolean }} argv */
export async function handler(argv) {
  if (process.platform !== 'linux') {
    throw new EnvironmentError(`cleanup: the netem backend exists only on Linux (this is ${process.platform}); nothing to clean`);
  }
  if (process.getuid?.() !== 0) {
    throw new EnvironmentError('cleanup: removing network namespaces needs root; run it with sudo');
  }
  const { run, commands } = createCommandRunner();
  /** @type {import('../emulators/contract.js').Leftovers[]} */
  const left = [];
  for (const backend of BACKENDS) {
    if (backend.removeLeftovers) left.push(await backend.removeLeftovers(run, { runId: argv.runId, dryRun: argv.dryRun }));
  }
  const emulators = {
    netns: left.flatMap((l) => l.netns), rootLinks: left.flatMap((l) => l.rootLinks),
    pids: left.flatMap((l) => l.pids), liveRuns: left.flatMap((l) => l.liveRuns),
  };
  const kernelFlows = await removeKernelFlowLeftovers(run, { runId: argv.runId, dryRun: argv.dryRun });
  const cgroups = await removeStaleCgroups({ runId: argv.runId, dryRun: argv.dryRun });
  const found = {
    netns: [...emulators.netns, ...kernelFlows.netns], rootLinks: emulators.rootLinks, cgroups: cgroups.cgroups,
    pids: [...emulators.pids, ...kernelFlows.pids, ...cgroups.pids],
    liveRuns: [...new Set([...emulators.liveRuns, ...kernelFlows.liveRuns, ...cgroups.liveRuns])].sort(),
  };
  const verb = argv.dryRun ? 'would remove' : 'removed';
  /** @type {Array<[string[], string, string]>} */
  const kinds = [
    [found.netns, 'namespace', 'namespaces'], [found.rootLinks, 'root link', 'root links'], [found.cgroups, 'cgroup', 'cgroups'],
    [found.pids.map(String), 'process', 'processes'],
  ];
  const parts = kinds.filter(([items]) => items.length > 0)
    .map(([items, one, many]) => `${items.length} ${items.length === 1 ? one : many} (${items.join(', ')})`);
  console.log(parts.length === 0 ? 'cleanup: nothing left by earlier runs' : `cleanup: ${verb} ${parts.join('; ')}`);
  if (found.liveRuns.length > 0) {
    console.log(`cleanup: left ${found.liveRuns.length} run(s) in progress alone (${found.liveRuns.join(', ')}); pass --run-id to remove one anyway`);
  }
  const failed = [...commands.filter((record) => !record.ok).map((record) => `${record.cmd}: ${record.stderr ?? ''}`), ...cgroups.failed];
  if (failed.length > 0) {
    throw new EnvironmentError(`cleanup: ${failed.length} command(s) failed: ${failed.join('; ')}; check \`ip netns list\` and the wtb-* cgroups, and retry`);
  }
}
