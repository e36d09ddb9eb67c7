// The page side of bench/frames-as-seen.js: functions Puppeteer serialises into each browser's page, so each is
// self-contained (no module scope) and keeps its state on `window.bench`. A page may send (its fake camera, with the
// microphone if asked, and a local preview if asked), receive (a muted autoplay <video> of the remote stream, as
// client-app/app.js shows it), or both.

/**
 * @typedef {object} PeerOptions
 * @property {boolean} send     sends its camera
 * @property {boolean} audio    sends its microphone too, in the same stream (a run's page does: A/V sync applies)
 * @property {boolean} preview  shows its own camera in a muted <video>, as a run's page does
 * @property {boolean} styled   the run's page style: videos at 45 % of the page width (scaled by the compositor)
 */

/**
 * What one phase saw at a receiver.
 * @typedef {object} Seen
 * @property {number} callbacks   requestVideoFrameCallback calls
 * @property {number} presented   presentedFrames advanced by
 * @property {number} codes       changes of the frame code read (reader modes)
 * @property {number} captures
 * @property {number} total       getVideoPlaybackQuality().totalVideoFrames advanced by (frames the <video> got)
 * @property {number} dropped     droppedVideoFrames advanced by (frames replaced before the compositor showed them)
 * @property {number[]} arrivalsMs  (mode `arrivals`) when each decoded frame reached the page, from a track reader
 */

/**
 * Camera (and microphone), preview, style, and the RTCPeerConnection whose remote video goes to a <video>.
 * @param {PeerOptions} options
 */
export async function preparePeer({ send, audio, preview, styled }) {
  // The page is a script's text, loaded for its origin: cleared, so the videos are on screen (an offscreen <video>
  // calls back every frame while the compositor draws none of them).
  document.body.replaceChildren();
  if (styled) document.head.append(Object.assign(document.createElement('style'), { textContent: 'video { width: 45%; }' }));
  const stream = send ? await navigator.mediaDevices.getUserMedia({ video: true, audio }) : null;
  if (stream && preview) Object.assign(document.body.appendChild(document.createElement('video')), { muted: true, autoplay: true, srcObject: stream });
  const pc = new RTCPeerConnection({ bundlePolicy: 'max-bundle' });
  // any: the bench's own page global, unknown to the DOM types
  const bench = /** @type {any} */ (window).bench = {
    pc, stream, track: stream?.getVideoTracks()[0], video: /** @type {HTMLVideoElement|null} */ (null),
  };
  pc.ontrack = ({ track, streams }) => {
    if (track.kind !== 'video') return;
    bench.video = Object.assign(document.body.appendChild(document.createElement('video')), { muted: true, autoplay: true, srcObject: streams[0] });
  };
}

/**
 * Sets the remote description if given (then an answer, else an offer), adds the page's tracks (to the offer's
 * transceivers when answering) and waits for ICE gathering: every candidate is in the returned description.
 * @param {RTCSessionDescriptionInit|null} remote
 */
export async function describeLocal(remote) {
  // any: the bench's own page global, unknown to the DOM types
  const { pc, stream } = /** @type {{ pc: RTCPeerConnection, stream: MediaStream|null }} */ (/** @type {any} */ (window).bench);
  if (remote) await pc.setRemoteDescription(remote);
  if (stream) for (const track of stream.getTracks()) pc.addTrack(track, stream);
  const gathered = new Promise((resolve) => { pc.onicegatheringstatechange = () => pc.iceGatheringState === 'complete' && resolve(undefined); });
  await pc.setLocalDescription(remote ? await pc.createAnswer() : await pc.createOffer());
  await gathered;
  if (!pc.localDescription) throw new Error('no local description after setLocalDescription: see the browser log');
  return pc.localDescription.toJSON();
}

/** @param {RTCSessionDescriptionInit} answer */
export async function acceptAnswer(answer) {
  // any: the bench's own page global, unknown to the DOM types
  await /** @type {any} */ (window).bench.pc.setRemoteDescription(answer);
}

/**
 * getStats counters of the page's video streams, summed over its reports of `type`.
 * @param {string} type @param {string[]} names
 */
