/**
 * A scenario's `flows` (docs/scenario-format.md "Flows"): extra calls, kernel TCP/UDP flows and data channels that
 * share the bottleneck with the main call. Validation and normalisation, the links between two peers, when a flow
 * is active, the seeded short-TCP bursts. Pure: no I/O; flow-list.js lists them for result.json (peers, links,
 * series, per-second rates); orchestrator/cross/ runs the kernel flows.
 */
import { InputError } from '../system/errors.js';
import { MAX_RATE_KBPS, MIN_RATE_KBPS } from '../network/link-model.js';
import {
  MAX_BURST_BYTES, MAX_FLOWS, MAX_IPERF3_SERVERS, MAX_KERNEL_FLOWS, MAX_SHORT_TCP_BURSTS, MAX_TCP_WINDOW_BYTES, MIN_TCP_WINDOW_BYTES,
} from '../input/limits.js';
import { createRandom, deriveSeed } from '../stats/random.js';
import { describeValue, expectNumber, expectObject, expectText, isOneOf } from '../input/validate.js';

/** @type {Array<Flow['kind']>} */
export const FLOW_KINDS = ['call', 'tcp', 'tcp-short', 'udp', 'data'];
/** Flows of iperf3 endpoints that cross only the bottleneck (contract: cross/). */
export const KERNEL_FLOW_KINDS = ['tcp', 'tcp-short', 'udp'];
/** The main call is the flow `call` for fairness; its rates are `call:fwd` (left -> right) and `call:back`. */
export const MAIN_CALL_FLOW = 'call';
export const FLOW_NAME_PATTERN = /^[A-Za-z0-9_-]{1,32}$/;
/** The bottleneck's two directions (lib/network/schedule.js): left peers (even index) -> right peers (odd), and back. */
export const BOTTLENECK_FWD = 'bottleneck.fwd';
export const BOTTLENECK_BACK = 'bottleneck.back';

/** RFC 8867 §5.7's short TCP flows: 30–50 KB downloads with exponential idle times of mean 10 s. */
export const SHORT_TCP_DEFAULTS = { idleMeanS: 10, minBytes: 30_000, maxBytes: 50_000, seed: 1 };

const COMMON_FIELDS = ['name', 'kind', 'startS', 'stopS'];
/** @type {Record<string, string[]>} */
const FIELDS_BY_KIND = {
  call: [...COMMON_FIELDS, 'direction', 'pauses'],
  tcp: [...COMMON_FIELDS, 'direction', 'windowBytes'],
  'tcp-short': [...COMMON_FIELDS, 'direction', 'windowBytes', 'count', 'idleMeanS', 'minBytes', 'maxBytes', 'seed'],
  udp: [...COMMON_FIELDS, 'direction', 'rateKbps'],
  data: [...COMMON_FIELDS, 'from', 'to'],
};
const CALL_DIRECTIONS = ['both', 'forward'];
const KERNEL_DIRECTIONS = ['forward', 'backward'];
const PAUSE_FIELDS = ['atS', 'durationS'];

/**
 * A flow as the resolved scenario holds it: defaults filled, times scaled by --time-scale.
 * @typedef {object} Flow
 * @property {string} name
 * @property {'call'|'tcp'|'tcp-short'|'udp'|'data'} kind
 * @property {number} startS
 * @property {number} stopS
 * @property {string} [direction]   call: both | forward; kernel flows: forward | backward
 * @property {Array<{ atS: number, durationS: number }>} [pauses]  call
 * @property {number} [rateKbps]    udp
 * @property {number} [windowBytes] tcp, tcp-short: the socket buffers iperf3 asks for (-w), which cap the TCP window;
 *   absent: the kernel's own
 * @property {number} [count]       tcp-short: bursts at most (default and limit MAX_SHORT_TCP_BURSTS)
 * @property {number} [idleMeanS]   tcp-short
 * @property {number} [minBytes]    tcp-short
 * @property {number} [maxBytes]    tcp-short
 * @property {number} [seed]        tcp-short
 * @property {string} [from]        data
 * @property {string} [to]          data
 */

