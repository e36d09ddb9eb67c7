// The shape of what a page hands over when the orchestrator drains its audio recorder (client-app/audio-recorder.js
// drain()), checked before anything uses it: the page is untrusted like every page message. Pure: a bad drain yields
// a reason, never a throw.

/** What the recorder records at (client-app/audio-recorder.js SAMPLE_RATE_HZ); any other rate is refused. */
export const RECORDING_RATE_HZ = 48000;
/** The most one drain may carry per remote: the page keeps 20 s between drains, and a drain may come late. */
export const MAX_DRAIN_S = 25;
const MAX_DROPPED_SAMPLES = 1e9;
const MAX_EPOCH_MS = 8.64e15;

/**
 * @typedef {{ remote: string, firstSampleEpochMs: number, pcm: Buffer, droppedSamples: number }} CheckedAudio
 *   pcm: 16-bit little-endian mono samples at RECORDING_RATE_HZ
 */

/** @param {unknown} value @returns {value is Record<string, unknown>} */
const isObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * One page's drain: `{ sampleRateHz, streams: { [remote]: { firstSampleEpochMs, pcm, droppedSamples } } }`, remotes
 * among `remotes`, times within `within`.
 * @param {unknown} value @param {string} peer the page's peer @param {string[]} remotes the peers it may hear
 * @param {{ fromEpochMs: number, toEpochMs: number }} [within]
 * @returns {{ ok: true, value: CheckedAudio[] } | { ok: false, reason: string }}
 */
export function checkAudioDrain(value, peer, remotes, { fromEpochMs, toEpochMs } = { fromEpochMs: 1, toEpochMs: MAX_EPOCH_MS }) {
  /** @param {string} reason */
  const fail = (reason) => ({ ok: /** @type {const} */ (false), reason: `audio recorder of ${peer}: ${reason}` });
  if (!isObject(value) || !isObject(value.streams)) return fail('drain must be { sampleRateHz, streams: {…} }');
  if (value.sampleRateHz !== RECORDING_RATE_HZ) return fail(`sampleRateHz must be ${RECORDING_RATE_HZ}`);
  const maxBytes = MAX_DRAIN_S * RECORDING_RATE_HZ * 2;
  /** @type {CheckedAudio[]} */
  const streams = [];
  for (const [remote, stream] of Object.entries(value.streams)) {
    if (!remotes.includes(remote)) return fail(`unknown remote ${JSON.stringify(remote.slice(0, 64))}; expected one of ${remotes.join(', ')}`);
    if (!isObject(stream)) return fail(`streams.${remote} must be { firstSampleEpochMs, pcm, droppedSamples }`);
    const { firstSampleEpochMs, pcm, droppedSamples } = stream;
    if (typeof firstSampleEpochMs !== 'number' || !(firstSampleEpochMs >= fromEpochMs && firstSampleEpochMs <= toEpochMs)) {
      return fail(`streams.${remote}.firstSampleEpochMs must be epoch milliseconds from ${fromEpochMs} to ${toEpochMs}`);
    }
    if (typeof droppedSamples !== 'number' || !Number.isInteger(droppedSamples) || droppedSamples < 0 || droppedSamples > MAX_DROPPED_SAMPLES) {
      return fail(`streams.${remote}.droppedSamples must be an integer from 0 to ${MAX_DROPPED_SAMPLES}`);
    }
    if (typeof pcm !== 'string' || pcm.length > 4 * Math.ceil(maxBytes / 3) || pcm.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(pcm)) {
      return fail(`streams.${remote}.pcm must be base64 of at most ${MAX_DRAIN_S} s of 16-bit samples`);
    }
    const bytes = Buffer.from(pcm, 'base64');
    if (bytes.length % 2 !== 0) return fail(`streams.${remote}.pcm must be whole 16-bit samples`);
    streams.push({ remote, firstSampleEpochMs, pcm: bytes, droppedSamples });
  }
  return { ok: true, value: streams };
}
