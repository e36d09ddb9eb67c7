/**
 * Userspace UDP relay: the default network emulator. Peers' ICE host candidates are rewritten to relay
 * sockets; every datagram crosses its route's LinkQueues before it is sent on, so conditions apply per link.
 *
 * One proxy socket per (peer candidate, remote peer): the socket X(A→B) represents A's candidate towards B.
 * B sends to X(A→B); the relay forwards to A's real address from X(B→A), the candidate A was given for B,
 * so ICE sees consistent addresses and no peer-reflexive candidates.
 *
 * Tunnels (registerTunnel, tunnels.js) carry kernel traffic: whole IP packets from TUN bridges, charged at their own
 * size (they already hold their headers). Sockets and the timer are packet-io.js's: native batches or Node's dgram.
 */
import { performance } from 'node:perf_hooks';
import { HarnessError, InputError } from '../../lib/system/errors.js';
import { UDP_IPV4_OVERHEAD_BYTES } from '../../lib/network/link-model.js';
import { byCodeUnit } from '../../lib/stats/order.js';
import { LinkQueue } from './link-queue.js';
import { checkRelayConfig } from './relay-config.js';
import { BEHIND_LATENESS_MS, LatenessHistogram, LoadMeter } from './load-meter.js';
import { createPacketIo, defaultPacketPath, packetPath } from './packet-io.js';
import { PacketPool } from './packet-pool.js';
import { warmUpSelection } from './select-percentile.js';
import { Proxies } from './proxies.js';
import { Tunnels } from './tunnels.js';
import { afterEverySecond, foldOneLinkPerTurn } from './truth-folding.js';

/** @typedef {import('../../lib/network/link-model.js').LinkParams} LinkParams */
/** @typedef {import('./link-queue.js').TruthRow & {link: string}} LinkTruthRow */
/** @typedef {import('./tunnels.js').TunnelTruthRow} TunnelTruthRow */
/** @typedef {import('./tunnels.js').TunnelDirection} TunnelDirection */
/** @typedef {import('./packet-io.js').PacketSocket} PacketSocket */
/** @typedef {import('./proxies.js').ProxySocket} ProxySocket */

/**
 * Node timers can fire up to ~1.7 ms early or ~1 ms late; firing this much early is accepted (the packet is
 * sent at once), anything earlier re-arms. Centres the delay error around zero.
 */
const EARLY_FIRE_MS = 0.5;
/** The timer wakes on this grid and sends all that is due: a timerfd exact to the µs woke once per packet (costly). */
const TIMER_GRID_MS = 0.25;

/** @typedef {import('./packet-pool.js').Packet} Packet */

export class UdpRelay {
  #host;
  #seed;
  /** @type {'auto'|'native'|'dgram'} */
  #packetPath;
  /** @type {import('./packet-io.js').PacketIo|null} */
  #io = null;
  #originMs = 0;
  #started = false;
  #closed = false;
  /** @type {Map<string, LinkQueue<Packet>>} */
  #links = new Map();
  /** @type {Map<string, import('../../lib/network/trace.js').Trace>} every trace configure() was given, by name */
  #traces = new Map();
  /** @type {Map<string, string[]>} "pB->pA" -> link names */
  #routes = new Map();
  /** @type {Proxies|null} */
  #proxies = null;
  /** @type {Tunnels|null} */
  #tunnels = null;
  /** When the timer is armed for (Infinity: not armed). */
  #timerAtMs = Infinity;
  /** No link has an event before this (a lower bound), so a datagram before it needs no look at the other links. */
  #nextEventMs = Infinity;
  #packets = new PacketPool();
  /** @type {Packet[]} packets due in #run, reused across calls */
  #due = [];
  /** @type {LinkQueue<Packet>|null} the link #run is collecting from */
  #delivering = null;
  #counters = { forwardedPackets: 0, forwardedBytes: 0, dropsUnknownSource: 0, dropsNoRoute: 0, sendErrors: 0 };
  #sendLateness = new LatenessHistogram();
  /** @type {LoadMeter|null} */
  #load = null;
  /** stops the ticks that close the load meter's seconds and fold truth */
  #stopTicks = () => {};

