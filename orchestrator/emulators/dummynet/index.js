/**
 * The dummynet backend at run time: macOS (dnctl + pf) or FreeBSD (ipfw), commands from commands.js run
 * through the shared command runner. Elsewhere it stops with an EnvironmentError before anything starts.
 */
import { EnvironmentError, HarnessError } from '../../lib/errors.js';
import { createCommandRunner } from '../runner.js';
import {
  dummynetChange, dummynetSetup, dummynetTeardown, loopbackAddresses, loopbackAliasLines, planDummynet,
} from './commands.js';
import { scheduleStates } from './script.js';

/** @typedef {import('../../lib/link-model.js').LinkParams} LinkParams */

const PLATFORM_OF = { darwin: 'macos', freebsd: 'freebsd' };
const TOOLS = { macos: ['dnctl', 'pfctl'], freebsd: ['ipfw'] };

/**
 * @param {{platform?: string, run?: import('../runner.js').RunCommand}} [options]
 * @returns {Promise<{platform: string|null, available: boolean, reasons: string[]}>}
 */
export async function dummynetCapabilities({ platform = process.platform, run = createCommandRunner().run } = {}) {
  const target = PLATFORM_OF[platform] ?? null;
  if (!target) {
    return { platform: null, available: false, reasons: [`dummynet runs on macOS (dnctl + pf) or FreeBSD (ipfw); this is ${platform}: use --emulator netem or --emulator relay, or \`export-script --emulator dummynet\` to get a script for such a machine`] };
  }
  const reasons = [];
  if (process.getuid?.() !== 0) reasons.push('dummynet needs root: run with sudo');
  for (const tool of TOOLS[target]) {
    const found = await run(['sh', '-c', `command -v ${tool}`], { allowFailure: true, record: false });
    if (!found.ok) reasons.push(`${tool} not found in PATH`);
  }
  if (target === 'freebsd' && reasons.length === 0) {
    const enabled = await run(['sysctl', '-n', 'net.inet.ip.fw.enable'], { allowFailure: true, record: false });
    if (!enabled.ok) reasons.push('ipfw is not loaded: enable it (firewall_enable="YES" in rc.conf) first, so its default policy is yours');
  }
  return { platform: target, available: reasons.length === 0, reasons };
}

/**
 * @param {{peers: string[], compiled: import('../../lib/schedule.js').CompiledNetwork, addresses?: Record<string, string>,
 *   log?: (message: string) => void, clock?: () => number,
 *   capabilities?: Awaited<ReturnType<typeof dummynetCapabilities>>,
 *   exec?: (argv: string[]) => Promise<import('../runner.js').CommandResult>}} options
 *   addresses: the IPv4 address each peer's media leaves from (rules match on them); default one loopback alias
 *   per peer (loopbackAddresses). capabilities and exec: tests stand in for a macOS or FreeBSD host.
 */
export function createDummynetEmulator({
  peers, compiled, addresses = loopbackAddresses(peers), log = () => {}, clock, capabilities, exec,
}) {
  const { run, commands } = createCommandRunner({ clock, exec });
  /** @type {ReturnType<typeof planDummynet>|null} */
  let plan = null;
  let state = { ...compiled.links };
  const sh = (line, options) => run(['sh', '-c', line], options);

  return {
    name: 'dummynet',
    commands,
    signalingHost: '127.0.0.1',
    async setup() {
      const caps = capabilities ?? await dummynetCapabilities();
      if (!caps.available) throw new EnvironmentError(`--emulator dummynet: ${caps.reasons.join('; ')}`);
      plan = planDummynet({
        platform: /** @type {string} */ (caps.platform), peers, links: Object.keys(compiled.links), routes: compiled.routes, addresses,
      });
      for (const line of [...dummynetTeardown(plan), ...loopbackAliasLines(plan, 'remove')]) await sh(line, { allowFailure: true });
      for (const line of loopbackAliasLines(plan, 'add')) await sh(line);
      for (const line of dummynetSetup(plan, compiled.links, scheduleStates(compiled).map((s) => s.state))) await sh(line);
      log(`dummynet: ${plan.pipes.length} pipes on ${plan.platform}`);
    },
    /** @param {Record<string, LinkParams>} linksParams */
    async apply(linksParams) {
      if (!plan) throw new EnvironmentError('dummynet: apply before setup');
      state = { ...state, ...linksParams };
      for (const line of dummynetChange(plan, state, Object.keys(linksParams))) await sh(line);
    },
    /** dummynet's per-pipe counters are not read yet: no truth rows. */
    async truth() {
      return [];
    },
    /** @param {string} peer the address its media must leave from */
    addressOf(peer) {
      if (!(peer in addresses)) throw new HarnessError(`dummynet: unknown peer '${peer}'; this run has ${peers.join(', ')}`);
      return addresses[peer];
    },
    async close() {
      if (!plan) return;
      for (const line of [...dummynetTeardown(plan), ...loopbackAliasLines(plan, 'remove')]) await sh(line, { allowFailure: true });
      plan = null;
    },
  };
}
