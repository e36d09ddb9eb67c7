// What one run collects while it runs (samples, events, errors, network truth, schedule events) and how it
// ends (status, the stop signal every waiting step listens to). buildResult (lib/result/result.js) turns it into
// result.json.
import { LAUNCH_EVENT } from '../lib/result/setup-breakdown.js';

// A hostile page or a fuzzer can send thousands of bad messages; the result keeps the first ones and a count.
const MAX_RECORDED_REJECTIONS = 200;
/**
 * What one page may add to the events (signaling events and console errors): the first ones of each type, and of
 * all types together, are kept; the rest are counted in one `events-dropped` event per page. A real page sends a
 * few dozen (a 32-peer mesh: ~10 per remote and type), a flooding one hundreds of thousands.
 */
export const MAX_PAGE_EVENTS_PER_TYPE = 500;
export const MAX_PAGE_EVENTS_PER_PEER = 2000;
/** A page's clock (performance.timeOrigin + now) may be this far off the orchestrator's: times bounded by less are not counted. */
export const PAGE_CLOCK_MARGIN_MS = 1000;
/** The orchestrator's events that bound a page's times: its browser's launch, and its join (before any remote). */
const JOINED = 'joined';
const PAGE_STEPS = [LAUNCH_EVENT, JOINED];

/**
 * @param {{ log: (line: string) => void, startedAtEpochMs?: number, now?: () => number }} options
 *   startedAtEpochMs: the run's start, the earliest time a page event may claim before its browser's launch is known
 */
export function createRecorder({ log, startedAtEpochMs = Date.now(), now = Date.now }) {
  const stop = new AbortController();
  let rejectionsRecorded = 0;
  let rejectionsNotRecorded = 0;
  const pages = createPageEventCaps(startedAtEpochMs);
  const recorder = {
    /** @type {import('../lib/result/result.js').TimelineEntry[]} */
    samples: [],
    /** @type {Array<{ epochMs: number, type: string, [field: string]: unknown }>} */
    events: [],
    /** @type {import('../lib/result/result.js').RunError[]} */
    errors: [],
    /** @type {import('../lib/result/result.js').ScheduleEvent[]} */
    scheduleEvents: [],
    /** @type {Array<{ epochMs: number }>} */
    truth: [],
    /** @type {import('../emulators/contract.js').EmulatorLoadRow[]} the emulator's own load, when it measures itself */
    emulatorLoad: [],
    /** @type {Record<string, string>} peer → the version its browser reported */
    browserVersions: {},
    /** @type {Record<string, boolean|null>} peer → its browser came from the suite's pool (run/browser-pool.js; null: no pool) */
    browserReused: {},
    /** @type {number|null} */
    mediaStartEpochMs: null,
    /** @type {import('../lib/result/result.js').RunStatus} */
    status: 'passed',
    /** Aborted when the run must stop early (failure or interrupt): every wait listens to it. */
    signal: stop.signal,

    /** Seconds since media start (null before the call started). */
    atS(epochMs = Date.now()) {
      return recorder.mediaStartEpochMs === null ? null : Number(((epochMs - recorder.mediaStartEpochMs) / 1000).toFixed(3));
    },
    /**
     * The orchestrator's own event, on its clock unless it gives the time.
     * @param {{ type: string, epochMs?: number, [field: string]: unknown }} event
     */
    event(event) {
      const epochMs = event.epochMs ?? now();
      if (PAGE_STEPS.includes(event.type) && typeof event.peer === 'string') pages.reached(event.peer, event.type, epochMs);
      recorder.events.push({ ...event, epochMs });
    },
    /**
     * An event a page sent (or its console printed): kept within the caps, its time bounded to [what it needs, now]:
     * an event about a remote peer needs the page to have joined, any other its browser's launch (the run's start
     * before either is known). So a page cannot put its milestones before they were possible or after they arrived.
     * @param {{ type: string, peer: string, epochMs?: number, remote?: unknown, [field: string]: unknown }} event
     */
    pageEvent(event) {
      const receivedEpochMs = now();
      if (!pages.admit(event.peer, event.type)) return;
      const after = 'remote' in event ? JOINED : LAUNCH_EVENT;
      recorder.events.push({ ...event, epochMs: pages.bound(event.peer, after, event.epochMs ?? receivedEpochMs, receivedEpochMs) });
    },
    /**
     * The first failure ends the run; later ones are consequences of the stop.
     * @param {string} message @param {string|null} [peer]  the peer it happened at, if one
     */
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
    /**
     * A message the signaling edge refused: recorded, never fatal.
     * @param {Omit<import('../../signaling/server.js').Rejection, 'room'>} rejection
     */
    rejected({ epochMs, peer, messageType, reason }) {
      if (rejectionsRecorded >= MAX_RECORDED_REJECTIONS) {
        rejectionsNotRecorded += 1;
        return;
      }
      rejectionsRecorded += 1;
      recorder.event({ type: 'rejected', epochMs, peer, messageType, reason });
    },
    /** Closes the record: the count of rejections beyond the recorded ones, and per page what its caps dropped. */
    finish() {
      if (rejectionsNotRecorded) recorder.event({ type: 'rejected', peer: null, messageType: null, reason: `${rejectionsNotRecorded} more rejected messages, not recorded one by one` });
      for (const counts of pages.counts()) recorder.event({ type: 'events-dropped', ...counts });
    },
  };
  return recorder;
}

