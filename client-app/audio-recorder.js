// What this page plays out of each remote's audio track, recorded as 16-bit mono PCM at 48 kHz for the orchestrator
// to score against the sent .wav (orchestrator/run/audio-quality.js: ViSQOL). Loaded only when the run asks for audio
// quality (URL `audioQuality`): recording costs the page an audio thread. The track plays out as a call's page plays
// it, in an <audio> element (muted: the harness has no listener, and Chromium feeds a remote track to Web Audio only
// while an element plays it); an AudioWorklet taps the same track without changing what the element plays.
export const SAMPLE_RATE_HZ = 48000;
/** Samples kept per remote between drains; beyond it the oldest are dropped and counted, so the page's memory is bounded. */
const MAX_BUFFERED_S = 20;

/**
 * @typedef {{ firstFrame: number, samples: Float32Array }} Block  firstFrame: the audio context frame of samples[0]
 * @typedef {{ blocks: Block[], buffered: number, droppedSamples: number }} Recording
 */

export function createAudioRecorder() {
  const context = new AudioContext({ sampleRate: SAMPLE_RATE_HZ });
  const ready = context.audioWorklet.addModule(new URL('./audio-recorder-worklet.js', import.meta.url));
  const silent = context.createGain();
  silent.gain.value = 0;
  silent.connect(context.destination);
  /** @type {Map<string, Recording>} */
  const recordings = new Map();

  /**
   * Plays out and records a remote's audio track (its first one: one recording per remote).
   * @param {MediaStreamTrack} track @param {string} remote
   */
  async function watch(track, remote) {
    if (recordings.has(remote)) return;
    /** @type {Recording} */
    const recording = { blocks: [], buffered: 0, droppedSamples: 0 };
    recordings.set(remote, recording);
    const stream = new MediaStream([track]);
    const element = new Audio();
    Object.assign(element, { muted: true, autoplay: true, srcObject: stream });
    await ready;
    if (context.state !== 'running') await context.resume();
    const node = new AudioWorkletNode(context, 'testbed-recorder', { channelCount: 1, channelCountMode: 'explicit' });
    node.port.onmessage = ({ data }) => {
      recording.blocks.push(data);
      recording.buffered += data.samples.length;
      while (recording.buffered > MAX_BUFFERED_S * SAMPLE_RATE_HZ) {
        const oldest = /** @type {Block} */ (recording.blocks.shift());
        recording.buffered -= oldest.samples.length;
        recording.droppedSamples += oldest.samples.length;
      }
    };
    context.createMediaStreamSource(stream).connect(node);
    node.connect(silent);
  }

  /**
   * The samples recorded since the last drain, per remote: the epoch time of the first (on the audio output clock),
   * base64 of 16-bit little-endian PCM, and how many samples were dropped before them since the last drain.
   * @returns {{ sampleRateHz: number, streams: Record<string, { firstSampleEpochMs: number, pcm: string, droppedSamples: number }> }}
   */
  function drain() {
    const { contextTime = 0, performanceTime = 0 } = context.getOutputTimestamp();
    /** @param {number} frame */
    const epochMsOf = (frame) => performance.timeOrigin + performanceTime + (frame / context.sampleRate - contextTime) * 1000;
    /** @type {ReturnType<typeof drain>['streams']} */
    const streams = {};
    for (const [remote, recording] of recordings) {
      if (!recording.blocks.length) continue;
      const firstSampleEpochMs = epochMsOf(recording.blocks[0].firstFrame);
      streams[remote] = { firstSampleEpochMs, pcm: base64Pcm(recording.blocks), droppedSamples: recording.droppedSamples };
      Object.assign(recording, { blocks: [], buffered: 0, droppedSamples: 0 });
    }
    return { sampleRateHz: context.sampleRate, streams };
  }

  return { watch, drain };
}

/** @param {Block[]} blocks @returns {string} */
function base64Pcm(blocks) {
  const total = blocks.reduce((sum, block) => sum + block.samples.length, 0);
  const pcm = new Int16Array(total);
  let at = 0;
  for (const { samples } of blocks) {
    for (const sample of samples) pcm[at++] = Math.round(Math.max(-1, Math.min(1, sample)) * 32767);
  }
  const bytes = new Uint8Array(pcm.buffer);
  let binary = '';
  // String.fromCharCode takes its bytes as arguments: in slices, under the engines' argument limit.
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}
