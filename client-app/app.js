// One peer of a test call: fake-device media, negotiation through the signaling server, and a drift-free
// 1 s getStats() sampler whose per-interval values stream to the orchestrator over the same WebSocket. During the
// call the orchestrator's commands (signaling/messages.js COMMAND_TYPES) start and end extra calls and bulk data flows.
import { createSteering } from './candidate-steering.js';
import { createCodecNotes } from './codec-notes.js';
import { applyVideoEncodings, checkCodec, preferCodec } from './codec-setup.js';
import { createDataFlows } from './data-flows.js';
import { iceConfig } from './ice-config.js';
import { negotiatedDescription } from './negotiation.js';
import { createFrameReader, decodedEpochMs, readsCameraFromTrack } from './frame-reader.js';
import { watchIce } from './ice-restart.js';
import { captureLocalMedia, describeMediaError } from './local-media.js';
import { encodingCounters, readPublish, sendEncodingsOf } from './publish.js';
import { startSampler } from './sampler.js';
import { snapshotFromStats } from './stats.js';
import { SCREEN_SUFFIX, createScreenShare } from './screen-share.js';

/** @typedef {import('../signaling/messages.js').Command} Command */

const params = new URLSearchParams(location.search);
/** A parameter the orchestrator's page URL always carries (orchestrator/lib/system/peer-secrets.js pageUrl). @param {string} name */
const required = (name) => params.get(name) ?? fail(`the page's URL lacks ${name}=; open the page through the orchestrator`);
/** An element of index.html. @param {string} id */
const element = (id) => document.getElementById(id) ?? fail(`index.html lacks #${id}`);
/** @param {string} message @returns {never} */
function fail(message) { throw new Error(message); }
// The page's secret for its join (orchestrator/lib/system/peer-secrets.js) is the URL's fragment, which no HTTP request
// carries. Out of the address at once, so no error, stack or later look at the URL can quote it.
// An SFU that the page signals to itself (LiveKit) has its access token there too, after a `~`.
// And a scenario's TURN server's credential, third (ice-config.js).
const [secret, sfuToken, turnCredential] = location.hash.slice(1).split('~');
if (secret) history.replaceState(null, '', `${location.pathname}${location.search}`);
const peer = required('peer');
const room = required('room');
const sampleIntervalMs = Number(params.get('sampleIntervalMs') ?? 1000);
// In an SFU call: the SFU node's name and how the page reaches it (orchestrator/sfu/contract.js SfuPageConfig):
// `signaling`, it publishes once, to the node, and every remote's stream arrives as an offer from that remote through
// the orchestrator's bridge; `livekit`, livekit-client (livekit-session.js). Without it the page calls every peer (a mesh).
const [sfu, sfuProtocol] = [params.get('sfu'), params.get('sfuProtocol') ?? 'signaling'];
// The peers this page calls once it joins (those already there); without it, every peer. An extra call's peers get
// none: they call when the orchestrator says so.
const callAtJoin = params.get('callAtJoin')?.split(',').filter(Boolean) ?? null;
const codecParam = params.get('codec');
/**
 * The video codec every connection must use (orchestrator/lib/media/codec.js normalizeCodec), or null: the browser's choice.
 * @type {import('./codec.js').RequestedCodec|null}
 */
const requestedCodec = codecParam === null ? null : JSON.parse(codecParam);
/** In an SFU call: simulcast or SVC (client-app/publish.js), on the connection to the SFU; null: one encoding. */
const publish = readPublish(params.get('publish'));
/** RFC 8867 §4.3's video rates (`rfc8867`, client-app/media-source.js) or the browser's own (`browser`, the default). */
const rfc8867Source = params.get('mediaSource') === 'rfc8867';
/** Receive-side bandwidth estimation (REMB) instead of the browser's transport-wide feedback (bandwidth-estimation.js). */
const rembOnly = params.get('bandwidthEstimation') === 'remb';
/** getUserMedia's video constraints for a constrained device (orchestrator/lib/devices/devices.js videoConstraints). */
const constraintsParam = params.get('videoConstraints');
/** @type {MediaTrackConstraints|true} */
const videoConstraints = constraintsParam === null ? true : JSON.parse(constraintsParam);
const statusEl = element('status');

