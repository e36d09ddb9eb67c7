/**
 * Compiles a scenario's `network` section into per-link parameters at t = 0, the routes between peers, and
 * a time-ordered list of reconfigurations the emulator applies. Pure: no I/O. See docs/scenario-format.md.
 */
import { HarnessError, InputError } from '../system/errors.js';
import { checkLinkParams, mergeLinkParams, normalizeLinkParams, sameLinkParams } from './link-model.js';
import { MAX_SCHEDULE_CHANGES, MAX_SCHEDULE_ENTRIES } from '../input/limits.js';
import { compileEntry, rejectOverlaps, roundS } from './schedule-entries.js';
import { compileHandover, isHandoverEntry } from './handover.js';
import { BOTTLENECK_LINKS, SFU_NODE, bottleneckBetween } from './topology.js';
import {
  DEFAULT_TRACE_STEP_MS, MAX_TRACE_STEP_MS, MIN_TRACE_STEP_MS, SYNTHETIC_PREFIX, capacityKbps, syntheticTrace,
} from './trace.js';
import { describeValue, expectNumber, expectObject } from '../input/validate.js';

/** @typedef {import('./link-model.js').LinkParams} LinkParams */
/** @typedef {import('./schedule-entries.js').Change} Change */
/**
 * @typedef {object} CompiledNetwork
 * @property {Record<string, LinkParams>} links   params at t = 0 (schedule entries at 0 already applied)
 * @property {Record<string, string[]>} routes     mesh: "p0->p1": ["p0.up", ("bottleneck.fwd",) "p1.down"];
 *   sfu: "p0->sfu": ["p0.up", ("bottleneck.fwd")], "sfu->p0": [("bottleneck.back",) "p0.down"]; a route crosses
 *   the bottleneck only between the sides (lib/network/topology.js peerSide)
 * @property {{atS: number, link: string, params: LinkParams, cause: string}[]} events  sorted by atS, all atS > 0
 * @property {Record<string, import('./trace.js').Trace>} traces  every trace a link uses, by the name params.trace gives
 * @property {number} traceStepMs  the rate steps' length where a backend cannot replay a trace (lib/network/trace-steps.js traceSteps)
 * @property {import('./handover.js').Handover[]} [handovers]  peers that change network mid-call (lib/network/handover.js), by atS
 *   (an SFU room's load participants have links and routes too: `load0.up`, "load0->sfu")
 */
/** @typedef {(name: string, where: string) => import('./trace.js').Trace} LoadTrace  reads a trace file (the loader's I/O) */

export const DEFAULT_DURATION_S = 300;
export const DEFAULT_PEERS = 2;

const NETWORK_FIELDS = ['link', 'peers', 'bottleneck', 'bottleneckBack', 'schedule', 'traceStepMs'];
const roundValue = (/** @type {number} */ value) => Math.round(value * 1e3) / 1e3;

/**
 * @param {{name?: string, file?: string, durationS?: number, peers?: number, topology?: string, network?: unknown,
 *   loadPeers?: string[]}} scenario validated top-level fields (loadScenario checks them); network is validated here;
 *   loadPeers: an SFU room's load participants (lib/media/load-participants.js), each with links of its own: its
 *   uplink network.link, its downlink unshaped, as a peer network.peers does not name; they cross no bottleneck
 * @param {{timeScale?: number, loadTrace?: LoadTrace, traceStepMs?: number}} [options] timeScale multiplies every
 *   `at` and ramp durationS, not everyS (nor traces: they are recordings); loadTrace reads a trace file (synthetic
 *   traces are generated here); traceStepMs (--trace-step-ms) overrides network.traceStepMs
 * @returns {CompiledNetwork}
 */
