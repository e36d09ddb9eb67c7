// The shape of every message a page may send to the signaling server, checked at the edge before anything acts
// on it. Pure: no I/O, never throws; a bad message yields a reason the server sends back and reports.

import { describeValue } from './describe.js';
import { checkEncodings } from './encodings.js';

export { describeValue };

/** Room and peer names: what the orchestrator generates (`run-1a2b3c4d`, `p0`), safe in logs, paths and keys. */
export const NAME_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;
export const MESSAGE_TYPES = Object.freeze(['join', 'offer', 'answer', 'candidate', 'steer', 'stats', 'event']);
/** A `steer` candidate's way: the page's own towards the SFU it signals to itself, or that SFU's towards the page. */
export const STEER_DIRECTIONS = Object.freeze(['toSfu', 'fromSfu']);
/** What client-app/app.js reports. */
export const EVENT_TYPES = Object.freeze(['media-ready', 'negotiated', 'ice-state', 'ice-restart', 'dtls-state', 'connection-state',
  'first-rtp', 'first-frame', 'data-channel', 'codec', 'error']);
/** RTCPeerConnectionState. */
export const CONNECTION_STATES = Object.freeze(['new', 'connecting', 'connected', 'disconnected', 'failed', 'closed']);
/** RTCIceConnectionState. */
export const ICE_STATES = Object.freeze(['new', 'checking', 'connected', 'completed', 'disconnected', 'failed', 'closed']);
export const DTLS_STATES = Object.freeze(['new', 'connecting', 'connected', 'closed', 'failed']); // RTCDtlsTransportState
export const CODEC_DIRECTIONS = Object.freeze(['send', 'recv']); // the video directions a `codec` event reports (client-app/codec.js)
export const DATA_CHANNEL_STATES = Object.freeze(['connecting', 'open', 'closing', 'closed']); // RTCDataChannelState
/**
 * What the orchestrator tells one page during the call to drive the scenario's flows (`sendCommand`): an extra
 * call starts ('call') and ends ('hang-up'), its sender pauses and resumes, a data flow starts and stops.
 */
export const COMMAND_TYPES = Object.freeze(['call', 'hang-up', 'pause', 'resume', 'data-start', 'data-stop']);
/** An extra call's media: both peers send, or only the offerer ('forward': sendonly/recvonly). */
export const CALL_DIRECTIONS = Object.freeze(['both', 'forward']);
export const CALL_ROLES = Object.freeze(['offerer', 'answerer']);
/** The fields of a sample's `data` object (a bulk data-channel flow to or from the sample's remote). */
export const DATA_RATE_FIELDS = Object.freeze(['sentKbps', 'recvKbps']);
/** A day (the longest scenario) plus an hour: samples keep coming for a few seconds after the call. */
export const MAX_SAMPLE_T = 90_000;
/** Sample values are rates, counts, sizes and milliseconds; anything bigger is garbage that would swamp a mean. */
export const MAX_SAMPLE_ABS_VALUE = 1e12;
export const MAX_SAMPLE_TEXT_CHARS = 64;
/** The sample object and the objects directly inside it (`video`, `audio`), as intervalMetrics builds them. */
export const MAX_SAMPLE_DEPTH = 2;
export const MAX_OBJECT_KEYS = 64;
export const MAX_EVENT_TEXT_CHARS = 4096;
export const MAX_CANDIDATE_CHARS = 1024;
export const MAX_SDP_CHARS = 64 * 1024;
const MAX_SETTINGS_TEXT_CHARS = 256;
const MAX_EPOCH_MS = 8.64e15; // the largest Date
const KEY_PATTERN = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;

