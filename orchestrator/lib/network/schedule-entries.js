/**
 * One entry of a scenario's network.schedule (a step or a ramp) compiled to the link changes it makes, counted before
 * they are built, and the check that no two entries drive one field of one link at once. Pure: no I/O.
 * See docs/scenario-format.md "Schedules" and "Limits".
 */
import { InputError } from '../system/errors.js';
import { LINK_FIELDS, MAX_RATE_KBPS, RAMPABLE_FIELDS, expectLinkValue } from './link-model.js';
import { MAX_DURATION_S, MIN_RAMP_EVERY_S } from '../input/limits.js';
import { BOTTLENECK_LINKS } from './topology.js';
import { describeValue, expectNumber, expectObject, isOneOf } from '../input/validate.js';

/** @typedef {import('./link-model.js').LinkParams} LinkParams */

export const DEFAULT_RAMP_EVERY_S = 0.5;
/** Offset added before geometric interpolation so exponential ramps can start or end at 0 (docs: "Ramps"). */
export const DEFAULT_EXPONENTIAL_FLOOR = 1;

const ENTRY_FIELDS = ['at', 'links', 'set', 'ramp'];
const RAMP_FIELDS = ['field', 'from', 'to', 'durationS', 'shape', 'everyS', 'floor'];
const RAMP_SHAPES = ['linear', 'exponential'];
const LINK_SELECTORS = ['uplinks', 'downlinks', 'all', 'bottleneck'];

/** Microsecond rounding keeps times such as 0.1 × 3 comparable and JSON short. */
export const roundS = (/** @type {number} */ seconds) => Math.round(seconds * 1e6) / 1e6;
const roundValue = (/** @type {number} */ value) => Math.round(value * 1e3) / 1e3;

/**
 * Value of a ramp at fraction x (0..1) of its duration.
 * Exponential interpolates geometrically between from+floor and to+floor, then removes the floor,
 * so 0 → 250 ms rises slowly at first (like J16 figure 8-6a) and 500 → 0 ms falls fast at first.
 * @param {{shape: string, from: number, to: number, floor: number}} ramp
 * @param {number} x
 */
export function rampValue({ shape, from, to, floor }, x) {
  if (x <= 0) return from;
  if (x >= 1) return to;
  if (shape === 'linear') return from + (to - from) * x;
  return (from + floor) * ((to + floor) / (from + floor)) ** x - floor;
}

/**
 * @param {unknown} selector
 * @param {string} path
 * @param {Record<string, LinkParams>} links
 * @returns {string[]}
 */
function resolveLinks(selector, path, links) {
  const names = Object.keys(links);
  if (Array.isArray(selector)) {
    if (selector.length === 0) throw new InputError(`${path}: the list of links is empty; name at least one of ${names.join(', ')}`);
    for (const name of selector) {
      if (!names.includes(name)) {
        throw new InputError(`${path}: unknown link ${describeValue(name)}; this scenario has ${names.join(', ')}`);
      }
    }
    if (new Set(selector).size !== selector.length) throw new InputError(`${path}: names a link twice`);
    return selector;
  }
  switch (selector) {
    case 'uplinks': return names.filter((name) => name.endsWith('.up'));
    case 'downlinks': return names.filter((name) => name.endsWith('.down'));
    case 'all': return names;
    case 'bottleneck': {
      const both = Object.keys(BOTTLENECK_LINKS);
      if (!both.every((name) => names.includes(name))) throw new InputError(`${path}: "bottleneck" needs a network.bottleneck section`);
      return both;
    }
    default:
      throw new InputError(`${path}: must be one of ${LINK_SELECTORS.join(', ')} or an array of link names, got ${describeValue(selector)}`);
  }
}

/**
 * @typedef {{atS: number, link: string, patch: Record<string, unknown>, cause: string, where: string}} Change
 * @typedef {{
 *   index: number, kind: 'step'|'ramp', links: string[], fields: string[], startS: number, endS: number,
 *   changeCount: number, changes: () => Change[],
 * }} CompiledEntry  changeCount: what changes() returns, known before it is called
 */

