// One peer of a test call: fake-device media, negotiation through the signaling server, and a drift-free
// 1 s getStats() sampler whose per-interval values stream to the orchestrator over the same WebSocket. During the
// call the orchestrator's commands (signaling/messages.js COMMAND_TYPES) start and end extra calls and bulk data flows.
import { negotiatedCodecs, preferredCodecs, unsupportedReason } from './codec.js';
import { RFC8867_VIDEO, withVideoBitrates } from './media-source.js';
import { createFrameReader } from './frame-reader.js';
import { dataMetrics, intervalMetrics, snapshotFromStats } from './stats.js';

const params = new URLSearchParams(location.search);
// The page's secret for its join (orchestrator/lib/system/peer-secrets.js) is the URL's fragment, which no HTTP request
// carries. Out of the address at once, so no error, stack or later look at the URL can quote it.
const secret = location.hash.slice(1);
if (secret) history.replaceState(null, '', `${location.pathname}${location.search}`);
const peer = params.get('peer');
const room = params.get('room');
const sampleIntervalMs = Number(params.get('sampleIntervalMs') ?? 1000);
// In an SFU call: the SFU's name. The page publishes once, to it, and every remote's stream arrives as an offer from
// that remote (the orchestrator's bridge to Janus); without it the page calls every other peer (a full mesh).
const sfu = params.get('sfu');
// The peers this page calls once it joins (those already there); without it, every peer. An extra call's peers get
// none: they call when the orchestrator says so.
const callAtJoin = params.has('callAtJoin') ? params.get('callAtJoin').split(',').filter(Boolean) : null;
/** The video codec every connection must use (orchestrator/lib/media/codec.js normalizeCodec), or null: the browser's choice. */
const requestedCodec = params.has('codec') ? JSON.parse(params.get('codec')) : null;
/** RFC 8867 §4.3's video rates (`rfc8867`, client-app/media-source.js) or the browser's own (`browser`, the default). */
const rfc8867Source = params.get('mediaSource') === 'rfc8867';
/** getUserMedia's video constraints for a constrained device (orchestrator/lib/devices/devices.js videoConstraints). */
const videoConstraints = params.has('videoConstraints') ? JSON.parse(params.get('videoConstraints')) : true;
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

/**
 * codecs: the last reported codec of each video direction, as JSON (a `codec` event goes out when it changes).
 * @type {Map<string, { pc: RTCPeerConnection, pending: RTCIceCandidateInit[], hasRemote: boolean, videos: HTMLVideoElement[],
 *   codecs: Record<string, string> }>}
 */
const connections = new Map();
/** @type {Map<string, RTCRtpTransceiverDirection>} The media direction of an extra call, from its `call` command; else sendrecv. */
const directions = new Map();
/** Remotes whose media this page does not send right now (a `pause` command, or held from the start: URL `hold`). */
const paused = new Set(params.get('hold')?.split(',').filter(Boolean) ?? []);
/** Remotes of extra calls that ended: their late messages must not open a new connection. */
const hungUp = new Set();
/**
 * Bulk data flows by remote: the channels this page sends on (with the bytes it handed to each) and the bytes it
 * received; a remote's entry lives from its first channel until the sample after its last channel closed.
 * @type {Map<string, { sending: Array<{ channel: RTCDataChannel, handedBytes: number, stopped: boolean, fill: () => void }>,
 *   receiving: RTCDataChannel[], receivedBytes: number }>}
 */