/**
 * @typedef {{ type: 'join', room: string, peer: string, secret?: string }} JoinMessage  secret: the page's (signaling/admission.js)
 * @typedef {{ type: 'offer'|'answer', to: string, sdp: string }} DescriptionMessage
 * @typedef {{ candidate: string, sdpMid?: string|null, sdpMLineIndex?: number|null, usernameFragment?: string|null }} CandidateInit
 * @typedef {{ type: 'candidate', to: string, candidate: CandidateInit }} CandidateMessage
 * @typedef {{ type: 'steer', id: number, direction: 'toSfu'|'fromSfu', candidate: CandidateInit }} SteerMessage
 * @typedef {{ t: number, peer: string, remote: string, [metric: string]: unknown }} Sample
 * @typedef {{ type: string, peer: string, epochMs: number, [field: string]: unknown }} PeerEvent
 * @typedef {{ type: 'stats', sample: Sample }} StatsMessage
 * @typedef {{ type: 'event', event: PeerEvent }} EventMessage
 * @typedef {JoinMessage|DescriptionMessage|CandidateMessage|SteerMessage|StatsMessage|EventMessage} Message
 * @typedef {{ type: 'call', remote: string, direction: 'both'|'forward', role: 'offerer'|'answerer' }
 *   | { type: 'hang-up'|'pause'|'resume', remote: string }
 *   | { type: 'data-start'|'data-stop', remote: string, flow: string }} Command
 */

/**
 * @template T
 * @typedef {{ ok: true, value: T } | { ok: false, reason: string }} Checked
 */

/** Thrown inside this module only: the first thing wrong with a message. */
class ShapeError extends Error {}
/** @param {string} reason @returns {never} */
const refuse = (reason) => { throw new ShapeError(reason); };

/** Runs a check that throws ShapeError and turns the outcome into a Checked. @template T @param {() => T} check @returns {Checked<T>} */
function checked(check) {
  try {
    return { ok: true, value: check() };
  } catch (error) {
    if (error instanceof ShapeError) return { ok: false, reason: error.message };
    throw error;
  }
}

/** A check's value, or its reason thrown as the message's first fault. @template T @param {Checked<T>} result @returns {T} */
const shaped = (result) => { if (result.ok) return result.value; throw new ShapeError(/** @type {{ reason: string }} */ (result).reason); };

/** @param {unknown} value @returns {value is string} */
export const isName = (value) => typeof value === 'string' && NAME_PATTERN.test(value);

/** @param {unknown} value @returns {value is Record<string, unknown>} */
const isPlainObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * @param {unknown} value @param {string} path @param {readonly string[]|null} [allowedKeys]  every field it may have (null: any)
 * @returns {Record<string, unknown>}
 */
function expectObject(value, path, allowedKeys = null) {
  if (!isPlainObject(value)) throw new ShapeError(`${path} must be an object, got ${describeValue(value)}`);
  const keys = Object.keys(value);
  if (keys.length > MAX_OBJECT_KEYS) throw new ShapeError(`${path} has ${keys.length} fields; at most ${MAX_OBJECT_KEYS} are allowed`);
  const unknown = allowedKeys && keys.find((key) => !allowedKeys.includes(key));
  if (unknown) throw new ShapeError(`${path} has an unexpected field ${describeValue(unknown)}; allowed: ${allowedKeys.join(', ')}`);
  return value;
}

/** @param {unknown} value @param {string} path @returns {string} */
function expectName(value, path) {
  if (!isName(value)) throw new ShapeError(`${path} must be a name of 1-64 letters, digits, '.', '_' or '-', got ${describeValue(value)}`);
  return value;
}

/** @param {unknown} value @param {string} path @param {number} maxChars @returns {string} */
function expectText(value, path, maxChars) {
  if (typeof value !== 'string') throw new ShapeError(`${path} must be a string, got ${describeValue(value)}`);
  if (value.length > maxChars) throw new ShapeError(`${path} is ${value.length} characters long; at most ${maxChars} are allowed`);
  return value;
}