/**
 * A schedule entry's `at` (nominal seconds), within the scenario's duration.
 * @param {Record<string, unknown>} entry @param {string} where @param {number} nominalDurationS
 * @param {{ min?: number, above?: number }} bound
 */
export function entryAt(entry, where, nominalDurationS, bound) {
  const at = expectNumber(entry.at, `${where}.at`, bound);
  if (at > nominalDurationS) {
    throw new InputError(`${where}.at: ${at} s is beyond the scenario's durationS (${nominalDurationS} s); move it earlier or raise durationS`);
  }
  return at;
}

/**
 * @param {unknown} raw
 * @param {number} index
 * @param {{file: string, links: Record<string, LinkParams>, timeScale: number, nominalDurationS: number,
 *   useTrace: (name: unknown, where: string) => void}} context
 * @returns {CompiledEntry}
 */
export function compileEntry(raw, index, { file, links, timeScale, nominalDurationS, useTrace }) {
  const where = `${file}: network.schedule[${index}]`;
  const entry = expectObject(raw, where, ENTRY_FIELDS);
  const at = entryAt(entry, where, nominalDurationS, { min: 0 });
  const targets = resolveLinks(entry.links ?? 'uplinks', `${where}.links`, links);
  if (('set' in entry) === ('ramp' in entry)) {
    throw new InputError(`${where}: needs exactly one of "set" (a step), "ramp" or "handover" (a peer changes network)`);
  }
  const startS = roundS(at * timeScale);
  const cause = `network.schedule[${index}]`;

  if ('set' in entry) {
    const set = expectObject(entry.set, `${where}.set`, LINK_FIELDS);
    const fields = Object.keys(set);
    if (fields.length === 0) throw new InputError(`${where}.set: is empty; give the fields that change at ${at} s`);
    if (typeof set.trace === 'string') useTrace(set.trace, `${where}.set.trace`);
    const changes = () => targets.map((link) => ({ atS: startS, link, patch: set, cause: `${cause} step`, where: `${where}.set` }));
    return { index, kind: 'step', links: targets, fields, startS, endS: startS, changeCount: targets.length, changes };
  }

  const ramp = expectObject(entry.ramp, `${where}.ramp`, RAMP_FIELDS);
  const field = ramp.field;
  if (!isOneOf(RAMPABLE_FIELDS, field)) {
    throw new InputError(`${where}.ramp.field: must be one of ${RAMPABLE_FIELDS.join(', ')}, got ${describeValue(field)}`);
  }
  const from = expectLinkValue(field, ramp.from, `${where}.ramp.from`);
  const to = expectLinkValue(field, ramp.to, `${where}.ramp.to`);
  const durationS = expectNumber(ramp.durationS, `${where}.ramp.durationS`, { above: 0 });
  if (at + durationS > nominalDurationS) {
    throw new InputError(`${where}.ramp.durationS: the ramp ends at ${at + durationS} s, beyond the scenario's durationS (${nominalDurationS} s); shorten it or raise durationS`);
  }
  const shape = ramp.shape ?? 'linear';
  if (!isOneOf(RAMP_SHAPES, shape)) {
    throw new InputError(`${where}.ramp.shape: must be one of ${RAMP_SHAPES.join(', ')}, got ${describeValue(shape)}`);
  }
  if (ramp.floor !== undefined && shape !== 'exponential') {
    throw new InputError(`${where}.ramp.floor: applies only to shape "exponential"; remove it`);
  }
  // The floor is in the field's unit, so the largest link value bounds it.
  const floor = ramp.floor === undefined ? DEFAULT_EXPONENTIAL_FLOOR : expectNumber(ramp.floor, `${where}.ramp.floor`, { above: 0, max: MAX_RATE_KBPS });
  const everyS = ramp.everyS === undefined ? DEFAULT_RAMP_EVERY_S
    : expectNumber(ramp.everyS, `${where}.ramp.everyS`, { min: MIN_RAMP_EVERY_S, max: MAX_DURATION_S });

  const scaledS = durationS * timeScale;
  // the last step lands exactly on the ramp's end even when everyS does not divide it
  const stepCount = Math.max(1, Math.ceil(scaledS / everyS - 1e-9));
  const changes = () => {
    /** @type {Change[]} */
    const built = [];
    for (let step = 0; step <= stepCount; step++) {
      const offsetS = Math.min(step * everyS, scaledS);
      const value = roundValue(rampValue({ shape, from, to, floor }, offsetS / scaledS));
      for (const link of targets) {
        built.push({
          atS: roundS(startS + offsetS), link, patch: { [field]: value },
          cause: `${cause} ramp step ${step}/${stepCount}`, where: `${where}.ramp`,
        });
      }
    }
    return built;
  };
  return {
    index, kind: 'ramp', links: targets, fields: [field], startS, endS: roundS(startS + scaledS),
    changeCount: (stepCount + 1) * targets.length, changes,
  };
}

