/**
 * The relay's tunnels for kernel traffic: each side is a TUN<->UDP bridge (socat) sending whole IP packets to its own
 * relay socket; they cross the tunnel's forward (left -> right) or back route and leave from the other side's socket
 * to that side's bridge. This module keeps the tunnels, their sockets and their truth; the relay moves the packets.
 */
import { isIPv4 } from 'node:net';
import { performance } from 'node:perf_hooks';
import { HarnessError, InputError } from '../../lib/system/errors.js';
import { byCodeUnit } from '../../lib/stats/order.js';
import { TruthRecorder } from './truth-recorder.js';

/**
 * @typedef {object} TunnelTruthRow  one completed second of one tunnel direction, counted where the relay meets the bridges
 * @property {number} t  end of the second, in seconds since relay start
 * @property {string} flow  the tunnel's name
 * @property {'forward'|'back'} direction  forward: left -> right
 * @property {number} packetsIn  IP packets the sending side's bridge handed in
 * @property {number} bytesIn
 * @property {number} packetsOut  IP packets delivered to the other side's bridge (lost and dropped ones are not)
 * @property {number} bytesOut
 * @property {number} dropsQueue  its packets a full queue on its route dropped
 * @property {number} dropsLoss  its packets a link's random loss dropped
 * @property {number|null} oneWayDelayMsP50  its packets' time through the route (delay, queue, serialization), null
 *   when none left in that second
 * @property {number|null} oneWayDelayMsP95
 */

/**
 * @typedef {object} TunnelSide  one end of a tunnel: the bridge's address and the relay socket it talks to
 * @property {string} address  where the bridge sends from and receives on
 * @property {number} port
 * @property {import('./packet-io.js').PacketSocket} socket
 * @property {number} relayPort
 */

/**
 * @typedef {object} TunnelDirection
 * @property {string[]} route
 * @property {TunnelSide} from  the side whose bridge sends
 * @property {TunnelSide} to  the side it is delivered to (and the socket it leaves from)
 * @property {TruthRecorder} truth
 */

/**
 * @typedef {object} TunnelSpec
 * @property {string} name
 * @property {string[]} forward
 * @property {string[]} back
 * @property {{address: string, port: number}} left  the left bridge's own UDP address
 * @property {{address: string, port: number}} right
 */

export class Tunnels {
  #io;
  #host;
  #originMs;
  #isClosed;
  #onDatagram;
  /** @type {Map<string, TunnelDirection[]>} forward, back; by name */
  #tunnels = new Map();
  /** @type {Set<import('./packet-io.js').PacketSocket>} every tunnel socket, also those of a registration in progress */
  #sockets = new Set();

  /**
   * @param {{io: import('./packet-io.js').PacketIo, host: string, originMs: number, isClosed: () => boolean,
   *   onDatagram: (direction: TunnelDirection, payload: import('./packet-io.js').Payload, payloadBytes: number,
   *     address: string, port: number, arrivalMs: number) => void}} options  onDatagram owns the payload (sends or releases it)
   */
  constructor({ io, host, originMs, isClosed, onDatagram }) {
    this.#io = io;
    this.#host = host;
    this.#originMs = originMs;
    this.#isClosed = isClosed;
    this.#onDatagram = onDatagram;
  }