/**
 * One measured direction of a flow, the unit of fairness: `call:fwd`, `call-2:back`, `tcp`, `bulk`.
 * @typedef {object} FlowSeries
 * @property {string} name
 * @property {boolean} fair   whether it competes for a fair share (a short-TCP flow is idle most of the time)
 * @property {string[]} links  the links its payload crosses (TCP ACKs, RTCP and SCTP SACKs go the other way)
 * @property {Array<[number, number]>} intervals  when it sends: [fromS, toS)
 * @property {Array<[string, string]>} [pairs]  [sender, receiver] whose getStats (call) or data rates make it up
 */

/**
 * result.json's flows.list entry.
 * @typedef {Flow & { main?: boolean, peers?: Record<string, string>, links: string[], series: FlowSeries[],
 *   bursts?: Array<{ atS: number, bytes: number }> }} FlowListEntry
 */

const roundS = (/** @type {number} */ seconds) => Math.round(seconds * 1e6) / 1e6;

/** The side of the bottleneck a peer sits on: p0, p2, … left; p1, p3, … right. @param {string} peer */
export function isLeft(peer) {
  return Number(peer.slice(1)) % 2 === 0;
}

/**
 * The links from one peer to another: its uplink, the bottleneck's direction when they sit on different sides (and
 * the scenario has one), the receiver's downlink. lib/network/schedule.js builds the same routes.
 * @param {string} from @param {string} to @param {boolean} hasBottleneck
 */
export function peerRoute(from, to, hasBottleneck) {
  const crossing = hasBottleneck && isLeft(from) !== isLeft(to) ? [isLeft(from) ? BOTTLENECK_FWD : BOTTLENECK_BACK] : [];
  return [`${from}.up`, ...crossing, `${to}.down`];
}

/**
 * Validates and normalises a scenario's `flows` (default []); every time is scaled by timeScale.
 * @param {unknown} raw  the file's `flows`
 * @param {{ file: string, durationS: number, timeScale?: number, peers: number, topology?: string,
 *   hasBottleneck: boolean, maxPeers: number }} context  durationS as written (nominal); peers: the main call's
 * @returns {Flow[]}
 */
export function normalizeFlows(raw, { file, durationS, timeScale = 1, peers, topology = 'mesh', hasBottleneck, maxPeers }) {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) {
    throw new InputError(`${file}: flows: must be an array of flows (docs/scenario-format.md "Flows"), got ${describeValue(raw)}`);
  }
  if (raw.length > 0 && topology !== 'mesh') {
    throw new InputError(`${file}: flows: need topology "mesh" (the main call's flows are measured per pair of peers); remove "topology": ${describeValue(topology)} or the flows`);
  }
  if (raw.length > MAX_FLOWS) {
    throw new InputError(`${file}: flows: ${raw.length} flows; at most ${MAX_FLOWS} (docs/scenario-format.md "Limits")`);
  }
  const context = { file, durationS, timeScale, peers, hasBottleneck };
  const flows = raw.map((entry, index) => normalizeFlow(entry, index, context));
  const seen = new Map();
  const dataPairs = new Map();
  flows.forEach((flow, index) => {
    if (seen.has(flow.name)) {
      throw new InputError(`${file}: flows[${index}].name: '${flow.name}' is already the name of flows[${seen.get(flow.name)}]; give every flow its own name`);
    }
    seen.set(flow.name, index);
    if (flow.kind !== 'data') return;
    // The page reports one data rate per connection, so two data flows on one connection could not be told apart.
    const pair = `${flow.from}->${flow.to}`;
    if (dataPairs.has(pair)) {
      throw new InputError(`${file}: flows[${index}]: flows[${dataPairs.get(pair)}] already sends data from ${flow.from} to ${flow.to}; one data flow per direction of a connection`);
    }
    dataPairs.set(pair, index);
  });
  const allPeers = peers + 2 * flows.filter((flow) => flow.kind === 'call').length;
  if (allPeers > maxPeers) {
    throw new InputError(`${file}: flows: the main call's ${peers} peers and 2 per call flow make ${allPeers} peers; at most ${maxPeers}: remove call flows or lower peers`);
  }
  rejectTooManyIperf3(flows, file);
  return flows;
}