const dataFlows = new Map();
/** Set when the call ends: errors of channels torn down with their connection are expected then. */
let stopping = false;
const watchedTransports = new WeakSet();
// Media is requested at load and the page joins as soon as the socket opens, without waiting for it: the server
// only hears events from a joined socket, and a page whose getUserMedia fails must still be able to say so.
// Negotiation, ICE and DTLS do not wait for it either: the senders get their tracks when getUserMedia resolves.
/** What every connection sends; the tracks join it when getUserMedia resolves. */
const localStream = new MediaStream();
/** When getUserMedia resolved: reported once the socket is open, which may be later. */
let mediaReadyEpochMs = 0;
/** Reads the frame code of every frame the local and remote videos show; the orchestrator drains it. */
const viewer = createFrameReader();
const localMedia = captureLocalMedia().then((stream) => {
  mediaReadyEpochMs = Date.now();
  for (const track of stream.getTracks()) localStream.addTrack(track);
  for (const { pc } of connections.values()) giveTracks(pc);
  const local = /** @type {HTMLVideoElement} */ (document.getElementById('local'));
  local.srcObject = stream;
  // A media-element source's own presented frames are what its captureStream() sends: nearer the sender's glass than
  // the preview of them, where a browser has no MediaStreamTrackProcessor to see the track's frames (Firefox).
  viewer.watchCamera(stream.getVideoTracks()[0], /** @type {HTMLVideoElement|null} */ (document.getElementById('source')) ?? local);
  return stream;
});
/**
 * The media this page sends. With `source=media-element` (a browser without file-backed fake devices: Firefox) the
 * orchestrator's WebM of the same video and audio loops in a <video> whose captureStream() is sent; otherwise the
 * browser's fake camera and microphone, which read the files themselves (Chromium).
 * @returns {Promise<MediaStream>}
 */
async function captureLocalMedia() {
  if (params.get('source') !== 'media-element') return navigator.mediaDevices.getUserMedia({ audio: true, video: videoConstraints });
  const source = document.createElement('video');
  // Not muted: a muted element's captured audio track is silent. The page's own output goes nowhere (headless).
  Object.assign(source, { src: params.get('media'), loop: true, playsInline: true, preload: 'auto' });
  source.id = 'source';
  document.body.append(source);
  await source.play();
  const capture = /** @type {any} */ (source).captureStream ?? /** @type {any} */ (source).mozCaptureStream;
  return capture.call(source);
}
// Diagnostics hook for tests and --headful debugging (e.g. evaluating other stats libraries against ours); the
// orchestrator drains `viewer`.
/** @type {any} */ (window).testbed = { connections, viewer };
let sampling = null;
/** Why this browser cannot use the requested codec (reported once joined: the run fails before the call), or null. */
const codecProblem = checkCodec();

async function checkCodec() {
  if (!requestedCodec) return null;
  if (!('setCodecPreferences' in RTCRtpTransceiver.prototype)) return 'codec selection needs RTCRtpTransceiver.setCodecPreferences, which this browser lacks';
  const capabilities = { send: RTCRtpSender.getCapabilities('video').codecs, receive: RTCRtpReceiver.getCapabilities('video').codecs };
  const reason = unsupportedReason(capabilities, requestedCodec);
  if (reason || !requestedCodec.scalabilityMode) return reason;
  // getCapabilities does not list scalability modes; Media Capabilities answers for WebRTC encoders.
  const { supported } = await navigator.mediaCapabilities.encodingInfo({
    type: 'webrtc', video: { contentType: requestedCodec.mimeType, width: 1280, height: 720, bitrate: 2_000_000, framerate: 30, scalabilityMode: requestedCodec.scalabilityMode },
  });
  return supported ? null : `codec ${requestedCodec.mimeType} with scalability mode ${requestedCodec.scalabilityMode} requested, but navigator.mediaCapabilities.encodingInfo says this browser cannot encode it`;
}

/**
 * Restricts every video transceiver to the requested codec (and its RTX/RED/FEC) before an offer or answer: the
 * standard way, which Chromium and Firefox ≥ 128 implement, so no SDP is rewritten. @param {RTCPeerConnection} pc
 */
function preferCodec(pc) {
  if (!requestedCodec) return;
  const preferred = preferredCodecs(RTCRtpReceiver.getCapabilities('video').codecs, requestedCodec);
  for (const transceiver of pc.getTransceivers()) {
    if (transceiver.receiver.track.kind === 'video') transceiver.setCodecPreferences(preferred);
  }
}

/**
 * The requested scalability mode and the RFC 8867 media source's ceiling on every video sender, once its codec is
 * negotiated. @param {RTCPeerConnection} pc
 */
