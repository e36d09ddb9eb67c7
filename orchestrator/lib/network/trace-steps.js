// A trace as rate steps, for the backends that set rates instead of replaying delivery opportunities (netem,
// dummynet): the steps of one stretch, how far they are from the trace, and the whole network with its traces
// replaced by step events (pure).
import { MAX_RATE_KBPS, MIN_RATE_KBPS, sameLinkParams } from './link-model.js';
import { DEFAULT_TRACE_STEP_MS, OPPORTUNITY_BYTES, capacityKbps, opportunityClock } from './trace.js';

/** @typedef {import('./trace.js').Trace} Trace */

/**
 * @typedef {{fromMs: number, toMs: number, rateKbps: number}} RateStep  on the trace's own clock (0 = its start)
 */

/**
 * The trace over [fromMs, toMs) of its own clock as rate steps on the grid k × stepMs (the first and last cut to
 * the interval): each step carries the bytes of the opportunities in it, clamped to the link model's rate range
 * (tc cannot set 0: an outage becomes MIN_RATE_KBPS).
 * @param {Trace} trace @param {number} fromMs @param {number} toMs @param {number} stepMs
 * @returns {RateStep[]}
 */
export function traceSteps(trace, fromMs, toMs, stepMs) {
  /** @type {RateStep[]} */
  const steps = [];
  for (let k = Math.floor(fromMs / stepMs + 1e-9); k * stepMs < toMs - 1e-9; k++) {
    const from = Math.max(fromMs, k * stepMs);
    const to = Math.min(toMs, (k + 1) * stepMs);
    const kbps = capacityKbps(trace, 0, from, to);
    steps.push({ fromMs: from, toMs: to, rateKbps: Math.round(Math.min(MAX_RATE_KBPS, Math.max(MIN_RATE_KBPS, kbps)) * 1000) / 1000 });
  }
  return steps;
}

/**
 * @typedef {object} StepComparison  rate steps against the trace they stand for, over one stretch of it
 * @property {number[]} secondErrorsKbps  |steps − trace| capacity of each whole second (on the trace's clock from fromMs)
 * @property {number} maxBacklogBytes  the largest gap between the bytes the trace and the steps could have carried
 *   since fromMs: the burstiness inside a step that the steps smooth away
 * @property {number} clampedSteps  steps raised to MIN_RATE_KBPS
 */

/**
 * @param {Trace} trace @param {RateStep[]} steps  traceSteps(trace, fromMs, …), in order and contiguous
 * @returns {StepComparison}
 */
export function compareSteps(trace, steps) {
  const fromMs = steps[0].fromMs;
  const toMs = steps[steps.length - 1].toMs;
  const prefix = [0];
  for (const step of steps) prefix.push(prefix[prefix.length - 1] + (step.rateKbps * (step.toMs - step.fromMs)) / 8);
  let cursor = 0;
  /** Bytes the steps carry in [fromMs, t), for non-decreasing t. @param {number} t */
  const steppedBytes = (t) => {
    while (cursor < steps.length - 1 && steps[cursor].toMs <= t) cursor++;
    const step = steps[cursor];
    return prefix[cursor] + (step.rateKbps * Math.min(step.toMs - step.fromMs, Math.max(0, t - step.fromMs))) / 8;
  };
  const clock = opportunityClock(trace, 0);
  const first = clock.firstFrom(fromMs);
  let maxBacklogBytes = 0;
  // The trace's bytes jump by 1500 at each opportunity: the gap peaks just before or just after one.
  for (let k = first, end = clock.firstFrom(toMs); k < end; k++) {
    const stepped = steppedBytes(clock.timeOf(k));
    const before = (k - first) * OPPORTUNITY_BYTES;
    maxBacklogBytes = Math.max(maxBacklogBytes, Math.abs(stepped - before), Math.abs(stepped - before - OPPORTUNITY_BYTES));
  }
  cursor = 0;
  const secondErrorsKbps = [];
  let bytesBefore = 0;
  for (let t = fromMs; t + 1000 <= toMs + 1e-9; t += 1000) {
    const bytesAfter = steppedBytes(t + 1000);
    secondErrorsKbps.push(Math.abs(((bytesAfter - bytesBefore) * 8) / 1000 - capacityKbps(trace, 0, t, t + 1000)));
    bytesBefore = bytesAfter;
  }
  const clampedSteps = steps.filter((step) => capacityKbps(trace, 0, step.fromMs, step.toMs) < MIN_RATE_KBPS).length;
  return { secondErrorsKbps, maxBacklogBytes: Math.round(maxBacklogBytes), clampedSteps };
}

/**
 * @typedef {object} LinkStepReport  one link's rate steps against its traces (result.json network.traceSteps.links)
 * @property {string[]} traces
 * @property {number} steps  rate steps the run's duration needs
 * @property {number} seconds  whole seconds on a trace compared
 * @property {number|null} meanAbsErrorKbps  per-second capacity, |steps − trace|, mean over those seconds
 * @property {number|null} maxAbsErrorKbps
 * @property {number} maxBacklogBytes  see StepComparison
 * @property {number} clampedSteps  outage steps raised to MIN_RATE_KBPS
 */