/**
 * Kernel flows and their iperf3 servers (one per tcp or udp flow, one per tcp-short burst) are all set up before
 * the call: their number is bounded here, where the bursts are drawn (cheaply: count bounds each flow's).
 * @param {Flow[]} flows @param {string} file
 */
function rejectTooManyIperf3(flows, file) {
  const kernel = flows.filter((flow) => KERNEL_FLOW_KINDS.includes(flow.kind));
  if (kernel.length > MAX_KERNEL_FLOWS) {
    throw new InputError(`${file}: flows: ${kernel.length} tcp, tcp-short and udp flows; at most ${MAX_KERNEL_FLOWS} (docs/scenario-format.md "Limits")`);
  }
  const servers = kernel.map((flow) => (flow.kind === 'tcp-short' ? shortTcpBursts(flow).length : 1));
  const total = servers.reduce((a, b) => a + b, 0);
  if (total <= MAX_IPERF3_SERVERS) return;
  const most = servers.indexOf(Math.max(...servers));
  throw new InputError(`${file}: flows: the kernel flows need ${total} iperf3 servers (one per tcp or udp flow, one per tcp-short burst; flows[${flows.indexOf(kernel[most])}] '${kernel[most].name}' alone ${servers[most]}); at most ${MAX_IPERF3_SERVERS} (docs/scenario-format.md "Limits"): lower a tcp-short flow's count, raise its idleMeanS or shorten it`);
}

/** When the main call's media starts, and which way it flows: RMCAT's media flows are one-way; some start late. */
/** @typedef {{ startS: number, direction: 'both'|'forward' }} MainCall */
/** @type {Readonly<MainCall>} */
export const MAIN_CALL_DEFAULTS = Object.freeze({ startS: 0, direction: 'both' });

/**
 * The scenario's `mainCall`: `startS` (its peers connect before media start like always, but send nothing until
 * then) and `direction` (`forward`: only p0, left of the bottleneck, sends media; p1 sends RTCP only). Times scale
 * like the flows'.
 * @param {unknown} raw
 * @param {{ file: string, durationS: number, timeScale?: number, peers: number, topology?: string }} context  durationS nominal
 * @returns {MainCall}
 */
export function normalizeMainCall(raw, { file, durationS, timeScale = 1, peers, topology = 'mesh' }) {
  if (raw === undefined) return { ...MAIN_CALL_DEFAULTS };
  const where = `${file}: mainCall`;
  const given = expectObject(raw, where, ['startS', 'direction']);
  const startS = given.startS === undefined ? 0 : expectNumber(given.startS, `${where}.startS`, { min: 0, max: durationS });
  if (startS >= durationS) throw new InputError(`${where}.startS: ${startS} s must be before the scenario's end (${durationS} s)`);
  const direction = given.direction ?? 'both';
  if (!isOneOf(/** @type {Array<MainCall['direction']>} */ (['both', 'forward']), direction)) {
    throw new InputError(`${where}.direction: must be "both" or "forward" (only p0 sends), got ${describeValue(direction)}`);
  }
  if (direction === 'forward' && (peers !== 2 || topology !== 'mesh')) {
    throw new InputError(`${where}.direction: "forward" needs a two-party mesh call (p0 sends to p1); this scenario has ${peers} peers, topology ${topology}`);
  }
  return { startS: roundS(startS * timeScale), direction };
}

/**
 * @param {unknown} raw @param {number} index
 * @param {{ file: string, durationS: number, timeScale: number, peers: number, hasBottleneck: boolean }} context
 * @returns {Flow}
 */