async function applyVideoEncodings(pc) {
  if (!requestedCodec?.scalabilityMode && !rfc8867Source) return;
  for (const { sender, receiver } of pc.getTransceivers()) {
    const parameters = sender.getParameters();
    if (receiver.track.kind !== 'video' || !parameters.encodings?.length) continue;
    for (const encoding of parameters.encodings) {
      if (requestedCodec?.scalabilityMode) /** @type {any} */ (encoding).scalabilityMode = requestedCodec.scalabilityMode;
      if (rfc8867Source) encoding.maxBitrate = RFC8867_VIDEO.maxKbps * 1000;
    }
    await sender.setParameters(parameters);
  }
}

/**
 * Reports each video direction's codec with a remote when first seen and whenever it changes (the orchestrator checks
 * it against the requested one). @param {string} remote @param {Array<Record<string, any>>} stats
 */
function noteCodecs(remote, stats) {
  const entry = connections.get(remote);
  if (!entry) return;
  for (const [direction, codec] of Object.entries(negotiatedCodecs(stats))) {
    const json = codec && JSON.stringify(codec);
    if (!json || entry.codecs[direction] === json) continue;
    entry.codecs[direction] = json;
    report('codec', { remote, direction, ...codec });
  }
}

/** Until sampling starts (its ticks take over), reads a connected remote's codecs four times a second. */
function watchCodecs(remote, pc) {
  const timer = setInterval(async () => {
    if (sampling || pc.connectionState === 'closed') clearInterval(timer);
    else noteCodecs(remote, [...(await pc.getStats()).values()]);
  }, 250);
}

function connectionTo(remote) {
  let entry = connections.get(remote);
  if (entry) return entry;
  const pc = new RTCPeerConnection({ iceServers: [], bundlePolicy: 'max-bundle' });
  entry = { pc, pending: [], hasRemote: false, videos: [], codecs: {} };
  connections.set(remote, entry);
  pc.onicecandidate = ({ candidate }) => candidate && send({ type: 'candidate', to: remote, candidate: candidate.toJSON() });
  // The set-up milestones (orchestrator/lib/result/setup-breakdown.js): both descriptions set, ICE, DTLS, first RTP, first frame.
  pc.onsignalingstatechange = () => pc.signalingState === 'stable' && report('negotiated', { remote });
  pc.oniceconnectionstatechange = () => report('ice-state', { remote, state: pc.iceConnectionState });
  pc.onconnectionstatechange = () => {
    report('connection-state', { remote, state: pc.connectionState });
    if (pc.connectionState === 'connected') watchCodecs(remote, pc);
  };
  pc.ontrack = ({ track, streams }) => {
    if (track.kind !== 'video') return;
    // A remote track is unmuted when its first RTP packet arrives.
    track.addEventListener('unmute', () => report('first-rtp', { remote }), { once: true });
    const video = document.createElement('video');
    Object.assign(video, { autoplay: true, muted: true, playsInline: true, srcObject: streams[0] });
    document.getElementById('remotes').append(video);
    entry.videos.push(video);
    viewer.watch(video, remote);
    video.requestVideoFrameCallback((now, frame) => report('first-frame', { remote }, decodedEpochMs(now, frame)));
  };
  pc.ondatachannel = ({ channel }) => receiveData(remote, channel);
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
  // A renegotiation (a data channel's) keeps the transport: watched once.
  if (!transport || watchedTransports.has(transport)) return;
  watchedTransports.add(transport);
  transport.addEventListener('statechange', () => report('dtls-state', { remote, state: transport.state }));
}

/**
 * With the RFC 8867 source, a remote description whose video codecs carry its start, minimum and maximum rate
 * (Chromium's sender reads them from the remote description). @param {RTCSessionDescriptionInit} description
 */
const withMediaSource = (description) => (rfc8867Source
  ? { type: description.type, sdp: withVideoBitrates(description.sdp) } : description);

async function applyRemote(remote, description) {
  const entry = connectionTo(remote);
  await entry.pc.setRemoteDescription(withMediaSource(description));
  entry.hasRemote = true;
  for (const candidate of entry.pending.splice(0)) await entry.pc.addIceCandidate(candidate);
  return entry;
}

