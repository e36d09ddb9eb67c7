// Lip sync (URL `lipSync`): when each lip-sync mark's tone starts in the audio this page plays out of each remote's
// track, and in its own microphone's track (source 'local': the sender's capture), on the shared clock the frame
// reader stamps the pictures with (performance.timeOrigin + the page's clock). The orchestrator pairs each onset with
// the time the mark's frame was shown (orchestrator/lib/audio/lip-sync.js). A remote track plays in a muted <audio>
// element, as a call's page plays it (Chromium feeds a remote track to Web Audio only while an element plays it); an
// AudioWorklet (lip-sync-worklet.js) taps the same track and finds the tone; an onset's time is when its sample
// leaves the audio graph (getOutputTimestamp), as audio-recorder.js dates its samples.
/** Onsets kept per source between drains (one every 2 s): beyond it the oldest are dropped and counted. */
const MAX_BUFFERED_ONSETS = 100;

/** @param {number} toneHz  the marks' tone (the URL's `lipSync`) */
export function createLipSync(toneHz) {
  const context = new AudioContext({ sampleRate: 48000 });
  const ready = context.audioWorklet.addModule(new URL('./lip-sync-worklet.js', import.meta.url));
  const silent = context.createGain();
  silent.gain.value = 0;
  silent.connect(context.destination);
  /** @type {Map<string, { onsetsEpochMs: number[], droppedOnsets: number }>} */
  const sources = new Map();

  /** @param {number} frame an audio context frame @returns {number} its epoch time, 0.1 ms */
  const epochMsOf = (frame) => {
    const { contextTime = 0, performanceTime = 0 } = context.getOutputTimestamp();
    return Math.round((performance.timeOrigin + performanceTime + (frame / context.sampleRate - contextTime) * 1000) * 10) / 10;
  };

  /**
   * Listens to a track for the marks' tone (its first track per source).
   * @param {MediaStreamTrack} track @param {string} source  a remote's name, or 'local' for the microphone
   */
  async function watch(track, source) {
    if (sources.has(source)) return;
    const onsets = { onsetsEpochMs: /** @type {number[]} */ ([]), droppedOnsets: 0 };
    sources.set(source, onsets);
    const stream = new MediaStream([track]);
    if (source !== 'local') Object.assign(new Audio(), { muted: true, autoplay: true, srcObject: stream });
    await ready;
    if (context.state !== 'running') await context.resume();
    const node = new AudioWorkletNode(context, 'testbed-tone-onsets', { channelCount: 1, channelCountMode: 'explicit', processorOptions: { toneHz } });
    node.port.onmessage = ({ data }) => {
      onsets.onsetsEpochMs.push(epochMsOf(Number(data)));
      if (onsets.onsetsEpochMs.length > MAX_BUFFERED_ONSETS) {
        onsets.onsetsEpochMs.shift();
        onsets.droppedOnsets += 1;
      }
    };
    context.createMediaStreamSource(stream).connect(node);
    node.connect(silent);
  }

  /**
   * The onsets found since the last drain, per source, handed over once.
   * @returns {{ sources: Record<string, { onsetsEpochMs: number[], droppedOnsets: number }> }}
   */
  function drain() {
    /** @type {ReturnType<typeof drain>['sources']} */
    const drained = {};
    for (const [source, onsets] of sources) {
      if (!onsets.onsetsEpochMs.length && !onsets.droppedOnsets) continue;
      drained[source] = { onsetsEpochMs: onsets.onsetsEpochMs, droppedOnsets: onsets.droppedOnsets };
      Object.assign(onsets, { onsetsEpochMs: [], droppedOnsets: 0 });
    }
    return { sources: drained };
  }

  return { watch, drain };
}