function normalizeFlow(raw, index, { file, durationS, timeScale, peers, hasBottleneck }) {
  const where = `${file}: flows[${index}]`;
  const given = expectObject(raw, where);
  const kind = given.kind;
  if (!isOneOf(FLOW_KINDS, kind)) {
    throw new InputError(`${where}.kind: must be one of ${FLOW_KINDS.join(', ')}, got ${describeValue(given.kind)}`);
  }
  expectObject(given, where, FIELDS_BY_KIND[kind]);
  const name = flowName(given.name, `${where}.name`);
  const startS = given.startS === undefined ? 0 : expectNumber(given.startS, `${where}.startS`, { min: 0, max: durationS });
  const stopS = given.stopS === undefined ? durationS : expectNumber(given.stopS, `${where}.stopS`, { above: 0, max: durationS });
  if (startS >= stopS) {
    throw new InputError(`${where}: startS (${startS} s) must be before stopS (${stopS} s${given.stopS === undefined ? ', the scenario\'s durationS' : ''}); move startS earlier or stopS later`);
  }
  const scale = (/** @type {number} */ seconds) => roundS(seconds * timeScale);
  /** @type {Flow} */
  const flow = { name, kind, startS: scale(startS), stopS: scale(stopS) };

  if (kind === 'call') {
    flow.direction = oneOf(given.direction, CALL_DIRECTIONS, `${where}.direction`);
    flow.pauses = pausesOf(given.pauses, `${where}.pauses`, startS, stopS).map((p) => ({ atS: scale(p.atS), durationS: scale(p.durationS) }));
    return flow;
  }
  if (kind === 'data') {
    const peerNames = Array.from({ length: peers }, (_, i) => `p${i}`);
    flow.from = given.from === undefined ? 'p0' : oneOf(given.from, peerNames, `${where}.from`, 'a peer of the main call');
    flow.to = given.to === undefined ? 'p1' : oneOf(given.to, peerNames, `${where}.to`, 'a peer of the main call');
    if (flow.from === flow.to) throw new InputError(`${where}: from and to are both ${flow.from}; a data flow goes from one peer of the main call to another`);
    return flow;
  }
  if (KERNEL_FLOW_KINDS.includes(kind) && !hasBottleneck) {
    throw new InputError(`${where}: a "${kind}" flow crosses the bottleneck, and the scenario has none: add network.bottleneck (link parameters, docs/scenario-format.md)`);
  }
  flow.direction = oneOf(given.direction, KERNEL_DIRECTIONS, `${where}.direction`);
  if (kind !== 'udp' && given.windowBytes !== undefined) {
    const bounds = { min: MIN_TCP_WINDOW_BYTES, max: MAX_TCP_WINDOW_BYTES, integer: true };
    flow.windowBytes = expectNumber(given.windowBytes, `${where}.windowBytes`, bounds);
  }
  if (kind === 'udp') {
    flow.rateKbps = expectNumber(given.rateKbps, `${where}.rateKbps`, { min: MIN_RATE_KBPS, max: MAX_RATE_KBPS });
  }
  if (kind === 'tcp-short') {
    flow.count = given.count === undefined ? MAX_SHORT_TCP_BURSTS
      : expectNumber(given.count, `${where}.count`, { min: 1, max: MAX_SHORT_TCP_BURSTS, integer: true });
    flow.idleMeanS = scale(given.idleMeanS === undefined ? SHORT_TCP_DEFAULTS.idleMeanS
      : expectNumber(given.idleMeanS, `${where}.idleMeanS`, { above: 0, max: durationS }));
    flow.minBytes = given.minBytes === undefined ? SHORT_TCP_DEFAULTS.minBytes
      : expectNumber(given.minBytes, `${where}.minBytes`, { min: 1, max: MAX_BURST_BYTES, integer: true });
    flow.maxBytes = given.maxBytes === undefined ? Math.max(SHORT_TCP_DEFAULTS.maxBytes, flow.minBytes)
      : expectNumber(given.maxBytes, `${where}.maxBytes`, { min: 1, max: MAX_BURST_BYTES, integer: true });
    if (flow.maxBytes < flow.minBytes) {
      throw new InputError(`${where}: maxBytes (${flow.maxBytes}) is below minBytes (${flow.minBytes}); burst sizes are drawn from [minBytes, maxBytes]`);
    }
    flow.seed = given.seed === undefined ? SHORT_TCP_DEFAULTS.seed
      : expectNumber(given.seed, `${where}.seed`, { min: 0, max: 2 ** 32 - 1, integer: true });
  }
  return flow;
}

