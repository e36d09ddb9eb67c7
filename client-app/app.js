// One peer of a test call: fake-device media, negotiation through the signaling server, and a drift-free
// 1 s getStats() sampler whose per-interval values stream to the orchestrator over the same WebSocket.
import { intervalMetrics, snapshotFromStats } from './stats.js';

const params = new URLSearchParams(location.search);
const peer = params.get('peer');
const room = params.get('room');
const sampleIntervalMs = Number(params.get('sampleIntervalMs') ?? 1000);
const statusEl = document.getElementById('status');

const ws = new WebSocket(params.get('signal'));
const send = (message) => ws.readyState === WebSocket.OPEN && ws.send(JSON.stringify(message));
const report = (type, data = {}) => send({ type: 'event', event: { type, peer, epochMs: Date.now(), ...data } });
const setStatus = (text) => { statusEl.textContent = `${peer}: ${text}`; };

// The server refuses longer texts (signaling/messages.js MAX_EVENT_TEXT_CHARS); the start of a stack says enough.
const reportError = (message) => report('error', { message: String(message).slice(0, 4096) });
window.addEventListener('error', (e) => reportError(e.message));
window.addEventListener('unhandledrejection', (e) => reportError(e.reason?.stack ?? e.reason));

/** @type {Map<string, { pc: RTCPeerConnection, pending: RTCIceCandidateInit[], hasRemote: boolean }>} */
const connections = new Map();
/** @type {MediaStream} */
let localStream;
// Media is requested at load and the page joins as soon as the socket opens, without waiting for it: the server
// only hears events from a joined socket, and a page whose getUserMedia fails must still be able to say so.
const localMedia = navigator.mediaDevices.getUserMedia({ audio: true, video: true }).then((stream) => {
  localStream = stream;
  /** @type {HTMLVideoElement} */ (document.getElementById('local')).srcObject = stream;
  return stream;
});
/** Negotiation waits for this; false when getUserMedia failed (reported once, from onopen). */
const haveMedia = localMedia.then(() => true, () => false);
// Diagnostics hook for tests and --headful debugging (e.g. evaluating other stats libraries against ours).
/** @type {any} */ (window).testbed = { connections };
let sampling = null;

function connectionTo(remote) {
  let entry = connections.get(remote);
  if (entry) return entry;
  const pc = new RTCPeerConnection({ iceServers: [], bundlePolicy: 'max-bundle' });
  entry = { pc, pending: [], hasRemote: false };
  connections.set(remote, entry);
  for (const track of localStream.getTracks()) pc.addTrack(track, localStream);
  pc.onicecandidate = ({ candidate }) => candidate && send({ type: 'candidate', to: remote, candidate: candidate.toJSON() });
  pc.onconnectionstatechange = () => report('connection-state', { remote, state: pc.connectionState });
  pc.ontrack = ({ track, streams }) => {
    if (track.kind !== 'video') return;
    const video = document.createElement('video');
    Object.assign(video, { autoplay: true, muted: true, playsInline: true, srcObject: streams[0] });
    document.getElementById('remotes').append(video);
    watchFirstFrame(remote, pc);
  };
  return entry;
}

// Polling getStats is browser-neutral and resolves to ~50 ms, enough for a set-up time in seconds.
async function watchFirstFrame(remote, pc) {
  while (pc.connectionState !== 'closed') {
    const stats = [...(await pc.getStats()).values()];
    if (stats.some((s) => s.type === 'inbound-rtp' && s.kind === 'video' && s.framesDecoded > 0)) {
      report('first-frame', { remote });
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function applyRemote(remote, description) {
  const entry = connectionTo(remote);
  await entry.pc.setRemoteDescription(description);
  entry.hasRemote = true;
  for (const candidate of entry.pending.splice(0)) await entry.pc.addIceCandidate(candidate);
  return entry;
}

async function offerTo(remote) {
  const { pc } = connectionTo(remote);
  const offer = await pc.createOffer();
  await pc.setLocalDescription(offer);
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
    setStatus(`joined room ${room}; calling ${peers.join(', ') || 'nobody yet'}`);
    if (!(await haveMedia)) return;
    for (const remote of peers) await offerTo(remote);
  },
  async offer({ from, sdp }) {
    if (!(await haveMedia)) return;
    const { pc } = await applyRemote(from, { type: 'offer', sdp });
    const answer = await pc.createAnswer();
    await pc.setLocalDescription(answer);
    send({ type: 'answer', to: from, sdp: answer.sdp });
  },
  async answer({ from, sdp }) { await applyRemote(from, { type: 'answer', sdp }); },
  async candidate({ from, candidate }) {
    if (!(await haveMedia)) return;
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
    report('media-ready', { video });
  } catch (error) {
    reportError(`getUserMedia: ${error.name}: ${error.message}`);
  }
};
