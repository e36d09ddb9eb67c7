/**
 * Userspace UDP relay: the default network emulator. Peers' ICE host candidates are rewritten to relay
 * sockets; every datagram crosses its route's LinkQueues before it is sent on, so conditions apply per link.
 *
 * One proxy socket per (peer candidate, remote peer): the socket X(A→B) represents A's candidate towards B.
 * B sends to X(A→B); the relay forwards to A's real address from X(B→A), the candidate A was given for B,
 * so ICE sees consistent addresses and no peer-reflexive candidates.
 *
 * Tunnels (registerTunnel) carry kernel traffic: each side is a TUN<->UDP bridge (socat) sending whole IP packets to
 * its own relay socket; they cross the tunnel's forward (left -> right) or back route and leave from the other side's
 * socket to that side's bridge. The rate is charged on the IP packet itself (it already holds its headers).
 */
import dgram from 'node:dgram';
import { performance } from 'node:perf_hooks';
import { isIPv4 } from 'node:net';
import { EnvironmentError, HarnessError, InputError } from '../../lib/system/errors.js';
import { UDP_IPV4_OVERHEAD_BYTES } from '../../lib/network/link-model.js';
import { checkTrace } from '../../lib/network/trace.js';
import { LinkQueue, TruthRecorder } from './link-queue.js';
import { LatenessHistogram, LoadMeter } from './load-meter.js';

/** @typedef {import('../../lib/network/link-model.js').LinkParams} LinkParams */
/** @typedef {import('./link-queue.js').TruthRow & {link: string}} LinkTruthRow */
/**
 * @typedef {object} TunnelTruthRow  one completed second of one tunnel direction, counted where the relay meets the bridges
 * @property {number} t  end of the second, in seconds since relay start
 * @property {string} flow  the tunnel's name
 * @property {'forward'|'back'} direction  forward: left -> right
 * @property {number} packetsIn  IP packets the sending side's bridge handed in
 * @property {number} bytesIn
 * @property {number} packetsOut  IP packets delivered to the other side's bridge (lost and dropped ones are not)
 * @property {number} bytesOut
 */

/**
 * Node timers can fire up to ~1.7 ms early or ~1 ms late; firing this much early is accepted (the packet is
 * sent at once), anything earlier re-arms. Centres the delay error around zero.
 */
const EARLY_FIRE_MS = 0.5;
/** The load meter's tick runs this long after each second's end, so that timer error cannot put it before. */
const LOAD_TICK_MARGIN_MS = 5;

/**
 * @typedef {object} ProxySocket
 * @property {string} peer
 * @property {string} remotePeer
 * @property {string} address  the peer's real candidate address
 * @property {number} port
 * @property {dgram.Socket} socket
 * @property {number} proxyPort
 * @property {Map<number, Map<string, ProxySocket>>} sources  remotePeer's proxies towards peer, by port then address:
 *   the candidates this socket accepts datagrams from
 * @property {string} routeKey  the route its datagrams take, "remotePeer->peer"
 */

/**
 * @typedef {object} TunnelSide  one end of a tunnel: the bridge's address and the relay socket it talks to
 * @property {string} address  where the bridge sends from and receives on
 * @property {number} port
 * @property {dgram.Socket} socket
 * @property {number} relayPort
 */

/**
 * @typedef {object} Tunnel
 * @property {string} name
 * @property {{route: string[], from: TunnelSide, to: TunnelSide, truth: TruthRecorder}[]} directions  forward, back
 */

/**
 * @typedef {object} Packet
 * @property {Buffer} payload
 * @property {number} sizeBytes
 * @property {string[]} route
 * @property {number} hop  index into route of the link the packet is in
 * @property {{socket: dgram.Socket}} from  the relay socket the packet leaves from
 * @property {{address: string, port: number}} to  where it is sent
 * @property {TruthRecorder} [tunnelTruth]  the tunnel direction it crosses, if any
 * @property {number} atMs  when it leaves the link it is in (set on delivery)
 */

/**
 * Socket buffers of 4 MiB (the kernel caps them at net.core.rmem_max/wmem_max): at 100 000 packets/s the default
 * 208 KiB holds ~1 ms of 1200-byte datagrams, so any pause of the event loop (a GC, a burst of timers) lost packets
 * that no link asked to drop.
 */
