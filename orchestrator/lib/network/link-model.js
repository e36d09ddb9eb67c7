/**
 * Normalized link parameters (one object per link direction) and the arithmetic emulators share.
 * Pure: no I/O. See docs/scenario-format.md "Link parameters".
 */
import { HarnessError, InputError } from '../system/errors.js';
import { expectNumber, expectObject } from '../input/validate.js';

/** @typedef {import('../input/validate.js').NumberRange} NumberRange */

/**
 * @typedef {object} LinkParams
 * @property {number|null} rateKbps      null = unlimited (or the capacity comes from trace)
 * @property {number|null} queuePackets  drop-tail limit in packets; exactly one of queuePackets/queueMs is non-null
 * @property {number|null} queueMs       drop-tail limit as time at rateKbps (bytes recomputed when the rate changes)
 * @property {number} oneWayDelayMs
 * @property {number} jitterMs           without reordering (RFC 8868 style)
 * @property {number} lossPct            random loss, 0..100
 * @property {number|null} lossBurst     Gilbert-Elliott mean burst length in packets, null = independent loss
 * @property {string|null} trace         capacity from a trace (lib/network/trace.js) instead of rateKbps: its name as the
 *   scenario gives it; at most one of rateKbps and trace is non-null
 */

/** Bytes every backend charges against the rate on top of a UDP payload: IPv4 (20) + UDP (8) headers. */
export const UDP_IPV4_OVERHEAD_BYTES = 28;

/** dummynet's default queue (50 slots), which J16 ran with. */
export const DEFAULT_QUEUE_PACKETS = 50;

/*
 * Ranges (docs/scenario-format.md "Link parameters"): beyond them the emulators' commands break (tc writes
 * `rate 0bit` below 8 kbit/s, a bfifo limit is 32 bits) or the link stops being a network a call can cross.
 */
export const MIN_RATE_KBPS = 8;
export const MAX_RATE_KBPS = 10_000_000;
export const MAX_DELAY_MS = 60_000;
export const MAX_QUEUE_MS = 60_000;
export const MAX_QUEUE_PACKETS = 100_000;
/** rateKbps × queueMs / 8: a queueMs queue in bytes at its rate. */
export const MAX_QUEUE_BYTES = 1_000_000_000;
export const MAX_LOSS_BURST = 1000;

/**
 * One link field: what it may hold, what it is when a scenario leaves it out, and how it reads.
 * @typedef {object} LinkField
 * @property {keyof LinkParams} field
 * @property {number|null} unset  its value when a scenario leaves it out; null also means it may be given as null
 * @property {NumberRange} [range]  every number field has one; the one without is the trace's name
 * @property {'capacity'|'queue'} [part]  fields that are one setting: giving either replaces both (mergeLinkParams)
 * @property {(value: unknown) => string} text  how a value reads in a sentence (docs/catalog.md)
 * @property {string} [rampUnit]  a schedule ramp may vary it continuously; its from → to read in this unit
 */

/**
 * Every link field, in the order results list them: the one list the validation, the schedule, the catalogue and the
 * run report read, so that a new field is one entry here.
 * @type {readonly LinkField[]}
 */
export const LINK_FIELD_SPECS = Object.freeze([
  { field: 'rateKbps', unset: null, range: { min: MIN_RATE_KBPS, max: MAX_RATE_KBPS }, part: 'capacity',
    text: (v) => (v === null ? 'no cap' : `cap ${v} kbps`), rampUnit: 'kbps' },
  { field: 'queuePackets', unset: null, range: { min: 1, max: MAX_QUEUE_PACKETS, integer: true }, part: 'queue',
    text: (v) => `queue ${v} packets` },
  { field: 'queueMs', unset: null, range: { above: 0, max: MAX_QUEUE_MS }, part: 'queue', text: (v) => `queue ${v} ms` },
  { field: 'oneWayDelayMs', unset: 0, range: { min: 0, max: MAX_DELAY_MS },
    text: (v) => `delay ${v} ms one way`, rampUnit: 'ms one-way delay' },
  { field: 'jitterMs', unset: 0, range: { min: 0, max: MAX_DELAY_MS }, text: (v) => `jitter ±${v} ms`, rampUnit: 'ms jitter' },
  { field: 'lossPct', unset: 0, range: { min: 0, max: 100 }, text: (v) => `loss ${v} %`, rampUnit: '% loss' },
  { field: 'lossBurst', unset: null, range: { min: 1, max: MAX_LOSS_BURST },
    text: (v) => (v === null ? 'independent loss' : `loss in bursts of ${v} packets (mean)`) },
  { field: 'trace', unset: null, part: 'capacity', text: (v) => (v === null ? 'no trace' : `capacity from trace \`${v}\``) },
]);