/** @param {unknown} value @param {string} path @param {{ min: number, max: number, integer?: boolean }} range @returns {number} */
function expectNumber(value, path, { min, max, integer = false }) {
  const ok = typeof value === 'number' && Number.isFinite(value) && (!integer || Number.isInteger(value)) && value >= min && value <= max;
  if (!ok) throw new ShapeError(`${path} must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}, got ${describeValue(value)}`);
  return value;
}

/**
 * The sender's own name where a message may repeat it; any other value is someone else's.
 * @param {unknown} value @param {string} path @param {string} self
 */
function expectOwnPeer(value, path, self) {
  if (value !== undefined && value !== self) throw new ShapeError(`${path} must be this socket's own peer ${describeValue(self)}, got ${describeValue(value)}`);
}

/** A peer other than the sender. @param {unknown} value @param {string} path @param {string} self @returns {string} */
function expectOtherPeer(value, path, self) {
  const name = expectName(value, path);
  if (name === self) throw new ShapeError(`${path} names the sender itself (${describeValue(self)}); name another peer`);
  return name;
}

/** A join's secret may be anything a client guessed: only its shape is checked, and a reason never quotes it. */
export const MAX_SECRET_CHARS = 128;
const SECRET_CHARS = /^[A-Za-z0-9_-]*$/;

/** @param {unknown} value @returns {JoinMessage} */
function join(value) {
  const message = expectObject(value, 'join', ['type', 'room', 'peer', 'secret']);
  const { secret } = message;
  if (secret !== undefined && !(typeof secret === 'string' && secret.length <= MAX_SECRET_CHARS && SECRET_CHARS.test(secret))) {
    throw new ShapeError(`join.secret must be a string of up to ${MAX_SECRET_CHARS} base64url characters (the page's URL fragment)`);
  }
  return {
    type: 'join', room: expectName(message.room, 'join.room'), peer: expectName(message.peer, 'join.peer'),
    ...(secret === undefined ? {} : { secret: /** @type {string} */ (secret) }),
  };
}

/** @param {unknown} value @param {'offer'|'answer'} type @param {string} self @returns {DescriptionMessage} */
function description(value, type, self) {
  const message = expectObject(value, type, ['type', 'to', 'sdp']);
  return { type, to: expectOtherPeer(message.to, `${type}.to`, self), sdp: expectText(message.sdp, `${type}.sdp`, MAX_SDP_CHARS) };
}

const CANDIDATE_FIELDS = ['sdpMid', 'sdpMLineIndex', 'usernameFragment']; // RTCIceCandidateInit's optional ones

/**
 * An optional field: absent stays absent, null stays null, anything else is checked.
 * @template T @param {unknown} value @param {(value: unknown) => T} check @returns {T|null|undefined}
 */
const optional = (value, check) => (value === undefined ? undefined : value === null ? null : check(value));

/** An RTCIceCandidateInit, rebuilt from its checked fields. @param {unknown} value @param {string} path @returns {CandidateInit} */
function candidateInit(value, path) {
  const init = expectObject(value, path, ['candidate', ...CANDIDATE_FIELDS]);
  const sdpMid = optional(init.sdpMid, (mid) => expectText(mid, `${path}.sdpMid`, 64));
  const sdpMLineIndex = optional(init.sdpMLineIndex, (index) => expectNumber(index, `${path}.sdpMLineIndex`, { min: 0, max: 1023, integer: true }));
  const usernameFragment = optional(init.usernameFragment, (fragment) => expectText(fragment, `${path}.usernameFragment`, 256));
  return {
    candidate: expectText(init.candidate, `${path}.candidate`, MAX_CANDIDATE_CHARS),
    ...(sdpMid === undefined ? {} : { sdpMid }),
    ...(sdpMLineIndex === undefined ? {} : { sdpMLineIndex }),
    ...(usernameFragment === undefined ? {} : { usernameFragment }),
  };
}