const SOCKET_BUFFER_BYTES = 4 * 1024 * 1024;

/**
 * Addresses are always IPv4 literals: a lookup that answers at once spares dgram's dns.lookup and its nextTick per
 * datagram sent.
 * @type {(address: string, family: any, callback: (error: Error|null, address: string, family: number) => void) => void}
 */
const literalLookup = (address, family, callback) => callback(null, address, 4);

export class UdpRelay {
  #host;
  #seed;
  #originMs = 0;
  #started = false;
  #closed = false;
  /** @type {Map<string, LinkQueue<Packet>>} */
  #links = new Map();
  /** @type {Map<string, import('../../lib/network/trace.js').Trace>} every trace configure() was given, by name */
  #traces = new Map();
  /** @type {Map<string, string[]>} "pB->pA" -> link names */
  #routes = new Map();
  /** @type {Map<string, Promise<ProxySocket>>} by registration key */
  #registrations = new Map();
  /** @type {Map<string, ProxySocket>} bound sockets by registration key */
  #bound = new Map();
  /** @type {Map<string, ProxySocket['sources']>} bound sockets by "peer|remotePeer", then port, then address */
  #proxiesByPair = new Map();
  /** @type {Map<string, Tunnel>} by name */
  #tunnels = new Map();
  /** @type {Set<dgram.Socket>} every tunnel socket, also those of a registration still in progress */
  #tunnelSockets = new Set();
  /** @type {NodeJS.Timeout|null} */
  #timer = null;
  #timerAtMs = Infinity;
  /** No link has an event before this (a lower bound), so a datagram before it needs no look at the other links. */
  #nextEventMs = Infinity;
  /** @type {Packet[]} packets due in #run, reused across calls */
  #due = [];
  #counters = { forwardedPackets: 0, forwardedBytes: 0, dropsUnknownSource: 0, dropsNoRoute: 0, sendErrors: 0 };
  #sendLateness = new LatenessHistogram();
  /** @type {LoadMeter|null} */
  #load = null;
  /** @type {NodeJS.Timeout|null} closes the load meter's seconds */
  #loadTimer = null;

  /**
   * @param {{host?: string, seed?: number}} [options]
   *   host: address the proxy sockets bind to; seed: makes loss and jitter draws reproducible
   */
  constructor({ host = '127.0.0.1', seed = Math.floor(Math.random() * 2 ** 32) } = {}) {
    this.#host = host;
    this.#seed = seed;
  }

