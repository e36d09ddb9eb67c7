/**
 * One emulated link direction, as pure logic on a caller-supplied clock (milliseconds, any origin):
 * random loss -> drop-tail FIFO served at rateKbps, or at a trace's delivery opportunities -> propagation delay +
 * jitter without reordering. The relay drives it with real time; tests drive it with a fake clock.
 */
import { queueLimitBytes } from '../../lib/network/link-model.js';
import { OPPORTUNITY_BYTES, opportunityClock } from '../../lib/network/trace.js';
import { createRandom, deriveSeed } from '../../lib/stats/random.js';
import { PacketFifo } from './packet-fifo.js';
import { TruthRecorder } from './truth-recorder.js';

/** @typedef {import('../../lib/network/link-model.js').LinkParams} LinkParams */
/** @typedef {import('../../lib/network/trace.js').Trace} Trace */

/** @typedef {import('./truth-recorder.js').TruthRow} TruthRow */

/** @type {ReadonlyArray<never>} */
const NOTHING_DELIVERED = Object.freeze(/** @type {never[]} */ ([]));

/**
 * @template P  the caller's packet object, carried through untouched
 */
export class LinkQueue {
  /** @type {LinkParams} */ #params;
  #lossRandom;
  #jitterRandom;
  #lossBurstActive = false;
  #clockMs = -Infinity;
  /** Accepted packets not yet fully serialized, with their departure time; the head is the one on the wire. */
  /** @type {PacketFifo<P>} */
  #queue = new PacketFifo();
  #queuedBytes = 0;
  /** When the last queued packet leaves (its last byte is sent). */
  #lastDepartMs = -Infinity;
  /** The trace serving the queue (params.trace), its clock, the next unused opportunity and the bytes the one at #lastDepartMs has left. */
  /** @type {Trace|null} */ #trace = null;
  /** @type {ReturnType<typeof opportunityClock>|null} */ #opportunities = null;
  #nextOpportunity = -Infinity;
  #leftoverBytes = 0;
  /** Serialized packets propagating, with their delivery time, which never decreases (no reordering). */
  /** @type {PacketFifo<P>} */
  #inFlight = new PacketFifo();
  #lastDeliverMs = -Infinity;
  #truth;
  #totals = { packetsIn: 0, bytesIn: 0, packetsOut: 0, bytesOut: 0, dropsQueue: 0, dropsLoss: 0 };

  /**
   * @param {LinkParams} params
   * @param {{nowMs?: number, originMs?: number, seed?: number, name?: string, trace?: Trace|null, traceOriginMs?: number}} [options]
   *   nowMs: creation time; originMs: time 0 of the truth rows' t; seed + name: reproducible random draws;
   *   trace: the trace params.trace names, started at traceOriginMs (default nowMs)
   */
  constructor(params, { nowMs = 0, originMs = 0, seed = Math.floor(Math.random() * 2 ** 32), name = '', trace = null, traceOriginMs = nowMs } = {}) {
    this.#params = params;
    this.#lossRandom = createRandom(deriveSeed(seed, name, 'loss'));
    this.#jitterRandom = createRandom(deriveSeed(seed, name, 'jitter'));
    this.#clockMs = nowMs;
    this.#truth = new TruthRecorder(originMs, nowMs);
    this.#useTrace(params, trace, traceOriginMs);
  }

