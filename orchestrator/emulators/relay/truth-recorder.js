/**
 * Per-second truth of a link or a tunnel direction: counters and delay samples per second, folded into rows once a
 * second can no longer change. Pure, on the caller's clock.
 */
import { percentileInPlace } from './select-percentile.js';

/**
 * @typedef {object} TruthRow  one completed second of one link ("network truth")
 * @property {number} t  end of the second, in seconds since the clock origin
 * @property {number} packetsIn
 * @property {number} bytesIn
 * @property {number} packetsOut
 * @property {number} bytesOut
 * @property {number} dropsQueue
 * @property {number} dropsLoss
 * @property {number|null} queueDelayMsP50  arrival to end of serialization, packets that left the queue this second
 * @property {number|null} queueDelayMsP95
 * @property {number|null} oneWayDelayMsP50  arrival at the link to delivery, packets delivered this second
 * @property {number|null} oneWayDelayMsP95
 */

/** Truth delays are reported to the microsecond. @param {number|null} valueMs */
const toMicroseconds = (valueMs) => (valueMs === null ? null : Math.round(valueMs * 1000) / 1000);

/**
 * One second's delay samples, in a Float64Array kept for a later second: a fresh array per second and link grew by
 * copies to ~10 000 samples at high packet rates, lived up to three seconds (promoted to the old generation) and then
 * died there, for the mark-compacts to collect while packets waited.
 */
class Samples {
  #values = new Float64Array(256);
  #count = 0;