/** Every link field, in the order results list them. */
export const LINK_FIELDS = LINK_FIELD_SPECS.map((spec) => spec.field);

/** Fields a schedule ramp may vary continuously. */
export const RAMPABLE_FIELDS = LINK_FIELD_SPECS.filter((spec) => spec.rampUnit).map((spec) => spec.field);

/** @param {string} field @returns {LinkField|undefined} */
export const linkFieldSpec = (field) => LINK_FIELD_SPECS.find((spec) => spec.field === field);

/** The one text field: a trace's name (a file path or synthetic:…), resolved by the scenario loader. */
const MAX_TRACE_NAME_LENGTH = 1000;

/**
 * Validates one non-null value of a link field (also used for ramp from/to).
 * @param {string} field  one of LINK_FIELDS
 * @param {unknown} value
 * @param {string} path
 * @returns {number}
 */
export function expectLinkValue(field, value, path) {
  const range = linkFieldSpec(field)?.range;
  if (!range) throw new HarnessError(`expectLinkValue: '${field}' is not a number field of a link`);
  return expectNumber(value, path, range);
}

/**
 * Fills defaults and validates every field on its own.
 * @param {unknown} raw
 * @param {string} where
 * @returns {LinkParams}
 */
function normalizeFields(raw, where) {
  const given = expectObject(raw, where, LINK_FIELDS);
  /** @type {Record<string, number|string|null>} */
  const params = {};
  for (const { field, unset } of LINK_FIELD_SPECS) {
    const value = given[field];
    if (field === 'trace') {
      if (value !== undefined && value !== null && (typeof value !== 'string' || value === '' || value.length > MAX_TRACE_NAME_LENGTH)) {
        throw new InputError(`${where}.trace: must be a trace file (relative to the scenario file or orchestrator/traces/) or a synthetic:… name, got ${JSON.stringify(value)}`);
      }
      params.trace = typeof value === 'string' ? value : null;
    } else if (value === undefined || (unset === null && value === null)) {
      params[field] = unset;
    } else {
      params[field] = expectLinkValue(field, value, `${where}.${field}`);
    }
  }
  if (params.queuePackets !== null && params.queueMs !== null) {
    throw new InputError(`${where}: set only one of queuePackets and queueMs (got ${params.queuePackets} packets and ${params.queueMs} ms)`);
  }
  if (params.queuePackets === null && params.queueMs === null) params.queuePackets = DEFAULT_QUEUE_PACKETS;
  if (params.trace !== null && params.rateKbps !== null) {
    throw new InputError(`${where}: set only one of rateKbps and trace (got ${params.rateKbps} kbps and trace ${params.trace}); the trace gives the capacity`);
  }
  return /** @type {LinkParams} */ (/** @type {unknown} */ (params));
}

/**
 * The rules between fields: jitter within the delay, a queueMs queue within MAX_QUEUE_BYTES at its rate,
 * a lossPct its Gilbert-Elliott chain can reach.
 * @param {LinkParams} params  fields already valid on their own
 * @param {string} where  names the link (and the entry that set it) in errors
 * @returns {LinkParams}
 */