  get size() { return this.#tunnels.size; }

  /**
   * Opens a tunnel: one relay socket per side (see UdpRelay.registerTunnel).
   * @param {TunnelSpec} tunnel @param {Set<string>} knownLinks
   * @returns {Promise<{leftPort: number, rightPort: number}>}
   */
  async register({ name, forward, back, left, right }, knownLinks) {
    validate({ name, forward, back, left, right }, this.#tunnels, knownLinks);
    /** @type {TunnelDirection[]} */
    const directions = [];
    /** @param {number} index @returns {import('./packet-io.js').DatagramHandler} */
    const handler = (index) => (payload, payloadBytes, address, port, arrivalMs) => {
      if (directions[index]) this.#onDatagram(directions[index], payload, payloadBytes, address, port, arrivalMs);
      else this.#io.release(payload);
    };
    const leftSocket = await this.#io.bind(this.#host, handler(0));
    this.#sockets.add(leftSocket);
    const rightSocket = await this.#io.bind(this.#host, handler(1)).catch(async (error) => {
      this.#sockets.delete(leftSocket);
      await this.#io.closeSocket(leftSocket);
      throw error;
    });
    this.#sockets.add(rightSocket);
    // close() during the binds closed what was in #sockets then; close the rest.
    if (this.#isClosed()) {
      await Promise.all([leftSocket, rightSocket].map((socket) => this.#io.closeSocket(socket)));
      throw new HarnessError(`relay closed while registering tunnel "${name}".`);
    }
    /** @type {TunnelSide} */
    const leftSide = { ...left, socket: leftSocket, relayPort: leftSocket.port };
    /** @type {TunnelSide} */
    const rightSide = { ...right, socket: rightSocket, relayPort: rightSocket.port };
    const nowMs = performance.now();
    directions.push(
      { route: forward, from: leftSide, to: rightSide, truth: new TruthRecorder(this.#originMs, nowMs) },
      { route: back, from: rightSide, to: leftSide, truth: new TruthRecorder(this.#originMs, nowMs) },
    );
    this.#tunnels.set(name, directions);
    return { leftPort: leftSide.relayPort, rightPort: rightSide.relayPort };
  }

  /**
   * Per-tunnel truth for the seconds completed by nowMs since the last call, ordered by t, flow, direction.
   * @param {number} nowMs @returns {TunnelTruthRow[]}
   */
  truth(nowMs) {
    /** @type {TunnelTruthRow[]} */
    const rows = [];
    for (const [name, directions] of this.#tunnels) {
      for (const [index, { truth }] of directions.entries()) {
        for (const row of truth.take(nowMs)) {
          const { t, packetsIn, bytesIn, packetsOut, bytesOut, dropsQueue, dropsLoss, oneWayDelayMsP50, oneWayDelayMsP95 } = row;
          rows.push({
            t, flow: name, direction: index === 0 ? 'forward' : 'back', packetsIn, bytesIn, packetsOut, bytesOut, dropsQueue, dropsLoss,
            oneWayDelayMsP50, oneWayDelayMsP95,
          });
        }
      }
    }
    return rows.sort((a, b) => a.t - b.t || byCodeUnit(a.flow, b.flow) || byCodeUnit(a.direction, b.direction));
  }

  /** Closes every tunnel socket. */
  async close() {
    const sockets = [...this.#sockets];
    this.#sockets.clear();
    this.#tunnels.clear();
    await Promise.all(sockets.map((socket) => this.#io.closeSocket(socket)));
  }
}

/**
 * @param {TunnelSpec} tunnel @param {Map<string, unknown>} tunnels  the open ones, by name
 * @param {Set<string>} knownLinks
 */
function validate({ name, forward, back, left, right }, tunnels, knownLinks) {
  if (typeof name !== 'string' || name === '') throw new InputError('relay registerTunnel: name must be a non-empty string.');
  if (tunnels.has(name)) throw new InputError(`relay registerTunnel: a tunnel "${name}" exists already; give each tunnel its own name.`);
  for (const [label, route] of [['forward', forward], ['back', back]]) {
    const unknown = (Array.isArray(route) ? route : [route]).filter((link) => !knownLinks.has(link));
    if (!Array.isArray(route) || unknown.length > 0) {
      throw new InputError(`relay tunnel "${name}": the ${label} route must list configured links; unknown: ${unknown.join(', ')} (known: ${[...knownLinks].join(', ') || 'none'}).`);
    }
  }
  for (const [label, end] of /** @type {const} */ ([['left', left], ['right', right]])) {
    if (!isIPv4(end?.address) || !Number.isInteger(end?.port) || end.port < 1 || end.port > 65535) {
      throw new InputError(`relay tunnel "${name}": ${label} must be {address: IPv4, port: 1..65535}, got ${JSON.stringify(end)}.`);
    }
  }
}
