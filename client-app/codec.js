// Video codec selection, shared by the page and Node (pure): which capability entries a requested codec means, the
// order handed to RTCRtpTransceiver.setCodecPreferences, what the stats say was negotiated, and whether that is the
// requested codec (run/run.js checks each report with it). Validation and the result's summary are
// orchestrator/lib/media/codec.js.

/** Entries that protect or repeat a media codec's packets rather than carry a codec: kept beside the chosen one. */
const RESILIENCE_MIME_TYPES = ['video/rtx', 'video/red', 'video/ulpfec', 'video/flexfec-03'];
/** @param {{ mimeType: string }} codec */
const isResilience = (codec) => RESILIENCE_MIME_TYPES.includes(codec.mimeType.toLowerCase());

/**
 * A requested codec as the page receives it (orchestrator/lib/media/codec.js normalizeCodec, which names the codecs).
 * @typedef {{ name: 'vp8'|'vp9'|'h264'|'av1', mimeType: string, scalabilityMode: string|null, profile: string|null }} RequestedCodec
 *   profile: an H.264 profile-level-id prefix in lower-case hex ('42e0', '64')
 * @typedef {{ mimeType: string, clockRate?: number, sdpFmtpLine?: string }} CodecCapability
 */

/** @param {string|undefined} fmtp @returns {string|null} lower-case hex */
const profileLevelId = (fmtp) => /(?:^|;)\s*profile-level-id=([0-9a-f]+)/i.exec(fmtp ?? '')?.[1].toLowerCase() ?? null;

/**
 * Whether a capability entry (or a negotiated codec from getStats) is the requested codec: same mime type, and for an
 * H.264 profile a profile-level-id that starts with it.
 * @param {{ mimeType: string, sdpFmtpLine?: string|null }} codec @param {RequestedCodec} requested
 */
export function codecMatches(codec, requested) {
  if (codec.mimeType.toLowerCase() !== requested.mimeType.toLowerCase()) return false;
  return requested.profile === null || (profileLevelId(codec.sdpFmtpLine ?? undefined) ?? '').startsWith(requested.profile);
}

/**
 * The list for setCodecPreferences: every entry of the requested codec in the browser's order, then the RTX, RED and
 * FEC entries (the browser pairs RTX with each kept codec); every other codec is left out, so it cannot be negotiated.
 * Empty when the browser has no matching entry.
 * @template {CodecCapability} C @param {C[]} capabilities RTCRtpReceiver.getCapabilities('video').codecs
 * @param {RequestedCodec} requested @returns {C[]}
 */
export function preferredCodecs(capabilities, requested) {
  const chosen = capabilities.filter((codec) => codecMatches(codec, requested));
  if (!chosen.length) return [];
  return [...chosen, ...capabilities.filter(isResilience)];
}

/** @param {RequestedCodec} requested e.g. "H264 (profile-level-id 64…)", "VP9 L3T3" */
export function describeRequested(requested) {
  const name = requested.mimeType.replace(/^video\//, '');
  return [name, requested.profile && `(profile-level-id ${requested.profile}…)`, requested.scalabilityMode].filter(Boolean).join(' ');
}

/**
 * Why this browser cannot do the requested codec, or null: it must be able to send it and receive it.
 * @param {{ send: CodecCapability[], receive: CodecCapability[] }} capabilities RTCRtpSender/RTCRtpReceiver.getCapabilities('video').codecs
 * @param {RequestedCodec} requested
 */
export function unsupportedReason(capabilities, requested) {
  for (const [side, list] of /** @type {const} */ ([['RTCRtpSender', capabilities.send], ['RTCRtpReceiver', capabilities.receive]])) {
    if (list.some((codec) => codecMatches(codec, requested))) continue;
    const offered = list.filter((codec) => !isResilience(codec))
      .map((codec) => `${codec.mimeType.replace(/^video\//, '')}${profileLevelId(codec.sdpFmtpLine) ? ` ${profileLevelId(codec.sdpFmtpLine)}` : ''}`);
    return `codec ${describeRequested(requested)} requested, but this browser cannot use it: ${side}.getCapabilities('video') lists ${[...new Set(offered)].join(', ')}`;
  }
  return null;
}

/**
 * The video codec of one direction of a connection as getStats() shows it.
 * @typedef {{ mimeType: string, payloadType: number|null, sdpFmtpLine: string|null, implementation: string|null,
 *   powerEfficient: boolean|null, scalabilityMode: string|null, transportWideCc?: boolean|null }} NegotiatedCodec
 *   implementation: encoderImplementation (send) or decoderImplementation (receive); powerEfficient:
 *   powerEfficientEncoder/Decoder (the browser's hint that hardware does it); scalabilityMode: the sender's only;
 *   transportWideCc: whether the direction negotiated transport-wide feedback (codec-notes.js adds it; not from getStats)
 */

/**
 * What a connection's video streams use, per direction, from one getStats() report (as an array of stats objects);
 * null for a direction without a video stream that has a codec yet.
 * any: getStats entries, whose fields depend on their type and the browser
 * @param {Array<Record<string, any>>} stats @returns {{ send: NegotiatedCodec|null, recv: NegotiatedCodec|null }}
 */
export function negotiatedCodecs(stats) {
  const byId = new Map(stats.map((s) => [s.id, s]));
  /** @param {string} type @param {'Encoder'|'Decoder'} role @returns {NegotiatedCodec|null} */
  const of = (type, role) => {
    const rtp = stats.filter((s) => s.type === type && s.kind === 'video' && byId.get(s.codecId)).at(-1);
    if (!rtp) return null;
    const codec = byId.get(rtp.codecId);
    // The filter above kept only streams whose codec is in the report.
    if (!codec) return null;
    /** @param {unknown} value */
    const text = (value) => (typeof value === 'string' && value !== '' ? value : null);
    return {
      mimeType: String(codec.mimeType),
      payloadType: Number.isInteger(codec.payloadType) ? codec.payloadType : null,
      sdpFmtpLine: text(codec.sdpFmtpLine),
      implementation: text(rtp[`${role.toLowerCase()}Implementation`]),
      powerEfficient: typeof rtp[`powerEfficient${role}`] === 'boolean' ? rtp[`powerEfficient${role}`] : null,
      scalabilityMode: role === 'Encoder' ? text(rtp.scalabilityMode) : null,
    };
  };
  return { send: of('outbound-rtp', 'Encoder'), recv: of('inbound-rtp', 'Decoder') };
}

/**
 * Why a direction's negotiated codec is not the requested one (the error names both), or null when it is.
 * @param {RequestedCodec} requested
 * @param {{ peer: string, remote: string, direction: 'send'|'recv' } & NegotiatedCodec} negotiated
 */
export function codecMismatch(requested, negotiated) {
  const modeDiffers = negotiated.direction === 'send' && requested.scalabilityMode !== null && negotiated.scalabilityMode !== null
    && negotiated.scalabilityMode !== requested.scalabilityMode;
  if (codecMatches(negotiated, requested) && !modeDiffers) return null;
  const got = [negotiated.mimeType.replace(/^video\//, ''), negotiated.sdpFmtpLine && `(${negotiated.sdpFmtpLine})`,
    negotiated.direction === 'send' && negotiated.scalabilityMode].filter(Boolean).join(' ');
  const way = negotiated.direction === 'send' ? `sends to ${negotiated.remote}` : `receives from ${negotiated.remote}`;
  return `codec ${describeRequested(requested)} requested, but ${negotiated.peer} ${way} with ${got} (payload type ${negotiated.payloadType ?? '?'})`;
}
