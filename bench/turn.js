// TURN benchmark: what the TURN leg adds to delay and CPU at 1, 10 and 50 Mbps. Prints figures, asserts nothing.
// One UDP echo peer on loopback; a client sends 1200-byte datagrams at the rate to it directly, then through a coturn
// (Debian's turnserver, started here on 127.0.0.1 with the run's configuration, lib/network/turn.js) over TURN/UDP: an
// allocation, a channel bound to the echo peer, ChannelData both ways (RFC 8656 §12). Each datagram carries its send
// time; the client takes its round trip when it comes back. Direct and relayed run in the same process, so what the
// harness's own event loop adds is in both: the difference is the TURN leg (two relay hops per round trip). coturn's
// CPU comes from /proc/<pid>/stat over the relayed seconds. Run it under the machine lock (it starts coturn).
// Usage: node bench/turn.js [--seconds 5] [--rates 1,10,50]
import { spawn } from 'node:child_process';
import { createHash, createHmac, randomBytes } from 'node:crypto';
import dgram from 'node:dgram';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { coturnConfig } from '../orchestrator/lib/network/turn.js';
import { parseStat } from '../orchestrator/lib/devices/proc-stat.js';
import { clockTicksPerSecond } from '../orchestrator/run/process-sampler.js';
import { writeSecretFile } from '../orchestrator/lib/system/files.js';
import { freePort } from '../orchestrator/sfu/index.js';
import { percentile } from '../orchestrator/lib/stats/statistics.js';

const HOST = '127.0.0.1';
const PAYLOAD_BYTES = 1200;
const MAGIC = 0x2112a442;
const CHANNEL = 0x4000;
const REALM = 'webrtc-testbed';
const { values } = parseArgs({ options: { seconds: { type: 'string', default: '5' }, rates: { type: 'string', default: '1,10,50' } } });
const seconds = Number(values.seconds);
const ratesMbps = values.rates.split(',').map(Number);

/** A STUN attribute, padded to 4 bytes. @param {number} type @param {Buffer} value */
const attribute = (type, value) => {
  const head = Buffer.alloc(4);
  head.writeUInt16BE(type, 0);
  head.writeUInt16BE(value.length, 2);
  return Buffer.concat([head, value, Buffer.alloc((4 - (value.length % 4)) % 4)]);
};

/**
 * A STUN request; with a key, MESSAGE-INTEGRITY over everything before it (RFC 8489 §14.5).
 * @param {number} type @param {Buffer[]} attributes @param {Buffer|null} key
 */
function request(type, attributes, key) {
  const header = Buffer.alloc(20);
  header.writeUInt16BE(type, 0);
  header.writeUInt32BE(MAGIC, 4);
  randomBytes(12).copy(header, 8);
  const body = Buffer.concat(attributes);
  header.writeUInt16BE(body.length + (key ? 24 : 0), 2);
  if (!key) return Buffer.concat([header, body]);
  const integrity = createHmac('sha1', key).update(Buffer.concat([header, body])).digest();
  return Buffer.concat([header, body, attribute(0x0008, integrity)]);
}

/** A STUN message's type and attributes (bounded by its own length). @param {Buffer} message */
function parseStun(message) {
  const type = message.readUInt16BE(0);
  const end = Math.min(message.length, 20 + message.readUInt16BE(2));
  /** @type {Map<number, Buffer>} */
  const attributes = new Map();
  for (let at = 20; at + 4 <= end;) {
    const length = message.readUInt16BE(at + 2);
    attributes.set(message.readUInt16BE(at), message.subarray(at + 4, at + 4 + length));
    at += 4 + length + ((4 - (length % 4)) % 4);
  }
  return { type, attributes };
}