export function compileNetwork(scenario, { timeScale = 1, loadTrace, traceStepMs: stepOverrideMs } = {}) {
  const file = scenario.file ?? `scenario '${scenario.name}'`;
  const peers = scenario.peers ?? DEFAULT_PEERS;
  const network = expectObject(scenario.network ?? {}, `${file}: network`, NETWORK_FIELDS);
  /** @type {Record<string, import('./trace.js').Trace>} */
  const traces = {};
  /** @param {unknown} name @param {string} where */
  const useTrace = (name, where) => {
    if (typeof name !== 'string' || name === '' || Object.hasOwn(traces, name)) return;
    if (name.startsWith(SYNTHETIC_PREFIX)) traces[name] = syntheticTrace(name, where);
    else if (loadTrace) traces[name] = loadTrace(name, where);
    else throw new InputError(`${where}: trace file ${name} cannot be read here; load the scenario with loadScenario`);
  };
  const loadPeers = scenario.loadPeers ?? [];
  const links = initialLinks(network, peers, file, useTrace);
  for (const name of loadPeers) {
    links[`${name}.up`] = normalizeLinkParams(network.link ?? {}, `${file}: network.link`);
    links[`${name}.down`] = normalizeLinkParams({}, `${file}: network.link`);
  }
  const schedule = network.schedule ?? [];
  if (!Array.isArray(schedule)) {
    throw new InputError(`${file}: network.schedule: must be an array of steps and ramps, got ${describeValue(schedule)}`);
  }
  if (schedule.length > MAX_SCHEDULE_ENTRIES) {
    throw new InputError(`${file}: network.schedule: ${schedule.length} entries; at most ${MAX_SCHEDULE_ENTRIES} (docs/scenario-format.md "Limits"): use ramps instead of many steps`);
  }
  const context = { file, links, timeScale, nominalDurationS: scenario.durationS ?? DEFAULT_DURATION_S, useTrace };
  const handoverContext = { ...context, peers, topology: scenario.topology ?? 'mesh' };
  const handovers = schedule.flatMap((entry, index) => (isHandoverEntry(entry) ? [compileHandover(entry, index, handoverContext)] : []))
    .sort((a, b) => a.atS - b.atS);
  const entries = schedule.flatMap((entry, index) => (isHandoverEntry(entry) ? [] : [compileEntry(entry, index, context)]));
  rejectTooManyChanges(entries, file);
  rejectOverlaps(entries, file);
  const events = applyChanges(links, entries.flatMap((entry) => entry.changes()));
  const stepRange = { min: MIN_TRACE_STEP_MS, max: MAX_TRACE_STEP_MS };
  const fileStepMs = network.traceStepMs === undefined ? undefined : expectNumber(network.traceStepMs, `${file}: network.traceStepMs`, stepRange);
  if (fileStepMs !== undefined && Object.keys(traces).length === 0) {
    throw new InputError(`${file}: network.traceStepMs: no link has a trace; remove it`);
  }
  const traceStepMs = stepOverrideMs === undefined ? fileStepMs ?? DEFAULT_TRACE_STEP_MS
    : expectNumber(stepOverrideMs, '--trace-step-ms', stepRange);
  const routes = buildRoutes(peers, scenario.topology ?? 'mesh', 'bottleneck.fwd' in links);
  for (const name of loadPeers) {
    routes[`${name}->${SFU_NODE}`] = [`${name}.up`];
    routes[`${SFU_NODE}->${name}`] = [`${name}.down`];
  }
  return { links, routes, events, traces, traceStepMs, ...(handovers.length ? { handovers } : {}) };
}

/**
 * The network without these peers' links, routes and changes: an SFU room's load participants where the emulator or the
 * SFU cannot put their media on their links (their media then reaches the SFU directly, and the result says so).
 * @param {CompiledNetwork} compiled @param {string[]} peers
 * @returns {CompiledNetwork}
 */
export function withoutPeers(compiled, peers) {
  const owned = (/** @type {string} */ link) => peers.some((peer) => link === `${peer}.up` || link === `${peer}.down`);
  const routed = (/** @type {string} */ pair) => pair.split('->').some((node) => peers.includes(node));
  return {
    ...compiled,
    links: Object.fromEntries(Object.entries(compiled.links).filter(([link]) => !owned(link))),
    routes: Object.fromEntries(Object.entries(compiled.routes).filter(([pair]) => !routed(pair))),
    events: compiled.events.filter((event) => !owned(event.link)),
  };
}

/**
 * The changes the entries would make, counted before any is built: a ramp every 0.1 s over a day on every link of
 * 32 peers would be 55 million.
 * @param {import('./schedule-entries.js').CompiledEntry[]} entries @param {string} file
 */
function rejectTooManyChanges(entries, file) {
  const total = entries.reduce((sum, entry) => sum + entry.changeCount, 0);
  if (total <= MAX_SCHEDULE_CHANGES) return;
  const largest = entries.reduce((a, b) => (b.changeCount > a.changeCount ? b : a));
  throw new InputError(`${file}: network.schedule: compiles to ${total} link changes (network.schedule[${largest.index}] alone ${largest.changeCount}); at most ${MAX_SCHEDULE_CHANGES} (docs/scenario-format.md "Limits"): raise a ramp's everyS, shorten it or name fewer links`);
}