  /** @returns {LinkParams} */
  get params() { return this.#params; }

  /**
   * Applies new parameters from nowMs on. Queued packets are kept; the one on the wire keeps the bits
   * already sent and the rest are re-served at the new rate. Packets already propagating keep their delivery time.
   * A link that switches to a trace (or to another one) starts it at traceOriginMs; one that stays on its trace
   * keeps its place in it. Where a trace starts or stops, queued packets are re-served from nowMs in full.
   * @param {LinkParams} params @param {number} nowMs
   * @param {{trace?: Trace|null, traceOriginMs?: number}} [options]  trace: the one params.trace names
   */
  configure(params, nowMs, { trace = null, traceOriginMs = nowMs } = {}) {
    const t = this.#tick(nowMs);
    this.#advance(t);
    const old = { rateKbps: this.#params.rateKbps, trace: this.#params.trace };
    this.#params = params;
    if (params.lossBurst === null) this.#lossBurstActive = false;
    const traceChanged = (params.trace ?? null) !== (old.trace ?? null);
    if (traceChanged) this.#useTrace(params, trace, traceOriginMs);
    if (!traceChanged && (old.trace || old.rateKbps === params.rateKbps)) return;
    this.#reserve(t, old.trace ? null : old.rateKbps);
  }

  /**
   * Starts the current trace again at originMs (the run's media start): queued packets are re-served from nowMs.
   * @param {number} originMs @param {number} nowMs
   */
  restartTrace(originMs, nowMs) {
    if (!this.#trace) return;
    const t = this.#tick(nowMs);
    this.#advance(t);
    this.#useTrace(this.#params, this.#trace, originMs);
    this.#reserve(t, null);
  }

  /**
   * @param {LinkParams} params @param {Trace|null} trace @param {number} originMs
   */
  #useTrace(params, trace, originMs) {
    if (params.trace && trace?.name !== params.trace) {
      throw new Error(`LinkQueue: params name trace ${params.trace} but ${trace ? `trace ${trace.name}` : 'no trace'} was given`);
    }
    this.#trace = params.trace ? trace : null;
    this.#opportunities = this.#trace && opportunityClock(this.#trace, originMs);
    this.#nextOpportunity = -Infinity;
    this.#leftoverBytes = 0;
  }

  /**
   * Serves the queued packets again from t under the current capacity, in order.
   * @param {number} t @param {number|null} oldRateKbps  the rate the head was being sent at (null: unlimited or a
   *   trace; then it starts over)
   */
  #reserve(t, oldRateKbps) {
    if (this.#queue.length === 0) return;
    this.#lastDepartMs = -Infinity;
    this.#nextOpportunity = -Infinity;
    this.#leftoverBytes = 0;
    for (let i = 0; i < this.#queue.length; i++) {
      const onWire = i === 0 && oldRateKbps !== null;
      const remainingBytes = onWire ? Math.max(0, ((this.#queue.timeMsAt(i) - t) * oldRateKbps) / 8) : this.#queue.sizeBytesAt(i);
      this.#queue.setTimeMsAt(i, this.#serve(remainingBytes, t));
    }
    this.#advance(t);
  }

  /**
   * When a packet of sizeBytes that reaches the queue at t leaves it: at the rate, back to back after the packet
   * before it; on a trace, at the opportunity that carries its last byte (mahimahi: each opportunity carries up to
   * 1500 bytes of the queue's head, a packet may span several and several packets may share one; an opportunity
   * with nothing queued before it is lost).
   * @param {number} sizeBytes @param {number} t @returns {number}
   */
  #serve(sizeBytes, t) {
    if (!this.#opportunities) {
      const { rateKbps } = this.#params;
      this.#lastDepartMs = Math.max(t, this.#lastDepartMs) + (rateKbps === null ? 0 : (sizeBytes * 8) / rateKbps);
      return this.#lastDepartMs;
    }
    let needBytes = sizeBytes;
    // What the opportunity that sent the previous packet has left serves this one only if it was queued before it.
    if (t < this.#lastDepartMs && this.#leftoverBytes > 0) {
      const used = Math.min(this.#leftoverBytes, needBytes);
      this.#leftoverBytes -= used;
      needBytes -= used;
    } else {
      this.#leftoverBytes = 0;
    }
    if (needBytes <= 0) return this.#lastDepartMs;
    let k = Math.max(this.#nextOpportunity, this.#opportunities.firstFrom(t, true));
    const count = Math.ceil(needBytes / OPPORTUNITY_BYTES);
    k += count - 1;
    this.#nextOpportunity = k + 1;
    this.#leftoverBytes = count * OPPORTUNITY_BYTES - needBytes;
    this.#lastDepartMs = this.#opportunities.timeOf(k);
    return this.#lastDepartMs;
  }

  /**
   * Offers a packet that arrives at the link at nowMs.
   * @param {P} packet @param {number} sizeBytes  bytes charged against the rate (payload + UDP_IPV4_OVERHEAD_BYTES)
   * @param {number} nowMs
   * @returns {'loss'|'queue'|null}  the drop reason, or null when accepted
   */
  enqueue(packet, sizeBytes, nowMs) {
    const t = this.#tick(nowMs);
    this.#advance(t);
    this.#totals.packetsIn++;
    this.#totals.bytesIn += sizeBytes;
    this.#truth.count(t, 'packetsIn', sizeBytes);
    if (this.#isLost()) {
      this.#totals.dropsLoss++;
      this.#truth.count(t, 'dropsLoss');
      return 'loss';
    }
    if (this.#params.rateKbps === null && !this.#trace) {
      this.#propagate(packet, sizeBytes, t, t);
      return null;
    }
    if (!this.#fits(sizeBytes)) {
      this.#totals.dropsQueue++;
      this.#truth.count(t, 'dropsQueue');
      return 'queue';
    }
    const departMs = this.#serve(sizeBytes, t);
    this.#queue.push(packet, sizeBytes, t, departMs);
    this.#queuedBytes += sizeBytes;
    return null;
  }

  /**
   * Earliest time at which poll() may deliver something (a lower bound), or Infinity when idle.
   * @returns {number}
   */
  nextEventMs() {
    const propagating = this.#inFlight.headTimeMs();
    if (this.#queue.length === 0) return propagating;
    const minDelayMs = Math.max(0, this.#params.oneWayDelayMs - this.#params.jitterMs);
    return Math.min(propagating, Math.max(this.#queue.headTimeMs() + minDelayMs, this.#lastDeliverMs));
  }

  /**
   * Moves packets along up to nowMs and returns those delivered, in delivery order, with their exact delivery time.
   * @param {number} nowMs
   * @returns {ReadonlyArray<{packet: P, atMs: number}>}
   */
  poll(nowMs) {
    /** @type {{packet: P, atMs: number}[]} */
    const delivered = [];
    this.deliver(nowMs, (packet, atMs, arrivalMs, sizeBytes) => {
      this.delivered(sizeBytes, arrivalMs, atMs);
      delivered.push({ packet, atMs });
    });
    return delivered.length === 0 ? NOTHING_DELIVERED : delivered;
  }

  /**
   * poll() for a caller that sends: hands each packet due by nowMs to onDelivery(packet, atMs: its delivery time,
   * arrivalMs: when it reached this link, sizeBytes), in delivery order. The caller reports each with delivered().
   * @param {number} nowMs @param {(packet: P, atMs: number, arrivalMs: number, sizeBytes: number) => void} onDelivery
   */
  deliver(nowMs, onDelivery) {
    const t = this.#tick(nowMs);
    this.#advance(t);
    while (this.#inFlight.headTimeMs() <= t) {
      const sizeBytes = this.#inFlight.headSizeBytes();
      const arrivalMs = this.#inFlight.headArrivalMs();
      const deliverMs = this.#inFlight.headTimeMs();
      onDelivery(this.#inFlight.shift(), deliverMs, arrivalMs, sizeBytes);
    }
  }

  /**
   * A packet deliver() handed over left at leftMs: when it was actually sent (a late timer shows in the truth, as on
   * the wire), or its delivery time where it only moves on to a next link.
   * @param {number} sizeBytes @param {number} arrivalMs @param {number} leftMs
   */
  delivered(sizeBytes, arrivalMs, leftMs) {
    this.#totals.packetsOut++;
    this.#totals.bytesOut += sizeBytes;
    this.#truth.count(leftMs, 'packetsOut', sizeBytes);
    this.#truth.sample(leftMs, 'oneWayDelaysMs', leftMs - arrivalMs);
  }

  /**
   * Truth rows for the seconds completed by nowMs since the last call. Deliver everything due by nowMs
   * (poll while nextEventMs() <= nowMs) first, or those deliveries are missing from the rows.
   * @param {number} nowMs @returns {TruthRow[]}
   */
  takeTruth(nowMs) {
    const t = this.#tick(nowMs);
    this.#advance(t);
    return this.#truth.take(t);
  }

  /** Folds the truth of the seconds completed by nowMs for a later takeTruth (same rows); deliver due ones first. @param {number} nowMs */
  foldTruth(nowMs) {
    const t = this.#tick(nowMs);
    this.#advance(t);
    this.#truth.fold(t);
  }

  /** Totals since creation plus the current occupancy. */
  totals() {
    return { ...this.#totals, queuedPackets: this.#queue.length, queuedBytes: this.#queuedBytes, inFlightPackets: this.#inFlight.length };
  }

  /** Callers may pass slightly out-of-order times (e.g. two upstream links); time never runs backwards here. @param {number} nowMs */
  #tick(nowMs) {
    if (nowMs > this.#clockMs) this.#clockMs = nowMs;
    return this.#clockMs;
  }

  #isLost() {
    const { lossPct, lossBurst } = this.#params;
    if (lossPct <= 0) return false;
    if (lossBurst === null) return this.#lossRandom() * 100 < lossPct;
    // Gilbert-Elliott with loss in the bad state: mean burst = 1/leave, stationary loss = enter/(enter+leave).
    const lossRatio = Math.min(lossPct / 100, 1);
    const leaveBad = Math.min(1, 1 / lossBurst);
    const enterBad = lossRatio >= 1 ? 1 : Math.min(1, (leaveBad * lossRatio) / (1 - lossRatio));
    this.#lossBurstActive = this.#lossBurstActive ? this.#lossRandom() >= leaveBad : this.#lossRandom() < enterBad;
    return this.#lossBurstActive;
  }

  /** @param {number} sizeBytes */
  #fits(sizeBytes) {
    // An empty queue always takes one packet, so a byte limit below one packet cannot black-hole the link.
    if (this.#queue.length === 0) return true;
    const { queuePackets, queueMs } = this.#params;
    if (queuePackets !== null) return this.#queue.length < queuePackets;
    // Bytes at the current rate, so a rate change moves the limit.
    // No limit (null) only on a link without rate or trace, which queues nothing.
    if (queueMs !== null) return this.#queuedBytes + sizeBytes <= (queueLimitBytes(this.#params) ?? Infinity);
    return true;
  }

  /** @param {number} t */
  #advance(t) {
    while (this.#queue.headTimeMs() <= t) {
      const sizeBytes = this.#queue.headSizeBytes();
      const arrivalMs = this.#queue.headArrivalMs();
      const departMs = this.#queue.headTimeMs();
      const packet = this.#queue.shift();
      this.#queuedBytes -= sizeBytes;
      this.#truth.sample(departMs, 'queueDelaysMs', departMs - arrivalMs);
      this.#propagate(packet, sizeBytes, arrivalMs, departMs);
    }
  }

  /** @param {P} packet @param {number} sizeBytes @param {number} arrivalMs @param {number} departMs */
  #propagate(packet, sizeBytes, arrivalMs, departMs) {
    const { oneWayDelayMs, jitterMs } = this.#params;
    const jitterSampleMs = jitterMs > 0 ? (this.#jitterRandom() * 2 - 1) * jitterMs : 0;
    const deliverMs = Math.max(departMs + Math.max(0, oneWayDelayMs + jitterSampleMs), this.#lastDeliverMs);
    this.#lastDeliverMs = deliverMs;
    this.#inFlight.push(packet, sizeBytes, arrivalMs, deliverMs);
  }
}
