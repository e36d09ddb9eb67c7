// How a peer publishes its video in an SFU call (pure): one encoding (the default), simulcast (two or three `rid`s at
// full, half and quarter resolution, optionally with temporal layers each) or SVC (a scalability mode such as L3T3 for
// VP9/AV1). The scenario's `publish` and the --publish flag are validated into one shape here; the page publishes it
// (client-app/app.js sendEncodings, setParameters), and the run checks the chosen SFU declares it (sfu/index.js).
import { InputError } from '../system/errors.js';
import { describeValue, expectObject } from '../input/validate.js';
import { CODEC_NAMES, normalizeCodec } from './codec.js';

export const PUBLISH_FIELDS = ['codec', 'simulcast', 'scalabilityMode', 'inactiveRids'];
/**
 * The simulcast encodings, highest first, as Janus reads rids by default (`rid_order` hml) and Janus's own client
 * sends them: `f` full, `h` half, `q` quarter resolution.
 */
const SIMULCAST_ENCODINGS = [{ rid: 'f', scaleResolutionDownBy: 1 }, { rid: 'h', scaleResolutionDownBy: 2 }, { rid: 'q', scaleResolutionDownBy: 4 }];
/** Simulcast layers a peer may publish. */
export const SIMULCAST_LAYERS = [2, 3];
/** Codecs whose spatial layers Chromium encodes as SVC (webrtc-svc L2/L3, S2/S3). */
const SPATIAL_SVC_CODECS = ['vp9', 'av1'];

/**
 * @typedef {object} Publish  one peer's video publishing
 * @property {'simulcast'|'svc'} kind
 * @property {import('../../../client-app/codec.js').RequestedCodec} codec  the publish connection's codec; its scalabilityMode
 *   goes on every encoding once negotiated (simulcast: each rid's temporal layers)
 * @property {number} spatialLayers   simulcast encodings or SVC spatial layers
 * @property {number} temporalLayers
 * @property {Array<{ rid: string, scaleResolutionDownBy: number, active?: false }>} sendEncodings  simulcast's rids, highest
 *   first (a rid of inactiveRids sent inactive: a layer the publisher pauses); none for SVC
 */

/** Spatial and temporal layers of a scalability mode (`L3T3_KEY` → 3, 3). @param {string} mode */
export function modeLayers(mode) {
  const match = /^[LS]([1-3])T([1-3])/.exec(mode);
  return { spatial: Number(match?.[1] ?? 1), temporal: Number(match?.[2] ?? 1) };
}

/**
 * A peer's `publish` entry (or the flag's parsed value): `{ "simulcast": 3 }`, `{ "simulcast": 3, "codec": "h264" }`,
 * `{ "simulcast": 3, "scalabilityMode": "L1T3" }` or `{ "codec": "vp9", "scalabilityMode": "L3T3" }`.
 * @param {unknown} raw @param {string} where e.g. "file: publish.p0" or "--publish"
 * @returns {Publish}
 */
export function normalizePublish(raw, where) {
  const object = expectObject(raw, where, PUBLISH_FIELDS,
    { what: 'an object { "simulcast"?: 2|3, "codec"?, "scalabilityMode"? }, e.g. { "simulcast": 3 } or { "codec": "vp9", "scalabilityMode": "L3T3" }' });
  const name = object.codec ?? 'vp8';
  if (typeof name !== 'string' || !CODEC_NAMES.includes(name)) {
    throw new InputError(`${where}.codec: ${describeValue(object.codec)} is not a codec the harness can select; use one of ${CODEC_NAMES.join(', ')}`);
  }
  // Never null: an object with a name is always a codec.
  const codec = /** @type {import('../../../client-app/codec.js').RequestedCodec} */ (
    normalizeCodec({ name, scalabilityMode: object.scalabilityMode ?? null }, where));
  const { simulcast } = object;
  if (simulcast !== undefined && !SIMULCAST_LAYERS.includes(/** @type {number} */ (simulcast))) {
    throw new InputError(`${where}.simulcast: ${describeValue(simulcast)} is not a number of simulcast layers; use ${SIMULCAST_LAYERS.join(' or ')}`);
  }
  const layers = modeLayers(codec.scalabilityMode ?? 'L1T1');
  if (simulcast !== undefined) {
    if (layers.spatial > 1) {
      throw new InputError(`${where}.scalabilityMode: ${codec.scalabilityMode} has spatial layers, which simulcast encodings do not; give L1T2 or L1T3 (temporal layers per rid), or drop simulcast for SVC`);
    }
    const encodings = SIMULCAST_ENCODINGS.slice(0, Number(simulcast));
    const inactive = inactiveRidsOf(object.inactiveRids, encodings.map((encoding) => encoding.rid), where);
    // Unless told, Chromium encodes each VP8 rid in three temporal layers (measured: getStats scalabilityMode L1T3).
    const temporalLayers = codec.scalabilityMode === null && codec.name === 'vp8' ? 3 : layers.temporal;
    return {
      kind: 'simulcast', codec, spatialLayers: Number(simulcast), temporalLayers,
      sendEncodings: encodings.map((encoding) => (inactive.includes(encoding.rid)
        ? { ...encoding, active: /** @type {const} */ (false) } : encoding)),
    };
  }
  if (object.inactiveRids !== undefined) throw new InputError(`${where}.inactiveRids: only simulcast has rids to pause; drop it or give "simulcast"`);
  if (codec.scalabilityMode === null) {
    throw new InputError(`${where}: neither simulcast nor scalabilityMode; give "simulcast": 3, or "scalabilityMode" such as "L3T3" with codec vp9 or av1`);
  }
  if (layers.spatial > 1 && !SPATIAL_SVC_CODECS.includes(codec.name)) {
    throw new InputError(`${where}.scalabilityMode: ${codec.scalabilityMode} has spatial layers, which ${codec.name} does not encode; use codec ${SPATIAL_SVC_CODECS.join(' or ')}, or simulcast`);
  }
  return { kind: 'svc', codec, spatialLayers: layers.spatial, temporalLayers: layers.temporal, sendEncodings: [] };
}

