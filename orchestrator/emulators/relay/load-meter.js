/**
 * The relay's own load: how late datagrams leave against their schedule (in total and per second), and per second
 * the datagrams it took in and sent, how long after the kernel took them in it read them, and the share of the time
 * its event loop was busy. Pure; the relay feeds it.
 */

/**
 * A second whose p99 lateness is above its packet path's limit counts as one in which the relay fell behind (it is no
 * longer exact). Native: 1 ms, its timerfd fires to the microsecond (full-length 720p calls read p99 0.1-0.4 ms in
 * every second). dgram: 2 ms, Node timers have whole-ms resolution, so an idle relay with a delay on its links already
 * sends at ~1.1 ms p99 (latency-500 read 1.1-1.2 ms in every second); 2 ms leaves one timer tick of slack above that.
 */
export const BEHIND_LATENESS_MS = Object.freeze({ native: 1, dgram: 2 });

/** How late datagrams leave the relay against their scheduled time, in 0.1 ms bins: the relay's own timing error. */
export class LatenessHistogram {
  static BIN_MS = 0.1;
  /** The last bin collects 100 ms and more. */
  #bins = new Uint32Array(1001);
  #count = 0;
  #maxMs = 0;

  /** @param {number} lateMs  negative (sent early) counts as 0 */
  record(lateMs) {
    this.#bins[Math.min(this.#bins.length - 1, Math.max(0, Math.floor(lateMs / LatenessHistogram.BIN_MS)))]++;
    this.#count++;
    if (lateMs > this.#maxMs) this.#maxMs = lateMs;
  }

  /** Empties it in place: a new one each second replaced a field the optimized packet path had taken as constant. */
  reset() {
    this.#bins.fill(0);
    this.#count = 0;
    this.#maxMs = 0;
  }

  /** Percentiles are bin upper edges, in ms. */
  summary() {
    /** @param {number} fraction */
    const upTo = (fraction) => {
      const target = Math.ceil(this.#count * fraction);
      let seen = 0;
      for (let bin = 0; bin < this.#bins.length; bin++) {
        seen += this.#bins[bin];
        if (seen >= target) return Number(((bin + 1) * LatenessHistogram.BIN_MS).toFixed(1));
      }
      return null;
    };
    if (this.#count === 0) return { p50: null, p99: null, max: null, n: 0 };
    return { p50: upTo(0.5), p99: upTo(0.99), max: Number(this.#maxMs.toFixed(3)), n: this.#count };
  }
}

/**
 * @typedef {object} LoadRow  one second of the relay's own load
 * @property {number} t  end of the second, in seconds since relay start
 * @property {number} packetsIn  datagrams received (all sockets, dropped ones included)
 * @property {number} packetsOut  datagrams sent
 * @property {number|null} busyPct  share of the second the event loop was busy, in %
 * @property {number|null} lateMsP99  how late datagrams left against their schedule, or after the relay read them
 *   when that was later (a datagram read late is the host's delay, not the relay's: see wakeMsP99)
 * @property {number|null} lateMsMax
 * @property {number|null} wakeMsP99  from the kernel's arrival stamp to the relay's read (native path; null on dgram,
 *   which has no stamp): a link's delay absorbs it, on a link without delay it adds to the truth's one-way delay
 * @property {number|null} wakeMsMax
 * @property {number|null} timerWakeMsMax  how long after its send timer's time the host woke the relay, when it had been
 *   idle waiting since before that time (native path; null: no such wake-up, or dgram): the host's scheduling, not the
 *   relay's work. As late as the datagrams left means the host did not run it (a VM's vCPU, a kernel that does not preempt)
 * @property {number|null} offCpuMsMax  the longest time within one busy turn of its event loop that the host did not run
 *   the relay (wall time minus its thread's CPU time; native path, else null): the host's share of a busy relay's delay,
 *   as timerWakeMsMax is an idle one's
 * @property {boolean} behind  lateMsP99 over its packet path's BEHIND_LATENESS_MS: the relay fell behind its schedule
 */

export class LoadMeter {
  #originMs;
  #second;
  #packetsIn = 0;
  #packetsOut = 0;
  #lateness = new LatenessHistogram();
  #wake = new LatenessHistogram();
  /** @type {number|null} */
  #timerWakeMax = null;
  /** @type {LoadRow[]} */
  #rows = [];

  #behindMs;

  /**
   * @param {number} originMs  time 0 of the rows' t @param {number} nowMs
   * @param {number} behindMs  p99 lateness above which a second fell behind (BEHIND_LATENESS_MS of the packet path)
   */
  constructor(originMs, nowMs, behindMs) {
    this.#originMs = originMs;
    this.#behindMs = behindMs;
    this.#second = Math.floor((nowMs - originMs) / 1000);
  }

  /** @param {number|null} wakeMs  from the kernel's arrival stamp to the read; null: no stamp */
  received(wakeMs) {
    this.#packetsIn++;
    if (wakeMs !== null) this.#wake.record(wakeMs);
  }

  /** @param {number} lateMs */
  sent(lateMs) {
    this.#packetsOut++;
    this.#lateness.record(lateMs);
  }

  /** @param {number} wakeMs  how long after its time the host woke the idle relay for its timer */
  timerWoke(wakeMs) {
    if (this.#timerWakeMax === null || wakeMs > this.#timerWakeMax) this.#timerWakeMax = wakeMs;
  }

  /**
   * Closes the second in progress when nowMs is past it (call just after each second's end); busyShare covers what
   * it closes. A tick late by more than a second (a stalled relay) closes one row, labelled by the second it ends in.
   * @param {number} nowMs @param {number|null} busyShare  0..1, e.g. from performance.eventLoopUtilization()
   * @param {number|null} [offCpuMaxMs]  the packet path's takeOffCpuMaxMs over what it closes
   */
  tick(nowMs, busyShare, offCpuMaxMs = null) {
    const second = Math.floor((nowMs - this.#originMs) / 1000);
    if (second <= this.#second) return;
    const { p99, max } = this.#lateness.summary();
    const wake = this.#wake.summary();
    this.#rows.push({
      t: second,
      packetsIn: this.#packetsIn,
      packetsOut: this.#packetsOut,
      busyPct: busyShare === null ? null : Math.round(busyShare * 1000) / 10,
      lateMsP99: p99,
      lateMsMax: max,
      wakeMsP99: wake.p99,
      wakeMsMax: wake.max,
      timerWakeMsMax: this.#timerWakeMax === null ? null : Number(this.#timerWakeMax.toFixed(3)),
      offCpuMsMax: offCpuMaxMs === null ? null : Number(offCpuMaxMs.toFixed(3)),
      behind: p99 !== null && p99 > this.#behindMs,
    });
    this.#second = second;
    this.#packetsIn = 0;
    this.#packetsOut = 0;
    this.#lateness.reset();
    this.#wake.reset();
    this.#timerWakeMax = null;
  }

  /** The rows closed since the last call. @returns {LoadRow[]} */
  take() {
    const rows = this.#rows;
    this.#rows = [];
    return rows;
  }
}
