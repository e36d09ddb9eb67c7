import { chmodSync, writeFileSync } from 'node:fs';
import { InputError } from '../lib/errors.js';
import { loadScenario } from '../lib/scenario.js';
import { PLATFORMS } from '../emulators/dummynet/commands.js';
import { dummynetScript } from '../emulators/dummynet/script.js';
import { netemScript } from '../emulators/netem/script.js';

export const command = 'export-script <scenario>';
export const describe = 'Write a shell script that sets up a scenario\'s network, applies its schedule with sleeps, and tears down on exit';

export const builder = (yargs) => yargs
  .positional('scenario', { describe: 'scenario name (see `list`) or path to a scenario file', type: 'string' })
  .option('emulator', { describe: 'netem: Linux namespaces + tc; dummynet: ipfw (FreeBSD) or dnctl + pf (macOS)', choices: ['netem', 'dummynet'], default: 'netem' })
  .option('platform', { describe: 'dummynet only: target system', choices: PLATFORMS, default: 'freebsd' })
  .option('address', { describe: 'dummynet only: a peer\'s IPv4 address, as p0=10.0.0.1 (repeat per peer; default 10.0.0.<i+1>)', type: 'array', string: true, default: [] })
  .option('sch-netem', { describe: 'netem only: the target kernel has sch_netem (--no-sch-netem: loss on nftables, no delay)', type: 'boolean', default: true })
  .option('time-scale', { describe: 'compress the scenario clock (0.25 = 4× faster schedule)', type: 'number', default: 1 })
  .option('out', { describe: 'write the script here (made executable) instead of printing it', type: 'string' })
  .example('$0 export-script changing-bandwidth --out cb.sh', 'Linux script; run with sudo sh cb.sh')
  .example('$0 export-script latency-variation --emulator dummynet --platform macos --address p0=192.168.1.10 --address p1=192.168.1.11', 'macOS pf + dnctl');

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

export async function handler(argv) {
  // No measurement window in a script, so no warm-up to check against the duration.
  const scenario = loadScenario(argv.scenario, { timeScale: argv.timeScale, warmupS: 0 });
  const peers = Array.from({ length: scenario.peers }, (_, i) => `p${i}`);
  const options = { scenario: scenario.name, durationS: scenario.durationS, peers };
  const script = argv.emulator === 'netem'
    ? netemScript(scenario.compiled, { ...options, netem: argv.schNetem })
    : dummynetScript(scenario.compiled, { ...options, platform: argv.platform, addresses: parseAddresses(argv.address, scenario.peers) });
  if (!argv.out) {
    process.stdout.write(script);
    return;
  }
  writeFileSync(argv.out, script);
  chmodSync(argv.out, 0o755);
  console.error(`wrote ${argv.out} (${script.split('\n').length} lines); run it as root: sudo ${argv.out.includes('/') ? argv.out : `./${argv.out}`}`);
}