/**
 * @param {Record<string, unknown>} network  as parsed from JSON; each field is validated here as it is read
 * @param {number} peers
 * @param {string} file
 * @param {(name: unknown, where: string) => void} useTrace  resolves a trace a section names (errors name the field)
 * @returns {Record<string, LinkParams>}
 */
function initialLinks(network, peers, file, useTrace) {
  const peerNames = Array.from({ length: peers }, (_, i) => `p${i}`);
  const overrides = expectObject(network.peers ?? {}, `${file}: network.peers`, peerNames);
  const uplink = normalizeLinkParams(network.link ?? {}, `${file}: network.link`);
  useTrace(uplink.trace, `${file}: network.link.trace`);
  /** @type {Record<string, LinkParams>} */
  const links = {};
  for (const peer of peerNames) {
    const override = expectObject(overrides[peer] ?? {}, `${file}: network.peers.${peer}`, ['uplink', 'downlink']);
    links[`${peer}.up`] = mergeLinkParams(uplink, override.uplink ?? {}, `${file}: network.peers.${peer}.uplink`);
    links[`${peer}.down`] = normalizeLinkParams(override.downlink ?? {}, `${file}: network.peers.${peer}.downlink`);
    useTrace(links[`${peer}.up`].trace, `${file}: network.peers.${peer}.uplink.trace`);
    useTrace(links[`${peer}.down`].trace, `${file}: network.peers.${peer}.downlink.trace`);
  }
  if (network.bottleneck !== undefined) {
    const [fwd, back] = Object.keys(BOTTLENECK_LINKS);
    links[fwd] = normalizeLinkParams(network.bottleneck, `${file}: network.bottleneck`);
    links[back] = mergeLinkParams(links[fwd], network.bottleneckBack ?? {}, `${file}: network.bottleneckBack`);
    useTrace(links[fwd].trace, `${file}: network.bottleneck.trace`);
    useTrace(links[back].trace, `${file}: network.bottleneckBack.trace`);
  } else if (network.bottleneckBack !== undefined) {
    throw new InputError(`${file}: network.bottleneckBack: is merged over network.bottleneck, which is missing; add network.bottleneck (both directions) or remove bottleneckBack`);
  }
  return links;
}

/**
 * In an SFU call every flow is between a peer and the SFU node, which has no links of its own: a forwarded stream
 * crosses its sender's uplink on the way in and each receiver's downlink on the way out. Traffic between the two
 * sides crosses the bottleneck's link for its direction.
 * @param {number} peers @param {string} topology @param {boolean} hasBottleneck
 */
function buildRoutes(peers, topology, hasBottleneck) {
  /** @param {string} from @param {string} to */
  const crossing = (from, to) => {
    const link = hasBottleneck ? bottleneckBetween(from, to) : null;
    return link === null ? [] : [link];
  };
  /** @type {Record<string, string[]>} */
  const routes = {};
  if (topology === 'sfu') {
    for (let i = 0; i < peers; i++) {
      const peer = `p${i}`;
      routes[`${peer}->${SFU_NODE}`] = [`${peer}.up`, ...crossing(peer, SFU_NODE)];
      routes[`${SFU_NODE}->${peer}`] = [...crossing(SFU_NODE, peer), `${peer}.down`];
    }
    return routes;
  }
  for (let from = 0; from < peers; from++) {
    for (let to = 0; to < peers; to++) {
      if (from === to) continue;
      routes[`p${from}->p${to}`] = [`p${from}.up`, ...crossing(`p${from}`, `p${to}`), `p${to}.down`];
    }
  }
  return routes;
}

/**
 * Applies changes in time order (ties in schedule order), folding those at t = 0 into links and restating
 * the full params of each link that changed at each later instant. No-op reconfigurations are dropped.
 * @param {Record<string, LinkParams>} links  mutated into the params at t = 0
 * @param {Change[]} changes
 */