/** @param {unknown} value @param {string} self @returns {CandidateMessage} */
function candidate(value, self) {
  const message = expectObject(value, 'candidate', ['type', 'to', 'candidate']);
  return { type: 'candidate', to: expectOtherPeer(message.to, 'candidate.to', self), candidate: candidateInit(message.candidate, 'candidate.candidate') };
}

/** A candidate the page asks the harness to steer; its id comes back in the answer. @param {unknown} value @returns {SteerMessage} */
function steer(value) {
  const message = expectObject(value, 'steer', ['type', 'id', 'direction', 'candidate']);
  const direction = /** @type {SteerMessage['direction']} */ (oneOf(STEER_DIRECTIONS)(message.direction, 'steer.direction'));
  const id = expectNumber(message.id, 'steer.id', { min: 0, max: 2 ** 31, integer: true });
  return { type: 'steer', id, direction, candidate: candidateInit(message.candidate, 'steer.candidate') };
}

/**
 * A metric value: finite number, null, short string, or (up to MAX_SAMPLE_DEPTH) an object of them.
 * @param {unknown} value @param {string} path @param {number} depth of the object holding it
 */
function metric(value, path, depth) {
  if (value === null) return null;
  if (typeof value === 'number') return expectNumber(value, path, { min: -MAX_SAMPLE_ABS_VALUE, max: MAX_SAMPLE_ABS_VALUE });
  if (typeof value === 'string') return expectText(value, path, MAX_SAMPLE_TEXT_CHARS);
  if (isPlainObject(value)) {
    if (depth >= MAX_SAMPLE_DEPTH) throw new ShapeError(`${path} nests objects deeper than ${MAX_SAMPLE_DEPTH} levels`);
    return metrics(value, path, depth + 1);
  }
  throw new ShapeError(`${path} must be a number, null, a string or an object, got ${describeValue(value)}`);
}

/** @param {Record<string, unknown>} object @param {string} path @param {number} depth */
function metrics(object, path, depth) {
  expectObject(object, path);
  /** @type {Record<string, unknown>} */
  const result = {};
  for (const [key, value] of Object.entries(object)) {
    if (!KEY_PATTERN.test(key)) throw new ShapeError(`${path} has a field named ${describeValue(key)}; field names are letters, digits and '_'`);
    result[key] = metric(value, `${path}.${key}`, depth);
  }
  return result;
}

/**
 * One stats sample, as client-app/app.js sends it: `{ t, peer, remote, ...intervalMetrics() }`. `peer` may be
 * left out; the result always carries the sender's.
 * @param {unknown} value @param {string} self the sender's peer name
 * @returns {Checked<Sample>}
 */
export const validateSample = (value, self) => checked(() => sample(value, self));

/** @param {unknown} value @param {string} self @returns {Sample} */
function sample(value, self) {
  const { t, peer, remote, data, encodings, ...rest } = expectObject(value, 'sample');
  expectOwnPeer(peer, 'sample.peer', self);
  return {
    t: expectNumber(t, 'sample.t', { min: 1, max: MAX_SAMPLE_T, integer: true }),
    peer: self,
    remote: expectOtherPeer(remote, 'sample.remote', self),
    ...metrics(rest, 'sample', 1),
    ...(data === undefined ? {} : { data: dataRates(data) }),
    ...(encodings === undefined ? {} : { encodings: shaped(checkEncodings(encodings)) }),
  };
}

/** A sample's data-channel rates: byte counts of the page over the interval, never negative. @param {unknown} value */
function dataRates(value) {
  const object = expectObject(value, 'sample.data', DATA_RATE_FIELDS);
  return Object.fromEntries(Object.entries(object).map(([field, rate]) => [
    field, rate === null ? null : expectNumber(rate, `sample.data.${field}`, { min: 0, max: MAX_SAMPLE_ABS_VALUE }),
  ]));
}