/** @param {string} remote @param {RTCRtpTransceiverDirection} direction */
async function offerTo(remote, direction) {
  const { pc } = connectionTo(remote);
  for (const kind of ['audio', 'video']) pc.addTransceiver(kind, { direction, streams: [localStream] });
  giveTracks(pc);
  preferCodec(pc);
  await sendOffer(remote, pc);
  await applyVideoEncodings(pc);
  watchDtls(remote, pc);
  if (paused.has(remote)) await setSending(remote, false);
}

/** @param {string} remote @param {RTCPeerConnection} pc */
async function sendOffer(remote, pc) {
  const offer = await pc.createOffer();
  await pc.setLocalDescription(offer);
  send({ type: 'offer', to: remote, sdp: offer.sdp });
}

/**
 * Starts or stops sending media to a remote. Through the encodings' `active` flag: the SSRCs and the encoder stay,
 * and an inactive stream leaves the bitrate allocator, so nothing (no padding either) goes out and the congestion
 * controller sees a real pause. @param {string} remote @param {boolean} active
 */
async function setSending(remote, active) {
  for (const sender of connections.get(remote)?.pc.getSenders() ?? []) {
    const parameters = sender.getParameters();
    if (!parameters.encodings?.length) continue;
    for (const encoding of parameters.encodings) encoding.active = active;
    await sender.setParameters(parameters);
  }
}

// Bulk transfer: 16 KiB messages (well under every browser's SCTP message limit), refilled whenever the channel's
// buffer drains below its low-water mark, up to twice it. The mark follows a quarter second of the rate SCTP took
// in the last interval: enough that SCTP never waits for the page, little enough that a stop takes effect at once.
const DATA_MESSAGE = new Uint8Array(16 * 1024);
const MIN_LOW_WATER_BYTES = 64 * 1024;
const MAX_LOW_WATER_BYTES = 4 * 1024 * 1024;
const DATA_OPEN_TIMEOUT_MS = 10_000;

/** @param {string} remote */
function dataFlowWith(remote) {
  let flow = dataFlows.get(remote);
  if (!flow) dataFlows.set(remote, flow = { sending: [], receiving: [], receivedBytes: 0 });
  return flow;
}

/** Reports a channel's opening and closing, and an error while the call runs. @param {string} remote @param {RTCDataChannel} channel */
function watchChannel(remote, channel) {
  const state = () => report('data-channel', { remote, flow: channel.label, state: channel.readyState });
  channel.addEventListener('open', state);
  channel.addEventListener('close', state);
  channel.addEventListener('error', (/** @type {any} */ event) => {
    if (!stopping) reportError(`data channel ${channel.label} with ${remote}: ${event.error?.message ?? 'error'}`);
  });
}

/** An ordered, reliable channel to a connected remote, sending as fast as SCTP takes it until data-stop. */
async function startData(remote, flowName) {
  const entry = connections.get(remote);
  if (!entry) throw new Error(`no connection to ${remote} to open data channel ${flowName} on`);
  const channel = entry.pc.createDataChannel(flowName, { ordered: true });
  const fill = () => {
    while (!sending.stopped && channel.readyState === 'open' && channel.bufferedAmount < 2 * channel.bufferedAmountLowThreshold) {
      channel.send(DATA_MESSAGE);
      sending.handedBytes += DATA_MESSAGE.byteLength;
    }
  };
  const sending = { channel, handedBytes: 0, stopped: false, fill };
  dataFlowWith(remote).sending.push(sending);
  watchChannel(remote, channel);
  channel.bufferedAmountLowThreshold = MIN_LOW_WATER_BYTES;
  channel.addEventListener('open', fill);
  channel.addEventListener('bufferedamountlow', fill);
  setTimeout(() => {
    if (channel.readyState === 'connecting' && !stopping) reportError(`data channel ${flowName} to ${remote} did not open within ${DATA_OPEN_TIMEOUT_MS / 1000} s`);
  }, DATA_OPEN_TIMEOUT_MS);
  // The connection's first channel adds SCTP to the session: renegotiated here, answered as any offer.
  if (entry.pc.sctp === null) await sendOffer(remote, entry.pc);
}