  /** The seed of the loss/jitter draws (record it to replay a run). */
  get seed() { return this.#seed; }

  async start() {
    this.#originMs = performance.now();
    this.#started = true;
    this.#load = new LoadMeter(this.#originMs, this.#originMs);
    let utilization = performance.eventLoopUtilization();
    // Armed just past each second's end: a timer's clock (whole ms, cached per loop turn) lags performance.now(), so
    // an interval fired "at" the boundary often ran before it, closing nothing, and the next row then held two seconds.
    const arm = () => {
      const sinceOriginMs = performance.now() - this.#originMs;
      this.#loadTimer = setTimeout(() => {
        const now = performance.eventLoopUtilization();
        this.#load?.tick(performance.now(), performance.eventLoopUtilization(now, utilization).utilization);
        utilization = now;
        arm();
      }, Math.ceil(sinceOriginMs / 1000) * 1000 + LOAD_TICK_MARGIN_MS - sinceOriginMs);
      this.#loadTimer.unref();
    };
    arm();
  }

  /**
   * The relay's own load per completed second since the last call: datagrams in and out, its event loop's busy
   * share, and how late datagrams left (behind: p99 over 2 ms, the relay was no longer an exact emulator).
   * @returns {import('./load-meter.js').LoadRow[]}
   */
  loadTruth() {
    this.#assertRunning('loadTruth');
    return this.#load.take();
  }

  /**
   * Creates or updates links and (optionally) replaces the routes. Links not named keep their parameters.
   * @param {{links?: Record<string, LinkParams>, routes?: Record<string, string[]>,
   *   traces?: Record<string, import('../../lib/network/trace.js').Trace>, traceOriginEpochMs?: number}} config
   *   routes: "pB->pA" -> link names crossed in order by datagrams from pB to pA; traces: those links' params name
   *   (kept for later calls); traceOriginEpochMs: wall-clock time at which a link that switches to a trace starts it
   *   (default now)
   */
  configure({ links = {}, routes, traces = {}, traceOriginEpochMs } = {}) {
    this.#assertRunning('configure');
    const known = new Set([...this.#links.keys(), ...Object.keys(links)]);
    for (const [pair, names] of Object.entries(routes ?? {})) {
      const unknown = names.filter((name) => !known.has(name));
      if (unknown.length > 0) {
        throw new InputError(`relay route "${pair}" names unknown link(s) ${unknown.join(', ')}; configure those links (known: ${[...known].join(', ') || 'none'}).`);
      }
    }
    // A trace with a NaN or infinite timestamp (Infinity crosses IPC as null) would arm the timer every 1 ms forever
    // and deliver nothing: every trace is checked before any link uses it.
    for (const [name, trace] of Object.entries(traces)) checkTrace(trace, `relay trace ${name}`);
    for (const [name, trace] of Object.entries(traces)) this.#traces.set(name, trace);
    for (const [link, params] of Object.entries(links)) {
      if (params.trace && !this.#traces.has(params.trace)) {
        throw new InputError(`relay link ${link} names trace ${params.trace}, which was not given; pass it in traces (known: ${[...this.#traces.keys()].join(', ') || 'none'}).`);
      }
    }
    const nowMs = performance.now();
    const traceOriginMs = traceOriginEpochMs === undefined ? nowMs : relayClockMs(traceOriginEpochMs);
    this.#run(nowMs);
    for (const [name, params] of Object.entries(links)) {
      const link = this.#links.get(name);
      const trace = params.trace ? this.#traces.get(params.trace) : null;
      if (link) link.configure(params, nowMs, { trace, traceOriginMs });
      else this.#links.set(name, new LinkQueue(params, { nowMs, originMs: this.#originMs, seed: this.#seed, name, trace, traceOriginMs }));
    }
    if (routes) this.#routes = new Map(Object.entries(routes));
    this.#nextEventMs = -Infinity; // new parameters move the links' events: look at every link again
    this.#run(nowMs);
    this.#schedule();
  }

  /**
   * Starts every link's trace again at the wall-clock time epochMs (the call's media start), so the traces run on
   * the same clock as the schedule and the results.
   * @param {number} epochMs
   */
  restartTraces(epochMs) {
    this.#assertRunning('restartTraces');
    const nowMs = performance.now();
    this.#run(nowMs);
    for (const link of this.#links.values()) link.restartTrace(relayClockMs(epochMs), nowMs);
    this.#nextEventMs = -Infinity;
    this.#run(nowMs);
    this.#schedule();
  }

  /**
   * Returns the proxy port that represents `peer`'s candidate address:port towards `remotePeer`.
   * Idempotent for the same tuple.
   * @param {{peer: string, remotePeer: string, address: string, port: number, bindAddress?: string}} candidate
   *   bindAddress: where that proxy socket listens, when not the relay's host (an SFU that gathers on another address
   *   of this machine sees its remotes there)
   * @returns {Promise<number>}
   */
  async register({ peer, remotePeer, address, port, bindAddress = this.#host }) {
    this.#assertRunning('register');
    if (!isIPv4(address) || !Number.isInteger(port) || port < 1 || port > 65535) {
      throw new InputError(`relay register: candidate ${address}:${port} of ${peer} is not an IPv4 address and port; only UDP IPv4 host candidates can be relayed.`);
    }
    if (!isIPv4(bindAddress)) throw new InputError(`relay register: bindAddress ${bindAddress} for ${peer}'s candidate is not an IPv4 address.`);
    const key = registrationKey(peer, remotePeer, address, port);
    let registration = this.#registrations.get(key);
    if (!registration) {
      registration = this.#bind({ peer, remotePeer, address, port }, key, bindAddress);
      this.#registrations.set(key, registration);
      registration.catch(() => this.#registrations.delete(key));
    }
    return (await registration).proxyPort;
  }

  /**
   * Opens a tunnel: one relay socket per side. IP packets the left bridge sends to leftPort cross `forward` and leave
   * from rightPort to the right bridge; the right bridge's packets to rightPort cross `back` to the left bridge.
   * Datagrams from any other source are dropped (dropsUnknownSource).
   * @param {{name: string, forward: string[], back: string[], left: {address: string, port: number},
   *   right: {address: string, port: number}}} tunnel  left/right: the bridges' own UDP addresses
   * @returns {Promise<{leftPort: number, rightPort: number}>}
   */
  async registerTunnel({ name, forward, back, left, right }) {
    this.#assertRunning('registerTunnel');
    if (typeof name !== 'string' || name === '') throw new InputError('relay registerTunnel: name must be a non-empty string.');
    if (this.#tunnels.has(name)) throw new InputError(`relay registerTunnel: a tunnel "${name}" exists already; give each tunnel its own name.`);
    for (const [label, route] of [['forward', forward], ['back', back]]) {
      const unknown = (Array.isArray(route) ? route : [route]).filter((link) => !this.#links.has(link));
      if (!Array.isArray(route) || unknown.length > 0) {
        throw new InputError(`relay tunnel "${name}": the ${label} route must list configured links; unknown: ${unknown.join(', ')} (known: ${[...this.#links.keys()].join(', ') || 'none'}).`);
      }
    }
    for (const [label, end] of /** @type {const} */ ([['left', left], ['right', right]])) {
      if (!isIPv4(end?.address) || !Number.isInteger(end?.port) || end.port < 1 || end.port > 65535) {
        throw new InputError(`relay tunnel "${name}": ${label} must be {address: IPv4, port: 1..65535}, got ${JSON.stringify(end)}.`);
      }
    }
    const leftSocket = await this.#bindSocket(this.#host);
    this.#tunnelSockets.add(leftSocket);
    const rightSocket = await this.#bindSocket(this.#host).catch((error) => {
      leftSocket.close();
      this.#tunnelSockets.delete(leftSocket);
      throw error;
    });
    this.#tunnelSockets.add(rightSocket);
    // close() during the binds closed what was in #tunnelSockets then; close the rest.
    if (this.#closed) {
      for (const socket of [leftSocket, rightSocket]) socket.close();
      throw new HarnessError(`relay closed while registering tunnel "${name}".`);
    }
    /** @type {TunnelSide} */
    const leftSide = { ...left, socket: leftSocket, relayPort: leftSocket.address().port };
    /** @type {TunnelSide} */
    const rightSide = { ...right, socket: rightSocket, relayPort: rightSocket.address().port };
    const nowMs = performance.now();
    const truth = () => new TruthRecorder(this.#originMs, nowMs);
    /** @type {Tunnel} */
    const tunnel = {
      name,
      directions: [
        { route: forward, from: leftSide, to: rightSide, truth: truth() },
        { route: back, from: rightSide, to: leftSide, truth: truth() },
      ],
    };
    for (const direction of tunnel.directions) {
      direction.from.socket.on('message', (payload, source) => this.#onTunnelDatagram(direction, payload, source));
    }
    this.#tunnels.set(name, tunnel);
    return { leftPort: leftSide.relayPort, rightPort: rightSide.relayPort };
  }

  /**
   * Per-tunnel truth for the seconds completed since the last call (empty seconds included), ordered by t, flow, direction.
   * @returns {TunnelTruthRow[]}
   */
  tunnelTruth() {
    const nowMs = performance.now();
    this.#run(nowMs);
    /** @type {TunnelTruthRow[]} */
    const rows = [];
    for (const { name, directions } of this.#tunnels.values()) {
      for (const [index, { truth }] of directions.entries()) {
        for (const { t, packetsIn, bytesIn, packetsOut, bytesOut } of truth.take(nowMs)) {
          rows.push({ t, flow: name, direction: index === 0 ? 'forward' : 'back', packetsIn, bytesIn, packetsOut, bytesOut });
        }
      }
    }
    return rows.sort((a, b) => a.t - b.t || a.flow.localeCompare(b.flow) || a.direction.localeCompare(b.direction));
  }

  /**
   * Network truth for the seconds completed since the last call, per link, ordered by t then link.
   * @returns {LinkTruthRow[]}
   */
  truth() {
    const nowMs = performance.now();
    this.#run(nowMs);
    const rows = [];
    for (const [link, queue] of this.#links) for (const row of queue.takeTruth(nowMs)) rows.push({ link, ...row });
    return rows.sort((a, b) => a.t - b.t || a.link.localeCompare(b.link));
  }

  /**
   * Totals since start: relay-level drops and forwards, per-link counters, this process's CPU time, and
   * sendLateMs: how late datagrams left against their scheduled time (large values mean an overloaded machine).
   */
  stats() {
    const { user, system } = process.cpuUsage();
    return {
      uptimeMs: this.#started ? performance.now() - this.#originMs : 0,
      seed: this.#seed,
      registrations: this.#bound.size,
      tunnels: this.#tunnels.size,
      ...this.#counters,
      sendLateMs: this.#sendLateness.summary(),
      links: Object.fromEntries([...this.#links].map(([name, link]) => [name, link.totals()])),
      cpuUserUs: user,
      cpuSystemUs: system,
    };
  }

  /** Closes every socket and stops the timer; packets still in the links are discarded. Idempotent. */
  async close() {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    if (this.#loadTimer) clearTimeout(this.#loadTimer);
    // Binds still in progress close their own socket once they see #closed.
    await Promise.allSettled(this.#registrations.values());
    const sockets = [...[...this.#bound.values()].map(({ socket }) => socket), ...this.#tunnelSockets];
    await Promise.all(sockets.map((socket) => new Promise((resolve) => socket.close(() => resolve(undefined)))));
    this.#registrations.clear();
    this.#bound.clear();
    this.#tunnels.clear();
    this.#tunnelSockets.clear();
    this.#links.clear();
  }

  #assertRunning(method) {
    if (!this.#started || this.#closed) throw new HarnessError(`UdpRelay.${method}() called ${this.#closed ? 'after close()' : 'before start()'}.`);
  }

  /**
   * A UDP socket bound on bindAddress (any free port); socket errors are counted in stats, never fatal.
   * @param {string} bindAddress @returns {Promise<dgram.Socket>}
   */
  async #bindSocket(bindAddress) {
    const socket = dgram.createSocket({ type: 'udp4', lookup: literalLookup });
    try {
      await new Promise((resolve, reject) => {
        socket.once('error', reject);
        socket.bind({ address: bindAddress, port: 0 }, () => {
          socket.off('error', reject);
          resolve();
        });
      });
    } catch (error) {
      socket.close();
      throw new EnvironmentError(`relay cannot bind a UDP socket on ${bindAddress} (${error.message}); check the host address and free ports.`, { cause: error });
    }
    socket.setRecvBufferSize(SOCKET_BUFFER_BYTES);
    socket.setSendBufferSize(SOCKET_BUFFER_BYTES);
    // Send failures report through #onSent.
    socket.on('error', () => { this.#counters.sendErrors++; });
    return socket;
  }

  /** @returns {Promise<ProxySocket>} */
  async #bind({ peer, remotePeer, address, port }, key, bindAddress) {
    const socket = await this.#bindSocket(bindAddress);
    /** @type {ProxySocket} */
    const proxy = {
      peer, remotePeer, address, port, socket, proxyPort: socket.address().port,
      sources: this.#pairProxies(remotePeer, peer), routeKey: `${remotePeer}->${peer}`,
    };
    socket.on('message', (payload, source) => this.#onDatagram(proxy, payload, source));
    if (this.#closed) {
      socket.close();
      throw new HarnessError(`relay closed while registering ${peer}'s candidate ${address}:${port}.`);
    }
    this.#bound.set(key, proxy);
    const byPort = this.#pairProxies(peer, remotePeer);
    if (!byPort.has(port)) byPort.set(port, new Map());
    byPort.get(port).set(address, proxy);
    return proxy;
  }

  /** @param {string} peer @param {string} remotePeer @returns {ProxySocket['sources']} */
  #pairProxies(peer, remotePeer) {
    const key = `${peer}|${remotePeer}`;
    if (!this.#proxiesByPair.has(key)) this.#proxiesByPair.set(key, new Map());
    return this.#proxiesByPair.get(key);
  }

  /**
   * A datagram reached `to` (which represents A's candidate towards B): it must come from one of B's
   * candidates registered towards A.
   * @param {ProxySocket} to @param {Buffer} payload @param {dgram.RemoteInfo} source
   */
  #onDatagram(to, payload, source) {
    this.#load.received();
    const from = to.sources.get(source.port)?.get(source.address);
    if (!from) {
      this.#counters.dropsUnknownSource++;
      return;
    }
    const route = this.#routes.get(to.routeKey);
    if (!route) {
      this.#counters.dropsNoRoute++;
      return;
    }
    const nowMs = performance.now();
    /** @type {Packet} */
    const packet = { payload, sizeBytes: payload.length + UDP_IPV4_OVERHEAD_BYTES, route, hop: -1, from, to, atMs: nowMs };
    this.#forward(packet, nowMs);
    this.#run(nowMs);
    this.#schedule();
  }

  /**
   * An IP packet from a tunnel's bridge: it crosses the direction's route, charged at its own size.
   * @param {Tunnel['directions'][number]} direction @param {Buffer} payload @param {dgram.RemoteInfo} source
   */
  #onTunnelDatagram({ route, from, to, truth }, payload, source) {
    this.#load.received();
    if (source.address !== from.address || source.port !== from.port) {
      this.#counters.dropsUnknownSource++;
      return;
    }
    const nowMs = performance.now();
    truth.count(nowMs, 'packetsIn', payload.length);
    // It leaves from the receiving side's relay socket, the one that side's bridge talks to.
    /** @type {Packet} */
    const packet = { payload, sizeBytes: payload.length, route, hop: -1, from: to, to, tunnelTruth: truth, atMs: nowMs };
    this.#forward(packet, nowMs);
    this.#run(nowMs);
    this.#schedule();
  }

  /** Hands a packet to the next link of its route, or sends it when the route is done. */
  #forward(packet, atMs) {
    packet.hop++;
    if (packet.hop < packet.route.length) {
      const link = this.#links.get(packet.route[packet.hop]);
      link.enqueue(packet, packet.sizeBytes, atMs);
      this.#nextEventMs = Math.min(this.#nextEventMs, link.nextEventMs());
      return;
    }
    this.#counters.forwardedPackets++;
    this.#counters.forwardedBytes += packet.payload.length;
    const lateMs = performance.now() - atMs;
    this.#sendLateness.record(lateMs);
    this.#load.sent(lateMs);
    packet.tunnelTruth?.count(atMs, 'packetsOut', packet.payload.length);
    packet.from.socket.send(packet.payload, packet.to.port, packet.to.address, this.#onSent);
  }

  #onSent = (error) => { if (error) this.#counters.sendErrors++; };

  /** Delivers everything due by nowMs across links, in time order, until nothing more is due. */
  #run(nowMs) {
    const due = this.#due;
    while (nowMs >= this.#nextEventMs) {
      let nextMs = Infinity;
      for (const link of this.#links.values()) {
        if (link.nextEventMs() <= nowMs) link.deliver(nowMs, this.#collect);
        nextMs = Math.min(nextMs, link.nextEventMs());
      }
      this.#nextEventMs = nextMs;
      if (due.length > 1) due.sort(byDeparture);
      // #forward may enqueue into a link and lower #nextEventMs: the loop then looks again.
      for (let i = 0; i < due.length; i++) this.#forward(due[i], due[i].atMs);
      due.length = 0;
    }
  }

  /** @param {Packet} packet @param {number} atMs */
  #collect = (packet, atMs) => {
    packet.atMs = atMs;
    this.#due.push(packet);
  };

  /** Keeps one timer armed for the earliest event of any link. */
  #schedule() {
    if (this.#closed) return;
    const nextMs = this.#nextEventMs;
    if (nextMs >= this.#timerAtMs) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#timerAtMs = nextMs;
    if (nextMs === Infinity) return;
    this.#timer = setTimeout(this.#onTimer, Math.max(0, nextMs - performance.now()));
  }

  #onTimer = () => {
    this.#timer = null;
    const dueMs = this.#timerAtMs;
    this.#timerAtMs = Infinity;
    const nowMs = performance.now();
    if (nowMs >= dueMs - EARLY_FIRE_MS) this.#run(Math.max(nowMs, dueMs));
    this.#schedule();
  };
}

/** A wall-clock time (ms since the epoch) on this process's performance.now() clock. @param {number} epochMs */
const relayClockMs = (epochMs) => epochMs - performance.timeOrigin;

/** @param {Packet} a @param {Packet} b */
const byDeparture = (a, b) => a.atMs - b.atMs;

/** @param {string} peer @param {string} remotePeer @param {string} address @param {number} port */
function registrationKey(peer, remotePeer, address, port) {
  return `${peer}|${remotePeer}|${address}:${port}`;
}