function applyChanges(links, changes) {
  const ordered = changes.map((change, order) => ({ change, order }))
    .sort((a, b) => a.change.atS - b.change.atS || a.order - b.order)
    .map(({ change }) => change);
  /** @type {CompiledNetwork['events']} */
  const events = [];
  const current = { ...links };
  let i = 0;
  while (i < ordered.length) {
    const atS = ordered[i].atS;
    /** @type {Map<string, {params: LinkParams, causes: string[], where: string}>} */
    const pending = new Map();
    for (; i < ordered.length && ordered[i].atS === atS; i++) {
      const { link, patch, cause, where } = ordered[i];
      const before = pending.get(link) ?? { params: current[link], causes: [], where };
      // Entries at one instant may each change one side of a rule between fields (jitter and delay):
      // the rules hold for the state they leave together.
      pending.set(link, {
        params: mergeLinkParams(before.params, patch, where, { betweenFields: false }),
        causes: [...before.causes, cause],
        where,
      });
    }
    for (const link of Object.keys(links)) {
      const next = pending.get(link);
      if (!next) continue;
      checkLinkParams(next.params, `${next.where}, on ${link} at ${atS} s`);
      if (sameLinkParams(next.params, current[link])) continue;
      current[link] = next.params;
      if (atS === 0) links[link] = next.params;
      else events.push({ atS, link, params: { ...next.params }, cause: next.causes.join('; ') });
    }
  }
  return events;
}

/**
 * Schedule events grouped by time, each group to be applied at once: one group per distinct atS, in time
 * order, its events in their order in `events`. Pure.
 * @template {{atS: number}} E
 * @param {readonly E[]} events  e.g. CompiledNetwork['events'] (all atS > 0)
 * @returns {{atS: number, events: E[]}[]}
 */
export function groupScheduleEvents(events) {
  /** @type {Map<number, E[]>} */
  const groups = new Map();
  for (const event of events) {
    const group = groups.get(event.atS);
    if (group) group.push(event);
    else groups.set(event.atS, [event]);
  }
  return [...groups].map(([atS, grouped]) => ({ atS, events: grouped })).sort((a, b) => a.atS - b.atS);
}

/**
 * Params of every link in force at tS (events at exactly tS included).
 * @param {CompiledNetwork} compiled
 * @param {number} tS
 * @returns {Record<string, LinkParams>}
 */
export function configuredAt(compiled, tS) {
  const state = copyLinks(compiled.links);
  for (const event of compiled.events) {
    if (event.atS > tS) break;
    state[event.link] = { ...event.params };
  }
  return state;
}

/**
 * The configured params sampled every stepS from 0 to durationS: result.json's network.configured. A link on a
 * trace shows the trace's mean capacity over [t, t + stepS) as its rateKbps (the trace started when the link
 * switched to it: at 0, or at the schedule event that named it).
 * @param {CompiledNetwork} compiled
 * @param {number} durationS
 * @param {number} [stepS]
 * @returns {({t: number, link: string} & LinkParams)[]}
 */
export function configuredTimeline(compiled, durationS, stepS = 1) {
  if (!(stepS > 0) || !(durationS >= 0)) {
    throw new HarnessError(`configuredTimeline: needs durationS >= 0 and stepS > 0, got ${durationS} and ${stepS}`);
  }
  const state = copyLinks(compiled.links);
  /** @type {Record<string, number>} */
  const traceOriginS = Object.fromEntries(Object.keys(state).map((link) => [link, 0]));
  const rows = [];
  let next = 0;
  const samples = Math.floor(durationS / stepS + 1e-9);
  for (let k = 0; k <= samples; k++) {
    const t = roundS(k * stepS);
    for (; next < compiled.events.length && compiled.events[next].atS <= t; next++) {
      const { link, params, atS } = compiled.events[next];
      if (params.trace && params.trace !== state[link].trace) traceOriginS[link] = atS;
      state[link] = params;
    }
    for (const [link, params] of Object.entries(state)) {
      const trace = params.trace ? compiled.traces?.[params.trace] : undefined;
      const fromMs = (t - traceOriginS[link]) * 1000;
      const rateKbps = trace ? roundValue(capacityKbps(trace, 0, fromMs, fromMs + stepS * 1000)) : params.rateKbps;
      rows.push({ t, link, ...params, rateKbps });
    }
  }
  return rows;
}

/** @param {Record<string, LinkParams>} links */
function copyLinks(links) {
  return Object.fromEntries(Object.entries(links).map(([name, params]) => [name, { ...params }]));
}
