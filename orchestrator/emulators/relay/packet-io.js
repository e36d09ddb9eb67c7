/**
 * The relay's packet I/O: UDP sockets and its one timer. The native path (native/relay_io.c, built at `npm run setup`)
 * receives and sends in batches (recvmmsg/sendmmsg) and times with a timerfd to the microsecond; the dgram path is
 * Node's own (a syscall and a callback per datagram, timers in whole ms), the fallback when the addon is not built.
 */
import dgram from 'node:dgram';
import { performance } from 'node:perf_hooks';
import { createRequire } from 'node:module';
import { EnvironmentError, errorCode, errorMessage } from '../../lib/system/errors.js';

/**
 * @typedef {object} PacketSocket
 * @property {number} port  the bound port
 *
 * @typedef {Buffer|number} Payload  a datagram's bytes as the path holds them (dgram: a Buffer; native: a pool slot);
 *   the receiver owns it until it sends it or releases it
 *
 * @typedef {(payload: Payload, payloadBytes: number, address: string, port: number, arrivalMs: number) => void} DatagramHandler
 *   arrivalMs: when it arrived, on performance.now()'s clock (native: the kernel's stamp; dgram: the read)
 *
 * @typedef {object} PacketIo
 * @property {'native'|'dgram'} kind
 * @property {(address: string, onDatagram: DatagramHandler) => Promise<PacketSocket>} bind  any free port
 * @property {(socket: PacketSocket, payload: Payload, port: number, address: string) => void} send  takes the payload
 * @property {(payload: Payload) => void} release  a received payload that will not be sent (dropped)
 * @property {(socket: PacketSocket) => Promise<void>} closeSocket
 * @property {(delayMs: number) => void} setTimer  replaces the one armed; fires onTimer once
 * @property {() => number|null} takeOffCpuMaxMs  since the last call, the longest time within one turn of the event loop
 *   (its wait for I/O left out) that the host did not run the relay (wall minus thread CPU time; native path), else null
 * @property {() => void} close  stops the timer (sockets are closed one by one first)
 *
 * @typedef {object} PacketIoOptions
 * @property {(timerWakeMs: number|null) => void} onTimer  timerWakeMs: how long after the timer's time the host woke the
 *   relay, when it had been idle since before it (native path), else null
 * @property {(count: number) => void} onSendErrors  datagrams that could not be sent
 */

/**
 * Socket buffers of 4 MiB (the kernel caps them at net.core.rmem_max/wmem_max): at 100 000 packets/s the default
 * 208 KiB holds ~1 ms of 1200-byte datagrams, so any pause of the event loop (a GC, a burst of timers) lost packets
 * that no link asked to drop.
 */
export const SOCKET_BUFFER_BYTES = 4 * 1024 * 1024;

/**
 * @typedef {{MAX_BATCH: number, META_COLUMNS: number, MAX_SENDS: number, SEND_COLUMNS: number, ARRIVAL_STAMPS: boolean,
 *   create: Function, bind: Function, release: Function, flush: Function, setTimer: Function, takeOffCpuMaxMs: Function,
 *   closeSocket: Function, destroy: Function}} Addon
 */
const addon = loadAddon();

/** @returns {{addon: Addon|null, note: string}} */
function loadAddon() {
  try {
    const load = createRequire(import.meta.url);
    /** @type {Addon} */
    const built = load('./native/build/Release/relay_io.node');
    // A build from before the slot pool would be handed slots it does not know; one before arrival stamps, no
    // arrivals; one before send rows, single sends; one before off-CPU time, no such call.
    if (typeof built.release !== 'function' || built.ARRIVAL_STAMPS !== true || built.SEND_COLUMNS !== 4
      || typeof built.takeOffCpuMaxMs !== 'function') {
      return { addon: null, note: 'dgram: the native packet path was built from an older relay_io.c; run `npm run setup` to rebuild it' };
    }
    return { addon: built, note: 'native: recvmmsg/sendmmsg and a timerfd' };
  } catch (error) {
    return { addon: null, note: `dgram: the native packet path is not built (${errorCode(error) ?? errorMessage(error)}); run \`npm run setup\` with a C compiler for sub-millisecond timing at high packet rates` };
  }
}