const ws = new WebSocket(required('signal'));
/** @param {object} message */
const send = (message) => ws.readyState === WebSocket.OPEN && ws.send(JSON.stringify(message));
/** @param {string} type @param {object} [data] @param {number} [epochMs] when it happened, if not now */
const report = (type, data = {}, epochMs = Date.now()) => send({ type: 'event', event: { type, peer, epochMs, ...data } });
/** @param {string} text */
const setStatus = (text) => { statusEl.textContent = `${peer}: ${text}`; };

// The server refuses longer texts (signaling/messages.js MAX_EVENT_TEXT_CHARS); the start of a stack says enough.
/** @param {unknown} message */
const reportError = (message) => report('error', { message: String(message).slice(0, 4096) });
window.addEventListener('error', (e) => reportError(e.message));
window.addEventListener('unhandledrejection', (e) => reportError(e.reason?.stack ?? e.reason));

/** @typedef {{ pc: RTCPeerConnection, pending: RTCIceCandidateInit[], hasRemote: boolean, videos: HTMLVideoElement[] }} Connection */
const connections = /** @type {Map<string, Connection>} */ (new Map());
/** The media direction of an extra call, from its `call` command; else sendrecv. */
const directions = /** @type {Map<string, RTCRtpTransceiverDirection>} */ (new Map());
/** Remotes whose media this page does not send right now (a `pause` command, or held from the start: URL `hold`). */
const paused = new Set(params.get('hold')?.split(',').filter(Boolean) ?? []);
/** Remotes of extra calls that ended: their late messages must not open a new connection. */
const hungUp = new Set();
/** Set when the call ends: errors of channels torn down with their connection are expected then. */
let stopping = false;
/** Bulk data flows by remote (the orchestrator's data-start and data-stop). */
const dataFlows = createDataFlows({ report, reportError, isStopping: () => stopping, renegotiate: (remote, pc) => sendOffer(remote, pc) });
const watchedTransports = new WeakSet();
// Media is requested at load and the page joins as soon as the socket opens, without waiting for it: the server
// only hears events from a joined socket, and a page whose getUserMedia fails must still be able to say so.
// Negotiation, ICE and DTLS do not wait for it either: the senders get their tracks when getUserMedia resolves.
/** What every connection sends; the tracks join it when getUserMedia resolves. */
const localStream = new MediaStream();
/** When getUserMedia resolved: reported once the socket is open, which may be later. */
let mediaReadyEpochMs = 0;
/** An SFU room's load participants: the viewer does not read their frames; with sfuThumbnails LiveKit sends their lowest layer. */
const loadRemotes = params.get('loadRemotes')?.split(',').filter(Boolean) ?? [];
/** Reads the frame code of every frame the local and remote videos show; the orchestrator drains it. */
const viewer = createFrameReader({ unread: loadRemotes });
/** With `source=media-element`, the WebM that this page plays and sends (Firefox); else the fake devices (Chromium). */
const mediaElementUrl = params.get('source') === 'media-element' ? required('media') : null;
/** The screens shared in a mesh call (screen-share.js): who shares, and this page's slides if it does. */
const screen = createScreenShare(params, peer);
const localMedia = Promise.all([captureLocalMedia({ mediaElementUrl, videoConstraints }), screen.track]).then(([stream]) => {
  mediaReadyEpochMs = Date.now();
  for (const track of stream.getTracks()) localStream.addTrack(track);
  for (const { pc } of connections.values()) giveTracks(pc);
  // The reader sees the camera's frames on its track, else where they are shown: the element whose captureStream() it is
  // (Firefox), or the preview, played only then (it cost the remote video 3-4 frames a second: reproductions.md).
  const source = /** @type {HTMLVideoElement|null} */ (document.getElementById('source'));
  const local = /** @type {HTMLVideoElement} */ (element('local'));
  if (source || readsCameraFromTrack()) local.hidden = true; else local.srcObject = stream;
  viewer.watchCamera(stream.getVideoTracks()[0], source ?? local);
  const microphone = stream.getAudioTracks()[0];
  if (microphone) lipSync?.then((sync) => sync.watch(microphone, 'local')).catch(reportError);
  return stream;
});
const audioRecorder = params.get('audioQuality') === null ? null : import('./audio-recorder.js').then((m) => m.createAudioRecorder());
/** The lip-sync marks' tone onsets in what this page plays and captures, when the run measures lip sync (URL: the tone's Hz). */
const lipSync = params.get('lipSync') === null ? null : import('./lip-sync.js').then((m) => m.createLipSync(Number(params.get('lipSync'))));
/** A remote's audio track: recorded, heard for lip sync, as the run asks. @param {MediaStreamTrack} track @param {string} remote */
const recordAudio = (track, remote) => [audioRecorder, lipSync].forEach((on) => on?.then((l) => l.watch(track, remote)).catch(reportError));
// Diagnostics hook for tests and --headful debugging (e.g. evaluating other stats libraries against ours); the
// orchestrator drains `viewer`, `audio` (what the page plays out, recorded only when the run scores it) and `lipSync`.
/** @type {any} */ (window).testbed = { connections, viewer, audio: audioRecorder, lipSync }; // any: the page's own property, for tests
/** @type {{ stop: () => void }|undefined} the 1 s sampler, once the call started */
let sampling;
/** @type {Awaited<ReturnType<typeof import('./livekit-session.js').joinLivekit>>|undefined} its LiveKit room (sfuProtocol livekit) */
let livekit;
/** An SFU call whose pages signal to the SFU themselves: their candidates still cross the harness (candidate-steering.js). */
const steering = createSteering(send, reportError);
/** The codecs each connection uses, reported to the orchestrator when they change. */
const codecNotes = createCodecNotes(report);
/** Why this browser cannot use the requested codec (reported once joined: the run fails before the call), or null. */
const codecProblem = checkCodec(requestedCodec ?? publish?.codec ?? null);

