// The page's side of a LiveKit room (orchestrator/sfu/livekit/): livekit-client joins with the peer's token, publishes
// the page's camera and microphone once, and subscribes to every other participant. The rest of the page stays as it
// is: events, commands and the 1 s samples still go through the run's signaling server. Each remote is sampled from
// its tracks' receivers, the SFU leg from the local tracks' senders, so a sample's `remote` means what it means with
// Janus: the SFU node for what this page publishes, a peer for what it receives from that peer.
// livekit-client is served by the signaling server (orchestrator/sfu/livekit SfuBackend.pageFiles).
// jsconfig.json maps this path to node_modules/livekit-client's types.
import { Room, RoomEvent, Track, VideoPreset, VideoPresets, VideoQuality } from '/vendor/livekit-client.esm.mjs';

/** livekit-client names a publication's simulcast encodings so, lowest first. */
const LIVEKIT_RIDS = ['q', 'h', 'f'];

/**
 * @typedef {object} LivekitPageConfig  what the orchestrator passes the page (sfu/contract.js SfuPageConfig)
 * @property {string} url    the server's signaling WebSocket (ws://host:port)
 * @property {string} token  this peer's access token (a secret: it came in the page URL's fragment)
 * @property {string[]} thumbnails  the remotes whose video this page asks at the lowest layer (load participants as tiles)
 *
 * @typedef {object} SessionHooks
 * @property {string} sfu       the SFU node's name, the `remote` of what this page publishes
 * @property {(type: string, data?: object, epochMs?: number) => void} report  a page event to the orchestrator
 * @property {(video: HTMLVideoElement, remote: string) => void} watchVideo    a remote's video shown (the viewer reads it)
 * @property {(track: MediaStreamTrack, remote: string) => void} watchAudio    a remote's audio track (recorded when the run scores audio)
 * @property {(remote: string, video: HTMLVideoElement) => void} [onRemoteVideo]
 */

/**
 * Joins the room and publishes `stream`'s tracks.
 * @param {LivekitPageConfig} config @param {MediaStream} stream @param {SessionHooks} hooks
 * @param {import('./publish.js').PagePublish|null} publish  what the scenario asked of this peer's video (the
 *   orchestrator validated it against the SFU's declared support); null: one encoding, the browser's codec
 */
