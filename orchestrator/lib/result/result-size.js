/**
 * How large a run's result.json will be, estimated before the run from what grows with its length: the timeline
 * (one sample per receiving peer and remote per second), the links' configured and truth rows, the process samples,
 * and the schedule events. The per-row sizes are result.json's own (JSON with one-space indent) with every field
 * filled, so the estimate errs high. Pure: no I/O.
 */
import { InputError } from '../system/errors.js';
import { formatBytes } from '../input/input-file.js';
import { MAX_RESULT_BYTES } from '../input/limits.js';

/** Bytes of one row of each kind in result.json, measured on docs/results-schema.md's examples (a sample with its selectedPair). */
export const ROW_BYTES = { sample: 1550, linkSecond: 450, processSecond: 100, scheduleEvent: 320 };

/**
 * @typedef {object} SizeInput
 * @property {number} durationS  the run's
 * @property {number} peers  the main call's
 * @property {number} allPeers  with the call flows' peers
 * @property {number} links  emulated links
 * @property {number} scheduleEvents
 */

/** @param {SizeInput} run @returns {{perSecondBytes: number, fixedBytes: number}} */
function rates({ peers, allPeers, links, scheduleEvents }) {
  // Every peer of the main call receives every other; a call flow's two peers each other.
  const samples = peers * (peers - 1) + (allPeers - peers);
  // Each browser, the relay and Janus.
  const processes = allPeers + 2;
  return {
    perSecondBytes: samples * ROW_BYTES.sample + links * ROW_BYTES.linkSecond + processes * ROW_BYTES.processSecond,
    fixedBytes: scheduleEvents * ROW_BYTES.scheduleEvent,
  };
}

/** @param {SizeInput} run @returns {number} bytes */
export function estimateResultBytes(run) {
  const { perSecondBytes, fixedBytes } = rates(run);
  return fixedBytes + perSecondBytes * run.durationS;
}

/**
 * Refuses a run whose result would not fit in one JSON string (MAX_RESULT_BYTES), naming the longest that would.
 * @param {SizeInput} run @param {string} where  "file: durationS" or "--duration"
 */
export function checkResultSize(run, where) {
  const bytes = estimateResultBytes(run);
  if (bytes <= MAX_RESULT_BYTES) return;
  const { perSecondBytes, fixedBytes } = rates(run);
  const longestS = Math.max(0, Math.floor((MAX_RESULT_BYTES - fixedBytes) / perSecondBytes));
  const fix = longestS > 0 ? `the longest run that fits for ${run.allPeers} peers is ${longestS} s: pass --duration ${longestS} or less`
    : 'the schedule alone is too large: use fewer schedule changes';
  throw new InputError(`${where}: a ${run.durationS} s run of ${run.allPeers} peers makes a result.json of about ${formatBytes(bytes)}; at most ${formatBytes(MAX_RESULT_BYTES)} (docs/scenario-format.md "Limits"): ${fix}`);
}