/** The connection to a remote, made on first use. @param {string} remote */
function connectionTo(remote) {
  const entry = connections.get(remote);
  if (entry) return entry;
  const pc = new RTCPeerConnection({ ...iceConfig(params, turnCredential), bundlePolicy: 'max-bundle' });
  /** @type {Connection} */
  const connection = { pc, pending: [], hasRemote: false, videos: [] };
  connections.set(remote, connection);
  pc.onicecandidate = ({ candidate }) => candidate && send({ type: 'candidate', to: remote, candidate: candidate.toJSON() });
  // The set-up milestones (orchestrator/lib/result/setup-breakdown.js): both descriptions set, ICE, DTLS, first RTP, first frame.
  pc.onsignalingstatechange = () => pc.signalingState === 'stable' && report('negotiated', { remote });
  watchIce(remote, pc, { report, renegotiate: sendOffer, reportError, restart: !sfu });
  pc.onconnectionstatechange = () => {
    report('connection-state', { remote, state: pc.connectionState });
    if (pc.connectionState === 'connected') codecNotes.watch(remote, pc, () => sampling !== undefined);
  };
  pc.ontrack = ({ track, streams, transceiver }) => {
    if (track.kind === 'audio') recordAudio(track, remote);
    if (track.kind !== 'video') return;
    // A remote track is unmuted when its first RTP packet arrives. The set-up milestones are the camera's, not a screen's.
    const shared = screen.transceiverOf(pc) === transceiver;
    if (!shared) track.addEventListener('unmute', () => report('first-rtp', { remote }), { once: true });
    const video = document.createElement('video');
    // Unmuted for speaking turns: getStats' received audio energy is measured after the element's volume (muted reads 0).
    Object.assign(video, { autoplay: true, muted: shared || params.get('playAudio') === null, playsInline: true, srcObject: streams[0] });
    element('remotes').append(video);
    connection.videos.push(video);
    viewer.watch(video, shared ? `${remote}${SCREEN_SUFFIX}` : remote);
    if (!shared) video.requestVideoFrameCallback((now, frame) => report('first-frame', { remote }, decodedEpochMs(now, frame)));
  };
  pc.ondatachannel = ({ channel }) => dataFlows.receive(remote, channel);
  return connection;
}

/** Puts the local tracks (if getUserMedia has resolved) on the senders of their kind. @param {RTCPeerConnection} pc */
function giveTracks(pc) {
  for (const transceiver of pc.getTransceivers()) {
    const { sender, receiver } = transceiver;
    const track = screen.sourceOf(pc, transceiver, localStream).getTracks().find((candidate) => candidate.kind === receiver.track.kind);
    if (track && sender.track !== track) sender.replaceTrack(track);
  }
}

/**
 * The DTLS transport exists once the local description is set; with max-bundle every sender shares it.
 * @param {string} remote @param {RTCPeerConnection} pc
 */
