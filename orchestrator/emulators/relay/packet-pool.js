/**
 * The relay's packets, reused once sent or dropped. A fresh object per datagram (and the box of its double-valued
 * time) was garbage at 50 000 a second; those in a link's delay line outlived a scavenge or two, were copied, promoted
 * and then died in the old generation, which the mark-compacts then had to sweep.
 */

/**
 * @typedef {object} Packet
 * @property {import('./packet-io.js').Payload} payload  owned by the relay until sent or released
 * @property {number} payloadBytes
 * @property {number} sizeBytes
 * @property {string[]} route
 * @property {number} hop  index into route of the link the packet is in
 * @property {{socket: import('./packet-io.js').PacketSocket}} from  the relay socket the packet leaves from
 * @property {{address: string, port: number}} to  where it is sent
 * @property {import('./truth-recorder.js').TruthRecorder|null} tunnelTruth  the tunnel direction it crosses, if any
 * @property {number} atMs  when it leaves the link it is in (set on delivery)
 * @property {import('./link-queue.js').LinkQueue<Packet>|null} link  the link that delivered it, until it reports so
 * @property {number} linkArrivalMs  when it reached that link
 * @property {number} readMs  when the relay read it (its arrival is the kernel's stamp, which may be earlier)
 * @property {number} arrivalMs  when it reached the relay (the kernel's stamp): a tunnel's delay through the route
 */

export class PacketPool {
  /** @type {Packet[]} */ #spare = [];

  /**
   * A packet at the start of its route (hop -1), arrived at atMs, read at readMs.
   * @param {Packet['payload']} payload @param {number} payloadBytes @param {number} sizeBytes @param {string[]} route
   * @param {Packet['from']} from @param {Packet['to']} to @param {Packet['tunnelTruth']} tunnelTruth @param {number} atMs
   * @param {number} readMs
   * @returns {Packet}
   */
  take(payload, payloadBytes, sizeBytes, route, from, to, tunnelTruth, atMs, readMs) {
    const packet = this.#spare.pop();
    if (!packet) {
      return {
        payload, payloadBytes, sizeBytes, route, hop: -1, from, to, tunnelTruth, atMs, link: null, linkArrivalMs: atMs, readMs,
        arrivalMs: atMs,
      };
    }
    packet.payload = payload;
    packet.payloadBytes = payloadBytes;
    packet.sizeBytes = sizeBytes;
    packet.route = route;
    packet.hop = -1;
    packet.from = from;
    packet.to = to;
    packet.tunnelTruth = tunnelTruth;
    packet.atMs = atMs;
    packet.link = null;
    packet.linkArrivalMs = atMs;
    packet.readMs = readMs;
    packet.arrivalMs = atMs;
    return packet;
  }

  /** A packet sent or dropped: nothing may hold it any more. @param {Packet} packet */
  give(packet) {
    packet.payload = 0; // a dgram Buffer goes now, not when the packet is next used
    this.#spare.push(packet);
  }
}