/** @param {unknown} value @param {string} where @returns {string} */
function flowName(value, where) {
  const name = expectText(value, where, { what: `a name of 1 to 32 letters, digits, '_' and '-'` });
  if (!FLOW_NAME_PATTERN.test(name)) {
    throw new InputError(`${where}: must be 1 to 32 letters, digits, '_' and '-' (it names result rows and network namespaces), got ${describeValue(name)}`);
  }
  if (/^p\d+$/.test(name) || name === 'sfu' || name === MAIN_CALL_FLOW) {
    throw new InputError(`${where}: '${name}' is reserved (peers are p0, p1, …; 'sfu' is the SFU; '${MAIN_CALL_FLOW}' is the main call); choose another name`);
  }
  return name;
}

/**
 * @param {unknown} value  undefined: the first choice
 * @param {string[]} choices @param {string} where @param {string} [what]
 */
function oneOf(value, choices, where, what) {
  if (value === undefined) return choices[0];
  if (typeof value === 'string' && choices.includes(value)) return value;
  throw new InputError(`${where}: must be ${what ? `${what}, one of` : 'one of'} ${choices.join(', ')}, got ${describeValue(value)}`);
}

/**
 * Pauses inside [startS, stopS], in time order and apart (nominal times).
 * @param {unknown} raw @param {string} where @param {number} startS @param {number} stopS
 */
function pausesOf(raw, where, startS, stopS) {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) throw new InputError(`${where}: must be an array of { atS, durationS }, got ${describeValue(raw)}`);
  let previousEndS = -Infinity;
  return raw.map((entry, i) => {
    const pause = expectObject(entry, `${where}[${i}]`, PAUSE_FIELDS);
    const atS = expectNumber(pause.atS, `${where}[${i}].atS`, { min: startS, max: stopS });
    const durationS = expectNumber(pause.durationS, `${where}[${i}].durationS`, { above: 0 });
    if (atS + durationS > stopS) {
      throw new InputError(`${where}[${i}]: the pause ends at ${atS + durationS} s, after the flow stops (${stopS} s); shorten it or move it earlier`);
    }
    if (atS <= previousEndS) {
      throw new InputError(`${where}[${i}]: starts at ${atS} s, not after the previous pause ends (${previousEndS} s); list pauses in time order, apart (merge touching ones)`);
    }
    previousEndS = atS + durationS;
    return { atS, durationS };
  });
}

/**
 * When a flow sends: [startS, stopS) without its pauses.
 * @param {Pick<Flow, 'startS'|'stopS'|'pauses'>} flow
 * @returns {Array<[number, number]>}
 */
export function activeIntervals({ startS, stopS, pauses = [] }) {
  /** @type {Array<[number, number]>} */
  const intervals = [];
  let fromS = startS;
  for (const { atS, durationS } of pauses) {
    intervals.push([fromS, atS]);
    fromS = roundS(atS + durationS);
  }
  intervals.push([fromS, stopS]);
  return intervals.filter(([a, b]) => b > a);
}

/**
 * The bursts of a tcp-short flow (RFC 8867 §5.7): the first at startS, each next one an exponential idle time (mean
 * idleMeanS) after the previous one's start, `count` at most, all before stopS; sizes uniform in [minBytes, maxBytes].
 * Drawn in advance, so a burst's own duration is not added to the idle time (40 KB at 2 Mbit/s take 0.16 s). Seeded
 * by the flow's seed and name: the same file gives the same bursts.
 * @param {Pick<Flow, 'name'|'startS'|'stopS'|'count'|'idleMeanS'|'minBytes'|'maxBytes'|'seed'>} flow  normalised (normalizeFlows)
 * @returns {Array<{ atS: number, bytes: number }>}
 */
export function shortTcpBursts({ name, startS, stopS, count, idleMeanS, minBytes, maxBytes, seed }) {
  if (count === undefined || idleMeanS === undefined || minBytes === undefined || maxBytes === undefined || seed === undefined) {
    throw new InputError(`flow "${name}": a tcp-short flow needs count, idleMeanS, minBytes, maxBytes and seed; pass it through normalizeFlows, which fills them`);
  }
  const random = createRandom(deriveSeed(seed, 'tcp-short', name));
  const bursts = [];
  let atS = startS;
  while (bursts.length < count && atS < stopS) {
    bursts.push({ atS: Math.round(atS * 1000) / 1000, bytes: minBytes + Math.floor(random() * (maxBytes - minBytes + 1)) });
    atS += -idleMeanS * Math.log(1 - random());
  }
  return bursts;
}
