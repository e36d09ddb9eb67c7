// What an opened run may ask of a node relay (pure): every method's params checked with the scenario's own validators
// (link parameters, traces, limits) and bounded to what a call needs, before the relay process sees them. A run that
// proved the Grid's registration secret shapes its peers' links; it cannot make the node listen on another address,
// bind sockets without end, or hand the relay's timers a value they cannot run on.
import { isIPv4 } from 'node:net';
import { MAX_LOAD_PARTICIPANTS, MAX_PEERS } from '../../lib/input/limits.js';
import { describeValue, expectNumber, expectObject } from '../../lib/input/validate.js';
import { normalizeLinkParams } from '../../lib/network/link-model.js';
import { checkTrace } from '../../lib/network/trace.js';
import { InputError } from '../../lib/system/errors.js';

/** Candidates one run may register on a node: a call registers about one per peer pair and direction. */
export const MAX_REGISTRATIONS = 256;
/** A path probe: at most this many datagrams, at least this far apart, and echoes awaited this long after the last. */
export const PROBE_LIMITS = { maxCount: 200, minIntervalMs: 1, maxIntervalMs: 1000, waitMs: 1000 };
/** Every link of a run: each peer's and load participant's uplink and downlink and the bottleneck's two directions. */
const MAX_LINKS = 2 * (MAX_PEERS + MAX_LOAD_PARTICIPANTS) + 2;
/** A route's two ends: peers, load participants and the SFU. */
const MAX_ROUTES = (MAX_PEERS + MAX_LOAD_PARTICIPANTS + 1) ** 2;
/** A route crosses a peer's uplink, the bottleneck and a peer's downlink at most. */
const MAX_ROUTE_LINKS = 3;
const MAX_TRACE_NAME_CHARS = 1000;
/** Wall-clock times (a media start, a trace origin) within a day of this node's clock: the nodes' clocks may differ. */
const EPOCH_WINDOW_MS = 86_400_000;
/** A peer p<i>, a load participant load<i> (its index in group 1 or 2), or the SFU. */
const NODE = /^(?:p(\d{1,2})|load(\d{1,2})|sfu)$/;
const LINK = /^(?:p(\d{1,2})|load(\d{1,2}))\.(?:up|down)$|^bottleneck\.(?:fwd|back)$/;
const NODES = `p0..p${MAX_PEERS - 1}, load0..load${MAX_LOAD_PARTICIPANTS - 1} or sfu`;

/** @param {RegExp} pattern @param {unknown} name */
const indexBelowMax = (pattern, name) => {
  const match = typeof name === 'string' ? pattern.exec(name) : null;
  if (match === null) return false;
  const [, peer, load] = match;
  return peer !== undefined ? Number(peer) < MAX_PEERS : load === undefined || Number(load) < MAX_LOAD_PARTICIPANTS;
};

/** @param {unknown} value @param {string} path */
function checkPeer(value, path) {
  if (!indexBelowMax(NODE, value)) throw new InputError(`${path}: must be a peer (${NODES}), got ${describeValue(value).slice(0, 80)}`);
  return /** @type {string} */ (value);
}

/** @param {string} name @param {string} path */
function checkLinkName(name, path) {
  if (!indexBelowMax(LINK, name)) {
    throw new InputError(`${path}: ${JSON.stringify(name.slice(0, 80))} is not a link (<peer>.up, <peer>.down for a peer ${NODES.replace(' or sfu', '')}; `
      + 'bottleneck.fwd, bottleneck.back)');
  }
  return name;
}

/** A unicast IPv4 address: not 0.0.0.0/8, not multicast, reserved or broadcast. @param {unknown} value @param {string} path */
function checkUnicast(value, path) {
  const first = typeof value === 'string' && isIPv4(value) ? Number(value.split('.')[0]) : 0;
  if (first < 1 || first > 223) throw new InputError(`${path}: must be a unicast IPv4 address, got ${describeValue(value).slice(0, 80)}`);
  return /** @type {string} */ (value);
}

/** @param {unknown} value @param {string} path */
const checkPort = (value, path) => expectNumber(value, path, { min: 1, max: 65535, integer: true });

/** @param {unknown} value @param {string} path */
const checkEpochMs = (value, path) => expectNumber(value, `${path} (a wall-clock time in ms since 1970, within a day of this node's clock)`,
  { min: Date.now() - EPOCH_WINDOW_MS, max: Date.now() + EPOCH_WINDOW_MS });

/** @param {unknown} routes @param {Set<string>} links  the run's links, these params' included */
function checkRoutes(routes, links) {
  const given = expectObject(routes, 'configure: params.routes');
  if (Object.keys(given).length > MAX_ROUTES) throw new InputError(`configure: params.routes: more than ${MAX_ROUTES} routes`);
  for (const [pair, names] of Object.entries(given)) {
    const path = `configure: params.routes[${JSON.stringify(pair.slice(0, 80))}]`;
    const ends = pair.split('->');
    if (ends.length !== 2) throw new InputError(`${path}: a route is named "<peer>-><peer>"`);
    ends.forEach((end) => checkPeer(end, path));
    if (!Array.isArray(names) || names.length > MAX_ROUTE_LINKS || !names.every((name) => links.has(name))) {
      throw new InputError(`${path}: must be up to ${MAX_ROUTE_LINKS} of the run's links, in order`);
    }
  }
  return /** @type {Record<string, string[]>} */ (given);
}

