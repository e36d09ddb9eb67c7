// The video codec a run asks for (pure): the scenario field and the --codec flag validated into one shape, and the
// per-peer summary in result.environment.codecs. What the page does with it (setCodecPreferences, the capability
// check, reading getStats) and the check of what it negotiated are client-app/codec.js: the page can load only
// client-app/, and the run (run/run.js) uses the same module.
import { InputError } from '../system/errors.js';
import { describeValue, expectObject } from '../input/validate.js';

/** The codecs a run can ask for, by the name used in scenario files and --codec, with their RTP mime type. */
export const CODEC_MIME_TYPES = Object.freeze({ vp8: 'video/VP8', vp9: 'video/VP9', h264: 'video/H264', av1: 'video/AV1' });
export const CODEC_NAMES = Object.keys(CODEC_MIME_TYPES);
/** @param {unknown} name @returns {name is keyof typeof CODEC_MIME_TYPES} one of CODEC_NAMES */
const isCodecName = (name) => typeof name === 'string' && Object.hasOwn(CODEC_MIME_TYPES, name);
export const CODEC_FIELDS = ['name', 'scalabilityMode', 'profile'];
/** webrtc-svc's modes: L/S spatial layers, T temporal layers, optional _KEY/_KEY_SHIFT and h (1.5:1 spatial ratio). */
const SCALABILITY_MODE = /^[LS][1-3]T[1-3](h|_KEY|_KEY_SHIFT)?$/;
/** An H.264 profile-level-id prefix: profile_idc, then optionally the constraint flags and level (6 hex digits in all). */
const H264_PROFILE = /^[0-9a-f]{2,6}$/i;

/** @typedef {import('../../../client-app/codec.js').RequestedCodec} RequestedCodec */

/**
 * A scenario's `codec` (or the flag's parsed value): a name, or { name, scalabilityMode?, profile? }.
 * @param {unknown} raw @param {string} where "file: codec" or "--codec" @returns {RequestedCodec|null} null when absent
 */
export function normalizeCodec(raw, where) {
  if (raw === undefined || raw === null) return null;
  const object = typeof raw === 'string' ? { name: raw }
    : expectObject(raw, where, CODEC_FIELDS, { what: `a codec name (${CODEC_NAMES.join(', ')}) or an object { "name", "scalabilityMode"?, "profile"? }` });
  const name = typeof object.name === 'string' ? object.name.toLowerCase() : object.name;
  if (!isCodecName(name)) {
    throw new InputError(`${where}${typeof raw === 'string' ? '' : '.name'}: ${describeValue(object.name)} is not a codec the harness can select; use one of ${CODEC_NAMES.join(', ')}`);
  }
  const mode = object.scalabilityMode ?? null;
  if (mode !== null && !(typeof mode === 'string' && SCALABILITY_MODE.test(mode))) {
    throw new InputError(`${where}.scalabilityMode: ${describeValue(mode)} is not a scalability mode; use one such as L1T2, L1T3, L3T3 or L3T3_KEY (W3C webrtc-svc)`);
  }
  const profile = object.profile ?? null;
  if (profile !== null && name !== 'h264') throw new InputError(`${where}.profile: only h264 takes a profile (a profile-level-id prefix); remove it for ${name}`);
  if (profile !== null && !(typeof profile === 'string' && H264_PROFILE.test(profile))) {
    throw new InputError(`${where}.profile: ${describeValue(profile)} is not a profile-level-id prefix; give 2 to 6 hex digits, e.g. "42e0" (constrained baseline) or "64" (high)`);
  }
  const mimeType = CODEC_MIME_TYPES[name];
  const scalabilityMode = typeof mode === 'string' ? mode : null;
  return { name, mimeType, scalabilityMode, profile: typeof profile === 'string' ? profile.toLowerCase() : null };
}

/**
 * The --codec flag: `name`, optionally followed by `:key=value` pairs for scalabilityMode and profile
 * (`vp9:scalabilityMode=L3T3`, `h264:profile=42e0`).
 * @param {string|undefined} text @returns {RequestedCodec|null}
 */
export function parseCodecFlag(text) {
  if (text === undefined) return null;
  if (typeof text !== 'string' || text.trim() === '') throw new InputError(`--codec: give a codec name (${CODEC_NAMES.join(', ')}), got ${describeValue(text)}`);
  const [name, ...pairs] = text.split(':');
  /** @type {Record<string, string>} */
  const object = { name };
  for (const pair of pairs) {
    const [key, value, extra] = pair.split('=');
    if (value === undefined || extra !== undefined || !['scalabilityMode', 'profile'].includes(key)) {
      throw new InputError(`--codec: ${describeValue(pair)} is not an option; write name[:scalabilityMode=<mode>][:profile=<hex>], e.g. vp9:scalabilityMode=L1T3`);
    }
    object[key] = value;
  }
  return normalizeCodec(pairs.length ? object : name, '--codec');
}

/**
 * @typedef {import('../../../client-app/codec.js').NegotiatedCodec} NegotiatedCodec
 * @typedef {{ send: NegotiatedCodec|null, recv: NegotiatedCodec|null, changes: number }} ConnectionCodecs
 * @typedef {{ type: 'codec', peer: string, remote: string, direction: string, epochMs: number } & NegotiatedCodec} CodecEvent
 * @typedef {{ requested: RequestedCodec|null, peers: Record<string, Record<string, ConnectionCodecs>> }} CodecSummary
 *   peers: peer → remote → the last codec each direction used; changes: how many times either changed after the first report
 */

/**
 * result.environment.codecs: from the pages' `codec` events, what each peer last used with each remote, per direction.
 * @param {Array<{ type: string, peer?: string|null, [field: string]: unknown }>} events @param {RequestedCodec|null} requested
 * @returns {CodecSummary}
 */
export function codecSummary(events, requested) {
  /** @type {CodecSummary['peers']} */
  const peers = {};
  for (const event of events) {
    if (event.type !== 'codec' || typeof event.peer !== 'string') continue;
    // signaling/messages.js checked a codec event's fields at the edge: beside where it was seen, the negotiated codec.
    const seen = /** @type {CodecEvent} */ (event);
    const { type, peer, remote, direction: side, epochMs, ...codec } = seen;
    if (side !== 'send' && side !== 'recv') continue;
    const entry = ((peers[peer] ??= {})[remote] ??= { send: null, recv: null, changes: 0 });
    if (entry[side]) entry.changes += 1;
    entry[side] = codec;
  }
  return { requested, peers };
}