  /**
   * @param {{host?: string, seed?: number, packetPath?: 'auto'|'native'|'dgram'}} [options]
   *   host: address the proxy sockets bind to; seed: makes loss and jitter draws reproducible; packetPath: the
   *   sockets' and timer's implementation (auto: native when built, see packet-io.js)
   */
  constructor({ host = '127.0.0.1', seed = Math.floor(Math.random() * 2 ** 32), packetPath: path = defaultPacketPath() } = {}) {
    if (!['auto', 'native', 'dgram'].includes(path)) throw new InputError(`relay packetPath must be auto, native or dgram, got ${path}.`);
    this.#host = host;
    this.#seed = seed;
    this.#packetPath = path;
  }

  /** The seed of the loss/jitter draws (record it to replay a run). */
  get seed() { return this.#seed; }

  async start() {
    warmUpSelection();
    this.#originMs = performance.now();
    this.#io = createPacketIo(this.#packetPath, {
      onTimer: this.#onTimer,
      onSendErrors: (count) => { this.#counters.sendErrors += count; },
    });
    this.#proxies = new Proxies({
      io: this.#io, host: this.#host, isClosed: () => this.#closed,
      onDatagram: (...datagram) => this.#onDatagram(...datagram),
    });
    this.#tunnels = new Tunnels({
      io: this.#io, host: this.#host, originMs: this.#originMs, isClosed: () => this.#closed,
      onDatagram: (...datagram) => this.#onTunnelDatagram(...datagram),
    });
    this.#started = true;
    this.#load = new LoadMeter(this.#originMs, this.#originMs, BEHIND_LATENESS_MS[this.#io.kind]);
    let utilization = performance.eventLoopUtilization();
    this.#stopTicks = afterEverySecond(this.#originMs, () => {
      const now = performance.eventLoopUtilization();
      const busyShare = performance.eventLoopUtilization(now, utilization).utilization;
      this.#load?.tick(performance.now(), busyShare, this.#io?.takeOffCpuMaxMs() ?? null);
      utilization = now;
      foldOneLinkPerTurn([...this.#links.values()], (nowMs) => { if (this.#closed) return false; this.#run(nowMs); return true; });
    });
  }

  /**
   * The relay's own load per completed second since the last call: datagrams in and out, its event loop's busy
   * share, and how late datagrams left (behind: p99 over 1 ms on the native path, 2 ms on dgram: the relay was no
   * longer an exact emulator), with the packet path that moved them (native or dgram, see packet-io.js).
   * @returns {(import('./load-meter.js').LoadRow & {packetPath: 'native'|'dgram'})[]}
   */
  loadTruth() {
    const { io, load } = this.#running('loadTruth');
    return load.take().map((row) => ({ ...row, packetPath: io.kind }));
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
    this.#running('configure');
    checkRelayConfig({ links, routes, traces }, this.#links, this.#traces);
    for (const [name, trace] of Object.entries(traces)) this.#traces.set(name, trace);
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
    this.#running('restartTraces');
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
   * @param {import('./proxies.js').Candidate} candidate
   *   bindAddress: where that proxy socket listens, when not the relay's host (an SFU that gathers on another address
   *   of this machine sees its remotes there)
   * @returns {Promise<number>}
   */
  async register(candidate) {
    return this.#running('register').proxies.register(candidate);
  }

  /**
   * Opens a tunnel: one relay socket per side. IP packets the left bridge sends to leftPort cross `forward` and leave
   * from rightPort to the right bridge; the right bridge's packets to rightPort cross `back` to the left bridge.
   * Datagrams from any other source are dropped (dropsUnknownSource).
   * @param {import('./tunnels.js').TunnelSpec} tunnel  left/right: the bridges' own UDP addresses
   * @returns {Promise<{leftPort: number, rightPort: number}>}
   */
  async registerTunnel(tunnel) {
    return this.#running('registerTunnel').tunnels.register(tunnel, new Set(this.#links.keys()));
  }

  /**
   * Per-tunnel truth for the seconds completed since the last call (empty seconds included), ordered by t, flow, direction.
   * @returns {TunnelTruthRow[]}
   */
  tunnelTruth() {
    const nowMs = performance.now();
    this.#run(nowMs);
    return this.#tunnels?.truth(nowMs) ?? [];
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
    return rows.sort((a, b) => a.t - b.t || byCodeUnit(a.link, b.link));
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
      registrations: this.#proxies?.size ?? 0,
      tunnels: this.#tunnels?.size ?? 0,
      packetPath: this.#io?.kind ?? (this.#packetPath === 'auto' ? packetPath.kind : this.#packetPath),
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
    this.#stopTicks();
    await this.#proxies?.close();
    await this.#tunnels?.close();
    this.#io?.close();
    this.#links.clear();
  }

  /** What start() made, for a method that needs a running relay. @param {string} method */
  #running(method) {
    const [io, proxies, tunnels, load] = [this.#io, this.#proxies, this.#tunnels, this.#load];
    if (!this.#started || this.#closed || !io || !proxies || !tunnels || !load) {
      throw new HarnessError(`UdpRelay.${method}() called ${this.#closed ? 'after close()' : 'before start()'}.`);
    }
    return { io, proxies, tunnels, load };
  }

  /**
   * A datagram reached `to` (which represents A's candidate towards B): it must come from one of B's
   * candidates registered towards A.
   * @param {ProxySocket} to @param {import('./packet-io.js').Payload} payload @param {number} payloadBytes
   * @param {string} sourceAddress @param {number} sourcePort @param {number} arrivalMs  when the kernel took it in
   */
  #onDatagram(to, payload, payloadBytes, sourceAddress, sourcePort, arrivalMs) {
    const readMs = this.#received(arrivalMs);
    const from = to.sources.get(sourcePort)?.get(sourceAddress);
    if (!from) return this.#drop('dropsUnknownSource', payload);
    const route = this.#routes.get(to.routeKey);
    if (!route) return this.#drop('dropsNoRoute', payload);
    const sizeBytes = payloadBytes + UDP_IPV4_OVERHEAD_BYTES;
    const packet = this.#packets.take(payload, payloadBytes, sizeBytes, route, from, to, null, arrivalMs, readMs);
    this.#forward(packet, arrivalMs);
    this.#run(arrivalMs);
    this.#schedule();
  }

  /**
   * An IP packet from a tunnel's bridge: it crosses the direction's route, charged at its own size.
   * @param {TunnelDirection} direction @param {import('./packet-io.js').Payload} payload @param {number} payloadBytes
   * @param {string} sourceAddress @param {number} sourcePort @param {number} arrivalMs
   */
  #onTunnelDatagram({ route, from, to, truth }, payload, payloadBytes, sourceAddress, sourcePort, arrivalMs) {
    const readMs = this.#received(arrivalMs);
    if (sourceAddress !== from.address || sourcePort !== from.port) return this.#drop('dropsUnknownSource', payload);
    truth.count(arrivalMs, 'packetsIn', payloadBytes);
    // It leaves from the receiving side's relay socket, the one that side's bridge talks to.
    const packet = this.#packets.take(payload, payloadBytes, payloadBytes, route, to, to, truth, arrivalMs, readMs);
    this.#forward(packet, arrivalMs);
    this.#run(arrivalMs);
    this.#schedule();
  }

  /** Counts a datagram in; returns when it was read. @param {number} arrivalMs */
  #received(arrivalMs) {
    const readMs = performance.now();
    this.#load?.received(this.#io?.kind === 'native' ? readMs - arrivalMs : null);
    return readMs;
  }

  /** Hands a packet to the next link of its route, or sends it when the route is done. @param {Packet} packet @param {number} atMs */
  #forward(packet, atMs) {
    const from = packet.link;
    packet.link = null;
    packet.hop++;
    if (packet.hop < packet.route.length) {
      from?.delivered(packet.sizeBytes, packet.linkArrivalMs, atMs);
      packet.linkArrivalMs = atMs;
      const link = this.#links.get(packet.route[packet.hop]);
      // Routes name only configured links, and links go only at close(): no route can lead nowhere but after it.
      if (!link) {
        this.#drop('dropsNoRoute', packet.payload);
        return this.#packets.give(packet);
      }
      const drop = link.enqueue(packet, packet.sizeBytes, atMs);
      this.#nextEventMs = Math.min(this.#nextEventMs, link.nextEventMs());
      if (drop === null) return;
      // A kernel flow's drops per second are its own: the link's count mixes every flow in its FIFO.
      packet.tunnelTruth?.count(atMs, drop === 'queue' ? 'dropsQueue' : 'dropsLoss');
      this.#io?.release(packet.payload);
      return this.#packets.give(packet);
    }
    this.#counters.forwardedPackets++;
    this.#counters.forwardedBytes += packet.payloadBytes;
    const sentMs = performance.now();
    from?.delivered(packet.sizeBytes, packet.linkArrivalMs, sentMs);
    // Late against its schedule, or against its read when the host handed it over after it was due.
    const lateMs = sentMs - Math.max(atMs, packet.readMs);
    this.#sendLateness.record(lateMs);
    this.#load?.sent(lateMs);
    packet.tunnelTruth?.count(sentMs, 'packetsOut', packet.payloadBytes);
    packet.tunnelTruth?.sample(sentMs, 'oneWayDelaysMs', sentMs - packet.arrivalMs);
    this.#io?.send(packet.from.socket, packet.payload, packet.to.port, packet.to.address);
    this.#packets.give(packet);
  }

  /**
   * A datagram the relay will not send (links count their own drops).
   * @param {'dropsUnknownSource'|'dropsNoRoute'} reason @param {import('./packet-io.js').Payload} payload
   */
  #drop(reason, payload) {
    this.#counters[reason]++;
    this.#io?.release(payload);
  }

  /** Delivers everything due by nowMs across links, in time order, until nothing more is due. @param {number} nowMs */
  #run(nowMs) {
    const due = this.#due;
    while (nowMs >= this.#nextEventMs) {
      let nextMs = Infinity;
      for (const link of this.#links.values()) {
        if (link.nextEventMs() <= nowMs) {
          this.#delivering = link;
          link.deliver(nowMs, this.#collect);
        }
        nextMs = Math.min(nextMs, link.nextEventMs());
      }
      this.#nextEventMs = nextMs;
      if (due.length > 1) due.sort(byDeparture);
      // #forward may enqueue into a link and lower #nextEventMs: the loop then looks again.
      for (let i = 0; i < due.length; i++) this.#forward(due[i], due[i].atMs);
      due.length = 0;
    }
  }

  /** @param {Packet} packet @param {number} atMs @param {number} arrivalMs */
  #collect = (packet, atMs, arrivalMs) => {
    packet.atMs = atMs;
    packet.link = this.#delivering;
    packet.linkArrivalMs = arrivalMs;
    this.#due.push(packet);
  };

  /** Keeps one timer armed for the earliest event of any link. */
  #schedule() {
    if (this.#closed) return;
    const nextMs = this.#nextEventMs;
    if (nextMs >= this.#timerAtMs) return;
    this.#timerAtMs = nextMs;
    this.#io?.setTimer(Math.ceil(nextMs / TIMER_GRID_MS) * TIMER_GRID_MS - performance.now());
  }

  /** @param {number|null} timerWakeMs  see PacketIo's onTimer */
  #onTimer = (timerWakeMs) => {
    if (this.#closed) return;
    const dueMs = this.#timerAtMs;
    this.#timerAtMs = Infinity;
    const nowMs = performance.now();
    if (timerWakeMs !== null) this.#load?.timerWoke(timerWakeMs);
    if (nowMs >= dueMs - EARLY_FIRE_MS) this.#run(Math.max(nowMs, dueMs));
    this.#schedule();
  };
}

/** A wall-clock time (ms since the epoch) on this process's performance.now() clock. @param {number} epochMs */
const relayClockMs = (epochMs) => epochMs - performance.timeOrigin;

/** @param {Packet} a @param {Packet} b */
const byDeparture = (a, b) => a.atMs - b.atMs;