/** XOR-PEER-ADDRESS of an IPv4 address and port. @param {string} address @param {number} port */
function xorAddress(address, port) {
  const value = Buffer.alloc(8);
  value.writeUInt16BE(0x0001, 0);
  value.writeUInt16BE(port ^ (MAGIC >>> 16), 2);
  value.writeUInt32BE((address.split('.').reduce((n, octet) => n * 256 + Number(octet), 0) ^ MAGIC) >>> 0, 4);
  return value;
}

/** Sends a request and waits for its answer (every reply on this socket is one while this runs). */
function exchange(/** @type {dgram.Socket} */ socket, /** @type {Buffer} */ message, /** @type {number} */ port) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no answer from turnserver in 2 s')), 2000);
    socket.once('message', (reply) => { clearTimeout(timer); resolve(parseStun(reply)); });
    socket.send(message, port, HOST);
  });
}

/**
 * An allocation on the server, its channel bound to the echo peer: the long-term credential dance (RFC 8656 §7).
 * @param {dgram.Socket} socket @param {number} serverPort @param {{ username: string, password: string }} user
 * @param {number} peerPort
 */
async function allocateChannel(socket, serverPort, { username, password }, peerPort) {
  const transport = attribute(0x0019, Buffer.from([17, 0, 0, 0]));
  const challenge = await exchange(socket, request(0x0003, [transport], null), serverPort);
  const nonce = challenge.attributes.get(0x0015);
  if (!nonce) throw new Error(`turnserver answered the first Allocate with type 0x${challenge.type.toString(16)} and no NONCE`);
  const key = createHash('md5').update(`${username}:${REALM}:${password}`).digest();
  const auth = [attribute(0x0006, Buffer.from(username)), attribute(0x0014, Buffer.from(REALM)), attribute(0x0015, nonce)];
  const allocated = await exchange(socket, request(0x0003, [transport, ...auth], key), serverPort);
  if (allocated.type !== 0x0103) throw new Error(`Allocate failed (type 0x${allocated.type.toString(16)})`);
  const channel = Buffer.from([CHANNEL >> 8, CHANNEL & 0xff, 0, 0]);
  const bind = request(0x0009, [attribute(0x000c, channel), attribute(0x0012, xorAddress(HOST, peerPort)), ...auth], key);
  const bound = await exchange(socket, bind, serverPort);
  if (bound.type !== 0x0109) throw new Error(`ChannelBind failed (type 0x${bound.type.toString(16)})`);
}

/**
 * Datagrams at the rate for the duration; each round trip in ms. wrap/unwrap: ChannelData framing, or none.
 * @param {{ socket: dgram.Socket, port: number, rateMbps: number, wrap: (b: Buffer) => Buffer, unwrap: (b: Buffer) => Buffer|null }} path
 */
