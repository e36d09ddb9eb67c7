import { InputError } from '../lib/system/errors.js';
import { writeFileAtomic } from '../lib/system/files.js';
import { loadScenario } from '../lib/scenario/scenario-file.js';
import { TRACE_DIR_OPTION, traceDirs } from './trace-dir.js';
import { steppedNetwork } from '../lib/network/trace-steps.js';
import { backendNamed, emulatorsWith } from '../emulators/index.js';

export const command = 'export-script [scenario]';
export const describe = 'Write a shell script that sets up a scenario\'s network, applies its schedule with sleeps, and tears down on exit';

/** The backends that write scripts: what `--emulator` takes here. */
const scripted = () => emulatorsWith((backend) => Boolean(backend.exportScript));

/** @param {import('yargs').Argv} yargs */
export const builder = (yargs) => yargs
  .positional('scenario', { describe: 'scenario name (see `list`) or path to a scenario file', type: 'string' })
  .option('topology-only', { describe: 'netem only, no scenario: build the namespaces with every link unconstrained and leave them (what netem-scripts/setup-namespaces.sh runs)', type: 'boolean', default: false })
  .option('peers', { describe: '--topology-only: number of peers (default 2)', type: 'number' })
  .option('bottleneck', { describe: '--topology-only: add the shared bottleneck (its two directions, bottleneck.fwd and bottleneck.back)', type: 'boolean' })
  .option('run-id', { describe: 'netem only: namespaces are wtb-<id>-… (1-8 of a-z 0-9)', type: 'string', default: 'script' })
  .option('block', { describe: 'netem only: addresses from 10.201.<block>.0/24 (0-255; default: from the run id)', type: 'number' })
  .option('emulator', { describe: 'netem: Linux namespaces + tc; dummynet: ipfw (FreeBSD) or dnctl + pf (macOS)', choices: scripted(), default: 'netem' })
  .option('platform', { describe: 'dummynet only: target system, freebsd or macos', type: 'string', default: 'freebsd' })
  .option('address', { describe: 'dummynet only: a peer\'s IPv4 address, as p0=10.0.0.1 (repeat per peer; default 10.0.0.<i+1>)', type: 'array', string: true, default: [] })
  .option('sch-netem', { describe: 'netem only: the target kernel has sch_netem (--no-sch-netem: loss on nftables, no delay)', type: 'boolean', default: true })
  .option('time-scale', { describe: 'compress the scenario clock (0.25 = 4× faster schedule)', type: 'number', default: 1 })
  .option('out', { describe: 'write the script here (made executable) instead of printing it', type: 'string' })
  .option('trace-dir', TRACE_DIR_OPTION)
  .example('$0 export-script changing-bandwidth --out cb.sh', 'Linux script; run with sudo sh cb.sh')
  .example('$0 export-script latency-variation --emulator dummynet --platform macos --address p0=192.168.1.10 --address p1=192.168.1.11', 'macOS pf + dnctl')
  .example('$0 export-script --topology-only --run-id lab --peers 3', 'namespaces wtb-lab-p0…p2 behind wtb-lab-r, nothing shaped');

/**
 * The options `export-script` reads, as yargs parses them (camelCase).
 * @typedef {{ scenario?: string, topologyOnly: boolean, peers?: number, bottleneck?: boolean, runId: string, block?: number,
 *   emulator: string, platform: string, address: string[], schNetem: boolean, timeScale: number, out?: string,
 *   traceDir: string[] }} ExportArgv
 */

/**
 * What a backend's exportScript reads: the flags, by name.
 * @param {ExportArgv} argv
 * @returns {import('../emulators/contract.js').ScriptFlags}
 */
const scriptFlags = (argv) => ({
  runId: argv.runId, block: argv.block, schNetem: argv.schNetem, platform: argv.platform, address: argv.address,
  peers: argv.peers, bottleneck: argv.bottleneck,
});

/** @param {ExportArgv} argv @returns {string} */
function topologyScript(argv) {
  if (argv.scenario !== undefined) throw new InputError(`export-script ${argv.scenario} --topology-only: the topology has every link unconstrained; drop the scenario, or drop --topology-only for its script`);
  const backend = backendNamed(argv.emulator);
  if (!backend.exportTopology) throw new InputError(`--topology-only: exists for --emulator ${emulatorsWith((b) => Boolean(b.exportTopology)).join(', ')} only`);
  return backend.exportTopology(scriptFlags(argv));
}

/** @param {ExportArgv} argv @returns {string} */
function scenarioScript(argv) {
  if (argv.scenario === undefined) throw new InputError('export-script: name a scenario (see `list`) or a scenario file, or pass --topology-only');
  if (argv.peers !== undefined || argv.bottleneck !== undefined) {
    throw new InputError(`export-script ${argv.scenario}: --peers and --bottleneck shape a --topology-only script; a scenario's file sets its own`);
  }
  // No measurement window in a script, so no warm-up to check against the duration.
  const scenario = loadScenario(argv.scenario, { timeScale: argv.timeScale, warmupS: 0, traceDirs: traceDirs(argv) });
  const peers = Array.from({ length: scenario.peers }, (_, i) => `p${i}`);
  // tc and dummynet set rates: a trace becomes rate steps (lib/network/trace-steps.js steppedNetwork).
  const { compiled } = steppedNetwork(scenario.compiled, scenario.durationS);
  const backend = backendNamed(argv.emulator);
  if (!backend.exportScript) throw new InputError(`export-script --emulator ${argv.emulator}: this backend writes no scripts; use ${scripted().join(' or ')}`);
  const profiled = Object.keys(scenario.peerNetwork).length > 0;
  if (profiled && !backend.supports.peerNetwork) {
    throw new InputError(`export-script ${argv.scenario} --emulator ${argv.emulator}: the scenario's peerNetwork (NAT and firewall rules) needs --emulator ${scripted().filter((name) => backendNamed(name).supports.peerNetwork).join(' or ')}`);
  }
  // The profiles' rules, and the middle namespace the TURN server would run in (the script starts no coturn).
  const network = profiled || scenario.turn ? { peerNetwork: scenario.peerNetwork, middleNode: true } : {};
  return backend.exportScript(compiled, { scenario: scenario.name, durationS: scenario.durationS, peers, ...network }, scriptFlags(argv));
}

/** @param {ExportArgv} argv */
export async function handler(argv) {
  const script = argv.topologyOnly ? topologyScript(argv) : scenarioScript(argv);
  if (!argv.out) {
    process.stdout.write(script);
    return;
  }
  // A new file renamed over --out: a symlink planted there is replaced, never written through or chmodded.
  await writeFileAtomic(argv.out, script, { mode: 0o755 });
  console.error(`wrote ${argv.out} (${script.split('\n').length} lines); run it as root: sudo ${argv.out.includes('/') ? argv.out : `./${argv.out}`}`);
}
