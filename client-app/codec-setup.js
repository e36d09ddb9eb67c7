// The page's side of a requested codec (client-app/codec.js holds the pure checks): whether this browser can use it,
// the transceivers' codec preferences, and the senders' encodings (scalability mode, the RFC 8867 source's ceiling).
import { preferredCodecs, unsupportedReason } from './codec.js';
import { RFC8867_VIDEO } from './media-source.js';

/** @typedef {import('./codec.js').RequestedCodec} RequestedCodec */

/** @param {'send'|'receive'} side @returns {RTCRtpCodec[]} what this browser can do with video, each side */
const videoCodecs = (side) => (side === 'send' ? RTCRtpSender : RTCRtpReceiver).getCapabilities('video')?.codecs ?? [];

/**
 * Why this browser cannot use the requested codec, or null (also without one).
 * @param {RequestedCodec|null} requestedCodec @returns {Promise<string|null>}
 */
export async function checkCodec(requestedCodec) {
  if (!requestedCodec) return null;
  if (!('setCodecPreferences' in RTCRtpTransceiver.prototype)) return 'codec selection needs RTCRtpTransceiver.setCodecPreferences, which this browser lacks';
  const reason = unsupportedReason({ send: videoCodecs('send'), receive: videoCodecs('receive') }, requestedCodec);
  if (reason || !requestedCodec.scalabilityMode) return reason;
  // getCapabilities does not list scalability modes; Media Capabilities answers for WebRTC encoders.
  const { supported } = await navigator.mediaCapabilities.encodingInfo(/** @type {MediaEncodingConfiguration} */ ({
    type: 'webrtc', video: { contentType: requestedCodec.mimeType, width: 1280, height: 720, bitrate: 2_000_000, framerate: 30, scalabilityMode: requestedCodec.scalabilityMode },
  }));
  return supported ? null : `codec ${requestedCodec.mimeType} with scalability mode ${requestedCodec.scalabilityMode} requested, but navigator.mediaCapabilities.encodingInfo says this browser cannot encode it`;
}

/**
 * Restricts every video transceiver to the requested codec (and its RTX/RED/FEC) before an offer or answer: the
 * standard way, which Chromium and Firefox ≥ 128 implement, so no SDP is rewritten.
 * @param {RTCPeerConnection} pc @param {RequestedCodec|null} requestedCodec
 */
export function preferCodec(pc, requestedCodec) {
  if (!requestedCodec) return;
  const preferred = preferredCodecs(videoCodecs('receive'), requestedCodec);
  for (const transceiver of pc.getTransceivers()) {
    if (transceiver.receiver.track.kind === 'video') transceiver.setCodecPreferences(preferred);
  }
}

/**
 * The requested scalability mode and the RFC 8867 media source's ceiling on every video sender, once its codec is
 * negotiated.
 * @param {RTCPeerConnection} pc @param {RequestedCodec|null} requestedCodec @param {boolean} rfc8867Source
 */
export async function applyVideoEncodings(pc, requestedCodec, rfc8867Source) {
  if (!requestedCodec?.scalabilityMode && !rfc8867Source) return;
  for (const { sender, receiver } of pc.getTransceivers()) {
    const parameters = sender.getParameters();
    if (receiver.track.kind !== 'video' || !parameters.encodings?.length) continue;
    for (const encoding of parameters.encodings) {
      // scalabilityMode is missing from TypeScript's DOM types.
      const withMode = /** @type {RTCRtpEncodingParameters & { scalabilityMode?: string }} */ (encoding);
      if (requestedCodec?.scalabilityMode) withMode.scalabilityMode = requestedCodec.scalabilityMode;
      if (rfc8867Source) encoding.maxBitrate = RFC8867_VIDEO.maxKbps * 1000;
    }
    await sender.setParameters(parameters);
  }
}
