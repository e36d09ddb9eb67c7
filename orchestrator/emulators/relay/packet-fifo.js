/**
 * A link's FIFO of packets with their size and two times, held in columns (a ring of typed arrays) instead of an
 * object per entry: at 50 000 packets/s the entries of a two-link route were ~150 000 short-lived objects a second,
 * and the relay's added-delay tail was its garbage collections.
 * @template P  the caller's packet object, carried through untouched
 */
export class PacketFifo {
  /** @type {(P|undefined)[]} */ #packets;
  #sizeBytes;
  #arrivalMs;
  #timeMs;
  #head = 0;
  #length = 0;

  constructor(capacity = 64) {
    this.#packets = new Array(capacity).fill(undefined);
    this.#sizeBytes = new Float64Array(capacity);
    this.#arrivalMs = new Float64Array(capacity);
    this.#timeMs = new Float64Array(capacity);
  }

  get length() { return this.#length; }

  /** @param {P} packet @param {number} sizeBytes @param {number} arrivalMs @param {number} timeMs */
  push(packet, sizeBytes, arrivalMs, timeMs) {
    if (this.#length === this.#packets.length) this.#grow();
    const i = (this.#head + this.#length) % this.#packets.length;
    this.#packets[i] = packet;
    this.#sizeBytes[i] = sizeBytes;
    this.#arrivalMs[i] = arrivalMs;
    this.#timeMs[i] = timeMs;
    this.#length++;
  }

  /** The head's time, Infinity when empty. */
  headTimeMs() { return this.#length === 0 ? Infinity : this.#timeMs[this.#head]; }

  headSizeBytes() { return this.#sizeBytes[this.#head]; }

  headArrivalMs() { return this.#arrivalMs[this.#head]; }

  /** Removes the head (read its columns first). @returns {P} */
  shift() {
    const packet = /** @type {P} */ (this.#packets[this.#head]);
    this.#packets[this.#head] = undefined;
    this.#head = (this.#head + 1) % this.#packets.length;
    this.#length--;
    return packet;
  }

  /** The i-th entry from the head (0: the head). @param {number} i */
  sizeBytesAt(i) { return this.#sizeBytes[this.#slot(i)]; }

  /** @param {number} i */
  timeMsAt(i) { return this.#timeMs[this.#slot(i)]; }

  /** @param {number} i @param {number} timeMs */
  setTimeMsAt(i, timeMs) { this.#timeMs[this.#slot(i)] = timeMs; }

  /** @param {number} i */
  #slot(i) { return (this.#head + i) % this.#packets.length; }

  /** Doubles the capacity of a full ring, the head moved to index 0. */
  #grow() {
    const [head, capacity] = [this.#head, this.#packets.length];
    /** @param {Float64Array} old */
    const unwrapped = (old) => {
      const grown = new Float64Array(capacity * 2);
      grown.set(old.subarray(head));
      grown.set(old.subarray(0, head), capacity - head);
      return grown;
    };
    this.#packets = [...this.#packets.slice(head), ...this.#packets.slice(0, head), ...new Array(capacity).fill(undefined)];
    this.#sizeBytes = unwrapped(this.#sizeBytes);
    this.#arrivalMs = unwrapped(this.#arrivalMs);
    this.#timeMs = unwrapped(this.#timeMs);
    this.#head = 0;
  }
}