function watchDtls(remote, pc) {
  const transport = pc.getSenders()[0]?.transport;
  // A renegotiation (a data channel's) keeps the transport: watched once.
  if (!transport || watchedTransports.has(transport)) return;
  watchedTransports.add(transport);
  transport.addEventListener('statechange', () => report('dtls-state', { remote, state: transport.state }));
}

/** @param {string} remote @param {RTCSessionDescriptionInit} description */
async function applyRemote(remote, description) {
  const entry = connectionTo(remote);
  await entry.pc.setRemoteDescription(negotiatedDescription(description, { rfc8867Source, rembOnly }));
  entry.hasRemote = true;
  for (const candidate of entry.pending.splice(0)) await entry.pc.addIceCandidate(candidate);
  return entry;
}

/** @param {string} remote @param {RTCRtpTransceiverDirection} direction */
async function offerTo(remote, direction) {
  const { pc } = connectionTo(remote);
  // Only the SFU connection publishes with layers; the codec goes with them.
  const layers = remote === sfu ? publish : null;
  for (const kind of ['audio', 'video']) pc.addTransceiver(kind, { direction, streams: [localStream], ...sendEncodingsOf(kind, layers) });
  screen.offer(pc, remote);
  giveTracks(pc);
  preferCodec(pc, requestedCodec ?? layers?.codec ?? null);
  await sendOffer(remote, pc);
  await applyVideoEncodings(pc, requestedCodec ?? layers?.codec ?? null, rfc8867Source);
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

/** @returns {Promise<Array<[string, import('./stats.js').Snapshot]>>} */
async function snapshotAll() {
  /** @type {(entry: [string, Connection]) => Promise<[string, Array<Record<string, unknown>>]>} */
  const read = async ([remote, { pc }]) => [remote, [...(await pc.getStats()).values()]];
  const legs = livekit ? await livekit.reports() : await Promise.all([...connections].map(read));
  return legs.map(([remote, stats]) => {
    codecNotes.note(remote, stats, livekit ? undefined : connections.get(remote)?.pc);
    const encodings = publish && remote === sfu ? encodingCounters(stats) : null;
    const snapshot = snapshotFromStats(stats, screen.midOf(connections.get(remote)?.pc));
    return /** @type {[string, import('./stats.js').Snapshot]} */ ([remote, { ...snapshot, encodings }]);
  });
}

/**
 * @typedef {{ remote: string }} CommandOf  a command's fields besides its type (signaling/messages.js Command)
 * @typedef {{ from: string, sdp: string }} DescriptionFrom  an offer or answer from a remote (or the SFU's bridge)
 */

/** What the page does with each message the server sends it. Untrusted input stops at the server: these are checked there. */
const handlers = {
  /** @param {{ peers: string[] }} message  the peers already in the room */
  async joined({ peers }) {
    // The codec problem is reported once the socket is open: no connection is made.
    if (await codecProblem) return;
    if (sfu && sfuProtocol === 'livekit') {
      // Loaded only here: livekit-client is served in LiveKit runs alone.
      const { joinLivekit } = await import('./livekit-session.js');
      steering.install();
      const hooks = { sfu, report, watchVideo: viewer.watch, watchAudio: recordAudio };
      const thumbnails = params.get('sfuThumbnails') === null ? [] : loadRemotes;
      livekit = await joinLivekit({ url: required('sfuUrl'), token: sfuToken ?? '', thumbnails }, await localMedia, hooks, publish);
      return;
    }
    if (sfu && sfuProtocol !== 'signaling') throw new Error(`SFU protocol ${sfuProtocol}: this page speaks signaling and livekit only`);
    if (sfu) {
      setStatus(`joined room ${room}; publishing to ${sfu}`);
      await offerTo(sfu, 'sendonly');
      return;
    }
    const callees = peers.filter((remote) => !callAtJoin || callAtJoin.includes(remote));
    setStatus(`joined room ${room}; calling ${callees.join(', ') || 'nobody yet'}`);
    for (const remote of callees) await offerTo(remote, 'sendrecv');
  },
  /** @param {DescriptionFrom} message */
  async offer({ from, sdp }) {
    if (hungUp.has(from) || await codecProblem) return;
    const { pc } = await applyRemote(from, { type: 'offer', sdp });
    // An SFU's offer only delivers a remote's stream: the answer receives (the page publishes on its own connection).
    if (!sfu) {
      for (const transceiver of pc.getTransceivers()) {
        transceiver.direction = directions.get(from) ?? 'sendrecv';
        transceiver.sender.setStreams(localStream);
      }
      screen.answer(pc, from);
      giveTracks(pc);
    }
    preferCodec(pc, requestedCodec);
    const answer = await pc.createAnswer();
    await pc.setLocalDescription(answer);
    await applyVideoEncodings(pc, requestedCodec, rfc8867Source);
    watchDtls(from, pc);
    send({ type: 'answer', to: from, sdp: answer.sdp });
    if (paused.has(from)) await setSending(from, false);
  },
  /** @param {DescriptionFrom} message */
  async answer({ from, sdp }) {
    if (!hungUp.has(from)) await applyRemote(from, { type: 'answer', sdp });
  },
  /** @param {{ from: string, candidate: RTCIceCandidateInit }} message */
  async candidate({ from, candidate }) {
    if (hungUp.has(from)) return;
    const entry = connectionTo(from);
    if (entry.hasRemote) await entry.pc.addIceCandidate(candidate);
    else entry.pending.push(candidate);
  },
  /** @param {{ mediaStartEpochMs: number }} message */
  async start({ mediaStartEpochMs }) {
    setStatus('in call, sampling');
    sampling = await startSampler({
      mediaStartEpochMs, intervalMs: sampleIntervalMs, snapshotAll, dataFlows,
      sendSample: (t, remote, metrics) => send({ type: 'stats', sample: { t, peer, remote, ...metrics } }),
    });
  },
  // An extra call: the answerer only learns the direction; the offerer calls. Forward: the offerer only sends.
  /** @param {Extract<Command, { type: 'call' }>} command */
  async call({ remote, direction, role }) {
    hungUp.delete(remote);
    const mediaDirection = direction === 'both' ? 'sendrecv' : role === 'offerer' ? 'sendonly' : 'recvonly';
    directions.set(remote, mediaDirection);
    setStatus(`extra call with ${remote} (${direction}, ${role})`);
    if (role === 'offerer') await offerTo(remote, mediaDirection);
  },
  /** @param {CommandOf} command */
  'hang-up': ({ remote }) => {
    const entry = connections.get(remote);
    hungUp.add(remote);
    connections.delete(remote);
    directions.delete(remote);
    paused.delete(remote);
    codecNotes.forget(remote);
    entry?.pc.close();
    for (const video of entry?.videos ?? []) video.remove();
    setStatus(`hung up on ${remote}`);
  },
  /** @param {CommandOf} command */
  async pause({ remote }) {
    paused.add(remote);
    await setSending(remote, false);
  },
  /** @param {CommandOf} command */
  async resume({ remote }) {
    paused.delete(remote);
    await setSending(remote, true);
  },
  /** A channel to a connected remote, sending until data-stop (data-flows.js). @param {CommandOf & { flow: string }} command */
  'data-start': ({ remote, flow }) => {
    const entry = connections.get(remote);
    if (!entry) throw new Error(`no connection to ${remote} to open data channel ${flow} on`);
    return dataFlows.start(remote, flow, entry.pc);
  },
  /** @param {CommandOf & { flow: string }} command */
  'data-stop': ({ remote, flow }) => dataFlows.stop(remote, flow),
  async stop() {
    stopping = true;
    sampling?.stop();
    for (const { pc } of connections.values()) pc.close();
    await livekit?.close();
    setStatus('stopped');
  },
  /** @param {{ id: number, candidate: RTCIceCandidateInit|null }} message  the harness's answer to a `steer` */
  steered: (message) => steering.settle(message),
  /** @param {{ peer: string }} message */
  'peer-joined': ({ peer: remote }) => setStatus(`${remote} joined`),
  /** @param {{ error: string }} message  why the server refused what this page sent */
  error: ({ error }) => reportError(`signaling: ${error}`),
};

/** @param {MessageEvent<string>} event */
ws.onmessage = async ({ data }) => {
  const message = JSON.parse(data);
  if (!Object.hasOwn(handlers, message.type)) return;
  try {
    // The server's message of this type has the shape its handler takes.
    await /** @type {(message: unknown) => unknown} */ (handlers[/** @type {keyof typeof handlers} */ (message.type)])(message);
  } catch (error) {
    reportError(`${message.type}: ${/** @type {Partial<Error>} */ (error).stack ?? error}`);
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
    const what = mediaElementUrl === null ? 'getUserMedia' : `media element ${mediaElementUrl}`;
    reportError(`${what}: ${describeMediaError(error)}`);
  }
};
