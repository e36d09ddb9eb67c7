// One peer of a test call: fake-device media, negotiation through the signaling server, and a drift-free
// 1 s getStats() sampler whose per-interval values stream to the orchestrator over the same WebSocket.
import { intervalMetrics, snapshotFromStats } from './stats.js';

const params = new URLSearchParams(location.search);
const peer = params.get('peer');
const room = params.get('room');
const sampleIntervalMs = Number(params.get('sampleIntervalMs') ?? 1000);
// In an SFU call: the SFU's name. The page publishes once, to it, and every remote's stream arrives as an offer from
// that remote (the orchestrator's bridge to Janus); without it the page calls every other peer (a full mesh).
const sfu = params.get('sfu');
const statusEl = document.getElementById('status');

const ws = new WebSocket(params.get('signal'));
const send = (message) => ws.readyState === WebSocket.OPEN && ws.send(JSON.stringify(message));
/** @param {string} type @param {object} [data] @param {number} [epochMs] when it happened, if not now */
const report = (type, data = {}, epochMs = Date.now()) => send({ type: 'event', event: { type, peer, epochMs, ...data } });
const setStatus = (text) => { statusEl.textContent = `${peer}: ${text}`; };

// The server refuses longer texts (signaling/messages.js MAX_EVENT_TEXT_CHARS); the start of a stack says enough.
const reportError = (message) => report('error', { message: String(message).slice(0, 4096) });
window.addEventListener('error', (e) => reportError(e.message));
window.addEventListener('unhandledrejection', (e) => reportError(e.reason?.stack ?? e.reason));

/** @type {Map<string, { pc: RTCPeerConnection, pending: RTCIceCandidateInit[], hasRemote: boolean }>} */
const connections = new Map();
// Media is requested at load and the page joins as soon as the socket opens, without waiting for it: the server
// only hears events from a joined socket, and a page whose getUserMedia fails must still be able to say so.
// Negotiation, ICE and DTLS do not wait for it either: the senders get their tracks when getUserMedia resolves.
/** What every connection sends; the tracks join it when getUserMedia resolves. */
const localStream = new MediaStream();
/** When getUserMedia resolved: reported once the socket is open, which may be later. */
let mediaReadyEpochMs = 0;
const localMedia = navigator.mediaDevices.getUserMedia({ audio: true, video: true }).then((stream) => {
  mediaReadyEpochMs = Date.now();
  for (const track of stream.getTracks()) localStream.addTrack(track);
  for (const { pc } of connections.values()) giveTracks(pc);
  /** @type {HTMLVideoElement} */ (document.getElementById('local')).srcObject = stream;
  return stream;
});
// Diagnostics hook for tests and --headful debugging (e.g. evaluating other stats libraries against ours).
/** @type {any} */ (window).testbed = { connections };
let sampling = null;

function connectionTo(remote) {
  let entry = connections.get(remote);
  if (entry) return entry;
  const pc = new RTCPeerConnection({ iceServers: [], bundlePolicy: 'max-bundle' });
  entry = { pc, pending: [], hasRemote: false };
  connections.set(remote, entry);
  pc.onicecandidate = ({ candidate }) => candidate && send({ type: 'candidate', to: remote, candidate: candidate.toJSON() });
  // The set-up milestones (orchestrator/lib/setup-breakdown.js): both descriptions set, ICE, DTLS, first RTP, first frame.
  pc.onsignalingstatechange = () => pc.signalingState === 'stable' && report('negotiated', { remote });
  pc.oniceconnectionstatechange = () => report('ice-state', { remote, state: pc.iceConnectionState });
  pc.onconnectionstatechange = () => report('connection-state', { remote, state: pc.connectionState });
  pc.ontrack = ({ track, streams }) => {
    if (track.kind !== 'video') return;
    // A remote track is unmuted when its first RTP packet arrives.
    track.addEventListener('unmute', () => report('first-rtp', { remote }), { once: true });
    const video = document.createElement('video');
    Object.assign(video, { autoplay: true, muted: true, playsInline: true, srcObject: streams[0] });
    document.getElementById('remotes').append(video);
    video.requestVideoFrameCallback((now, frame) => report('first-frame', { remote }, decodedEpochMs(now, frame)));
  };
  return entry;
}

/**
 * When the first frame was decoded: for a WebRTC source, receiveTime (its last packet) plus processingDuration
 * (to decoded); the callback itself comes later, at the next paint.
 * @param {DOMHighResTimeStamp} now @param {VideoFrameCallbackMetadata & { receiveTime?: number, processingDuration?: number }} frame
 */
function decodedEpochMs(now, frame) {
  const { receiveTime, processingDuration } = frame;
  const decodedAt = receiveTime !== undefined && processingDuration !== undefined ? receiveTime + processingDuration * 1000 : now;
  return Math.round(performance.timeOrigin + decodedAt);
}