/** @param {string} remote @param {RTCDataChannel} channel */
function receiveData(remote, channel) {
  const flow = dataFlowWith(remote);
  flow.receiving.push(channel);
  channel.binaryType = 'arraybuffer';
  channel.addEventListener('message', ({ data }) => { flow.receivedBytes += data.byteLength; });
  watchChannel(remote, channel);
}

/**
 * Every data flow's cumulative counters now; a flow whose channels have all closed is read a last time and dropped.
 * @returns {Map<string, import('./stats.js').DataCounters>}
 */
function readDataCounters() {
  const counters = new Map();
  for (const [remote, flow] of dataFlows) {
    // bufferedAmount is not reset when a channel closes: what never left stays out of the count.
    const sentBytes = flow.sending.reduce((sum, { channel, handedBytes }) => sum + handedBytes - channel.bufferedAmount, 0);
    const receivedBytes = flow.receiving.length ? flow.receivedBytes : null;
    counters.set(remote, { sentBytes: flow.sending.length ? sentBytes : null, receivedBytes });
    const channels = [...flow.sending.map(({ channel }) => channel), ...flow.receiving];
    if (channels.every((channel) => channel.readyState === 'closed')) dataFlows.delete(remote);
  }
  return counters;
}

/** @param {string} remote @param {number|null|undefined} sentKbps over the last interval */
function followRate(remote, sentKbps) {
  const lowWaterBytes = Math.min(MAX_LOW_WATER_BYTES, Math.max(MIN_LOW_WATER_BYTES, ((sentKbps ?? 0) * 1000) / 8 / 4));
  for (const { channel, fill } of dataFlows.get(remote)?.sending ?? []) {
    channel.bufferedAmountLowThreshold = lowWaterBytes;
    // 'bufferedamountlow' fires only when the buffer falls through the mark: one raised above the buffer would never
    // fire, and the flow would stall for good (seen as data channels stopping 4-8 s into 5 and 10 Mbps runs).
    if (channel.bufferedAmount <= lowWaterBytes) fill();
  }
}

/** @returns {Promise<Array<[string, import('./stats.js').Snapshot]>>} */
async function snapshotAll() {
  return Promise.all([...connections].map(async ([remote, { pc }]) => {
    const stats = [...(await pc.getStats()).values()];
    noteCodecs(remote, stats);
    return [remote, snapshotFromStats(stats)];
  }));
}

// Ticks are anchored to the orchestrator's media start, so every peer samples at the same instants and
// a slow tick does not push the later ones back.
async function startSampling(mediaStartEpochMs) {
  let previous = new Map(await snapshotAll());
  let previousData = readDataCounters();
  let previousTickMs = performance.now();
  let tick = 1;
  const next = () => {
    sampling = setTimeout(async () => {
      const t = tick++;
      next();
      // The data counters at the tick itself: getStats() below takes a while.
      const dataCounters = readDataCounters();
      const dataIntervalS = (performance.now() - previousTickMs) / 1000;
      previousTickMs = performance.now();
      const dataBefore = previousData;
      previousData = dataCounters;
      const snapshots = await snapshotAll();
      const before = previous;
      previous = new Map(snapshots);
      for (const [remote, snapshot] of snapshots) {
        const counters = dataCounters.get(remote);
        const data = counters && dataMetrics(dataBefore.get(remote) ?? null, counters, dataIntervalS);
        if (data) followRate(remote, data.sentKbps);
        const last = before.get(remote);
        if (!last || snapshot.timestampMs <= last.timestampMs) continue;
        send({ type: 'stats', sample: { t, peer, remote, ...intervalMetrics(last, snapshot), ...(data ? { data } : {}) } });
      }
    }, Math.max(0, mediaStartEpochMs + tick * sampleIntervalMs - Date.now()));
  };
  next();
}

