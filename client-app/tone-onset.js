// The lip-sync marks' tone found in audio (client-app/lip-sync-worklet.js runs it on a page's audio thread; Node
// imports it for its tests). Pure and dependency-free. The generated audio carries a short tone burst at every mark
// (orchestrator/lib/audio/lip-sync-marks.js, which owns the tone's frequency: the page gets it in its URL) after a
// silent gap. The detector measures the tone per block of BLOCK_FRAMES (Goertzel's power at its frequency), which must
// be loud and most of the block's power, for MIN_TONE_BLOCKS in a row, REFRACTORY_BLOCKS after the last onset; the
// onset is the first sample of the run's first block (or the block before it) that reaches half the tone's amplitude.

/** 5 ms at 48 kHz: the block the tone's power is measured in. */
export const BLOCK_FRAMES = 240;
/** A tone at least this loud (amplitude, full scale 1; -20 dBFS)... */
const MIN_AMPLITUDE = 0.1;
/** ...carrying at least this share of its block's power. */
const MIN_TONE_SHARE = 0.6;
/** A tone lasts at least this many blocks in a row (30 ms of the marks' 50): speech has 1 kHz bursts too, shorter. */
const MIN_TONE_BLOCKS = 6;
/** No new onset for this many blocks after one (500 ms; the marks are 2 s apart): one burst is one onset, whatever its dips. */
const REFRACTORY_BLOCKS = 100;

/**
 * The tone's amplitude in one block (Goertzel), full scale 1, and the share of the block's power it carries.
 * @param {ArrayLike<number>} samples @param {number} from @param {number} count @param {number} rateHz @param {number} toneHz
 */
export function toneIn(samples, from, count, rateHz, toneHz) {
  const coefficient = 2 * Math.cos((2 * Math.PI * toneHz) / rateHz);
  let s1 = 0;
  let s2 = 0;
  let energy = 0;
  for (let i = from; i < from + count; i += 1) {
    const x = samples[i];
    const s0 = x + coefficient * s1 - s2;
    s2 = s1;
    s1 = s0;
    energy += x * x;
  }
  const power = Math.max(0, s1 * s1 + s2 * s2 - coefficient * s1 * s2);
  const amplitude = (2 * Math.sqrt(power)) / count;
  // A sine of amplitude A has mean power A²/2.
  const share = energy > 0 ? Math.min(1, (amplitude * amplitude * count) / 2 / energy) : 0;
  return { amplitude, share };
}

/**
 * A detector fed samples in any chunks; calls `onOnset(frame)` with the frame index (counted from the first sample
 * fed, or from `firstFrame` of each chunk) of each onset of a tone of `toneHz`.
 * @param {number} rateHz @param {number} toneHz @param {(frame: number) => void} onOnset
 */
export function createToneDetector(rateHz, toneHz, onOnset) {
  const block = new Float32Array(BLOCK_FRAMES);
  /** The block before `block`: an onset may start in it. */
  const previous = new Float32Array(BLOCK_FRAMES);
  let filled = 0;
  /** The frame index of block[0]. */
  let blockFrame = 0;
  /** Blocks since the last onset's run began. */
  let sinceOnset = REFRACTORY_BLOCKS;
  /** The tone's blocks in a row so far, and where their run started. */
  let toneBlocks = 0;
  let runFrame = 0;

  function endBlock() {
    const { amplitude, share } = toneIn(block, 0, BLOCK_FRAMES, rateHz, toneHz);
    const tone = amplitude >= MIN_AMPLITUDE && share >= MIN_TONE_SHARE;
    if (tone && toneBlocks === 0) runFrame = blockFrame + firstLoud(amplitude / 2);
    toneBlocks = tone ? toneBlocks + 1 : 0;
    sinceOnset += 1;
    if (toneBlocks === MIN_TONE_BLOCKS && sinceOnset >= REFRACTORY_BLOCKS + MIN_TONE_BLOCKS) {
      onOnset(runFrame);
      sinceOnset = MIN_TONE_BLOCKS;
    }
    previous.set(block);
    blockFrame += BLOCK_FRAMES;
    filled = 0;
  }

  /** The first sample of the previous block and this one at least `level` loud, relative to this block. @param {number} level */
  function firstLoud(level) {
    for (let i = 0; i < BLOCK_FRAMES; i += 1) if (Math.abs(previous[i]) >= level) return i - BLOCK_FRAMES;
    for (let i = 0; i < BLOCK_FRAMES; i += 1) if (Math.abs(block[i]) >= level) return i;
    return 0;
  }

  return {
    /**
     * @param {ArrayLike<number>} samples
     * @param {number} [firstFrame]  the frame index of samples[0]; a jump restarts the block (a gap in the input)
     */
    push(samples, firstFrame = blockFrame + filled) {
      if (firstFrame !== blockFrame + filled) {
        blockFrame = firstFrame;
        filled = 0;
        previous.fill(0);
      }
      for (let i = 0; i < samples.length; i += 1) {
        block[filled] = samples[i];
        filled += 1;
        if (filled === BLOCK_FRAMES) endBlock();
      }
    },
  };
}