/** Camera settings as MediaStreamTrack.getSettings() returns them: one flat object. @param {unknown} value @param {string} path */
function settings(value, path) {
  if (value === null) return null;
  const object = expectObject(value, path);
  /** @type {Record<string, unknown>} */
  const result = {};
  for (const [key, setting] of Object.entries(object)) {
    if (!KEY_PATTERN.test(key)) throw new ShapeError(`${path} has a field named ${describeValue(key)}`);
    if (typeof setting === 'number') result[key] = expectNumber(setting, `${path}.${key}`, { min: -MAX_SAMPLE_ABS_VALUE, max: MAX_SAMPLE_ABS_VALUE });
    else if (typeof setting === 'string') result[key] = expectText(setting, `${path}.${key}`, MAX_SETTINGS_TEXT_CHARS);
    else if (typeof setting === 'boolean') result[key] = setting;
    else throw new ShapeError(`${path}.${key} must be a number, string or boolean, got ${describeValue(setting)}`);
  }
  return result;
}

/** @param {readonly string[]} states @returns {(value: unknown, path: string) => string} */
const oneOf = (states) => (value, path) => {
  if (!states.includes(/** @type {string} */ (value))) throw new ShapeError(`${path} must be one of ${states.join(', ')}, got ${describeValue(value)}`);
  return /** @type {string} */ (value);
};

/** @param {(value: unknown, path: string) => unknown} check @returns {(value: unknown, path: string) => unknown} */
const orNull = (check) => (value, path) => (value === null ? null : check(value, path));
/** @param {number} maxChars @returns {(value: unknown, path: string) => string} */
const text = (maxChars) => (value, path) => expectText(value, path, maxChars);

/** @param {unknown} value @param {string} path @param {string} self */
const remotePeer = (value, path, self) => expectOtherPeer(value, path, self);

/** @param {unknown} value @param {string} path @returns {boolean} */
const boolean = (value, path) => (typeof value === 'boolean' ? value : refuse(`${path} must be true, false or null, got ${describeValue(value)}`));
/** Fields of each event type besides type, peer and epochMs. */
const EVENT_FIELDS = {
  'media-ready': { video: settings },
  negotiated: { remote: remotePeer },
  'ice-state': { remote: remotePeer, state: oneOf(ICE_STATES) },
  'ice-restart': { remote: remotePeer, state: oneOf(['disconnected', 'failed']) },
  'dtls-state': { remote: remotePeer, state: oneOf(DTLS_STATES) },
  'connection-state': { remote: remotePeer, state: oneOf(CONNECTION_STATES) },
  'first-rtp': { remote: remotePeer },
  'first-frame': { remote: remotePeer },
  // `flow` is the channel's label, which the remote page chose: checked like any name.
  'data-channel': { remote: remotePeer, flow: expectName, state: oneOf(DATA_CHANNEL_STATES) },
  // What a direction of the connection's video uses, reported when first seen and whenever it changes.
  codec: {
    remote: remotePeer,
    direction: oneOf(CODEC_DIRECTIONS),
    mimeType: text(64),
    payloadType: orNull((value, path) => expectNumber(value, path, { min: 0, max: 127, integer: true })),
    sdpFmtpLine: orNull(text(MAX_SETTINGS_TEXT_CHARS)),
    implementation: orNull(text(MAX_SETTINGS_TEXT_CHARS)),
    powerEfficient: orNull(boolean),
    scalabilityMode: orNull(text(32)),
    // The direction negotiated transport-wide feedback (client-app/bandwidth-estimation.js); null: the browser does not say.
    transportWideCc: orNull(boolean),
  },
  error: { message: text(MAX_EVENT_TEXT_CHARS) },
};

/**
 * One peer event, as client-app/app.js reports it: `{ type, peer, epochMs, ...fields of the type }`. `peer` may
 * be left out; the result always carries the sender's.
 * @param {unknown} value @param {string} self the sender's peer name
 * @returns {Checked<PeerEvent>}
 */
export const validateEvent = (value, self) => checked(() => event(value, self));

