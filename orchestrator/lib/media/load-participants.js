// Load participants of an SFU room (pure): the scenario's `load` field, the lines a load participant's process writes
// (sfu/load-peer, a Go program) checked as hostile input, and result.json's `load` section from its counters.
import { InputError } from '../system/errors.js';
import { MAX_LOAD_LINE_CHARS, MAX_LOAD_PARTICIPANTS } from '../input/limits.js';
import { describeValue, expectNumber, expectObject, isOneOf, isRecord } from '../input/validate.js';

/** What a load participant receives: nothing, or every other publisher's stream (without decoding it). */
export const LOAD_SUBSCRIBE = /** @type {const} */ (['none', 'all']);

/**
 * @typedef {{ participants: number, subscribe: 'none'|'all', names: string[] }} LoadRequest  names: `load0`, `load1`, …
 *   (never a peer's pN nor the SFU node's name)
 * @typedef {{ sentPackets: number, sentBytes: number, receivedPackets: number, receivedBytes: number,
 *   nacksReceived: number, plisReceived: number }} LoadCounts  totals since the participant started, RTP on the wire
 * @typedef {{ type: 'offer'|'answer', pc: string, sdp: string }} LoadDescription  pc: `pub` (its publishing connection) or
 *   the publisher whose stream a subscribing connection receives
 * @typedef {LoadDescription | { type: 'state', pc: string, state: string } | { type: 'counts', counts: LoadCounts }
 *   | { type: 'error', error: string }} LoadLine
 * @typedef {{ epochMs: number, participant: string, counts: LoadCounts }} LoadReading
 * @typedef {{ t: number, participant: string, sentKbps: number, receivedKbps: number, sentPackets: number,
 *   receivedPackets: number, nacksReceived: number, plisReceived: number }} LoadRow  one participant's second
 */

const COUNT_FIELDS = /** @type {const} */ (['sentPackets', 'sentBytes', 'receivedPackets', 'receivedBytes', 'nacksReceived', 'plisReceived']);
const PC_NAME = /^[A-Za-z0-9._-]{1,64}$/;
const STATES = ['new', 'connecting', 'connected', 'disconnected', 'failed', 'closed'];

/**
 * A scenario's `load`: `{ "participants": n, "subscribe": "none"|"all" }` on an SFU call, or null without one.
 * @param {unknown} raw @param {{ file: string, topology: string }} where @returns {LoadRequest|null}
 */
export function loadOf(raw, { file, topology }) {
  if (raw === undefined) return null;
  const object = expectObject(raw, `${file}: load`, ['participants', 'subscribe']);
  if (topology !== 'sfu') throw new InputError(`${file}: load: load participants join an SFU room; give "topology": "sfu" or drop load`);
  const participants = expectNumber(object.participants, `${file}: load.participants`, { min: 1, max: MAX_LOAD_PARTICIPANTS, integer: true });
  const subscribe = object.subscribe ?? 'none';
  if (!isOneOf(LOAD_SUBSCRIBE, subscribe)) {
    throw new InputError(`${file}: load.subscribe: ${describeValue(subscribe)} is not one of ${LOAD_SUBSCRIBE.join(', ')}`);
  }
  return { participants, subscribe, names: Array.from({ length: participants }, (_, index) => `load${index}`) };
}

/** @param {unknown} value */
const isCount = (value) => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

/**
 * One line of a load participant's stdout, checked: the line or the reason it is refused.
 * @param {string} line @returns {{ line: LoadLine } | { reason: string }}
 */
