// The shared screen: a second video track beside the camera, in a mesh call. Chromium's fake capture gives one camera,
// so the page plays the orchestrator's lossless WebM of the generated slides (media/screen.js) in a hidden <video> and
// sends its captureStream() track with contentHint "detail", which tells the encoder to keep the resolution and drop
// frames when short of bits (what a real getDisplayMedia track says). The screen has its own m-line, the second video
// one of each connection, so its stats (by mid) and its frames (source `<remote>:screen`) are told from the camera's.

/** What a received screen's frames are filed under: lib/media/screen-share.js SCREEN_SUFFIX (checked equal by a unit test). */
export const SCREEN_SUFFIX = ':screen';

/**
 * @param {URLSearchParams} params  the page's: `screenShare`, the peers that share a screen; `screenMedia`, this page's
 *   slides (a WebM) when it shares one
 * @param {string} self  this page's peer
 */
export function createScreenShare(params, self) {
  const sharers = params.get('screenShare')?.split(',') ?? [];
  const mediaUrl = params.get('screenMedia');
  const stream = new MediaStream();
  /** @type {Promise<MediaStreamTrack|null>} */
  const track = mediaUrl === null ? Promise.resolve(null) : playScreen(mediaUrl).then((screen) => {
    stream.addTrack(screen);
    return screen;
  });
  /**
   * The screen m-line's direction towards a remote, or null: neither shares.
   * @param {string} remote @returns {RTCRtpTransceiverDirection|null}
   */
  const direction = (remote) => {
    const [sends, receives] = [sharers.includes(self), sharers.includes(remote)];
    if (!sends && !receives) return null;
    return sends && receives ? 'sendrecv' : sends ? 'sendonly' : 'recvonly';
  };
  return {
    track,
    /** The screen's transceiver: the second video one (offers add it after the camera's). @param {RTCPeerConnection} pc */
    transceiverOf: (pc) => pc.getTransceivers().filter((t) => t.receiver.track.kind === 'video')[1] ?? null,
    /**
     * What a transceiver sends: the screen on the screen's, else the camera and microphone.
     * @param {RTCPeerConnection} pc @param {RTCRtpTransceiver} transceiver @param {MediaStream} local
     */
    sourceOf(pc, transceiver, local) {
      return this.transceiverOf(pc) === transceiver ? stream : local;
    },
    /** Its mid, which its inbound and outbound stats carry, or null. @param {RTCPeerConnection|undefined} pc */
    midOf(pc) {
      return (pc && this.transceiverOf(pc)?.mid) ?? null;
    },
    /** An offer's screen m-line, after the camera's. @param {RTCPeerConnection} pc @param {string} remote */
    offer(pc, remote) {
      const wanted = direction(remote);
      if (wanted) pc.addTransceiver('video', { direction: wanted, streams: [stream] });
    },
    /**
     * An answer's screen m-line: this side's direction, in the screen's own stream.
     * @param {RTCPeerConnection} pc @param {string} remote
     */
    answer(pc, remote) {
      const transceiver = this.transceiverOf(pc);
      const wanted = direction(remote);
      if (!transceiver || !wanted) return;
      transceiver.direction = wanted;
      transceiver.sender.setStreams(stream);
    },
  };
}

/** Plays the slides (muted: no audio, and autoplay needs no gesture) and captures them. @param {string} url */
async function playScreen(url) {
  const source = document.createElement('video');
  Object.assign(source, { src: url, loop: true, muted: true, playsInline: true, preload: 'auto' });
  source.id = 'screen-source';
  document.body.append(source);
  await source.play();
  // any: captureStream is missing from TypeScript's DOM types.
  const [screen] = /** @type {MediaStream} */ (/** @type {any} */ (source).captureStream()).getVideoTracks();
  screen.contentHint = 'detail';
  return screen;
}