/** @param {unknown} value @param {string} self @returns {PeerEvent} */
function event(value, self) {
  const object = expectObject(value, 'event');
  if (!EVENT_TYPES.includes(/** @type {string} */ (object.type))) {
    throw new ShapeError(`event.type must be one of ${EVENT_TYPES.join(', ')}, got ${describeValue(object.type)}`);
  }
  const type = /** @type {keyof typeof EVENT_FIELDS} */ (object.type);
  const fields = EVENT_FIELDS[type];
  expectObject(object, `${type} event`, ['type', 'peer', 'epochMs', ...Object.keys(fields)]);
  expectOwnPeer(object.peer, 'event.peer', self);
  /** @type {PeerEvent} */
  const result = { type, peer: self, epochMs: expectNumber(object.epochMs, 'event.epochMs', { min: 1, max: MAX_EPOCH_MS }) };
  for (const [field, check] of Object.entries(fields)) result[field] = check(object[field], `event.${field}`, self);
  return result;
}

/**
 * The known message type of a parsed message, or null: what the server needs before it knows the sender.
 * @param {unknown} value @returns {Message['type']|null}
 */
export function messageTypeOf(value) {
  const type = isPlainObject(value) ? value.type : undefined;
  return MESSAGE_TYPES.includes(/** @type {string} */ (type)) ? /** @type {Message['type']} */ (type) : null;
}

/**
 * A parsed message of a known type, checked field by field and rebuilt from its checked fields only.
 * @param {unknown} value
 * @param {string|null} self the peer the sending socket joined as (null before it joined; only `join` needs none)
 * @returns {Checked<Message>}
 */
export function validateMessage(value, self) {
  const type = messageTypeOf(value);
  if (!type) {
    const got = isPlainObject(value) ? describeValue(value.type) : describeValue(value);
    return { ok: false, reason: `unknown message type ${got}; expected an object whose "type" is one of ${MESSAGE_TYPES.join(', ')}` };
  }
  if (type === 'join') return checked(() => join(value));
  if (self === null) return { ok: false, reason: `join a room before sending "${type}"` };
  if (type === 'offer' || type === 'answer') return checked(() => description(value, type, self));
  if (type === 'candidate') return checked(() => candidate(value, self));
  if (type === 'steer') return checked(() => steer(value));
  if (type === 'stats') return checked(() => ({ type, sample: sample(expectObject(value, type, ['type', 'sample']).sample, self) }));
  return checked(() => ({ type, event: event(expectObject(value, type, ['type', 'event']).event, self) }));
}

/** Fields of each command type besides type and remote. */
const COMMAND_FIELDS = {
  call: { direction: oneOf(CALL_DIRECTIONS), role: oneOf(CALL_ROLES) },
  'hang-up': {},
  pause: {},
  resume: {},
  'data-start': { flow: expectName },
  'data-stop': { flow: expectName },
};

/**
 * A command for the page `self` (the orchestrator's own output, checked before it leaves so that a bug shows
 * here and not as a page acting on half a message): `{ type, remote, ...fields of the type }`.
 * @param {unknown} value @param {string} self the page it is for
 * @returns {Checked<Command>}
 */
export const validateCommand = (value, self) => checked(() => {
  const object = expectObject(value, 'command');
  if (!COMMAND_TYPES.includes(/** @type {string} */ (object.type))) {
    throw new ShapeError(`command.type must be one of ${COMMAND_TYPES.join(', ')}, got ${describeValue(object.type)}`);
  }
  const type = /** @type {keyof typeof COMMAND_FIELDS} */ (object.type);
  const fields = COMMAND_FIELDS[type];
  expectObject(object, `${type} command`, ['type', 'remote', ...Object.keys(fields)]);
  /** @type {Record<string, unknown>} */
  const result = { type, remote: expectOtherPeer(object.remote, 'command.remote', self) };
  for (const [field, check] of Object.entries(fields)) result[field] = check(object[field], `command.${field}`);
  return /** @type {Command} */ (result);
});
