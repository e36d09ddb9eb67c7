/**
 * The dummynet backend at run time: macOS (dnctl + pf) or FreeBSD (ipfw), commands from runtime.js run
 * through the shared command runner. Elsewhere it stops with an EnvironmentError before anything starts.
 */
import { EnvironmentError, HarnessError } from '../../lib/system/errors.js';
import { parseCandidate } from '../candidates.js';
import { createCommandRunner } from '../command-runner.js';
import { dummynetChange, planDummynet } from './commands.js';
import { MAX_REGISTRATIONS, RUNTIME_ADDRESS, runtimeRules, runtimeSetup, runtimeTeardown } from './runtime.js';
import { scheduleStates } from './script.js';

/** @typedef {import('../../lib/network/link-model.js').LinkParams} LinkParams */

/** @type {Record<string, 'macos'|'freebsd'>} */
const PLATFORM_OF = { darwin: 'macos', freebsd: 'freebsd' };
const TOOLS = { macos: ['dnctl', 'pfctl'], freebsd: ['ipfw'] };

/**
 * @param {{platform?: string, run?: import('../command-runner.js').RunCommand}} [options]
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
 * Peers are told apart by port, not address (why: runtime.js). Only a peer's UDP host candidate on 127.0.0.1 is passed
 * on, once rules send its socket's packets through the pipes of its route; Chromium needs no launch changes.
 * @param {{peers: string[], compiled: import('../../lib/network/schedule.js').CompiledNetwork,
 *   log?: (message: string) => void, clock?: () => number,
 *   capabilities?: Awaited<ReturnType<typeof dummynetCapabilities>>,
 *   exec?: (argv: string[]) => Promise<import('../command-runner.js').CommandResult>}} options
 *   capabilities and exec: tests stand in for a macOS or FreeBSD host.
 */
export function createDummynetEmulator({ peers, compiled, log = () => {}, clock, capabilities, exec }) {
  const { run, commands } = createCommandRunner({ clock, exec });
  /** @type {import('./commands.js').DummynetPlan|null} */
  let plan = null;
  let state = { ...compiled.links };
  /** macOS: pf's enable reference (`pfctl -E`), released at teardown so pf ends as it was. */
  /** @type {string|null} */
  let pfToken = null;
  /** @type {import('./runtime.js').Registration[]} */
  const registrations = [];
  /** Rule updates one at a time: a macOS anchor reload carries every registration so far. */
  let ruleUpdates = Promise.resolve();
  let closing = false;
  /** @type {Promise<void>|null} */
  let settingUp = null;
  /** @param {string} line @param {{ allowFailure?: boolean, record?: boolean }} [options] */
  const sh = (line, options) => run(['sh', '-c', line], options);

  async function teardown() {
    if (!plan) return;
    for (const line of runtimeTeardown(plan)) await sh(line, { allowFailure: true });
    if (pfToken) await run(['pfctl', '-X', pfToken], { allowFailure: true });
    pfToken = null;
    registrations.length = 0;
  }

  async function build() {
    const caps = capabilities ?? await dummynetCapabilities();
    if (!caps.available) throw new EnvironmentError(`--emulator dummynet: ${caps.reasons.join('; ')}`);
    const addresses = Object.fromEntries(peers.map((peer) => [peer, RUNTIME_ADDRESS]));
    const links = Object.keys(compiled.links);
    plan = planDummynet({ platform: /** @type {string} */ (caps.platform), peers, links, routes: compiled.routes, addresses });
    // Pipes and rules a crashed run left under the same numbers go first.
    await teardown();
    for (const line of runtimeSetup(plan, compiled.links, scheduleStates(compiled).map((s) => s.state))) {
      if (closing) throw new HarnessError('dummynet: set-up interrupted; everything it made is being removed');
      await sh(line);
    }
    if (plan.platform === 'macos') pfToken = await enablePf(run);
    log(`dummynet: ${plan.pipes.length} pipes on ${plan.platform}; rules per peer socket as candidates arrive`);
  }

  /** @param {import('./runtime.js').Registration} registration */
  function register(registration) {
    const update = ruleUpdates.then(async () => {
      if (!plan || closing) throw new HarnessError('dummynet: the emulator is closed');
      if (registrations.length >= MAX_REGISTRATIONS) throw new HarnessError(`dummynet: over ${MAX_REGISTRATIONS} peer sockets`);
      registrations.push(registration);
      for (const line of runtimeRules(plan, compiled.routes, registrations)) await sh(line);
    });
    ruleUpdates = update.catch(() => {});
    return update;
  }

  /** @param {string} peer the address its media leaves from: the same for every peer (rules tell them apart by port) */
  const addressOf = (peer) => {
    if (!peers.includes(peer)) throw new HarnessError(`dummynet: unknown peer '${peer}'; this run has ${peers.join(', ')}`);
    return RUNTIME_ADDRESS;
  };

  return {
    name: 'dummynet',
    commands,
    signalingHost: RUNTIME_ADDRESS,
    async setup() {
      settingUp = build();
      await settingUp;
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
    addressOf,
    /**
     * Passes on only a peer's UDP host candidate on 127.0.0.1, after its socket's rules are in place.
     * @param {{from: string, to: string, candidate: {candidate: string}}} message
     */
    async rewriteCandidate({ from, to, candidate }) {
      const parsed = parseCandidate(candidate.candidate);
      if (parsed?.transport !== 'udp' || parsed.type !== 'host' || parsed.address !== addressOf(from)) return null;
      const known = registrations.some((r) => r.from === from && r.to === to && r.port === parsed.port);
      if (!known) await register({ from, to, port: parsed.port });
      return candidate;
    },
    /** Removes the pipes and rules, also mid-set-up; safe to call more than once. */
    async close() {
      closing = true;
      await settingUp?.catch(() => {});
      await ruleUpdates;
      await teardown();
      plan = null;
    },
  };
}

/**
 * Enables pf with a reference of the run's own (`pfctl -E`), so that releasing it at teardown leaves pf as it was.
 * @param {import('../command-runner.js').RunCommand} run @returns {Promise<string|null>} the reference's token
 */
async function enablePf(run) {
  const enabled = await run(['pfctl', '-E']);
  return /Token : (\d+)/.exec(enabled.stderr + enabled.stdout)?.[1] ?? null;
}
