// What bench/resolution.js runs inside the pages. Puppeteer sends each function's source alone, so each is
// self-contained: no imports, no helpers from outside it.

/**
 * What the page changes before and right after negotiation (undefined: leave the browser's default).
 * @typedef {{ maxBitrateBps?: number, scaleResolutionDownBy?: number, degradationPreference?: string,
 *   contentHint?: string, codec?: string, startBitrateKbps?: number, sdpMaxBitrateKbps?: number }} PageTweaks
 */

/**
 * An RTCPeerConnection method as the wrappers call it: whichever overload, with the arguments the page gave.
 * @typedef {(this: RTCPeerConnection, ...args: unknown[]) => Promise<unknown>} PassThrough
 */

/**
 * The page's log of what the tweaks did, read back as window.__benchLog.
 * @returns {string[]}
 */
function startBenchLog() {
  const page = /** @type {Window & { __benchLog?: string[] }} */ (window);
  page.__benchLog ??= [];
  return page.__benchLog;
}

/** The camera track's contentHint, set before it is sent. @param {PageTweaks} config */
function installContentHint(config) {
  if (!config.contentHint) return;
  const log = /** @type {Window & { __benchLog?: string[] }} */ (window).__benchLog ??= [];
  const hint = config.contentHint;
  const getUserMedia = navigator.mediaDevices.getUserMedia.bind(navigator.mediaDevices);
  navigator.mediaDevices.getUserMedia = async (constraints) => {
    const stream = await getUserMedia(constraints);
    for (const track of stream.getVideoTracks()) track.contentHint = hint;
    log.push(`contentHint=${stream.getVideoTracks()[0]?.contentHint}`);
    return stream;
  };
}

/** setCodecPreferences on the video transceivers before every offer and answer. @param {PageTweaks} config */
function installCodecPreference(config) {
  if (!config.codec) return;
  const log = /** @type {Window & { __benchLog?: string[] }} */ (window).__benchLog ??= [];
  const proto = RTCPeerConnection.prototype;
  const wanted = `video/${config.codec}`.toLowerCase();
  const prefer = (/** @type {RTCPeerConnection} */ pc) => {
    const codecs = RTCRtpReceiver.getCapabilities('video')?.codecs ?? [];
    const first = codecs.filter((codec) => codec.mimeType.toLowerCase() === wanted);
    if (first.length === 0) { log.push(`codec ${config.codec}: not offered by this browser`); return; }
    for (const transceiver of pc.getTransceivers()) {
      if (transceiver.receiver.track.kind === 'video') transceiver.setCodecPreferences([...first, ...codecs.filter((codec) => !first.includes(codec))]);
    }
    log.push(`codec preference ${config.codec} (${first.length} entries)`);
  };
  // Either overload (promise or legacy callbacks): the wrappers pass their arguments on as they came.
  const createOffer = /** @type {PassThrough} */ (proto.createOffer);
  const createAnswer = /** @type {PassThrough} */ (proto.createAnswer);
  // any: the DOM types' overloads (with legacy callbacks) admit no wrapper that passes its arguments on
  const patched = /** @type {any} */ (proto);
  /** @param {any[]} args any: as above */
  patched.createOffer = function (...args) { prefer(this); return createOffer.apply(this, args); };
  /** @param {any[]} args any: as above */
  patched.createAnswer = function (...args) { prefer(this); return createAnswer.apply(this, args); };
}

/**
 * x-google-start-bitrate and x-google-max-bitrate on the video codecs of every remote description.
 * @param {PageTweaks} config
 */
