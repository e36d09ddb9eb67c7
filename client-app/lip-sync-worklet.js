// The audio thread's half of lip-sync.js: runs the tone detector (tone-onset.js) over what reaches it (a track as the
// page plays it out) and posts each onset's audio context frame. Its output is silent (its gain node is 0).
import { createToneDetector } from './tone-onset.js';

// any: the AudioWorkletGlobalScope's names, which TypeScript's DOM types do not have.
const scope = /** @type {any} */ (globalThis);

class TestbedToneOnsets extends scope.AudioWorkletProcessor {
  /** @param {{ processorOptions: { toneHz: number } }} options */
  constructor({ processorOptions }) {
    super();
    const onOnset = (/** @type {number} */ frame) => this.port.postMessage(frame);
    this.detector = createToneDetector(scope.sampleRate, processorOptions.toneHz, onOnset);
  }

  /** @param {Float32Array[][]} inputs */
  process(inputs) {
    const channel = inputs[0]?.[0];
    // No channel yet (or any more): nothing to hear; the next input restarts the detector's block at its own frame.
    if (channel) this.detector.push(channel, scope.currentFrame);
    return true;
  }
}

scope.registerProcessor('testbed-tone-onsets', TestbedToneOnsets);
