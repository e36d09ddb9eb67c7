// The page's side of simulcast and SVC publishing (orchestrator/lib/media/publish.js makes the `publish` URL
// parameter): the video transceiver's simulcast rids, the publishing codec, and each encoding's sender counters.

/**
 * @typedef {{ codec: import('./codec.js').RequestedCodec,
 *   sendEncodings: Array<{ rid: string, scaleResolutionDownBy: number, active?: boolean }> }} PagePublish  active false: a paused rid
 * @typedef {{ key: string, rid: string|null, bytes: number, frames: number|null, width: number|null, height: number|null,
 *   fps: number|null, active: boolean|null, qualityLimitationReason: string|null, scalabilityMode: string|null }} EncodingCounters
 * @typedef {{ rid: string|null, widthPx: number|null, heightPx: number|null, fps: number|null, kbps: number|null,
 *   active: boolean|null, qualityLimitationReason: string|null, scalabilityMode: string|null }} EncodingMetrics
 */

/**
 * The `publish` parameter, or null: one encoding. The orchestrator wrote it; a malformed one is a harness bug.
 * @param {string|null} param @returns {PagePublish|null}
 */
export function readPublish(param) {
  if (param === null) return null;
  const value = JSON.parse(param);
  if (typeof value?.codec?.mimeType !== 'string' || !Array.isArray(value.sendEncodings)) throw new Error(`publish=${param.slice(0, 200)}: not a publishing`);
  return value;
}

/**
 * addTransceiver's init beyond direction and streams: a video sender publishing simulcast gets its rids here, since
 * encodings cannot be added later. @param {string} kind @param {PagePublish|null} publish
 */
export const sendEncodingsOf = (kind, publish) => (kind === 'video' && publish?.sendEncodings.length
  ? { sendEncodings: publish.sendEncodings.map((encoding) => ({ ...encoding })) } : {});

/** @param {unknown} value */
const textOrNull = (value) => (typeof value === 'string' && value !== '' ? value.slice(0, 16) : null);
/** @param {unknown} value */
const numberOrNull = (value) => (typeof value === 'number' && Number.isFinite(value) ? value : null);

/**
 * Each video encoding's counters (one outbound-rtp per rid, or the one SVC stream), by rid (else SSRC).
 * any: getStats entries, whose fields depend on their type and the browser
 * @param {Array<Record<string, any>>} stats @returns {EncodingCounters[]}
 */
export function encodingCounters(stats) {
  return stats.filter((s) => s.type === 'outbound-rtp' && s.kind === 'video').slice(0, 4).map((s) => ({
    key: String(s.rid ?? s.ssrc), rid: textOrNull(s.rid), bytes: Number(s.bytesSent) || 0, frames: numberOrNull(s.framesSent),
    width: numberOrNull(s.frameWidth), height: numberOrNull(s.frameHeight), fps: numberOrNull(s.framesPerSecond),
    active: typeof s.active === 'boolean' ? s.active : null, qualityLimitationReason: textOrNull(s.qualityLimitationReason),
    scalabilityMode: textOrNull(s.scalabilityMode),
  }));
}

/**
 * Each encoding over one sampling interval: what it sent, at which size and rate, whether it was active and what
 * limited it. An encoding new in the interval counts from zero.
 * @param {EncodingCounters[]} prev @param {EncodingCounters[]} cur @param {number} intervalS
 * @returns {EncodingMetrics[]}
 */
export function encodingMetrics(prev, cur, intervalS) {
  return cur.map((encoding) => {
    const before = prev.find((p) => p.key === encoding.key);
    const frames = encoding.frames !== null && before?.frames != null ? encoding.frames - before.frames : null;
    return {
      rid: encoding.rid, widthPx: encoding.width, heightPx: encoding.height,
      fps: frames === null ? encoding.fps : Number((frames / intervalS).toFixed(2)),
      kbps: Number((((encoding.bytes - (before?.bytes ?? 0)) * 8) / 1000 / intervalS).toFixed(3)),
      active: encoding.active, qualityLimitationReason: encoding.qualityLimitationReason, scalabilityMode: encoding.scalabilityMode,
    };
  });
}