  /** @param {number} valueMs */
  push(valueMs) {
    if (this.#count === this.#values.length) {
      const grown = new Float64Array(this.#values.length * 2);
      grown.set(this.#values);
      this.#values = grown;
    }
    this.#values[this.#count++] = valueMs;
  }

  /** Reorders the samples. @param {number} p @returns {number|null} */
  percentile(p) { return percentileInPlace(this.#values.subarray(0, this.#count), p); }

  clear() { this.#count = 0; }
}

/** @returns {Pick<TruthRow, 'packetsIn'|'bytesIn'|'packetsOut'|'bytesOut'|'dropsQueue'|'dropsLoss'>} */
const zeroCounters = () => ({ packetsIn: 0, bytesIn: 0, packetsOut: 0, bytesOut: 0, dropsQueue: 0, dropsLoss: 0 });

/** @returns {{counters: ReturnType<typeof zeroCounters>, queueDelaysMs: Samples, oneWayDelaysMs: Samples}} */
const newBucket = () => ({ counters: zeroCounters(), queueDelaysMs: new Samples(), oneWayDelaysMs: new Samples() });

/** Per-second counters and delay samples, folded into rows once a second can no longer change. */
export class TruthRecorder {
  #originMs;
  /** Index of the first second not yet folded into a row. */
  #nextSecond;
  /**
   * @typedef {{
   *   counters: Pick<TruthRow, 'packetsIn'|'bytesIn'|'packetsOut'|'bytesOut'|'dropsQueue'|'dropsLoss'>,
   *   queueDelaysMs: Samples,
   *   oneWayDelaysMs: Samples,
   * }} TruthBucket
   */
  /** @type {Map<number, TruthBucket>} */
  #open = new Map();
  /**
   * Buckets of folded seconds, for the next ones. Three from the start, as many as are ever open at once: an empty
   * array holds small integers as far as V8 knows, so the first bucket given back changed its hidden class, and the
   * first one made after start was a call the optimized packet path had never seen; both threw that code away at the
   * first second's end.
   * @type {TruthBucket[]}
   */
  #spare = [newBucket(), newBucket(), newBucket()];
  /** @type {TruthRow[]} */
  #rows = [];
  /** The bucket #bucket returned last, and its second. */
  #lastSecond = -1;
  /** @type {TruthBucket|null} */
  #lastBucket = null;

  /** @param {number} originMs @param {number} startMs */
  constructor(originMs, startMs) {
    this.#originMs = originMs;
    this.#nextSecond = Math.max(0, Math.floor((startMs - originMs) / 1000));
  }

  /** @param {number} atMs @param {'packetsIn'|'packetsOut'|'dropsQueue'|'dropsLoss'} packetsField @param {number} [sizeBytes] */
  count(atMs, packetsField, sizeBytes = 0) {
    const bucket = this.#bucket(atMs);
    bucket.counters[packetsField]++;
    if (packetsField === 'packetsIn') bucket.counters.bytesIn += sizeBytes;
    if (packetsField === 'packetsOut') bucket.counters.bytesOut += sizeBytes;
  }

  /** @param {number} atMs @param {'queueDelaysMs'|'oneWayDelaysMs'} series @param {number} valueMs */
  sample(atMs, series, valueMs) { this.#bucket(atMs)[series].push(valueMs); }

  /**
   * Folds every second that ended at or before nowMs into its row, kept for take(): the same rows, made earlier. The
   * caller must have recorded every event up to nowMs.
   * @param {number} nowMs
   */
  fold(nowMs) { this.#foldBefore(Math.floor((nowMs - this.#originMs) / 1000)); }

  /**
   * Rows for every second that ended at or before nowMs and was not taken yet (empty seconds included).
   * The caller must have recorded every event up to nowMs.
   * @param {number} nowMs @returns {TruthRow[]}
   */
  take(nowMs) {
    this.fold(nowMs);
    const rows = this.#rows;
    this.#rows = [];
    return rows;
  }

  /** @param {number} atMs @returns {TruthBucket} */
  #bucket(atMs) {
    // An event for an already-folded second (only possible if the driver polled very late) joins the oldest open one.
    const second = Math.max(this.#nextSecond, Math.floor((atMs - this.#originMs) / 1000));
    // Nearly every event falls in the same second as the one before: skip the map (the packet path's hottest lookup).
    if (second === this.#lastSecond && second >= this.#nextSecond && this.#lastBucket) return this.#lastBucket;
    let bucket = this.#open.get(second);
    if (!bucket) {
      // Late events are at most a timer slip or (departures) one delay behind: folding seconds three behind the
      // newest keeps memory bounded at high packet rates.
      this.#foldBefore(second - 2);
      bucket = this.#spare.pop() ?? newBucket();
      this.#open.set(second, bucket);
    }
    this.#lastSecond = second;
    this.#lastBucket = bucket;
    return bucket;
  }

  /** @param {number} endSecond */
  #foldBefore(endSecond) {
    for (; this.#nextSecond < endSecond; this.#nextSecond++) {
      const bucket = this.#open.get(this.#nextSecond);
      this.#open.delete(this.#nextSecond);
      /** @param {'queueDelaysMs'|'oneWayDelaysMs'} series @param {number} p */
      const percentile = (series, p) => toMicroseconds(bucket ? bucket[series].percentile(p) : null);
      this.#rows.push({
        t: this.#nextSecond + 1,
        ...(bucket?.counters ?? zeroCounters()),
        queueDelayMsP50: percentile('queueDelaysMs', 50),
        queueDelayMsP95: percentile('queueDelaysMs', 95),
        oneWayDelayMsP50: percentile('oneWayDelaysMs', 50),
        oneWayDelayMsP95: percentile('oneWayDelaysMs', 95),
      });
      if (bucket) this.#recycle(bucket);
    }
  }

  /** @param {TruthBucket} bucket */
  #recycle(bucket) {
    // The row holds a copy of the counters: the bucket's object can start over.
    Object.assign(bucket.counters, zeroCounters());
    bucket.queueDelaysMs.clear();
    bucket.oneWayDelaysMs.clear();
    // Forgotten by its second, not by storing null: null in a field that held a bucket changes the recorder's hidden
    // class, and every optimized function on the packet path that inlined it was thrown away (at the first fold).
    if (this.#lastBucket === bucket) this.#lastSecond = -1;
    this.#spare.push(bucket);
  }
}
