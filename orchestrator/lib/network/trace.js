/**
 * Link capacity traces (docs/scenario-format.md "Traces"). The canonical form is mahimahi's: one line per
 * 1500-byte delivery opportunity, an integer number of milliseconds since the trace's start, non-decreasing,
 * the last line being the trace's length, after which it loops. Converters turn throughput logs into it,
 * synthetic traces are generated from their names, and the arithmetic the emulators and the results share
 * (capacity over an interval, the delivery-opportunity clock) lives here; trace-steps.js turns a trace into rate
 * steps for tc/dummynet. Pure: no I/O.
 */
import { InputError } from '../system/errors.js';
import { MAX_RATE_KBPS, MIN_RATE_KBPS } from './link-model.js';
import { MAX_OPPORTUNITIES, MAX_TRACE_MS } from '../input/limits.js';

/** Bytes one delivery opportunity carries (mahimahi's PACKET_SIZE). */
export const OPPORTUNITY_BYTES = 1500;
export const SYNTHETIC_PREFIX = 'synthetic:';
/** Rate steps for backends that cannot replay opportunities (netem, dummynet). */
export const DEFAULT_TRACE_STEP_MS = 100;
/** Each step reconfigures the link (several tc commands): at most ten a second, like ramps. */
export const MIN_TRACE_STEP_MS = 100;
export const MAX_TRACE_STEP_MS = 60_000;

/**
 * @typedef {object} Trace
 * @property {string} name  as a scenario names it: "synthetic:…" or a file path as written
 * @property {number[]} opportunitiesMs  non-decreasing integers; the last one is periodMs
 * @property {number} periodMs  > 0: the trace repeats every periodMs
 */

/**
 * First index whose value is >= x (lower bound) or > x (upper bound) in a sorted array.
 * @param {number[]} sorted @param {number} x @param {boolean} strict  upper bound
 */