/**
 * The caps and clock bounds of the pages' events, per page.
 * @param {number} startedAtEpochMs
 */
function createPageEventCaps(startedAtEpochMs) {
  /** @typedef {{ reachedEpochMs: Map<string, number>, kept: number, keptByType: Map<string, number>,
   *   droppedByType: Map<string, number>, dropped: number, timesBounded: number }} PageState  reachedEpochMs: PAGE_STEPS' times */
  /** @type {Map<string, PageState>} */
  const pages = new Map();
  const page = (/** @type {string} */ peer) => {
    const state = pages.get(peer)
      ?? { reachedEpochMs: new Map(), kept: 0, keptByType: new Map(), droppedByType: new Map(), dropped: 0, timesBounded: 0 };
    pages.set(peer, state);
    return state;
  };
  return {
    /** The first time the page reached a step of PAGE_STEPS. @param {string} peer @param {string} step @param {number} epochMs */
    reached(peer, step, epochMs) {
      const { reachedEpochMs } = page(peer);
      if (!reachedEpochMs.has(step)) reachedEpochMs.set(step, epochMs);
    },
    /** Whether the page's event fits under its caps; counts it otherwise. @param {string} peer @param {string} type */
    admit(peer, type) {
      const state = page(peer);
      const ofType = state.keptByType.get(type) ?? 0;
      if (state.kept >= MAX_PAGE_EVENTS_PER_PEER || ofType >= MAX_PAGE_EVENTS_PER_TYPE) {
        state.dropped += 1;
        state.droppedByType.set(type, (state.droppedByType.get(type) ?? 0) + 1);
        return false;
      }
      state.kept += 1;
      state.keptByType.set(type, ofType + 1);
      return true;
    },
    /**
     * The page's time bounded to [the step it needs (else the launch, else the run's start), the time it was received].
     * @param {string} peer @param {string} after @param {number} claimedEpochMs @param {number} receivedEpochMs
     */
    bound(peer, after, claimedEpochMs, receivedEpochMs) {
      const state = page(peer);
      const earliest = state.reachedEpochMs.get(after) ?? state.reachedEpochMs.get(LAUNCH_EVENT) ?? startedAtEpochMs;
      // Counted only past the margin: an honest page's clock may be a little off the orchestrator's.
      const outside = claimedEpochMs < earliest - PAGE_CLOCK_MARGIN_MS || claimedEpochMs > receivedEpochMs + PAGE_CLOCK_MARGIN_MS;
      if (outside) state.timesBounded += 1;
      return Math.min(Math.max(claimedEpochMs, earliest), receivedEpochMs);
    },
    /** The pages that lost events or had their times bounded, with the counts. */
    counts: () => [...pages].filter(([, state]) => state.dropped || state.timesBounded).map(([peer, state]) => ({
      peer, dropped: state.dropped, droppedByType: Object.fromEntries(state.droppedByType), timesBounded: state.timesBounded,
    })),
  };
}

/** @typedef {ReturnType<typeof createRecorder>} Recorder */