export function checkLinkParams(params, where) {
  const { rateKbps, queueMs, oneWayDelayMs, jitterMs, lossPct, lossBurst, trace } = params;
  if (trace !== null && queueMs !== null) {
    throw new InputError(`${where}: queueMs ${queueMs} with trace ${trace}: a trace has no single rate to convert milliseconds of queue at; give queuePackets instead: queueMs at the trace's mean rate ('npm run cli -- trace show' prints it) is mean kbps × queueMs / 12 000 packets`);
  }
  if (jitterMs > oneWayDelayMs) {
    throw new InputError(`${where}: jitterMs ${jitterMs} is more than oneWayDelayMs ${oneWayDelayMs}; jitter varies the delay within ±jitterMs, so it must be at most oneWayDelayMs: raise oneWayDelayMs or lower jitterMs`);
  }
  if (rateKbps !== null && queueMs !== null && (rateKbps * queueMs) / 8 > MAX_QUEUE_BYTES) {
    throw new InputError(`${where}: queueMs ${queueMs} at rateKbps ${rateKbps} is a ${Math.round((rateKbps * queueMs) / 8)}-byte queue; at most ${MAX_QUEUE_BYTES} bytes (rateKbps × queueMs / 8): lower queueMs to ${Math.floor((MAX_QUEUE_BYTES * 8) / rateKbps)} or less`);
  }
  // Every packet in the bad state is lost and bursts average lossBurst, so loss = p / (p + 1/lossBurst) with p <= 1.
  if (lossBurst !== null && lossPct > 0 && lossPct > (100 * lossBurst) / (lossBurst + 1)) {
    const neededBurst = lossPct < 100 ? ` raise lossBurst to at least ${Number((lossPct / (100 - lossPct)).toFixed(3))} or` : '';
    throw new InputError(`${where}: lossPct ${lossPct} with lossBurst ${lossBurst}: bursts of ${lossBurst} packets lose at most ${Number(((100 * lossBurst) / (lossBurst + 1)).toFixed(3))} % (100 × lossBurst / (lossBurst + 1));${neededBurst} lower lossPct${lossPct < 100 ? '' : ', or remove lossBurst'}`);
  }
  return params;
}

/**
 * Fills defaults and validates every field and the rules between them.
 * @param {unknown} raw   link params as written in a scenario ({} = unconstrained)
 * @param {string} where  e.g. "orchestrator/scenarios/x.json: network.link", prefixed to field names in errors
 * @returns {LinkParams}
 */
export function normalizeLinkParams(raw, where) {
  return checkLinkParams(normalizeFields(raw, where), where);
}

/**
 * Applies a partial update (a schedule step's `set`, a per-peer override) to normalized params.
 * Giving a field of a setting with parts (LinkField.part) replaces the setting as a whole: the queue's two limits
 * never coexist, nor a rate and a trace.
 * @param {LinkParams} base
 * @param {unknown} patch
 * @param {string} where  names the patch in errors
 * @param {{betweenFields?: boolean}} [options]  false: leave the rules between fields to a checkLinkParams
 *   once every change of the same instant is merged
 * @returns {LinkParams}
 */
export function mergeLinkParams(base, patch, where, { betweenFields = true } = {}) {
  const given = expectObject(patch, where, LINK_FIELDS);
  const replaced = LINK_FIELD_SPECS.filter(({ part }) => part && LINK_FIELD_SPECS.some((s) => s.part === part && s.field in given));
  const parts = Object.fromEntries(replaced.map(({ field }) => [field, given[field] ?? null]));
  const merged = normalizeFields({ ...base, ...given, ...parts }, where);
  return betweenFields ? checkLinkParams(merged, where) : merged;
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
  // A trace link has queuePackets (checkLinkParams); a result written before traces existed has no trace field.
  if (params.rateKbps === null && !params.trace) return null;
  // kbit/s × ms / 8 = bytes
  // queueMs needs a rate: checkLinkParams gives a trace link queuePackets instead.
  if (params.queueMs !== null) return Math.round(((params.rateKbps ?? 0) * params.queueMs) / 8);
  return /** @type {number} */ (params.queuePackets) * mtuBytes;
}

/**
 * What a flow along route sees end to end.
 * @param {Record<string, Pick<LinkParams, 'rateKbps'|'oneWayDelayMs'|'jitterMs'|'lossPct'>>} linksParams
 * @param {string[]} route  link names, e.g. ["p0.up", "bottleneck.fwd", "p1.down"]
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