export async function joinLivekit(config, stream, hooks, publish) {
  const { sfu, report, watchVideo, watchAudio } = hooks;
  // Layers are the server's choice from each subscriber's bandwidth (its stream allocator); the page's element size
  // means nothing headless, so adaptive stream is off. Dynacast pauses layers nobody receives, as in production.
  const room = new Room({ adaptiveStream: false, dynacast: true });
  /** @type {Map<string, { receivers: Set<RTCRtpReceiver>, connected: boolean }>} */
  const remotes = new Map();
  const thumbnails = new Set(config.thumbnails);
  room.on(RoomEvent.TrackSubscribed, (track, publication, participant) => {
    const remote = participant.identity;
    if (track.kind === Track.Kind.Video && thumbnails.has(remote)) publication.setVideoQuality(VideoQuality.LOW);
    const entry = remotes.get(remote) ?? { receivers: new Set(), connected: false };
    remotes.set(remote, entry);
    if (track.receiver) entry.receivers.add(track.receiver);
    if (!entry.connected) {
      entry.connected = true;
      report('connection-state', { remote, state: 'connected' });
    }
    if (track.kind === Track.Kind.Audio) watchAudio(track.mediaStreamTrack, remote);
    if (track.kind !== Track.Kind.Video) return;
    const video = /** @type {HTMLVideoElement} */ (track.attach());
    Object.assign(video, { autoplay: true, muted: true, playsInline: true });
    document.getElementById('remotes')?.append(video);
    report('first-rtp', { remote });
    watchVideo(video, remote);
    video.requestVideoFrameCallback(() => report('first-frame', { remote }));
  });
  // The page leaves only at the call's end (close() below stops listening first): a disconnect before is the server's.
  room.on(RoomEvent.Disconnected, () => report('connection-state', { remote: sfu, state: 'failed' }));
  await room.connect(config.url, config.token, { autoSubscribe: true });
  report('negotiated', { remote: sfu });
  /** @type {RTCRtpSender[]} */
  const senders = [];
  // The scenario's rids, lowest first, stand for livekit-client's: the run's layer checks read the scenario's.
  const scenarioRids = (publish?.sendEncodings ?? []).map((encoding) => encoding.rid).reverse();
  const ridOf = new Map(scenarioRids.map((rid, index) => [LIVEKIT_RIDS[index], rid]));
  for (const mediaTrack of stream.getTracks()) {
    const video = mediaTrack.kind === 'video';
    const publication = await room.localParticipant.publishTrack(mediaTrack, {
      source: video ? Track.Source.Camera : Track.Source.Microphone, ...(video ? publishOptions(publish, mediaTrack.getSettings()) : {}),
    });
    if (publication.track?.sender) senders.push(publication.track.sender);
  }
  report('connection-state', { remote: sfu, state: 'connected' });

  /**
   * One getStats() report per remote: the senders' (the SFU leg) and each remote's receivers', as one list each.
   * @returns {Promise<Array<[string, Array<Record<string, unknown>>]>>}
   */
  async function reports() {
    /** @param {Array<RTCRtpSender|RTCRtpReceiver>} ends */
    const merged = async (ends) => {
      const byId = new Map();
      for (const report of await Promise.all(ends.map((end) => end.getStats()))) for (const [id, entry] of report) byId.set(id, entry);
      return [...byId.values()].map((entry) => (entry.type === 'outbound-rtp' && ridOf.has(entry.rid) ? { ...entry, rid: ridOf.get(entry.rid) } : entry));
    };
    /** @type {Array<[string, Array<RTCRtpSender|RTCRtpReceiver>]>} */
    const legs = [[sfu, senders]];
    for (const [remote, { receivers }] of remotes) legs.push([remote, [...receivers]]);
    /** @type {(leg: [string, Array<RTCRtpSender|RTCRtpReceiver>]) => Promise<[string, Array<Record<string, unknown>>]>} */
    const read = async ([remote, ends]) => [remote, await merged(ends)];
    return Promise.all(legs.map(read));
  }
  return {
    reports,
    close: () => {
      room.removeAllListeners(RoomEvent.Disconnected);
      return room.disconnect();
    },
  };
}

/**
 * livekit-client's options for the scenario's publishing: simulcast with the scenario's lower layers (livekit-client
 * adds the source's own size on top), at the bitrate livekit-client gives a layer of that height; its codec and SVC mode.
 * @param {import('./publish.js').PagePublish|null} publish @param {MediaTrackSettings} source
 * @returns {import('livekit-client').TrackPublishOptions}
 */
function publishOptions(publish, source) {
  if (!publish) return { simulcast: false };
  const scalabilityMode = /** @type {import('livekit-client').ScalabilityMode|undefined} */ (publish.codec.scalabilityMode ?? undefined);
  const [widthPx, heightPx] = [source.width ?? 1280, source.height ?? 720];
  const lower = publish.sendEncodings.slice(1).reverse().map(({ scaleResolutionDownBy }) => {
    const [width, height] = [Math.round(widthPx / scaleResolutionDownBy), Math.round(heightPx / scaleResolutionDownBy)];
    const known = Object.values(VideoPresets).find((preset) => preset.height === height);
    return new VideoPreset(width, height, known?.encoding.maxBitrate ?? Math.round(2_000_000 / scaleResolutionDownBy ** 2));
  });
  return {
    simulcast: publish.sendEncodings.length > 1, ...(lower.length ? { videoSimulcastLayers: lower } : {}),
    videoCodec: publish.codec.name, ...(scalabilityMode ? { scalabilityMode } : {}),
  };
}