/** @param {unknown} traces @param {Set<string>} known  the run's traces so far, these added */
function checkTraces(traces, known) {
  const given = expectObject(traces, 'configure: params.traces');
  for (const [name, trace] of Object.entries(given)) {
    const path = `configure: params.traces[${JSON.stringify(name.slice(0, 80))}]`;
    if (name.length > MAX_TRACE_NAME_CHARS) throw new InputError(`${path}: a trace name is at most ${MAX_TRACE_NAME_CHARS} characters`);
    checkTrace(/** @type {import('../../lib/network/trace.js').Trace} */ (expectObject(trace, path, ['name', 'opportunitiesMs', 'periodMs'])), path);
    known.add(name);
    if (known.size > MAX_LINKS) throw new InputError(`${path}: a run has at most ${MAX_LINKS} traces, one per link`);
  }
  return /** @type {Record<string, import('../../lib/network/trace.js').Trace>} */ (given);
}

/**
 * Each method's params as its checker returns them; a method not listed takes none.
 * @typedef {{ links: Record<string, import('../../lib/network/link-model.js').LinkParams>, routes?: Record<string, string[]>,
 *   traces: Record<string, import('../../lib/network/trace.js').Trace>, traceOriginEpochMs?: number }} CheckedConfig
 * @typedef {{ configure: CheckedConfig, restartTraces: number,
 *   register: { peer: string, remotePeer: string, address: string, port: number, bindAddress: string },
 *   probe: { to: { address: string, port: number }, count: number, intervalMs: number }, processMemory: unknown }} CheckedParams
 * @typedef {<M extends string>(method: M, params: unknown) => M extends keyof CheckedParams ? CheckedParams[M] : undefined} ParamsCheck
 */

/**
 * The checker of one run's requests: each method's params as the relay gets them, or an InputError naming the field.
 * @param {string} nodeAddress  the node's own address (grid-node --host), where the relay's sockets may listen
 * @returns {ParamsCheck}
 */
export function runParamsChecker(nodeAddress) {
  /** @type {Set<string>} */
  const registrations = new Set();
  /** @type {Set<string>} */
  const links = new Set();
  /** @type {Set<string>} */
  const traces = new Set();
  /** @type {{ [M in keyof CheckedParams]: (params: unknown) => CheckedParams[M] }} */
  const checks = {
    configure(params) {
      const given = expectObject(params, 'configure: params', ['links', 'routes', 'traces', 'traceOriginEpochMs']);
      const linkParams = Object.fromEntries(Object.entries(expectObject(given.links ?? {}, 'configure: params.links')).map(([name, raw]) =>
        [checkLinkName(name, 'configure: params.links'), normalizeLinkParams(raw, `configure: params.links.${name}`)]));
      const newLinks = new Set([...links, ...Object.keys(linkParams)]);
      const checked = {
        links: linkParams,
        ...(given.routes === undefined ? {} : { routes: checkRoutes(given.routes, newLinks) }),
        traces: checkTraces(given.traces ?? {}, traces),
        ...(given.traceOriginEpochMs === undefined ? {} : { traceOriginEpochMs: checkEpochMs(given.traceOriginEpochMs, 'configure: params.traceOriginEpochMs') }),
      };
      for (const link of newLinks) links.add(link);
      return checked;
    },
    restartTraces: (params) => checkEpochMs(params, 'restartTraces: params'),
    register(params) {
      const given = expectObject(params, 'register: params', ['peer', 'remotePeer', 'address', 'port', 'bindAddress']);
      const peer = checkPeer(given.peer, 'register: params.peer');
      const remotePeer = checkPeer(given.remotePeer, 'register: params.remotePeer');
      const address = checkUnicast(given.address, 'register: params.address');
      const port = checkPort(given.port, 'register: params.port');
      const { bindAddress } = given;
      // This node's own address or its loopback: never every interface (0.0.0.0) nor another host's address.
      if (typeof bindAddress !== 'string' || (bindAddress !== nodeAddress && !(isIPv4(bindAddress) && bindAddress.startsWith('127.')))) {
        throw new InputError(`register: params.bindAddress: must be this node's address ${nodeAddress} or a loopback one, got ${describeValue(bindAddress).slice(0, 80)}`);
      }
      const candidate = { peer, remotePeer, address, port, bindAddress };
      const key = JSON.stringify(candidate);
      if (!registrations.has(key) && registrations.size >= MAX_REGISTRATIONS) {
        throw new InputError(`register: a run registers at most ${MAX_REGISTRATIONS} candidates on a node relay`);
      }
      registrations.add(key);
      return candidate;
    },
    probe(params) {
      const { address, port, count, intervalMs } = expectObject(params, 'probe: params', ['address', 'port', 'count', 'intervalMs']);
      return {
        to: { address: checkUnicast(address, 'probe: params.address'), port: checkPort(port, 'probe: params.port') },
        count: expectNumber(count, 'probe: params.count', { min: 1, max: PROBE_LIMITS.maxCount, integer: true }),
        intervalMs: expectNumber(intervalMs, 'probe: params.intervalMs', { min: PROBE_LIMITS.minIntervalMs, max: PROBE_LIMITS.maxIntervalMs, integer: true }),
      };
    },
    // The pids themselves are checked where they are read (lib/devices/process-memory.js checkPidList).
    processMemory: (params) => expectObject(params, 'processMemory: params', ['pids']).pids,
  };
  /** @param {string} method @param {unknown} params */
  const check = (method, params) => {
    if (Object.hasOwn(checks, method)) return checks[/** @type {keyof CheckedParams} */ (method)](params);
    if (params !== undefined) throw new InputError(`${method}: takes no params, got ${describeValue(params).slice(0, 80)}`);
    return undefined;
  };
  // The checks above return each method's CheckedParams; the checker cannot follow a method name through the lookup.
  return /** @type {ParamsCheck} */ (check);
}