/**
 * The rids a simulcast publisher sends inactive (its layers the SFU then lacks): a list of its rids, not all of them.
 * @param {unknown} raw @param {string[]} rids @param {string} where @returns {string[]}
 */
function inactiveRidsOf(raw, rids, where) {
  if (raw === undefined) return [];
  const list = typeof raw === 'string' ? raw.split('+') : raw;
  const valid = Array.isArray(list) && list.every((rid) => rids.includes(rid))
    && new Set(list).size === list.length && list.length < rids.length;
  if (!valid) {
    throw new InputError(`${where}.inactiveRids: ${describeValue(raw)} is not a list of some of its rids (${rids.join(', ')}); e.g. ["q"], and at least one rid stays active`);
  }
  return list;
}

/**
 * The scenario's `publish`: per peer of the main call, how it publishes.
 * @param {unknown} raw @param {string[]} peers @param {string} file @param {string} topology
 * @returns {Record<string, Publish>}
 */
export function normalizePeerPublish(raw, peers, file, topology) {
  if (raw === undefined) return {};
  const entries = expectObject(raw, `${file}: publish`, peers, { what: 'an object of peer names to publishing, e.g. {"p0": {"simulcast": 3}}' });
  if (topology !== 'sfu' && Object.keys(entries).length) {
    throw new InputError(`${file}: publish: simulcast and SVC publish to an SFU, and this scenario has topology ${topology}; set "topology": "sfu" or drop publish`);
  }
  return Object.fromEntries(Object.entries(entries).map(([peer, entry]) => [peer, normalizePublish(entry, `${file}: publish.${peer}`)]));
}

/**
 * The --publish flag: comma-separated key=value pairs of the same fields, for every publisher
 * (`simulcast=3`, `simulcast=3,codec=h264`, `codec=vp9,scalabilityMode=L3T3`).
 * @param {unknown} text  undefined: no flag
 * @returns {Publish|null}
 */
export function parsePublishFlag(text) {
  if (text === undefined) return null;
  /** @type {Record<string, string|number>} */
  const object = {};
  for (const pair of String(text).split(',')) {
    const [key, value, extra] = pair.split('=');
    if (value === undefined || extra !== undefined || !PUBLISH_FIELDS.includes(key)) {
      throw new InputError(`--publish: ${describeValue(pair)} is not an option; write key=value pairs of ${PUBLISH_FIELDS.join(', ')}, `
        + 'e.g. simulcast=3, codec=vp9,scalabilityMode=L3T3 or simulcast=3,inactiveRids=q (rids joined by +)');
    }
    object[key] = key === 'simulcast' && /^\d+$/.test(value) ? Number(value) : value;
  }
  return normalizePublish(object, '--publish');
}

/**
 * The layers a publisher's encodings carry at a source size, lowest first: index 0 is Janus's substream (simulcast)
 * or spatial layer (SVC) 0. SVC modes ending in `h` step by 1.5:1, the others by 2:1.
 * @param {Publish} publish @param {{ widthPx: number, heightPx: number }} source
 * @returns {Array<{ layer: number, rid: string|null, widthPx: number, heightPx: number }>}
 */