function bound(sorted, x, strict) {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (strict ? sorted[mid] <= x : sorted[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The delivery opportunities of a looping trace started at originMs, numbered by global index k
 * (k = loop × n + i, negative before the origin), on any millisecond clock.
 * @param {Trace} trace @param {number} originMs
 */
export function opportunityClock(trace, originMs) {
  const { opportunitiesMs: opps, periodMs } = trace;
  const n = opps.length;
  return {
    /** @param {number} k @returns {number} the time of opportunity k */
    timeOf(k) {
      const loop = Math.floor(k / n);
      return originMs + loop * periodMs + opps[k - loop * n];
    },
    /**
     * The first opportunity at or after t (strict: after t).
     * @param {number} t @param {boolean} [strict] @returns {number} its index
     */
    firstFrom(t, strict = false) {
      const x = t - originMs;
      const loop = Math.floor(x / periodMs);
      const offset = x - loop * periodMs;
      // At a loop's start the previous loop's last line(s) (= periodMs) fall on the same instant and come first.
      if (offset === 0 && !strict) return loop * n - (n - bound(opps, periodMs, false));
      return loop * n + bound(opps, offset, strict);
    },
  };
}

/**
 * Mean capacity over [fromMs, toMs) of a trace started at originMs.
 * @param {Trace} trace @param {number} originMs @param {number} fromMs @param {number} toMs
 * @returns {number} kbit/s
 */
export function capacityKbps(trace, originMs, fromMs, toMs) {
  const clock = opportunityClock(trace, originMs);
  const count = clock.firstFrom(toMs) - clock.firstFrom(fromMs);
  return (count * OPPORTUNITY_BYTES * 8) / (toMs - fromMs);
}

/** @param {Trace} trace @returns {number} kbit/s over one period */
export const meanKbps = (trace) => (trace.opportunitiesMs.length * OPPORTUNITY_BYTES * 8) / trace.periodMs;

/**
 * Parses mahimahi's format, with mahimahi's rules: one integer per line, no empty line (a final line break
 * is fine), non-decreasing, at least one line, the last one above 0; and ours: no timestamp above MAX_TRACE_MS,
 * at most MAX_OPPORTUNITIES lines. Errors name the file and line, never what the line holds (the file may not be
 * a trace at all).
 * @param {string} text @param {string} file  named in errors (with the line)
 * @param {string} [name]  the trace's name (default: file)
 * @returns {Trace}
 */
export function parseMahimahi(text, file, name = file) {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  if (lines.length > MAX_OPPORTUNITIES) {
    throw new InputError(`${file}: ${lines.length} lines; at most ${MAX_OPPORTUNITIES} delivery opportunities (docs/scenario-format.md "Limits"): use a shorter trace (it loops)`);
  }
  /** @type {number[]} */
  const opportunitiesMs = [];
  for (const [index, raw] of lines.entries()) {
    const line = raw.replace(/\r$/, '').trim();
    const where = `${file}:${index + 1}`;
    if (!/^\d+$/.test(line)) {
      throw new InputError(`${where}: ${line === '' ? 'empty line' : 'not a whole number of milliseconds'}; a mahimahi trace has one integer per line (the time of a 1500-byte delivery opportunity). Convert other logs with \`trace convert\``);
    }
    const ms = Number(line);
    if (ms > MAX_TRACE_MS) {
      throw new InputError(`${where}: a timestamp above ${MAX_TRACE_MS} ms (a day), the limit (docs/scenario-format.md "Limits"); a trace loops, so a day is the longest one needs`);
    }
    if (ms < (opportunitiesMs.at(-1) ?? -Infinity)) {
      throw new InputError(`${where}: earlier than the line before it; timestamps must be non-decreasing`);
    }
    opportunitiesMs.push(ms);
  }
  const trace = { name, opportunitiesMs, periodMs: opportunitiesMs.at(-1) ?? 0 };
  checkTrace(trace, file);
  return trace;
}

/**
 * Throws InputError unless a trace is one the emulators can replay: 1 to MAX_OPPORTUNITIES integer timestamps,
 * non-decreasing, from 0 to MAX_TRACE_MS, the last one its period, above 0. The relay checks every trace it is
 * given with it, so no trace (from a file, over IPC) can send its timer into a loop of NaN or Infinity.
 * @param {Trace} trace @param {string} where
 */
export function checkTrace(trace, where) {
  const opps = trace?.opportunitiesMs;
  if (!Array.isArray(opps) || opps.length === 0) throw new InputError(`${where}: no timestamps; a mahimahi trace has one integer per line`);
  if (opps.length > MAX_OPPORTUNITIES) throw new InputError(`${where}: more than ${MAX_OPPORTUNITIES} delivery opportunities; use a shorter trace (it loops)`);
  let previous = 0;
  for (let i = 0; i < opps.length; i++) {
    const ms = opps[i];
    if (!Number.isInteger(ms) || ms < previous || ms > MAX_TRACE_MS) {
      throw new InputError(`${where}:${i + 1}: timestamps must be whole milliseconds from 0 to ${MAX_TRACE_MS}, non-decreasing`);
    }
    previous = ms;
  }
  if (opps.at(-1) === 0) {
    throw new InputError(`${where}:${opps.length}: the last timestamp is 0; it is the trace's length (it loops after it), so it must be above 0`);
  }
  if (trace.periodMs !== opps.at(-1)) throw new InputError(`${where}: periodMs must be the last timestamp`);
}

/** @param {Trace} trace @returns {string} the trace in mahimahi's format */
export function formatMahimahi(trace) {
  return `${trace.opportunitiesMs.join('\n')}\n`;
}

/**
 * @typedef {{durationMs: number, bytes: number}} Segment  bytes the link carried, spread evenly over durationMs
 */

/**
 * A trace whose opportunities carry each segment's bytes: an opportunity wherever the cumulative bytes reach a
 * multiple of 1500, at the nearest millisecond. Bytes short of a whole opportunity carry into the next segment.
 * mahimahi takes the last timestamp as the length, so the last opportunity is moved to the end (at most 1500
 * bytes later than the log says).
 * @param {Segment[]} segments @param {string} name @param {string} where  names the input in errors
 * @returns {Trace}
 */
export function traceFromSegments(segments, name, where) {
  /** @type {number[]} */
  const opportunitiesMs = [];
  let startMs = 0;
  let bytesBefore = 0;
  for (const { durationMs, bytes } of segments) {
    const bytesAfter = bytesBefore + bytes;
    for (let k = Math.floor(bytesBefore / OPPORTUNITY_BYTES) + 1; k * OPPORTUNITY_BYTES <= bytesAfter; k++) {
      if (opportunitiesMs.length >= MAX_OPPORTUNITIES) {
        throw new InputError(`${where}: more than ${MAX_OPPORTUNITIES} delivery opportunities; convert a shorter stretch (traces loop)`);
      }
      opportunitiesMs.push(Math.round(startMs + ((k * OPPORTUNITY_BYTES - bytesBefore) / bytes) * durationMs));
    }
    startMs += durationMs;
    bytesBefore = bytesAfter;
  }
  const periodMs = Math.round(startMs);
  if (opportunitiesMs.length === 0) {
    throw new InputError(`${where}: carries ${Math.round(bytesBefore)} bytes in ${periodMs} ms, less than one 1500-byte delivery opportunity; a trace needs capacity`);
  }
  if (periodMs < 1) throw new InputError(`${where}: lasts ${startMs} ms; a trace must last at least 1 ms`);
  if (periodMs > MAX_TRACE_MS) throw new InputError(`${where}: lasts ${periodMs} ms; a trace lasts at most ${MAX_TRACE_MS} ms (a day; it loops)`);
  opportunitiesMs[opportunitiesMs.length - 1] = periodMs;
  return { name, opportunitiesMs, periodMs };
}

/** Units a throughput CSV may be in, as kbit/s per unit. */
export const THROUGHPUT_UNITS = { kbps: 1, mbps: 1000, bps: 0.001, Bps: 0.008, kBps: 8 };

/**
 * Segments from a throughput log: one row per interval, `throughput` or `time,throughput` (seconds, the time the
 * interval starts; rows in time order, each lasting until the next row's time, the last one a second). A first
 * line that is not numeric is a header and skipped; `,`, `;`, tabs and spaces separate columns.
 * @param {string} text @param {string} file @param {{unit?: keyof typeof THROUGHPUT_UNITS}} [options]
 * @returns {Segment[]}
 */
export function parseThroughputCsv(text, file, { unit = 'kbps' } = {}) {
  const kbpsPerUnit = THROUGHPUT_UNITS[unit];
  if (kbpsPerUnit === undefined) throw new InputError(`--unit ${unit}: unknown; use one of ${Object.keys(THROUGHPUT_UNITS).join(', ')}`);
  /** @type {{line: number, timeS: number|null, kbps: number}[]} */
  const rows = [];
  for (const [index, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const cells = line.split(/[,;\t ]+/);
    const numbers = cells.map(Number);
    if (numbers.some((value) => !Number.isFinite(value))) {
      if (rows.length === 0 && index === text.split('\n').findIndex((l) => l.trim() !== '' && !l.trim().startsWith('#'))) continue;
      throw new InputError(`${file}:${index + 1}: not numbers; each row is throughput or time,throughput`);
    }
    if (cells.length > 2) throw new InputError(`${file}:${index + 1}: ${cells.length} columns; a throughput CSV has throughput or time,throughput (for 6-column HSDPA/4G logs use --from bandwidth-log)`);
    const kbps = numbers[numbers.length - 1] * kbpsPerUnit;
    if (!(kbps >= 0)) throw new InputError(`${file}:${index + 1}: a negative throughput`);
    const timeS = cells.length === 2 ? numbers[0] : null;
    if (rows.length && (timeS === null) !== (rows[0].timeS === null)) {
      throw new InputError(`${file}:${index + 1}: ${cells.length} columns where line ${rows[0].line} had ${rows[0].timeS === null ? 1 : 2}; use one layout throughout`);
    }
    const previousS = rows.at(-1)?.timeS ?? null;
    if (timeS !== null && previousS !== null && !(timeS > previousS)) {
      throw new InputError(`${file}:${index + 1}: its time is not after the previous row's; rows must be in time order`);
    }
    rows.push({ line: index + 1, timeS, kbps });
  }
  if (rows.length === 0) throw new InputError(`${file}: no rows; a throughput CSV has one row per interval`);
  return rows.map((row, i) => {
    const nextS = rows[i + 1]?.timeS ?? null;
    const durationMs = row.timeS === null || nextS === null ? 1000 : (nextS - row.timeS) * 1000;
    return { durationMs, bytes: (row.kbps * durationMs) / 8 };
  });
}

/**
 * Segments from the 6-column HSDPA (Riiser et al., Telenor 3G) and Ghent 4G/LTE bandwidth logs: whitespace-separated
 * time, time in ms, latitude, longitude, bytes received since the previous row, milliseconds since the previous row.
 * @param {string} text @param {string} file
 * @returns {Segment[]}
 */
export function parseBandwidthLog(text, file) {
  /** @type {Segment[]} */
  const segments = [];
  for (const [index, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const cells = line.split(/\s+/);
    const where = `${file}:${index + 1}`;
    if (cells.length !== 6) {
      throw new InputError(`${where}: ${cells.length} columns; a bandwidth log has 6 (time, time ms, latitude, longitude, bytes, elapsed ms)`);
    }
    const bytes = Number(cells[4]);
    const elapsedMs = Number(cells[5]);
    if (!Number.isFinite(bytes) || bytes < 0) throw new InputError(`${where}: column 5 (bytes since the previous row) must be a number >= 0`);
    if (!Number.isFinite(elapsedMs) || elapsedMs <= 0) throw new InputError(`${where}: column 6 (ms since the previous row) must be a number > 0`);
    segments.push({ durationMs: elapsedMs, bytes });
  }
  if (segments.length === 0) throw new InputError(`${file}: no rows; a bandwidth log has one 6-column row per measurement`);
  return segments;
}

/**
 * The synthetic shapes, their parameters and what they mean (all rates kbit/s, times seconds).
 * @type {Readonly<Record<string, {params: Array<'kbps'|'s'>, about: string}>>}
 */
export const SYNTHETIC_SHAPES = {
  constant: { params: ['kbps'], about: 'constant-<kbps>: one rate (loops every second)' },
  step: { params: ['kbps', 'kbps', 's'], about: 'step-<kbpsA>-<kbpsB>-<holdS>: kbpsA for holdS, then kbpsB for holdS' },
  sawtooth: { params: ['kbps', 'kbps', 's'], about: 'sawtooth-<lowKbps>-<highKbps>-<periodS>: rises linearly from low to high over periodS, then drops (1 s segments)' },
  outage: { params: ['kbps', 's', 's'], about: 'outage-<kbps>-<onS>-<offS>: kbps for onS, nothing for offS' },
};

/**
 * Generates a synthetic trace from its name, e.g. `synthetic:step-2000-500-30`.
 * @param {string} name @param {string} where  names the field in errors
 * @returns {Trace}
 */
export function syntheticTrace(name, where) {
  const grammar = `use one of ${Object.values(SYNTHETIC_SHAPES).map(({ about }) => `${SYNTHETIC_PREFIX}${about.split(':')[0]}`).join(', ')}`;
  const [shape, ...rest] = name.slice(SYNTHETIC_PREFIX.length).split('-');
  const spec = Object.hasOwn(SYNTHETIC_SHAPES, shape) ? SYNTHETIC_SHAPES[shape] : null;
  if (!spec) throw new InputError(`${where}: '${name}' is not a synthetic trace; ${grammar}`);
  if (rest.length !== spec.params.length || rest.some((value) => !/^\d+(\.\d+)?$/.test(value))) {
    throw new InputError(`${where}: '${name}': ${shape} takes ${spec.params.length} numbers: ${SYNTHETIC_PREFIX}${spec.about}`);
  }
  const values = rest.map(Number);
  spec.params.forEach((unit, i) => {
    const ok = unit === 'kbps' ? values[i] >= MIN_RATE_KBPS && values[i] <= MAX_RATE_KBPS : values[i] > 0 && values[i] <= 86_400;
    if (!ok) {
      throw new InputError(`${where}: '${name}': ${values[i]} ${unit} is out of range (${unit === 'kbps' ? `${MIN_RATE_KBPS} – ${MAX_RATE_KBPS} kbps` : '> 0 and <= 86 400 s'}): ${SYNTHETIC_PREFIX}${spec.about}`);
    }
  });
  /** @param {number} kbps @param {number} seconds */
  const at = (kbps, seconds) => ({ durationMs: seconds * 1000, bytes: (kbps * seconds * 1000) / 8 });
  /** @type {Segment[]} */
  let segments;
  switch (shape) {
    case 'constant': segments = [at(values[0], 1)]; break;
    case 'step': segments = [at(values[0], values[2]), at(values[1], values[2])]; break;
    case 'sawtooth': {
      const [low, high, periodS] = values;
      const count = Math.max(1, Math.round(periodS));
      segments = Array.from({ length: count }, (_, i) => at(low + ((high - low) * i) / Math.max(1, count - 1), periodS / count));
      break;
    }
    default: segments = [at(values[0], values[1]), { durationMs: values[2] * 1000, bytes: 0 }];
  }
  return traceFromSegments(segments, name, `${where}: '${name}'`);
}