function installSdpMunging(config) {
  if (!config.startBitrateKbps && !config.sdpMaxBitrateKbps) return;
  const log = /** @type {Window & { __benchLog?: string[] }} */ (window).__benchLog ??= [];
  const params = [
    config.startBitrateKbps && `x-google-start-bitrate=${config.startBitrateKbps}`,
    config.sdpMaxBitrateKbps && `x-google-max-bitrate=${config.sdpMaxBitrateKbps}`,
  ].filter(Boolean).join(';');
  /** Adds the parameters to every video codec of the SDP (not rtx/red/ulpfec/flexfec). @param {string} sdp */
  const munge = (sdp) => {
    const lines = sdp.split('\r\n');
    let inVideo = false;
    /** @type {string[]} */
    const out = [];
    for (const line of lines) {
      if (line.startsWith('m=')) inVideo = line.startsWith('m=video');
      const rtpmap = inVideo && /^a=rtpmap:(\d+) ([\w-]+)\//.exec(line);
      if (rtpmap && !/^(rtx|red|ulpfec|flexfec-03)$/i.test(rtpmap[2])) {
        const pt = rtpmap[1];
        const fmtpIndex = lines.findIndex((candidate) => candidate.startsWith(`a=fmtp:${pt} `));
        out.push(line);
        if (fmtpIndex === -1) out.push(`a=fmtp:${pt} ${params}`);
        continue;
      }
      const fmtp = inVideo && /^a=fmtp:(\d+) /.exec(line);
      if (fmtp && out.some((previous) => previous.startsWith(`a=rtpmap:${fmtp[1]} `) && !/ (rtx|red|ulpfec|flexfec-03)\//i.test(previous))) {
        out.push(`${line};${params}`);
        continue;
      }
      out.push(line);
    }
    return out.join('\r\n');
  };
  const proto = RTCPeerConnection.prototype;
  const original = /** @type {PassThrough} */ (proto.setRemoteDescription);
  // any: the DOM types' overloads (with legacy callbacks) admit no wrapper that passes its arguments on
  const patched = /** @type {any} */ (proto);
  /** @param {RTCSessionDescriptionInit} description @param {any[]} rest any: as above */
  patched.setRemoteDescription = function (description, ...rest) {
    log.push(`remote SDP munged: ${params}`);
    const munged = description?.sdp ? { type: description.type, sdp: munge(description.sdp) } : description;
    return original.call(this, munged, ...rest);
  };
}

/**
 * sender.setParameters (maxBitrate, scaleResolutionDownBy, degradationPreference) after every local description.
 * @param {PageTweaks} config
 */
function installSenderParameters(config) {
  if (!config.maxBitrateBps && !config.scaleResolutionDownBy && !config.degradationPreference) return;
  const log = /** @type {Window & { __benchLog?: string[] }} */ (window).__benchLog ??= [];
  const proto = RTCPeerConnection.prototype;
  const original = /** @type {PassThrough} */ (proto.setLocalDescription);
  // any: the DOM types' overloads (with legacy callbacks) admit no wrapper that passes its arguments on
  const patched = /** @type {any} */ (proto);
  /** @param {any[]} args any: as above */
  patched.setLocalDescription = async function (...args) {
    const done = await original.apply(this, args);
    for (const sender of this.getSenders()) {
      const transceiver = this.getTransceivers().find((/** @type {RTCRtpTransceiver} */ candidate) => candidate.sender === sender);
      if (transceiver?.receiver.track.kind !== 'video') continue;
      const parameters = sender.getParameters();
      if (!parameters.encodings?.length) parameters.encodings = [{}];
      if (config.maxBitrateBps) parameters.encodings[0].maxBitrate = config.maxBitrateBps;
      if (config.scaleResolutionDownBy) parameters.encodings[0].scaleResolutionDownBy = config.scaleResolutionDownBy;
      // any: degradationPreference is not in the DOM types
      if (config.degradationPreference) /** @type {any} */ (parameters).degradationPreference = config.degradationPreference;
      try {
        await sender.setParameters(parameters);
        const { encodings, degradationPreference } = /** @type {any} */ (sender.getParameters()); // any: as above
        log.push(`setParameters ok: ${JSON.stringify(encodings)} degradationPreference=${degradationPreference}`);
      } catch (error) {
        const { name, message } = /** @type {Error} */ (error);
        log.push(`setParameters failed: ${name}: ${message}`);
      }
    }
    return done;
  };
}

/**
 * Runs in every page before app.js (page.evaluateOnNewDocument), in this order; what they did goes to
 * window.__benchLog.
 */
export const PAGE_TWEAKS = [startBenchLog, installContentHint, installCodecPreference, installSdpMunging, installSenderParameters];

/**
 * One stats sample of every connection of the page (window.testbed.connections, client-app/app.js): the video
 * sender's outbound-rtp, its codec, the selected candidate pair, the video media-source, the video received, and
 * the camera track's settings and frame counters.
 */
export function pageSample() {
  /**
   * @param {any} object any: a getStats() entry, whose fields depend on its type
   * @param {string[]} keys @returns {Record<string, any>|null}
   */
  const pick = (object, keys) => (object ? Object.fromEntries(keys.map((key) => [key, object[key]])) : null);
  /** @type {Map<string, { pc: RTCPeerConnection }>} */
  const connections = /** @type {any} */ (window).testbed.connections; // any: client-app/app.js's page global
  return Promise.all([...connections].map(async ([remote, { pc }]) => {
    /** @type {any[]} any: getStats() entries, whose fields depend on their type */
    const stats = [...(await pc.getStats()).values()];
    const byId = new Map(stats.map((stat) => [stat.id, stat]));
    const outbound = stats.find((stat) => stat.type === 'outbound-rtp' && stat.kind === 'video');
    const transport = stats.find((stat) => stat.type === 'transport');
    const pair = byId.get(transport?.selectedCandidatePairId) ?? stats.find((stat) => stat.type === 'candidate-pair' && stat.nominated);
    const sender = pc.getSenders().find((candidate) => candidate.track?.kind === 'video');
    const track = sender?.track;
    const trackStats = /** @type {any} */ (track)?.stats; // any: MediaStreamTrack.stats is not in the DOM types yet
    return {
      remote,
      outbound: pick(outbound, ['frameWidth', 'frameHeight', 'framesPerSecond', 'framesEncoded', 'framesSent', 'bytesSent',
        'headerBytesSent', 'retransmittedBytesSent', 'targetBitrate', 'qpSum', 'totalEncodeTime', 'keyFramesEncoded', 'hugeFramesSent',
        'qualityLimitationReason', 'qualityLimitationDurations', 'qualityLimitationResolutionChanges', 'encoderImplementation',
        'powerEfficientEncoder', 'scalabilityMode', 'timestamp']),
      codec: outbound ? byId.get(outbound.codecId)?.mimeType ?? null : null,
      pair: pick(pair, ['availableOutgoingBitrate', 'currentRoundTripTime']),
      source: pick(stats.find((stat) => stat.type === 'media-source' && stat.kind === 'video'), ['width', 'height', 'framesPerSecond', 'frames']),
      inbound: pick(stats.find((stat) => stat.type === 'inbound-rtp' && stat.kind === 'video'), ['frameWidth', 'frameHeight', 'framesPerSecond', 'framesDecoded']),
      settings: track ? track.getSettings() : null,
      contentHint: track?.contentHint ?? null,
      trackFrames: pick(trackStats, ['deliveredFrames', 'discardedFrames', 'totalFrames']),
      parameters: pick(sender?.getParameters(), ['encodings', 'degradationPreference']),
      connectionState: pc.connectionState,
    };
  }));
}

/** @typedef {Awaited<ReturnType<typeof pageSample>>[number]} PageSample */