/** Both queue fields describe one limit, so they conflict with each other; rateKbps and trace one capacity. */
/** @param {string} field */
const conflictKey = (field) => (field === 'queueMs' ? 'queuePackets' : field === 'trace' ? 'rateKbps' : field);

/** @param {CompiledEntry} a @param {CompiledEntry} b */
function timesClash(a, b) {
  if (a.kind === 'step' && b.kind === 'step') return a.startS === b.startS;
  if (a.kind === 'ramp' && b.kind === 'ramp') return a.startS < b.endS && b.startS < a.endS;
  const [step, ramp] = a.kind === 'step' ? [a, b] : [b, a];
  return ramp.startS < step.startS && step.startS < ramp.endS;
}

/**
 * The first two entries (in the order checked) that drive one field of one link at once, and how many pairs were
 * compared. Per link and field the entries are sorted by start (steps before ramps that start with them); each is
 * compared with the one before it and with the one reaching furthest so far: a step inside a ramp is caught by the
 * ramp that reaches past it, two steps at one instant are neighbours. O(n log n) for n (entry, link, field) triples.
 * @param {CompiledEntry[]} entries
 * @returns {{clash: {a: CompiledEntry, b: CompiledEntry, link: string, key: string}|null, comparisons: number}}
 */
export function findScheduleClash(entries) {
  /** @type {Map<string, CompiledEntry[]>} "link field" -> entries driving it */
  const byTarget = new Map();
  for (const entry of entries) {
    for (const key of new Set(entry.fields.map(conflictKey))) {
      for (const link of entry.links) {
        const target = `${link} ${key}`;
        const list = byTarget.get(target);
        if (list) list.push(entry);
        else byTarget.set(target, [entry]);
      }
    }
  }
  let comparisons = 0;
  const rampLast = (/** @type {CompiledEntry} */ e) => (e.kind === 'ramp' ? 1 : 0);
  for (const [target, list] of byTarget) {
    list.sort((a, b) => a.startS - b.startS || rampLast(a) - rampLast(b) || a.index - b.index);
    let furthest = list[0];
    for (let i = 1; i < list.length; i++) {
      const entry = list[i];
      for (const before of furthest === list[i - 1] ? [furthest] : [list[i - 1], furthest]) {
        comparisons++;
        if (timesClash(before, entry)) {
          const [a, b] = before.index < entry.index ? [before, entry] : [entry, before];
          const space = target.lastIndexOf(' ');
          return { clash: { a, b, link: target.slice(0, space), key: target.slice(space + 1) }, comparisons };
        }
      }
      if (entry.endS > furthest.endS) furthest = entry;
    }
  }
  return { clash: null, comparisons };
}

/**
 * Two entries may not drive the same field of the same link at once: ramps may touch end to start, and a
 * step may sit on a ramp's first or last instant (later entries win there), but not inside it.
 * @param {CompiledEntry[]} entries
 * @param {string} file
 */
export function rejectOverlaps(entries, file) {
  const { clash } = findScheduleClash(entries);
  if (!clash) return;
  const { a, b, link, key } = clash;
  const field = b.fields.find((f) => conflictKey(f) === key);
  const span = (/** @type {CompiledEntry} */ entry) => (entry.kind === 'step' ? `step at ${entry.startS} s` : `ramp ${entry.startS}–${entry.endS} s`);
  throw new InputError(`${file}: network.schedule[${b.index}]: ${span(b)} changes ${field} on ${link} while network.schedule[${a.index}] (${span(a)}) does; make them follow one another (times after time scaling)`);
}