/**
 * Runs take the native path when it is built (auto) unless $WEBRTC_TESTBED_RELAY_PACKET_PATH says otherwise: it
 * saturates later, adds less delay at half load and times to the microsecond (README "Packet path").
 * @returns {'auto'|'native'|'dgram'}
 */
export function defaultPacketPath() {
  const chosen = process.env.WEBRTC_TESTBED_RELAY_PACKET_PATH;
  return chosen === 'native' || chosen === 'dgram' ? chosen : 'auto';
}

/** Which path createPacketIo('auto') takes here, and why. */
export const packetPath = { kind: addon.addon ? 'native' : 'dgram', note: addon.note };

/**
 * @param {'auto'|'native'|'dgram'} kind  auto: native when built
 * @param {PacketIoOptions} options
 * @returns {PacketIo}
 */
export function createPacketIo(kind, options) {
  if (kind === 'dgram' || (kind === 'auto' && !addon.addon)) return dgramIo(options);
  if (!addon.addon) throw new EnvironmentError(`relay: the native packet path was asked for but ${addon.note}`);
  return nativeIo(addon.addon, options);
}

/**
 * Addresses are always IPv4 literals: a lookup that answers at once spares dgram's dns.lookup and its nextTick per
 * datagram sent.
 * any: dgram's lookup option takes dns.lookup's overloads, which no single family type matches
 * @type {(address: string, family: any, callback: (error: Error|null, address: string, family: number) => void) => void}
 */
const literalLookup = (address, family, callback) => callback(null, address, 4);