const handlers = {
  async joined({ peers }) {
    // The codec problem is reported once the socket is open: no connection is made.
    if (await codecProblem) return;
    if (sfu) {
      setStatus(`joined room ${room}; publishing to ${sfu}`);
      await offerTo(sfu, 'sendonly');
      return;
    }
    const callees = peers.filter((remote) => !callAtJoin || callAtJoin.includes(remote));
    setStatus(`joined room ${room}; calling ${callees.join(', ') || 'nobody yet'}`);
    for (const remote of callees) await offerTo(remote, 'sendrecv');
  },
  async offer({ from, sdp }) {
    if (hungUp.has(from) || await codecProblem) return;
    const { pc } = await applyRemote(from, { type: 'offer', sdp });
    // An SFU's offer only delivers a remote's stream: the answer receives (the page publishes on its own connection).
    if (!sfu) {
      for (const transceiver of pc.getTransceivers()) {
        transceiver.direction = directions.get(from) ?? 'sendrecv';
        transceiver.sender.setStreams(localStream);
      }
      giveTracks(pc);
    }
    preferCodec(pc);
    const answer = await pc.createAnswer();
    await pc.setLocalDescription(answer);
    await applyVideoEncodings(pc);
    watchDtls(from, pc);
    send({ type: 'answer', to: from, sdp: answer.sdp });
    if (paused.has(from)) await setSending(from, false);
  },
  async answer({ from, sdp }) {
    if (!hungUp.has(from)) await applyRemote(from, { type: 'answer', sdp });
  },
  async candidate({ from, candidate }) {
    if (hungUp.has(from)) return;
    const entry = connectionTo(from);
    if (entry.hasRemote) await entry.pc.addIceCandidate(candidate);
    else entry.pending.push(candidate);
  },
  async start({ mediaStartEpochMs }) {
    setStatus('in call, sampling');
    await startSampling(mediaStartEpochMs);
  },
  // An extra call: the answerer only learns the direction; the offerer calls. Forward: the offerer only sends.
  async call({ remote, direction, role }) {
    hungUp.delete(remote);
    directions.set(remote, direction === 'both' ? 'sendrecv' : role === 'offerer' ? 'sendonly' : 'recvonly');
    setStatus(`extra call with ${remote} (${direction}, ${role})`);
    if (role === 'offerer') await offerTo(remote, directions.get(remote));
  },
  'hang-up': ({ remote }) => {
    const entry = connections.get(remote);
    hungUp.add(remote);
    connections.delete(remote);
    directions.delete(remote);
    paused.delete(remote);
    entry?.pc.close();
    for (const video of entry?.videos ?? []) video.remove();
    setStatus(`hung up on ${remote}`);
  },
  async pause({ remote }) {
    paused.add(remote);
    await setSending(remote, false);
  },
  async resume({ remote }) {
    paused.delete(remote);
    await setSending(remote, true);
  },
  'data-start': ({ remote, flow }) => startData(remote, flow),
  'data-stop': ({ remote, flow }) => {
    for (const sending of dataFlows.get(remote)?.sending ?? []) {
      if (sending.channel.label !== flow) continue;
      sending.stopped = true;
      sending.channel.close();
    }
  },
  async stop() {
    stopping = true;
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
  send({ type: 'join', room, peer, ...(secret ? { secret } : {}) });
  const problem = await codecProblem;
  if (problem) reportError(problem);
  try {
    const settings = (await localMedia).getVideoTracks()[0]?.getSettings();
    // Plain values only: the server accepts a flat object, whatever a newer browser adds to the settings.
    const video = settings ? Object.fromEntries(Object.entries(settings).filter(([, value]) => ['number', 'string', 'boolean'].includes(typeof value))) : null;
    report('media-ready', { video }, mediaReadyEpochMs);
  } catch (error) {
    const what = params.get('source') === 'media-element' ? `media element ${params.get('media')}` : 'getUserMedia';
    reportError(`${what}: ${error.name}: ${error.message}${error.constraint ? ` (constraint ${error.constraint})` : ''}`);
  }
};