export async function videoCounters(type, names) {
  /** @type {Record<string, number>} */
  const totals = Object.fromEntries(names.map((name) => [name, 0]));
  // any: the bench's own page global, unknown to the DOM types
  const { pc } = /** @type {{ pc: RTCPeerConnection }} */ (/** @type {any} */ (window).bench);
  (await pc.getStats()).forEach((report) => {
    if (report.type === type && (report.kind ?? 'video') === 'video') for (const name of names) totals[name] += report[name] ?? 0;
  });
  return totals;
}

/** The sender's camera read by the frame reader, as a run's page does. */
export async function startCameraReader() {
  const { createFrameReader } = await import(/** @type {string} */ ('/frame-reader.js'));
  // any: the bench's own page global, unknown to the DOM types
  const bench = /** @type {any} */ (window).bench;
  bench.stopCamera = createFrameReader().watchCamera(bench.track, document.createElement('video'));
}

/**
 * Starts a phase's watchers on the received <video>: requestVideoFrameCallback counts, and per mode the frame
 * reader (`codes`, `captures`: one a second as a run does) or a track reader timing each decoded frame (`arrivals`).
 * @param {string} mode
 */
export async function startWatching(mode) {
  // any: the bench's own page global, unknown to the DOM types
  const bench = /** @type {any} */ (window).bench;
  const video = /** @type {HTMLVideoElement} */ (bench.video);
  const quality = video.getVideoPlaybackQuality();
  // codes: changes of the code read (distinct pictures; the source loops, so a set of codes would saturate).
  const count = { callbacks: 0, presented: 0, codes: 0, lastCode: -1, captures: 0, arrivalsMs: /** @type {number[]} */ ([]) };
  /** @type {number | null} */
  let last = null;
  let watching = true;
  /** @param {DOMHighResTimeStamp} _now @param {VideoFrameCallbackMetadata} frame */
  const onFrame = (_now, frame) => {
    if (!watching) return;
    count.callbacks += 1;
    if (last !== null) count.presented += frame.presentedFrames - last;
    last = frame.presentedFrames;
    video.requestVideoFrameCallback(onFrame);
  };
  video.requestVideoFrameCallback(onFrame);
  const stops = [() => { watching = false; }];
  if (mode === 'codes' || mode === 'captures') {
    const { createFrameReader } = await import(/** @type {string} */ ('/frame-reader.js'));
    const reader = createFrameReader();
    reader.setCaptureEvery(mode === 'captures' ? 30 : 1e9);
    stops.push(reader.watch(video, 'remote'));
    // Drained once a second, as the orchestrator does.
    const timer = setInterval(() => {
      const { frames, captures } = reader.drain();
      for (const code of frames.remote?.codes ?? []) {
        if (code >= 0 && code !== count.lastCode) count.codes += 1;
        if (code >= 0) count.lastCode = code;
      }
      count.captures += captures.length;
    }, 1000);
    stops.push(() => clearInterval(timer));
  }
  if (mode === 'arrivals') {
    // A second sink on a clone of the remote track: it gets every decoded frame when the <video> does.
    const track = /** @type {MediaStream} */ (video.srcObject).getVideoTracks()[0].clone();
    // any: MediaStreamTrackProcessor is missing from TypeScript's DOM types
    const reader = new (/** @type {any} */ (window).MediaStreamTrackProcessor)({ track }).readable.getReader();
    const read = async () => {
      for (let next = await reader.read(); !next.done && watching; next = await reader.read()) {
        count.arrivalsMs.push(performance.now());
        next.value.close();
      }
    };
    read();
    stops.push(() => { reader.cancel(); track.stop(); });
  }
  bench.stopWatching = () => {
    for (const stop of stops) stop();
    const now = video.getVideoPlaybackQuality();
    return {
      callbacks: count.callbacks, presented: count.presented, codes: count.codes, captures: count.captures, arrivalsMs: count.arrivalsMs,
      total: now.totalVideoFrames - quality.totalVideoFrames, dropped: now.droppedVideoFrames - quality.droppedVideoFrames,
    };
  };
}
