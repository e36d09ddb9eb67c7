/**
 * The relay's proxy sockets, one per (peer candidate, remote peer): the socket X(A→B) stands for A's candidate when
 * seen from B, and accepts datagrams only from B's candidates registered towards A. This module binds and finds them;
 * the relay routes what they receive.
 */
import { isIPv4 } from 'node:net';
import { HarnessError, InputError } from '../../lib/system/errors.js';

/**
 * @typedef {object} ProxySocket
 * @property {string} peer
 * @property {string} remotePeer
 * @property {string} address  the peer's real candidate address
 * @property {number} port
 * @property {import('./packet-io.js').PacketSocket} socket
 * @property {number} proxyPort
 * @property {Map<number, Map<string, ProxySocket>>} sources  remotePeer's proxies towards peer, by port then address:
 *   the candidates this socket accepts datagrams from
 * @property {string} routeKey  the route its datagrams take, "remotePeer->peer"
 */

/**
 * @typedef {object} Candidate
 * @property {string} peer
 * @property {string} remotePeer
 * @property {string} address
 * @property {number} port
 * @property {string} [bindAddress]  where its proxy socket listens, when not the relay's host
 */

export class Proxies {
  #io;
  #host;
  #isClosed;
  #onDatagram;
  /** @type {Map<string, Promise<ProxySocket>>} by registration key */
  #registrations = new Map();
  /** @type {Map<string, ProxySocket>} bound sockets by registration key */
  #bound = new Map();
  /** @type {Map<string, ProxySocket['sources']>} bound sockets by "peer|remotePeer", then port, then address */
  #byPair = new Map();

  /**
   * @param {{io: import('./packet-io.js').PacketIo, host: string, isClosed: () => boolean,
   *   onDatagram: (to: ProxySocket, payload: import('./packet-io.js').Payload, payloadBytes: number, address: string,
   *     port: number, arrivalMs: number) => void}} options  onDatagram owns the payload (sends or releases it)
   */
  constructor({ io, host, isClosed, onDatagram }) {
    this.#io = io;
    this.#host = host;
    this.#isClosed = isClosed;
    this.#onDatagram = onDatagram;
  }

  get size() { return this.#bound.size; }

  /**
   * The proxy port that represents the candidate towards remotePeer; idempotent for the same tuple.
   * @param {Candidate} candidate @returns {Promise<number>}
   */
  async register({ peer, remotePeer, address, port, bindAddress = this.#host }) {
    if (!isIPv4(address) || !Number.isInteger(port) || port < 1 || port > 65535) {
      throw new InputError(`relay register: candidate ${address}:${port} of ${peer} is not an IPv4 address and port; only UDP IPv4 host candidates can be relayed.`);
    }
    if (!isIPv4(bindAddress)) throw new InputError(`relay register: bindAddress ${bindAddress} for ${peer}'s candidate is not an IPv4 address.`);
    const key = `${peer}|${remotePeer}|${address}:${port}`;
    let registration = this.#registrations.get(key);
    if (!registration) {
      registration = this.#bind({ peer, remotePeer, address, port }, key, bindAddress);
      this.#registrations.set(key, registration);
      registration.catch(() => this.#registrations.delete(key));
    }
    return (await registration).proxyPort;
  }

  /** Waits for the binds in progress (they close their own socket once the relay is closed), then closes all. */
  async close() {
    await Promise.allSettled(this.#registrations.values());
    await Promise.all([...this.#bound.values()].map(({ socket }) => this.#io.closeSocket(socket)));
    this.#registrations.clear();
    this.#bound.clear();
  }

  /**
   * @param {{peer: string, remotePeer: string, address: string, port: number}} candidate
   * @param {string} key @param {string} bindAddress @returns {Promise<ProxySocket>}
   */
  async #bind({ peer, remotePeer, address, port }, key, bindAddress) {
    /** @type {ProxySocket|null} */
    let proxy = null;
    const socket = await this.#io.bind(bindAddress, (payload, payloadBytes, sourceAddress, sourcePort, arrivalMs) => {
      if (proxy) this.#onDatagram(proxy, payload, payloadBytes, sourceAddress, sourcePort, arrivalMs);
      else this.#io.release(payload);
    });
    if (this.#isClosed()) {
      await this.#io.closeSocket(socket);
      throw new HarnessError(`relay closed while registering ${peer}'s candidate ${address}:${port}.`);
    }
    proxy = {
      peer, remotePeer, address, port, socket, proxyPort: socket.port,
      sources: this.#pairProxies(remotePeer, peer), routeKey: `${remotePeer}->${peer}`,
    };
    this.#bound.set(key, proxy);
    const byPort = this.#pairProxies(peer, remotePeer);
    const byAddress = byPort.get(port) ?? new Map();
    byPort.set(port, byAddress.set(address, proxy));
    return proxy;
  }

  /** @param {string} peer @param {string} remotePeer @returns {ProxySocket['sources']} */
  #pairProxies(peer, remotePeer) {
    const key = `${peer}|${remotePeer}`;
    let byPort = this.#byPair.get(key);
    if (!byPort) this.#byPair.set(key, byPort = new Map());
    return byPort;
  }
}
