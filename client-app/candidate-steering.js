// An SFU the page signals to itself (LiveKit) exchanges ICE candidates with livekit-client directly, so the harness
// would never see them and the emulator could not put itself on the media path. Installed before such a call, this
// sends every candidate through the harness (signaling `steer`, answered `steered`): the SFU's before this browser
// uses one, the page's own before livekit-client sends it; the emulator rewrites each to its path, or drops it.
// Candidates inside descriptions take the same way, and the page's own are kept out of the descriptions it sends.

/** A steer the harness has not answered in this long is dropped (reported): the call goes on with the others. */
const STEER_TIMEOUT_MS = 5000;

/**
 * @typedef {'toSfu'|'fromSfu'} SteerDirection
 * @typedef {(direction: SteerDirection, candidate: RTCIceCandidateInit) => Promise<RTCIceCandidateInit|null>} Steer
 */

/**
 * The page's side of `steer`: each request carries an id; `settle` takes the server's answer.
 * @param {(message: object) => void} send  to the signaling server
 * @param {(message: string) => void} reportError
 */
export function createSteering(send, reportError) {
  let nextId = 1;
  /** @type {Map<number, (candidate: RTCIceCandidateInit|null) => void>} */
  const waiting = new Map();
  /** @type {Steer} */
  const steer = (direction, candidate) => new Promise((resolve) => {
    const id = nextId++;
    const timer = setTimeout(() => {
      waiting.delete(id);
      reportError(`steer: no answer for a candidate ${direction} in ${STEER_TIMEOUT_MS} ms; it is dropped`);
      resolve(null);
    }, STEER_TIMEOUT_MS);
    waiting.set(id, (steered) => { clearTimeout(timer); resolve(steered); });
    const { candidate: line, sdpMid, sdpMLineIndex, usernameFragment } = candidate;
    send({ type: 'steer', id, direction, candidate: { candidate: line, sdpMid, sdpMLineIndex, usernameFragment } });
  });
  return {
    /** @param {{ id: number, candidate: RTCIceCandidateInit|null }} message  the server's answer to one steer */
    settle({ id, candidate }) {
      const resolve = waiting.get(id);
      waiting.delete(id);
      resolve?.(candidate);
    },
    install: () => steerPeerConnections(steer, reportError),
  };
}

/** @param {string} sdp */
const withoutCandidates = (sdp) => sdp.split('\r\n').filter((line) => !line.startsWith('a=candidate:')).join('\r\n');

/**
 * The SFU's description with each candidate line steered towards this page (or removed).
 * @param {string} sdp @param {Steer} steer
 */
async function steeredSdp(sdp, steer) {
  const lines = sdp.split('\r\n');
  /** @type {string|undefined} */
  let sdpMid;
  const out = [];
  for (const line of lines) {
    if (line.startsWith('m=')) sdpMid = undefined;
    if (line.startsWith('a=mid:')) sdpMid = line.slice('a=mid:'.length);
    if (!line.startsWith('a=candidate:')) {
      out.push(line);
      continue;
    }
    const steered = await steer('fromSfu', { candidate: line.slice(2), sdpMid });
    if (steered) out.push(`a=${steered.candidate}`);
  }
  return out.join('\r\n');
}

/**
 * Wraps RTCPeerConnection's prototype (every connection of this page is the SFU's): remote candidates and
 * descriptions are steered `fromSfu` before the browser sees them, gathered candidates `toSfu` before the
 * `onicecandidate` handler does (in their order; the end of gathering after them), and the descriptions this page
 * creates carry no candidate of their own.
 * @param {Steer} steer @param {(message: string) => void} reportError
 */
function steerPeerConnections(steer, reportError) {
  const proto = RTCPeerConnection.prototype;
  // The promise forms: livekit-client calls no legacy callback form.
  const addIceCandidate = /** @type {(this: RTCPeerConnection, c?: RTCIceCandidateInit) => Promise<void>} */ (proto.addIceCandidate);
  const setRemoteDescription = /** @type {(this: RTCPeerConnection, d: RTCSessionDescriptionInit) => Promise<void>} */ (
    proto.setRemoteDescription);
  const { createOffer, createAnswer } = proto;
  /** @this {RTCPeerConnection} @param {RTCIceCandidateInit|null|undefined} candidate */
  proto.addIceCandidate = async function steeredAddIceCandidate(candidate) {
    if (!candidate?.candidate) return addIceCandidate.call(this, candidate ?? undefined);
    const steered = await steer('fromSfu', 'toJSON' in candidate ? /** @type {RTCIceCandidate} */ (candidate).toJSON() : candidate);
    if (steered) await addIceCandidate.call(this, steered);
  };
  /** @this {RTCPeerConnection} @param {RTCSessionDescriptionInit} description */
  proto.setRemoteDescription = async function steeredSetRemoteDescription(description) {
    const sdp = description?.sdp && await steeredSdp(description.sdp, steer);
    return setRemoteDescription.call(this, sdp ? { type: description.type, sdp } : description);
  };
  // any: createOffer and createAnswer take different (and legacy callback) arguments, passed on as given
  /** @typedef {(...args: any[]) => Promise<RTCSessionDescriptionInit>} CreateDescription */
  /** @param {typeof createOffer} create */
  const stripped = (create) => /** @this {RTCPeerConnection} @param {Parameters<CreateDescription>} args */ async function strip(...args) {
    const description = await /** @type {CreateDescription} */ (create).apply(this, args);
    return description?.sdp ? { type: description.type, sdp: withoutCandidates(description.sdp) } : description;
  };
  proto.createOffer = /** @type {typeof createOffer} */ (stripped(createOffer));
  proto.createAnswer = /** @type {typeof createAnswer} */ (stripped(/** @type {typeof createOffer} */ (createAnswer)));
  /** @type {WeakMap<RTCPeerConnection, { handler: Function, listener: (event: RTCPeerConnectionIceEvent) => void }>} */
  const handlers = new WeakMap();
  Object.defineProperty(proto, 'onicecandidate', {
    configurable: true,
    enumerable: true,
    /** @this {RTCPeerConnection} */
    get() { return handlers.get(this)?.handler ?? null; },
    /** @this {RTCPeerConnection} @param {Function|null} handler */
    set(handler) {
      const previous = handlers.get(this);
      if (previous) this.removeEventListener('icecandidate', previous.listener);
      handlers.delete(this);
      if (typeof handler !== 'function') return;
      let queue = Promise.resolve();
      /** @param {RTCPeerConnectionIceEvent} event */
      const listener = (event) => {
        queue = queue.then(async () => {
          const gathered = event.candidate;
          if (!gathered?.candidate) return handler.call(this, { candidate: gathered });
          const steered = await steer('toSfu', gathered.toJSON());
          if (steered) handler.call(this, { candidate: new RTCIceCandidate(steered) });
        }).catch((error) => reportError(`icecandidate: ${error?.stack ?? error}`));
      };
      handlers.set(this, { handler, listener });
      this.addEventListener('icecandidate', listener);
    },
  });
}