/** Puts the local tracks (if getUserMedia has resolved) on the senders of their kind. @param {RTCPeerConnection} pc */
function giveTracks(pc) {
  for (const { sender, receiver } of pc.getTransceivers()) {
    const track = localStream.getTracks().find((candidate) => candidate.kind === receiver.track.kind);
    if (track && sender.track !== track) sender.replaceTrack(track);
  }
}

/** The DTLS transport exists once the local description is set; with max-bundle every sender shares it. */
function watchDtls(remote, pc) {
  const transport = pc.getSenders()[0]?.transport;
  transport?.addEventListener('statechange', () => report('dtls-state', { remote, state: transport.state }));
}

async function applyRemote(remote, description) {
  const entry = connectionTo(remote);
  await entry.pc.setRemoteDescription(description);
  entry.hasRemote = true;
  for (const candidate of entry.pending.splice(0)) await entry.pc.addIceCandidate(candidate);
  return entry;
}

/** @param {string} remote @param {RTCRtpTransceiverDirection} direction */
async function offerTo(remote, direction) {
  const { pc } = connectionTo(remote);
  for (const kind of ['audio', 'video']) pc.addTransceiver(kind, { direction, streams: [localStream] });
  giveTracks(pc);
  const offer = await pc.createOffer();
  await pc.setLocalDescription(offer);
  watchDtls(remote, pc);
  send({ type: 'offer', to: remote, sdp: offer.sdp });
}

/** @returns {Promise<Array<[string, import('./stats.js').Snapshot]>>} */
async function snapshotAll() {
  return Promise.all([...connections].map(async ([remote, { pc }]) => [remote, snapshotFromStats([...(await pc.getStats()).values()])]));
}

// Ticks are anchored to the orchestrator's media start, so every peer samples at the same instants and
// a slow tick does not push the later ones back.
async function startSampling(mediaStartEpochMs) {
  let previous = new Map(await snapshotAll());
  let tick = 1;
  const next = () => {
    sampling = setTimeout(async () => {
      const t = tick++;
      next();
      for (const [remote, snapshot] of await snapshotAll()) {
        const before = previous.get(remote);
        previous.set(remote, snapshot);
        if (!before || snapshot.timestampMs <= before.timestampMs) continue;
        send({ type: 'stats', sample: { t, peer, remote, ...intervalMetrics(before, snapshot) } });
      }
    }, Math.max(0, mediaStartEpochMs + tick * sampleIntervalMs - Date.now()));
  };
  next();
}

const handlers = {
  async joined({ peers }) {
    if (sfu) {
      setStatus(`joined room ${room}; publishing to ${sfu}`);
      await offerTo(sfu, 'sendonly');
      return;
    }
    setStatus(`joined room ${room}; calling ${peers.join(', ') || 'nobody yet'}`);
    for (const remote of peers) await offerTo(remote, 'sendrecv');
  },
  async offer({ from, sdp }) {
    const { pc } = await applyRemote(from, { type: 'offer', sdp });
    // An SFU's offer only delivers a remote's stream: the answer receives (the page publishes on its own connection).
    if (!sfu) {
      for (const transceiver of pc.getTransceivers()) {
        transceiver.direction = 'sendrecv';
        transceiver.sender.setStreams(localStream);
      }
      giveTracks(pc);
    }
    const answer = await pc.createAnswer();
    await pc.setLocalDescription(answer);
    watchDtls(from, pc);
    send({ type: 'answer', to: from, sdp: answer.sdp });
  },
  async answer({ from, sdp }) { await applyRemote(from, { type: 'answer', sdp }); },
  async candidate({ from, candidate }) {
    const entry = connectionTo(from);
    if (entry.hasRemote) await entry.pc.addIceCandidate(candidate);
    else entry.pending.push(candidate);
  },
  async start({ mediaStartEpochMs }) {
    setStatus('in call, sampling');
    await startSampling(mediaStartEpochMs);
  },
  async stop() {
    clearTimeout(sampling);
    for (const { pc } of connections.values()) pc.close();
    setStatus('stopped');
  },
  'peer-joined': ({ peer: remote }) => setStatus(`${remote} joined`),
  error: ({ error }) => reportError(`signaling: ${error}`),
};

ws.onmessage = async ({ data }) => {
  const message = JSON.parse(data);
  try {
    await handlers[message.type]?.(message);
  } catch (error) {
    reportError(`${message.type}: ${error.stack ?? error}`);
  }
};

ws.onopen = async () => {
  send({ type: 'join', room, peer });
  try {
    const settings = (await localMedia).getVideoTracks()[0]?.getSettings();
    // Plain values only: the server accepts a flat object, whatever a newer browser adds to the settings.
    const video = settings ? Object.fromEntries(Object.entries(settings).filter(([, value]) => ['number', 'string', 'boolean'].includes(typeof value))) : null;
    report('media-ready', { video }, mediaReadyEpochMs);
  } catch (error) {
    reportError(`getUserMedia: ${error.name}: ${error.message}`);
  }
};