export function parseLoadLine(line) {
  if (line.length > MAX_LOAD_LINE_CHARS) return { reason: `a line of ${line.length} characters (at most ${MAX_LOAD_LINE_CHARS})` };
  /** @type {unknown} */
  let value;
  try {
    value = JSON.parse(line);
  } catch {
    return { reason: 'a line that is not JSON' };
  }
  if (!isRecord(value)) return { reason: 'a line that is not a JSON object' };
  const { type, pc } = value;
  const pcOk = typeof pc === 'string' && PC_NAME.test(pc);
  if ((type === 'offer' || type === 'answer') && pcOk && typeof value.sdp === 'string' && value.sdp.startsWith('v=0')) {
    return { line: { type, pc, sdp: value.sdp } };
  }
  if (type === 'state' && pcOk && typeof value.state === 'string' && STATES.includes(value.state)) return { line: { type, pc, state: value.state } };
  if (type === 'counts' && COUNT_FIELDS.every((field) => isCount(value[field]))) {
    const counts = /** @type {LoadCounts} */ (Object.fromEntries(COUNT_FIELDS.map((field) => [field, value[field]])));
    return { line: { type, counts } };
  }
  if (type === 'error' && typeof value.error === 'string') return { line: { type, error: value.error.slice(0, 500) } };
  return { reason: `a ${typeof type === 'string' ? `"${type.slice(0, 20)}"` : 'typeless'} line of no known shape` };
}

/**
 * Per participant and second, the rates between consecutive readings (counters that went down are refused: a new
 * process would be another participant).
 * @param {LoadReading[]} readings  in the order they came
 * @returns {Array<Omit<LoadRow, 't'> & { epochMs: number }>}
 */
export function loadRates(readings) {
  /** @type {Map<string, LoadReading>} */
  const last = new Map();
  const rows = [];
  for (const reading of readings) {
    const before = last.get(reading.participant);
    last.set(reading.participant, reading);
    if (!before) continue;
    const seconds = (reading.epochMs - before.epochMs) / 1000;
    const delta = Object.fromEntries(COUNT_FIELDS.map((field) => [field, reading.counts[field] - before.counts[field]]));
    if (seconds <= 0 || Object.values(delta).some((value) => value < 0)) continue;
    const kbps = (/** @type {number} */ bytes) => Number(((bytes * 8) / 1000 / seconds).toFixed(1));
    rows.push({
      epochMs: reading.epochMs, participant: reading.participant, sentKbps: kbps(delta.sentBytes), receivedKbps: kbps(delta.receivedBytes),
      sentPackets: delta.sentPackets, receivedPackets: delta.receivedPackets,
      nacksReceived: delta.nacksReceived, plisReceived: delta.plisReceived,
    });
  }
  return rows;
}

/**
 * @typedef {{ shaped: boolean, why: string|null }} LoadLinks  whether the load participants' media crossed links of their
 *   own (the scenario's network.link up, unshaped down), and why not (what the emulator or the SFU declares)
 */

/**
 * result.json `load`: who the load participants were, whether their links were shaped and why not, their command
 * lines, and their rows on the media clock up to the end of the call.
 * @param {{ request: LoadRequest, readings: LoadReading[], commands: string[][], links: LoadLinks }} load
 * @param {(epochMs: number) => number|null} atS  the media clock
 * @param {number} durationS
 */
export function loadSection({ request, readings, commands, links }, atS, durationS) {
  const rows = loadRates(readings).flatMap(({ epochMs, ...row }) => {
    const t = atS(epochMs);
    return t === null || t < 0 || t > durationS ? [] : [{ t, ...row }];
  });
  /** @param {string} participant @param {'sentKbps'|'receivedKbps'} field */
  const mean = (participant, field) => {
    const values = rows.filter((row) => row.participant === participant).map((row) => row[field]);
    return values.length ? Number((values.reduce((a, b) => a + b, 0) / values.length).toFixed(1)) : null;
  };
  return {
    participants: request.names,
    subscribe: request.subscribe,
    // From what the emulator and the SFU declare: shaped, their media crossed their own links (network.truth has them).
    linksShaped: links.shaped,
    linksUnshapedWhy: links.why,
    commands,
    rows,
    summary: Object.fromEntries(request.names.map((name) => [name, { sentKbpsMean: mean(name, 'sentKbps'), receivedKbpsMean: mean(name, 'receivedKbps') }])),
  };
}