/** @typedef {{stepMs: number, links: Record<string, LinkStepReport>}} TraceStepReport */
/**
 * @typedef {import('./schedule.js').CompiledNetwork['events'][number] & {traceStep?: boolean}} SteppedEvent
 *   traceStep: the event is only a trace's rate step (no schedule entry changes the link then)
 */

/**
 * The network as a backend that sets rates (netem, dummynet) runs it: every link on a trace gets rate steps of
 * compiled.traceStepMs instead, as schedule events (merged with the schedule's own, full params each, no-ops left
 * out), and the steps are compared with the traces over the run's duration.
 * @param {import('./schedule.js').CompiledNetwork} compiled @param {number} durationS  the run's
 * @returns {{compiled: Omit<import('./schedule.js').CompiledNetwork, 'events'> & {events: SteppedEvent[]},
 *   traceSteps: TraceStepReport|null}}
 */
export function steppedNetwork(compiled, durationS) {
  const traces = compiled.traces ?? {};
  if (Object.keys(traces).length === 0) return { compiled, traceSteps: null };
  const stepMs = compiled.traceStepMs ?? DEFAULT_TRACE_STEP_MS;
  const roundS = (/** @type {number} */ seconds) => Math.round(seconds * 1e6) / 1e6;
  /** @type {Record<string, import('./link-model.js').LinkParams>} */
  const links = {};
  /** @type {Array<SteppedEvent & {order: number}>} */
  const changes = [];
  /** @type {Record<string, LinkStepReport>} */
  const report = {};
  for (const [order, link] of Object.keys(compiled.links).entries()) {
    const segments = [{ atS: 0, params: compiled.links[link], cause: '' }, ...compiled.events.filter((event) => event.link === link)];
    /** @type {import('./link-model.js').LinkParams|null} */
    let previous = null;
    let originS = 0;
    const stats = { traces: new Set(), steps: 0, errors: /** @type {number[]} */ ([]), maxBacklogBytes: 0, clampedSteps: 0 };
    /** @param {number} atS @param {import('./link-model.js').LinkParams} params @param {string} cause @param {boolean} traceStep */
    const push = (atS, params, cause, traceStep) => {
      if (previous && sameLinkParams(previous, params)) return;
      previous = params;
      if (atS === 0) links[link] = params;
      else changes.push({ atS, link, params, cause, ...(traceStep ? { traceStep } : {}), order });
    };
    segments.forEach((segment, i) => {
      const name = segment.params.trace;
      if (!name) return push(segment.atS, segment.params, segment.cause, false);
      if (i === 0 || segments[i - 1].params.trace !== name) originS = segment.atS;
      const trace = traces[name];
      const fromMs = (segment.atS - originS) * 1000;
      // A segment the run never reaches (--duration cut it) still restates its first step.
      const toMs = Math.max((Math.min(segments[i + 1]?.atS ?? Infinity, durationS) - originS) * 1000, fromMs + stepMs);
      const steps = traceSteps(trace, fromMs, toMs, stepMs);
      steps.forEach((step, j) => {
        const fromSchedule = j === 0 && segment.cause !== '';
        push(roundS(originS + step.fromMs / 1000), { ...segment.params, trace: null, rateKbps: step.rateKbps },
          fromSchedule ? `${segment.cause}; trace ${name}` : `trace ${name}`, !fromSchedule);
      });
      if (segment.atS >= durationS) return undefined;
      const comparison = compareSteps(trace, steps);
      stats.traces.add(name);
      stats.steps += steps.length;
      stats.errors.push(...comparison.secondErrorsKbps);
      stats.maxBacklogBytes = Math.max(stats.maxBacklogBytes, comparison.maxBacklogBytes);
      stats.clampedSteps += comparison.clampedSteps;
      return undefined;
    });
    if (stats.traces.size === 0) continue;
    const round1 = (/** @type {number} */ value) => Math.round(value * 10) / 10;
    report[link] = {
      traces: [...stats.traces],
      steps: stats.steps,
      seconds: stats.errors.length,
      meanAbsErrorKbps: stats.errors.length ? round1(stats.errors.reduce((a, b) => a + b, 0) / stats.errors.length) : null,
      maxAbsErrorKbps: stats.errors.length ? round1(stats.errors.reduce((a, b) => Math.max(a, b), 0)) : null,
      maxBacklogBytes: stats.maxBacklogBytes,
      clampedSteps: stats.clampedSteps,
    };
  }
  const events = changes.sort((a, b) => a.atS - b.atS || a.order - b.order).map(({ order: _order, ...event }) => event);
  return { compiled: { ...compiled, links, events, traces: {} }, traceSteps: { stepMs, links: report } };
}
