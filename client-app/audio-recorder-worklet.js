// The audio thread's half of audio-recorder.js: copies what reaches it (the remote track as played out) in blocks of
// BLOCK_FRAMES to the page, with the context frame of the block's first sample. Silence (no channel yet) is recorded
// as zeros, so a recording's sample index stays a clock. Its output is silent (its gain node is 0).
// any: the AudioWorkletGlobalScope's names, which TypeScript's DOM types do not have.
const scope = /** @type {any} */ (globalThis);
const BLOCK_FRAMES = 4800;
const QUANTUM_FRAMES = 128;

class TestbedRecorder extends scope.AudioWorkletProcessor {
  constructor() {
    super();
    this.block = new Float32Array(BLOCK_FRAMES);
    this.filled = 0;
    this.firstFrame = 0;
  }

  /** @param {Float32Array[][]} inputs */
  process(inputs) {
    const channel = inputs[0]?.[0];
    const frames = channel?.length ?? QUANTUM_FRAMES;
    if (this.filled === 0) this.firstFrame = scope.currentFrame;
    if (channel) this.block.set(channel, this.filled);
    else this.block.fill(0, this.filled, this.filled + frames);
    this.filled += frames;
    if (this.filled + QUANTUM_FRAMES > BLOCK_FRAMES) {
      this.port.postMessage({ firstFrame: this.firstFrame, samples: this.block.slice(0, this.filled) });
      this.filled = 0;
    }
    return true;
  }
}

scope.registerProcessor('testbed-recorder', TestbedRecorder);
