// The lip-sync marks (pure): where the generated media carries them and how the audio gets them. A mark is a frame
// of the looping video (its frame code says which) and a short tone burst in the looping audio at the same time, or
// `audioDelayMs` later (a source whose audio is late against its video, to show what the measurement sees). The tone
// replaces the audio from GAP_BEFORE_MS before it to GAP_AFTER_MS after it, so its onset follows silence
// (client-app/tone-onset.js finds it there). media/generate.js writes the marked .wav; lib/audio/lip-sync.js pairs
// the onsets the pages heard with the times the marks' frames were shown.

/** A mark every this many seconds, the first MARK_OFFSET_S into the loop (away from the loop's seam). */
export const MARK_INTERVAL_S = 2;
const MARK_OFFSET_S = 1;
/** The tone: the page's detector listens at this frequency (its URL's `lipSync`). Speech hardly reaches it (the generated
 * voices have near-pure harmonics at 1 kHz, never louder than -36 dBFS at 3 kHz); Opus keeps it at any bandwidth. */
export const TONE_HZ = 3000;
export const TONE_MS = 50;
/** -6 dBFS: well above the speech, which is cut around it anyway. */
const TONE_AMPLITUDE = 0.5;
/** Raised-cosine edges, so the tone does not click (a click spreads over every frequency). */
const RAMP_MS = 2;
const GAP_BEFORE_MS = 150;
const GAP_AFTER_MS = 50;
/** What the marked audio is made of: media/generate.js keys its cached file by it. */
export const MARK_PARAMETERS = Object.freeze({
  intervalS: MARK_INTERVAL_S, offsetS: MARK_OFFSET_S, toneHz: TONE_HZ, toneMs: TONE_MS, amplitude: TONE_AMPLITUDE,
  rampMs: RAMP_MS, gapBeforeMs: GAP_BEFORE_MS, gapAfterMs: GAP_AFTER_MS,
});
/** The audio may lead or lag its video by at most this much: pairing looks half a mark interval either way. */
export const MAX_AUDIO_DELAY_MS = 500;

/**
 * The marks of a video loop: their frame codes and times in the loop.
 * @param {number} fps @param {number} loopFrames  the loop's length in frames
 * @returns {Array<{ code: number, atS: number }>}
 */
export function markFrames(fps, loopFrames) {
  const marks = [];
  for (let atS = MARK_OFFSET_S; Math.round(atS * fps) < loopFrames; atS += MARK_INTERVAL_S) {
    marks.push({ code: Math.round(atS * fps), atS });
  }
  return marks;
}

/**
 * The audio loop with the marks' tones: the speech rotated by `audioDelayMs` (the whole audio late, or early when
 * negative), each tone at its mark's time plus the delay, the audio around it silent.
 * @param {Int16Array} speech  one loop @param {number} rateHz @param {number} audioDelayMs
 * @returns {Int16Array}
 */
export function markedAudio(speech, rateHz, audioDelayMs) {
  const length = speech.length;
  const shift = Math.round((audioDelayMs / 1000) * rateHz);
  const out = new Int16Array(length);
  for (let i = 0; i < length; i += 1) out[i] = speech[(((i - shift) % length) + length) % length];
  const toneFrames = Math.round((TONE_MS / 1000) * rateHz);
  const rampFrames = Math.round((RAMP_MS / 1000) * rateHz);
  const gapBefore = Math.round((GAP_BEFORE_MS / 1000) * rateHz);
  const gapAfter = Math.round((GAP_AFTER_MS / 1000) * rateHz);
  const loopS = length / rateHz;
  for (let atS = MARK_OFFSET_S; atS < loopS; atS += MARK_INTERVAL_S) {
    const start = Math.round(atS * rateHz) + shift;
    for (let i = -gapBefore; i < toneFrames + gapAfter; i += 1) {
      const edge = Math.min(1, (i + 0.5) / rampFrames, (toneFrames - i - 0.5) / rampFrames);
      const gain = i < 0 || i >= toneFrames ? 0 : TONE_AMPLITUDE * (edge >= 1 ? 1 : 0.5 - 0.5 * Math.cos(Math.PI * edge));
      out[(((start + i) % length) + length) % length] = Math.round(32767 * gain * Math.sin((2 * Math.PI * TONE_HZ * i) / rateHz));
    }
  }
  return out;
}
