// What one run collects while it runs (samples, events, errors, network truth, schedule events) and how it
// ends (status, the stop signal every waiting step listens to). buildResult (lib/result.js) turns it into
// result.json.

// A hostile page or a fuzzer can send thousands of bad messages; the result keeps the first ones and a count.
const MAX_RECORDED_REJECTIONS = 200;

/**
 * @param {{ log: (line: string) => void }} options
 */
export function createRecorder({ log }) {
  const stop = new AbortController();
  let rejectionsRecorded = 0;
  let rejectionsNotRecorded = 0;
  const recorder = {
    /** @type {import('../lib/result.js').TimelineEntry[]} */
    samples: [],
    /** @type {Array<{ epochMs: number, type: string, [field: string]: unknown }>} */
    events: [],
    /** @type {import('../lib/result.js').RunError[]} */
    errors: [],
    /** @type {import('../lib/result.js').ScheduleEvent[]} */
    scheduleEvents: [],
    /** @type {Array<{ epochMs: number }>} */
    truth: [],
    /** @type {Record<string, string>} peer → the version its browser reported */
    browserVersions: {},
    /** @type {number|null} */
    mediaStartEpochMs: null,
    /** @type {import('../lib/result.js').RunStatus} */
    status: 'passed',
    /** Aborted when the run must stop early (failure or interrupt): every wait listens to it. */
    signal: stop.signal,

    /** Seconds since media start (null before the call started). */
    atS(epochMs = Date.now()) {
      return recorder.mediaStartEpochMs === null ? null : Number(((epochMs - recorder.mediaStartEpochMs) / 1000).toFixed(3));
    },
    /** @param {{ type: string, epochMs?: number, [field: string]: unknown }} event */
    event(event) {
      recorder.events.push({ ...event, epochMs: event.epochMs ?? Date.now() });
    },
    /** The first failure ends the run; later ones are consequences of the stop. */
    fail(message, peer = null) {
      if (stop.signal.aborted) return;
      recorder.errors.push({ atS: recorder.atS(), peer, message });
      log(`error: ${peer ? `${peer}: ` : ''}${message}`);
      recorder.status = 'failed';
      stop.abort();
    },
    /** @param {string} signal */
    interrupt(signal) {
      if (stop.signal.aborted) return;
      recorder.status = 'aborted';
      recorder.errors.push({ atS: recorder.atS(), peer: null, message: `interrupted by ${signal}` });
      stop.abort();
    },
    /** A message the signaling edge refused: recorded, never fatal. */
    rejected({ epochMs, peer, messageType, reason }) {
      if (rejectionsRecorded >= MAX_RECORDED_REJECTIONS) {
        rejectionsNotRecorded += 1;
        return;
      }
      rejectionsRecorded += 1;
      recorder.event({ type: 'rejected', epochMs, peer, messageType, reason });
    },
    /** Closes the record: the count of rejections beyond the recorded ones. */
    finish() {
      if (rejectionsNotRecorded) recorder.event({ type: 'rejected', peer: null, messageType: null, reason: `${rejectionsNotRecorded} more rejected messages, not recorded one by one` });
    },
  };
  return recorder;
}

/** @typedef {ReturnType<typeof createRecorder>} Recorder */
