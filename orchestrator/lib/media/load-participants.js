// Load participants of an SFU room (pure): the scenario's `load` field, the lines a load participant's process writes
// (sfu/load-peer, a Go program) checked as hostile input, and result.json's `load` section from its counters.
import { InputError } from '../system/errors.js';
import { MAX_LOAD_LINE_CHARS, MAX_LOAD_PARTICIPANTS } from '../input/limits.js';
import { describeValue, expectNumber, expectObject, isOneOf, isRecord } from '../input/validate.js';

/**
 * What a load participant receives, without decoding it: nothing, the speaker's streams (one browser peer's, as in a
 * speaker view), or every other publisher's.
 */
export const LOAD_SUBSCRIBE = /** @type {const} */ (['none', 'speaker', 'all']);

/**
 * What the browsers receive of each load participant's video: `full`, as a peer's (the layer the SFU forwards by
 * default: Janus's top, LiveKit's choice by bandwidth); `thumbnail`, its lowest simulcast layer, as a gallery tile.
 */
export const LOAD_BROWSERS_RECEIVE = /** @type {const} */ (['full', 'thumbnail']);

/**
 * @typedef {{ participants: number, subscribe: 'none'|'speaker'|'all', speaker: string|null,
 *   browsersReceive: 'full'|'thumbnail', names: string[] }} LoadRequest
 *   names: `load0`, `load1`, … (never a peer's pN nor the SFU node's name); speaker: with subscribe `speaker`, the browser
 *   peer whose streams each load participant receives, else null
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
 * A scenario's `load`: `{ "participants": n, "subscribe": "none"|"speaker"|"all", "speaker": "pN", "browsersReceive":
 * "full"|"thumbnail" }` on an SFU call, or null without one. The speaker is one of the browser peers (the first unless
 * named): the measured seat the room watches.
 * @param {unknown} raw @param {{ file: string, topology: string, peers: number }} where  peers: the browser peers' count
 * @returns {LoadRequest|null}
 */
export function loadOf(raw, { file, topology, peers }) {
  if (raw === undefined) return null;
  const object = expectObject(raw, `${file}: load`, ['participants', 'subscribe', 'speaker', 'browsersReceive']);
  if (topology !== 'sfu') throw new InputError(`${file}: load: load participants join an SFU room; give "topology": "sfu" or drop load`);
  const participants = expectNumber(object.participants, `${file}: load.participants`, { min: 1, max: MAX_LOAD_PARTICIPANTS, integer: true });
  const subscribe = object.subscribe ?? 'none';
  if (!isOneOf(LOAD_SUBSCRIBE, subscribe)) {
    throw new InputError(`${file}: load.subscribe: ${describeValue(subscribe)} is not one of ${LOAD_SUBSCRIBE.join(', ')}`);
  }
  if (object.speaker !== undefined && subscribe !== 'speaker') {
    throw new InputError(`${file}: load.speaker: a speaker is whom load participants receive with "subscribe": "speaker"; give that or drop speaker`);
  }
  let speaker = null;
  if (subscribe === 'speaker') {
    const browsers = Array.from({ length: peers }, (_, i) => `p${i}`);
    const named = object.speaker ?? browsers[0];
    if (!isOneOf(browsers, named)) throw new InputError(`${file}: load.speaker: ${describeValue(named)} is not a browser peer of this call (${browsers.join(', ')})`);
    speaker = named;
  }
  const browsersReceive = object.browsersReceive ?? 'full';
  if (!isOneOf(LOAD_BROWSERS_RECEIVE, browsersReceive)) {
    throw new InputError(`${file}: load.browsersReceive: ${describeValue(browsersReceive)} is not one of ${LOAD_BROWSERS_RECEIVE.join(', ')}`);
  }
  return { participants, subscribe, speaker, browsersReceive, names: Array.from({ length: participants }, (_, index) => `load${index}`) };
}

/**
 * What load participants receive and what the browsers receive of them, in words for the catalogue and the report (a
 * result without `speaker` or `browsersReceive` predates them).
 * @param {{ subscribe: string, speaker?: string|null, browsersReceive?: string }} load
 */
export function describeLoadSubscription({ subscribe, speaker, browsersReceive }) {
  const theirs = subscribe === 'speaker' ? `the speaker${speaker ? ` (${speaker})` : ''} only` : 'nothing';
  return `${subscribe === 'all' ? 'every other publisher' : theirs}${browsersReceive === 'thumbnail' ? '; the browsers receive their lowest layer (thumbnails)' : ''}`;
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
    speaker: request.speaker,
    browsersReceive: request.browsersReceive,
    // From what the emulator and the SFU declare: shaped, their media crossed their own links (network.truth has them).
    linksShaped: links.shaped,
    linksUnshapedWhy: links.why,
    commands,
    rows,
    summary: Object.fromEntries(request.names.map((name) => [name, { sentKbpsMean: mean(name, 'sentKbps'), receivedKbpsMean: mean(name, 'receivedKbps') }])),
  };
}
