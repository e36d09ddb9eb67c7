/**
 * Normalized link parameters (one object per link direction) and the arithmetic emulators share.
 * Pure: no I/O. See docs/scenario-format.md "Link parameters".
 */
import { HarnessError, InputError } from './errors.js';
import { expectNumber, expectObject } from './validate.js';

// suite/suite-dir.js and suite/cli.js still import these two from here; new code imports validate.js.
export { describeValue, expectNumber } from './validate.js';

/** @typedef {import('./validate.js').NumberRange} NumberRange */

/**
 * @typedef {object} LinkParams
 * @property {number|null} rateKbps      null = unlimited
 * @property {number|null} queuePackets  drop-tail limit in packets; exactly one of queuePackets/queueMs is non-null
 * @property {number|null} queueMs       drop-tail limit as time at rateKbps (bytes recomputed when the rate changes)
 * @property {number} oneWayDelayMs
 * @property {number} jitterMs           without reordering (RFC 8868 style)
 * @property {number} lossPct            random loss, 0..100
 * @property {number|null} lossBurst     Gilbert-Elliott mean burst length in packets, null = independent loss
 */

/** Bytes every backend charges against the rate on top of a UDP payload: IPv4 (20) + UDP (8) headers. */
export const UDP_IPV4_OVERHEAD_BYTES = 28;

/** dummynet's default queue (50 slots), which J16 ran with. */
export const DEFAULT_QUEUE_PACKETS = 50;

/** Every link field, in the order results list them. */
export const LINK_FIELDS = ['rateKbps', 'queuePackets', 'queueMs', 'oneWayDelayMs', 'jitterMs', 'lossPct', 'lossBurst'];

/** Fields a schedule ramp may vary continuously. */
export const RAMPABLE_FIELDS = ['rateKbps', 'oneWayDelayMs', 'jitterMs', 'lossPct'];

/** @type {Record<string, {nullable: boolean, range: NumberRange}>} */
const FIELD_RULES = {
  rateKbps: { nullable: true, range: { above: 0 } },
  queuePackets: { nullable: true, range: { min: 1, integer: true } },
  queueMs: { nullable: true, range: { above: 0 } },
  oneWayDelayMs: { nullable: false, range: { min: 0 } },
  jitterMs: { nullable: false, range: { min: 0 } },
  lossPct: { nullable: false, range: { min: 0, max: 100 } },
  lossBurst: { nullable: true, range: { min: 1 } },
};

/**
 * Validates one non-null value of a link field (also used for ramp from/to).
 * @param {string} field  one of LINK_FIELDS
 * @param {unknown} value
 * @param {string} path
 * @returns {number}
 */
export function expectLinkValue(field, value, path) {
  return expectNumber(value, path, FIELD_RULES[field].range);
}

/**
 * Fills defaults and validates every field.
 * @param {unknown} raw   link params as written in a scenario ({} = unconstrained)
 * @param {string} where  e.g. "orchestrator/scenarios/x.json: network.link", prefixed to field names in errors
 * @returns {LinkParams}
 */
export function normalizeLinkParams(raw, where) {
  const given = expectObject(raw, where, LINK_FIELDS);
  /** @type {Record<string, number|null>} */
  const params = {};
  for (const field of LINK_FIELDS) {
    const value = given[field];
    const { nullable } = FIELD_RULES[field];
    if (value === undefined || (nullable && value === null)) {
      params[field] = nullable ? null : 0;
    } else {
      params[field] = expectLinkValue(field, value, `${where}.${field}`);
    }
  }
  if (params.queuePackets !== null && params.queueMs !== null) {
    throw new InputError(`${where}: set only one of queuePackets and queueMs (got ${params.queuePackets} packets and ${params.queueMs} ms)`);
  }
  if (params.queuePackets === null && params.queueMs === null) params.queuePackets = DEFAULT_QUEUE_PACKETS;
  return /** @type {LinkParams} */ (params);
}

/**
 * Applies a partial update (a schedule step's `set`, a per-peer override) to normalized params.
 * Giving either queue field replaces the queue limit as a whole, so the two never coexist.
 * @param {LinkParams} base
 * @param {unknown} patch
 * @param {string} where  names the patch in errors
 * @returns {LinkParams}
 */
export function mergeLinkParams(base, patch, where) {
  const given = expectObject(patch, where, LINK_FIELDS);
  const replacesQueue = 'queuePackets' in given || 'queueMs' in given;
  const queue = replacesQueue ? { queuePackets: given.queuePackets ?? null, queueMs: given.queueMs ?? null } : {};
  return normalizeLinkParams({ ...base, ...given, ...queue }, where);
}

/**
 * @param {LinkParams} a
 * @param {LinkParams} b
 */
export function sameLinkParams(a, b) {
  return LINK_FIELDS.every((field) => a[field] === b[field]);
}

/**
 * Drop-tail queue limit in bytes. queueMs converts at the current rate; queuePackets counts full-size packets.
 * @param {LinkParams} params
 * @param {number} [mtuBytes]
 * @returns {number|null} null when the rate is unlimited (no queue can build)
 */
export function queueLimitBytes(params, mtuBytes = 1500) {
  if (params.rateKbps === null) return null;
  // kbit/s × ms / 8 = bytes
  if (params.queueMs !== null) return Math.round((params.rateKbps * params.queueMs) / 8);
  return /** @type {number} */ (params.queuePackets) * mtuBytes;
}

/**
 * What a flow along route sees end to end.
 * @param {Record<string, LinkParams>} linksParams
 * @param {string[]} route  link names, e.g. ["p0.up", "bottleneck", "p1.down"]
 * @returns {{rateKbps: number|null, oneWayDelayMs: number, jitterMs: number, lossPct: number}}
 */
export function pathConditions(linksParams, route) {
  const hops = route.map((name) => {
    const params = linksParams[name];
    if (!params) {
      throw new HarnessError(`pathConditions: route names link '${name}', which is not one of ${Object.keys(linksParams).join(', ')}`);
    }
    return params;
  });
  const rates = hops.map((p) => p.rateKbps).filter((rate) => rate !== null);
  const deliveredFraction = hops.reduce((kept, p) => kept * (1 - p.lossPct / 100), 1);
  return {
    rateKbps: rates.length > 0 ? Math.min(...rates) : null,
    oneWayDelayMs: hops.reduce((sum, p) => sum + p.oneWayDelayMs, 0),
    jitterMs: hops.reduce((sum, p) => sum + p.jitterMs, 0),
    // rounded so 5 % twice reads 9.75, not 9.750000000000002
    lossPct: Math.round((1 - deliveredFraction) * 100 * 1e9) / 1e9,
  };
}
