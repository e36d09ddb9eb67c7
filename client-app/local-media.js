// The media a page sends: the browser's fake camera and microphone (Chromium reads the orchestrator's files itself),
// or the orchestrator's WebM looping in a <video> whose captureStream() is sent (Firefox has no file-backed fake devices).

/**
 * @param {{ mediaElementUrl: string|null, videoConstraints: MediaTrackConstraints|true }} options  mediaElementUrl:
 *   with `source=media-element`, the WebM the signaling server serves for this peer
 * @returns {Promise<MediaStream>}
 */
export async function captureLocalMedia({ mediaElementUrl, videoConstraints }) {
  if (mediaElementUrl === null) return navigator.mediaDevices.getUserMedia({ audio: true, video: videoConstraints });
  const source = document.createElement('video');
  // Not muted: a muted element's captured audio track is silent. The page's own output goes nowhere (headless).
  Object.assign(source, { src: mediaElementUrl, loop: true, playsInline: true, preload: 'auto' });
  source.id = 'source';
  document.body.append(source);
  await source.play();
  // any: captureStream (mozCaptureStream in Firefox) is missing from TypeScript's DOM types.
  const capture = /** @type {any} */ (source).captureStream ?? /** @type {any} */ (source).mozCaptureStream;
  return capture.call(source);
}

/**
 * What a failed capture says: its name and message, and the constraint an OverconstrainedError could not meet.
 * @param {unknown} error @returns {string}
 */
export function describeMediaError(error) {
  const { name, message, constraint } = /** @type {Partial<Error> & { constraint?: string }} */ (error);
  return `${name}: ${message}${constraint ? ` (constraint ${constraint})` : ''}`;
}