/** @param {PacketIoOptions} options @returns {PacketIo} */
function dgramIo({ onTimer, onSendErrors }) {
  /** @type {NodeJS.Timeout|null} */
  let timer = null;
  /** @type {WeakMap<PacketSocket, dgram.Socket>} */
  const sockets = new WeakMap();
  /** @param {Error|null} error */
  const onSent = (error) => { if (error) onSendErrors(1); };
  return {
    kind: 'dgram',
    async bind(address, onDatagram) {
      const socket = dgram.createSocket({ type: 'udp4', lookup: literalLookup });
      try {
        await new Promise((resolve, reject) => {
          socket.once('error', reject);
          socket.bind({ address, port: 0 }, () => {
            socket.off('error', reject);
            resolve(undefined);
          });
        });
      } catch (error) {
        socket.close();
        throw bindError(address, error);
      }
      socket.setRecvBufferSize(SOCKET_BUFFER_BYTES);
      socket.setSendBufferSize(SOCKET_BUFFER_BYTES);
      // Send failures report through onSent.
      socket.on('error', () => onSendErrors(1));
      socket.on('message', (payload, source) => onDatagram(payload, payload.length, source.address, source.port, performance.now()));
      const handle = { port: socket.address().port };
      sockets.set(handle, socket);
      return handle;
    },
    send(handle, payload, port, address) { sockets.get(handle)?.send(/** @type {Buffer} */ (payload), port, address, onSent); },
    release() {},
    closeSocket: (handle) => new Promise((resolve) => {
      const socket = sockets.get(handle);
      sockets.delete(handle);
      if (socket) socket.close(() => resolve(undefined));
      else resolve(undefined);
    }),
    setTimer(delayMs) {
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => { timer = null; onTimer(null); }, Math.max(0, delayMs));
    },
    takeOffCpuMaxMs: () => null,
    close() {
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}

/** @param {string} address @param {unknown} error */
const bindError = (address, error) => new EnvironmentError(`relay cannot bind a UDP socket on ${address} (${errorMessage(error)}); check the host address and free ports.`, { cause: error });

/** @param {Addon} native @param {unknown} io @param {string} address @returns {[number, number]} socket id, port */
function bindNative(native, io, address) {
  try {
    return native.bind(io, address, SOCKET_BUFFER_BYTES);
  } catch (error) {
    throw bindError(address, error);
  }
}

/** @param {Addon} native @param {PacketIoOptions} options @returns {PacketIo} */
function nativeIo(native, { onTimer, onSendErrors }) {
  /** Rows of [socket id, source address, source port, length, slot] for each datagram of a batch. */
  const columns = native.META_COLUMNS;
  const meta = new Uint32Array(native.MAX_BATCH * columns);
  /** By row: the kernel's arrival stamp on CLOCK_MONOTONIC (ms), which performance.now() reads from its own origin. */
  const arrivals = new Float64Array(native.MAX_BATCH);
  const monotonicToNowMs = performance.now() - Number(process.hrtime.bigint()) / 1e6;
  /** Rows of [socket id, slot, port, address] queued for the next flush: one call into the addon per turn, not per datagram. */
  const sendColumns = native.SEND_COLUMNS;
  const sends = new Uint32Array(native.MAX_SENDS * sendColumns);
  let sendCount = 0;
  /** @type {(DatagramHandler|undefined)[]} by socket id */
  const handlers = [];
  const addresses = new AddressCache();
  let flushQueued = false;
  // The native handle is destroyed on close and throws on every call after: nothing reaches it then.
  let closed = false;
  const flush = () => {
    flushQueued = false;
    if (closed) return;
    const errors = native.flush(io, sendCount);
    sendCount = 0;
    if (errors > 0) onSendErrors(errors);
  };
  /** @param {number} slot */
  const release = (slot) => { if (!closed) native.release(io, slot); };
  /**
   * @param {number} count @param {boolean} timerFired
   * @param {number} [timerWakeMs]  how long after its time the host woke the idle relay for the timer, -1 when not known
   */
  const onEvents = (count, timerFired, timerWakeMs = -1) => {
    for (let i = 0, row = 0; i < count; i++, row += columns) {
      const handler = handlers[meta[row]];
      // A datagram that was read as its socket closed is nobody's.
      if (handler) handler(meta[row + 4], meta[row + 3], addresses.text(meta[row + 1]), meta[row + 2], arrivals[i] + monotonicToNowMs);
      else release(meta[row + 4]);
    }
    if (timerFired) onTimer(timerWakeMs >= 0 ? timerWakeMs : null);
  };
  const io = native.create(onEvents, meta, arrivals, sends);
  /** @type {WeakMap<PacketSocket, number>} */
  const ids = new WeakMap();
  return {
    kind: 'native',
    async bind(address, onDatagram) {
      if (closed) throw new EnvironmentError('relay: its packet I/O is closed; start a new relay.');
      const [id, port] = bindNative(native, io, address);
      handlers[id] = onDatagram;
      const handle = { port };
      ids.set(handle, id);
      return handle;
    },
    send(handle, payload, port, address) {
      const slot = /** @type {number} */ (payload);
      const id = ids.get(handle);
      if (id === undefined) return release(slot);
      if (closed) return;
      const row = sendCount++ * sendColumns;
      sends[row] = id;
      sends[row + 1] = slot;
      sends[row + 2] = port;
      sends[row + 3] = addresses.number(address);
      // Sends leave together once this turn of the event loop is done with its datagrams and timers.
      if (sendCount === native.MAX_SENDS) flush();
      else if (!flushQueued) {
        flushQueued = true;
        queueMicrotask(flush);
      }
    },
    release: (payload) => release(/** @type {number} */ (payload)),
    async closeSocket(handle) {
      const id = ids.get(handle);
      if (id === undefined || closed) return;
      ids.delete(handle);
      handlers[id] = undefined;
      flush(); // rows queued for this socket leave before it closes
      native.closeSocket(io, id);
    },
    setTimer(delayMs) { if (!closed) native.setTimer(io, delayMs); },
    takeOffCpuMaxMs: () => (closed ? null : native.takeOffCpuMaxMs(io)),
    close() {
      if (closed) return;
      flush();
      closed = true;
      native.destroy(io);
    },
  };
}

/** IPv4 addresses as text and as host-order numbers, both ways, remembered (a relay talks to a few addresses). */
class AddressCache {
  /** @type {Map<number, string>} */ #texts = new Map();
  /** @type {Map<string, number>} */ #numbers = new Map();

  /** @param {number} value */
  text(value) {
    let text = this.#texts.get(value);
    if (text === undefined) {
      text = `${value >>> 24}.${(value >>> 16) & 255}.${(value >>> 8) & 255}.${value & 255}`;
      this.#texts.set(value, text);
    }
    return text;
  }

  /** @param {string} text */
  number(text) {
    let value = this.#numbers.get(text);
    if (value === undefined) {
      value = text.split('.').reduce((sum, part) => sum * 256 + Number(part), 0);
      this.#numbers.set(text, value);
    }
    return value;
  }
}
