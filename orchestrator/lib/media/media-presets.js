// The video presets a run (--video) or a scenario (per-peer `media`) can name; media/generate.js makes their files.

/**
 * 720p30 is the default on a 2-core machine; 1080p50 is the J16 source format; 360p30 and 180p30 keep many-party calls
 * and the tests within a small host (180p30 also gives one peer of a call a visibly smaller picture); 360p15 gives each
 * frame twice the bits, which VP9 SVC's per-layer rate ceilings need to keep 640×360 without dropping frames.
 * @type {Record<string, {width: number, height: number, fps: number}>}
 */
export const PRESETS = {
  '180p30': { width: 320, height: 180, fps: 30 },
  '360p30': { width: 640, height: 360, fps: 30 },
  '360p15': { width: 640, height: 360, fps: 15 },
  '720p30': { width: 1280, height: 720, fps: 30 },
  '1080p50': { width: 1920, height: 1080, fps: 50 },
};
export const DEFAULT_PRESET = '720p30';