export function layerSizes(publish, { widthPx, heightPx }) {
  const ratio = publish.kind === 'svc' && /h$/.test(publish.codec.scalabilityMode ?? '') ? 1.5 : 2;
  const scales = publish.kind === 'simulcast'
    ? publish.sendEncodings.map((encoding) => encoding.scaleResolutionDownBy).reverse()
    : Array.from({ length: publish.spatialLayers }, (_, i) => ratio ** (publish.spatialLayers - 1 - i));
  const rids = publish.kind === 'simulcast' ? publish.sendEncodings.map((encoding) => encoding.rid).reverse() : [];
  return scales.map((scale, layer) => ({
    layer, rid: rids[layer] ?? null, widthPx: Math.floor(widthPx / scale), heightPx: Math.floor(heightPx / scale),
  }));
}

/**
 * A scenario's publishing: the file's `publish`, or --publish for every main-call peer instead. A mesh call publishes
 * to no SFU: --publish leaves it as it is (a suite mixes both; `scenario` refuses a --publish that reaches no SFU call).
 * @param {unknown} raw  the file's field
 * @param {Publish|null} override  --publish
 * @param {{ peers: number, file: string, topology: string }} scenario  peers: the main call's
 * @returns {Record<string, Publish>}
 */
export function resolvePublish(raw, override, { peers, file, topology }) {
  const names = Array.from({ length: peers }, (_, i) => `p${i}`);
  if (!override) return normalizePeerPublish(raw, names, file, topology);
  if (topology !== 'sfu') return normalizePeerPublish(raw, names, file, topology);
  return Object.fromEntries(names.map((peer) => [peer, override]));
}

/**
 * How many simulcast layers Chromium encodes from a source this size (its simulcast table: 960×540 and up three, from
 * 480×270 two, below one). Measured with Chromium 156 through Janus: three rids of a 640×360 source send 640×360 and
 * 320×180, and the quarter rid nothing though it reports itself active.
 * @param {{ widthPx: number, heightPx: number }} source
 */
export function simulcastLayerLimit({ widthPx, heightPx }) {
  const pixels = widthPx * heightPx;
  if (pixels >= 960 * 540) return 3;
  return pixels >= 480 * 270 ? 2 : 1;
}

/**
 * How many VP9/AV1 SVC spatial layers Chromium encodes from a source this size: as many halvings as keep the lowest at
 * least 240×135 (webrtc's svc_config; portrait 135×240). Measured with Chromium 156 through Janus: L3T3 from 640×360
 * reports scalabilityMode L2T3 and sends 640×360 and 320×180.
 * @param {{ widthPx: number, heightPx: number }} source
 */
export function svcSpatialLayerLimit({ widthPx, heightPx }) {
  const [longPx, shortPx] = widthPx >= heightPx ? [widthPx, heightPx] : [heightPx, widthPx];
  const fit = (/** @type {number} */ px, /** @type {number} */ minPx) => Math.floor(1 + Math.max(0, Math.log2(px / minPx)));
  return Math.min(fit(longPx, 240), fit(shortPx, 135));
}

/**
 * Stops a run whose simulcast or SVC publisher's source is too small for the layers it asks (Chromium would leave the
 * lowest rids empty, or encode fewer spatial layers than the mode names): checked once the run's media are known,
 * before any browser starts.
 * @param {Record<string, Publish>} publish
 * @param {Record<string, { width: number, height: number, preset?: string|null }>} sources  each peer's video
 */
export function checkPublishSources(publish, sources) {
  for (const [peer, { kind, spatialLayers, codec }] of Object.entries(publish)) {
    const source = sources[peer];
    if (!source) continue;
    const size = { widthPx: source.width, heightPx: source.height };
    const limit = kind === 'simulcast' ? simulcastLayerLimit(size) : svcSpatialLayerLimit(size);
    if (spatialLayers <= limit) continue;
    const video = `${peer}'s ${source.width}×${source.height} video${source.preset ? ` (${source.preset})` : ''}`;
    const larger = `give ${peer} 720p30 or larger (the scenario's media, or --video 720p30)`;
    if (kind === 'simulcast') {
      throw new InputError(`publish.${peer}: ${spatialLayers} simulcast layers, but Chromium encodes only ${limit} from ${video}; `
        + `${larger}, or publish ${limit > 1 ? `simulcast ${limit}` : 'one encoding'}`);
    }
    const fewer = (codec.scalabilityMode ?? '').replace(/^([LS])\d/, `$1${limit}`);
    throw new InputError(`publish.${peer}: ${codec.scalabilityMode} has ${spatialLayers} spatial layers, but Chromium encodes only ${limit} `
      + `from ${video} (the lowest at least 240×135); ${larger}, or publish scalabilityMode ${fewer}`);
  }
}