async function roundTrips({ socket, port, rateMbps, wrap, unwrap }) {
  const perSecond = (rateMbps * 1e6) / 8 / PAYLOAD_BYTES;
  /** @type {number[]} */
  const rttMs = [];
  socket.on('message', (message) => {
    const payload = unwrap(message);
    if (payload && payload.length >= 8) rttMs.push(performance.now() - payload.readDoubleBE(0));
  });
  const start = performance.now();
  let sent = 0;
  while (performance.now() - start < seconds * 1000) {
    const due = Math.floor(((performance.now() - start) / 1000) * perSecond);
    for (; sent < due; sent += 1) {
      const payload = Buffer.alloc(PAYLOAD_BYTES);
      payload.writeDoubleBE(performance.now(), 0);
      socket.send(wrap(payload), port, HOST);
    }
    await sleep(1);
  }
  await sleep(200);
  socket.removeAllListeners('message');
  const sorted = rttMs.sort((a, b) => a - b);
  return { sent, received: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
}

/** turnserver's CPU ticks. @param {number} pid */
const cpuTicks = async (pid) => parseStat(await readFile(`/proc/${pid}/stat`, 'utf8')).cpuTicks;

const dir = await mkdtemp(path.join(os.tmpdir(), 'wtb-bench-turn-'));
const user = { username: `wtb${randomBytes(6).toString('hex')}`, password: randomBytes(24).toString('hex') };
const [port, tlsPort] = [await freePort(HOST), await freePort(HOST)];
// The run's configuration, on loopback: no TLS listener here, and the echo peer is on loopback too.
await writeSecretFile(path.join(dir, 'turnserver.conf'), `${coturnConfig({
  address: HOST, port, tlsPort, minRelayPort: 49_160, maxRelayPort: 49_400, ...user, realm: REALM,
  certFile: path.join(dir, 'none.pem'), keyFile: path.join(dir, 'none.pem'), pidFile: path.join(dir, 'pid'), dbFile: path.join(dir, 'db'),
})}no-tls\nallow-loopback-peers\n`);
const server = spawn('turnserver', ['-c', path.join(dir, 'turnserver.conf')], { stdio: 'ignore' });
const echo = dgram.createSocket('udp4');
echo.on('message', (message, from) => echo.send(message, from.port, from.address));
await new Promise((resolve) => { echo.bind(0, HOST, () => resolve(undefined)); });
const peerPort = echo.address().port;
const ticksPerS = clockTicksPerSecond();
try {
  await sleep(1000);
  await rm(path.join(dir, 'turnserver.conf'), { force: true });
  console.log(`TURN/UDP via coturn on ${HOST} vs direct, ${PAYLOAD_BYTES}-byte datagrams, ${seconds} s each (round trips; the TURN leg is two relay hops)`);
  console.log('rate     direct p50/p99 ms   via TURN p50/p99 ms   added p50/p99 ms   received direct/TURN   coturn CPU (% of a core)');
  for (const rateMbps of ratesMbps) {
    const direct = dgram.createSocket('udp4');
    await new Promise((resolve) => { direct.bind(0, HOST, () => resolve(undefined)); });
    const plain = await roundTrips({ socket: direct, port: peerPort, rateMbps, wrap: (b) => b, unwrap: (b) => b });
    direct.close();
    const client = dgram.createSocket('udp4');
    await new Promise((resolve) => { client.bind(0, HOST, () => resolve(undefined)); });
    await allocateChannel(client, port, user, peerPort);
    const header = Buffer.from([CHANNEL >> 8, CHANNEL & 0xff, PAYLOAD_BYTES >> 8, PAYLOAD_BYTES & 0xff]);
    const pid = /** @type {number} */ (server.pid);
    const before = { ticks: await cpuTicks(pid), atMs: performance.now() };
    const relayed = await roundTrips({
      socket: client, port, rateMbps, wrap: (b) => Buffer.concat([header, b]),
      unwrap: (b) => (b.length > 4 && b.readUInt16BE(0) === CHANNEL ? b.subarray(4, 4 + b.readUInt16BE(2)) : null),
    });
    const cpuPct = (((await cpuTicks(pid)) - before.ticks) / ticksPerS / ((performance.now() - before.atMs) / 1000)) * 100;
    client.close();
    /** @param {number|null} value */
    const ms = (value) => (value === null ? '–' : value.toFixed(2));
    const added = (/** @type {'p50'|'p99'} */ q) => {
      const [a, b] = [relayed[q], plain[q]];
      return a === null || b === null ? null : a - b;
    };
    console.log(`${String(rateMbps).padStart(3)} Mbps  ${`${ms(plain.p50)} / ${ms(plain.p99)}`.padEnd(18)}  ${`${ms(relayed.p50)} / ${ms(relayed.p99)}`.padEnd(20)}  `
      + `${`${ms(added('p50'))} / ${ms(added('p99'))}`.padEnd(17)}  ${`${plain.received}/${plain.sent}  ${relayed.received}/${relayed.sent}`.padEnd(21)}  ${cpuPct.toFixed(1)}`);
  }
} finally {
  echo.close();
  server.kill('SIGTERM');
  await rm(dir, { recursive: true, force: true });
}
