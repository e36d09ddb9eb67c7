import { InputError } from '../lib/errors.js';
import { writeFileAtomic } from '../lib/files.js';
import { loadScenario } from '../lib/scenario.js';
import { TRACE_DIR_OPTION, traceDirs } from './trace-dir.js';
import { steppedNetwork } from '../lib/trace.js';
import { MAX_PEERS } from '../lib/limits.js';
import { expectNumber } from '../lib/validate.js';
import { PLATFORMS } from '../emulators/dummynet/commands.js';
import { dummynetScript } from '../emulators/dummynet/script.js';
import { SCRIPT_RUN_ID, defaultBlock, netemScript, netemTopologyScript } from '../emulators/netem/script.js';

export const command = 'export-script [scenario]';
export const describe = 'Write a shell script that sets up a scenario\'s network, applies its schedule with sleeps, and tears down on exit';

/** Run ids used as they are in namespace and interface names (IFNAMSIZ leaves 8 characters). */
const RUN_ID = /^[a-z0-9]{1,8}$/;

export const builder = (yargs) => yargs
  .positional('scenario', { describe: 'scenario name (see `list`) or path to a scenario file', type: 'string' })
  .option('topology-only', { describe: 'netem only, no scenario: build the namespaces with every link unconstrained and leave them (what netem-scripts/setup-namespaces.sh runs)', type: 'boolean', default: false })
  .option('peers', { describe: '--topology-only: number of peers (default 2)', type: 'number' })
  .option('bottleneck', { describe: '--topology-only: add the shared bottleneck (its two directions, bottleneck.fwd and bottleneck.back)', type: 'boolean' })
  .option('run-id', { describe: `netem only: namespaces are wtb-<id>-… (1-8 of a-z 0-9; default ${SCRIPT_RUN_ID})`, type: 'string', default: SCRIPT_RUN_ID })
  .option('block', { describe: 'netem only: addresses from 10.201.<block>.0/24 (0-255; default: from the run id)', type: 'number' })
  .option('emulator', { describe: 'netem: Linux namespaces + tc; dummynet: ipfw (FreeBSD) or dnctl + pf (macOS)', choices: ['netem', 'dummynet'], default: 'netem' })
  .option('platform', { describe: 'dummynet only: target system', choices: PLATFORMS, default: 'freebsd' })
  .option('address', { describe: 'dummynet only: a peer\'s IPv4 address, as p0=10.0.0.1 (repeat per peer; default 10.0.0.<i+1>)', type: 'array', string: true, default: [] })
  .option('sch-netem', { describe: 'netem only: the target kernel has sch_netem (--no-sch-netem: loss on nftables, no delay)', type: 'boolean', default: true })
  .option('time-scale', { describe: 'compress the scenario clock (0.25 = 4× faster schedule)', type: 'number', default: 1 })
  .option('out', { describe: 'write the script here (made executable) instead of printing it', type: 'string' })
  .option('trace-dir', TRACE_DIR_OPTION)
  .example('$0 export-script changing-bandwidth --out cb.sh', 'Linux script; run with sudo sh cb.sh')
  .example('$0 export-script latency-variation --emulator dummynet --platform macos --address p0=192.168.1.10 --address p1=192.168.1.11', 'macOS pf + dnctl')
  .example('$0 export-script --topology-only --run-id lab --peers 3', 'namespaces wtb-lab-p0…p2 behind wtb-lab-r, nothing shaped');

/**
 * @param {string[]} given  p0=10.0.0.1 …
 * @param {number} peers
 * @returns {Record<string, string>}
 */
export function parseAddresses(given, peers) {
  const addresses = Object.fromEntries(Array.from({ length: peers }, (_, i) => [`p${i}`, `10.0.0.${i + 1}`]));
  for (const entry of given) {
    const match = /^(p\d+)=(\d{1,3}(?:\.\d{1,3}){3})$/.exec(entry);
    if (!match || !(match[1] in addresses)) {
      throw new InputError(`--address ${entry}: expected <peer>=<IPv4 address> with peer one of ${Object.keys(addresses).join(', ')}, e.g. p0=192.168.1.10`);
    }
    addresses[match[1]] = match[2];
  }
  return addresses;
}

/**
 * The netem naming flags (--run-id, --block), checked.
 * @param {Record<string, any>} argv
 * @returns {{runId: string, block: number}}
 */
function netemNames({ runId, block }) {
  if (!RUN_ID.test(runId)) throw new InputError(`--run-id ${JSON.stringify(runId)}: must be 1-8 characters of a-z and 0-9 (it goes into interface names)`);
  return { runId, block: block === undefined ? defaultBlock(runId) : expectNumber(block, '--block', { min: 0, max: 255, integer: true }) };
}

/** @param {Record<string, any>} argv @returns {string} */
function topologyScript(argv) {
  if (argv.scenario !== undefined) throw new InputError(`export-script ${argv.scenario} --topology-only: the topology has every link unconstrained; drop the scenario, or drop --topology-only for its script`);
  if (argv.emulator !== 'netem') throw new InputError('--topology-only: exists for --emulator netem only');
  const peers = expectNumber(argv.peers ?? 2, '--peers', { min: 1, max: MAX_PEERS, integer: true });
  return netemTopologyScript({ ...netemNames(argv), peers, bottleneck: argv.bottleneck ?? false, netem: argv.schNetem });
}

/** @param {Record<string, any>} argv @returns {string} */
function scenarioScript(argv) {
  if (argv.scenario === undefined) throw new InputError('export-script: name a scenario (see `list`) or a scenario file, or pass --topology-only');
  if (argv.peers !== undefined || argv.bottleneck !== undefined) {
    throw new InputError(`export-script ${argv.scenario}: --peers and --bottleneck shape a --topology-only script; a scenario's file sets its own`);
  }
  // No measurement window in a script, so no warm-up to check against the duration.
  const scenario = loadScenario(argv.scenario, { timeScale: argv.timeScale, warmupS: 0, traceDirs: traceDirs(argv) });
  const peers = Array.from({ length: scenario.peers }, (_, i) => `p${i}`);
  const options = { scenario: scenario.name, durationS: scenario.durationS, peers };
  // tc and dummynet set rates: a trace becomes rate steps (lib/trace.js steppedNetwork).
  const { compiled } = steppedNetwork(scenario.compiled, scenario.durationS);
  return argv.emulator === 'netem'
    ? netemScript(compiled, { ...options, ...netemNames(argv), netem: argv.schNetem })
    : dummynetScript(compiled, { ...options, platform: argv.platform, addresses: parseAddresses(argv.address, scenario.peers) });
}

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
