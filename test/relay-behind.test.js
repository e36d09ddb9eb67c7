// The relay as a run's emulator measures its own load: a relay whose event loop is stalled (SIGSTOP for 250 ms, as a
// starved host does to it) sends the datagrams it held late, says so in its load rows (Emulator.load), and the
// run's summary (lib/devices/cpu-limit.js emulatorBehind) names the second.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import { setTimeout as sleep } from 'node:timers/promises';
import { relayBackend } from '../orchestrator/emulators/relay/index.js';
import { emulatorBehind } from '../orchestrator/lib/devices/cpu-limit.js';

const HOST = '127.0.0.1';
const DELAY_MS = 40;
const STALL_MS = 250;
const link = (oneWayDelayMs) => ({
  rateKbps: null, queuePackets: null, queueMs: null, oneWayDelayMs, jitterMs: 0, lossPct: 0, lossBurst: null,
});

/** @type {import('../orchestrator/emulators/contract.js').Emulator} */
let emulator;
/** @type {dgram.Socket[]} */
const sockets = [];

before(async () => {
  const compiled = /** @type {any} */ ({
    links: { 'p0.up': link(DELAY_MS), 'p1.down': link(0), 'p1.up': link(0), 'p0.down': link(0) },
    routes: { 'p0->p1': ['p0.up', 'p1.down'], 'p1->p0': ['p1.up', 'p0.down'] },
    traces: {},
    events: [],
  });
  emulator = await relayBackend.create({ compiled, peers: ['p0', 'p1'], runId: 'behind-test' });
});
after(async () => {
  await Promise.all(sockets.map((socket) => /** @type {Promise<void>} */ (new Promise((resolve) => socket.close(resolve)))));
  await emulator?.close();
});

async function udpSocket() {
  const socket = dgram.createSocket('udp4');
  await /** @type {Promise<void>} */ (new Promise((resolve) => socket.bind({ address: HOST, port: 0 }, resolve)));
  sockets.push(socket);
  return socket;
}

/**
 * Steers a peer's socket through the relay as its candidate would be: the port the other peer sends to, to reach it.
 * @param {string} from @param {string} to @param {number} port
 */
async function relayedPort(from, to, port) {
  const candidate = { candidate: `candidate:1 1 udp 2122260223 ${HOST} ${port} typ host`, sdpMid: '0', sdpMLineIndex: 0 };
  const rewritten = await emulator.rewriteCandidate({ from, to, candidate });
  return Number(rewritten?.candidate.split(' ')[5]);
}

test('a relay whose event loop stalls for 250 ms reports the second it fell behind in its load rows and the run summary', async () => {
  const [p0, p1] = [await udpSocket(), await udpSocket()];
  await relayedPort('p0', 'p1', p0.address().port);
  const toP1 = await relayedPort('p1', 'p0', p1.address().port);
  let received = 0;
  p1.on('message', () => { received++; });
  // 500 datagrams/s for 3 s; in the middle the relay stops with 40 ms of them scheduled and more arriving.
  let sent = 0;
  const sender = setInterval(() => { for (let i = 0; i < 5; i++, sent++) p0.send(Buffer.alloc(200, sent % 256), toP1, HOST); }, 10);
  const stopsAtMs = Date.now() + 3000;
  await sleep(1500);
  const stalledAtEpochMs = Date.now();
  process.kill(/** @type {number} */ (emulator.pid), 'SIGSTOP');
  try {
    await sleep(STALL_MS);
  } finally {
    process.kill(/** @type {number} */ (emulator.pid), 'SIGCONT');
  }
  await sleep(stopsAtMs - Date.now());
  clearInterval(sender);
  // Every second the stream touched closes.
  await sleep(1500);
  const rows = await /** @type {NonNullable<typeof emulator.load>} */ (emulator.load)();

  assert.equal(received, sent, 'the stalled relay still forwarded every datagram');
  assert.equal(rows.reduce((sum, row) => sum + row.packetsIn, 0), sent);
  assert.equal(rows.reduce((sum, row) => sum + row.packetsOut, 0), sent);
  const behind = rows.filter((row) => row.behind);
  assert.ok(behind.length >= 1, `no second behind: ${JSON.stringify(rows)}`);
  // The datagrams scheduled just before the stall left about STALL_MS − DELAY_MS late.
  const worst = behind.reduce((a, b) => ((b.lateMaxMs ?? 0) > (a.lateMaxMs ?? 0) ? b : a));
  assert.ok(worst.lateMaxMs > (STALL_MS - DELAY_MS) / 2 && worst.lateP99Ms > 1, JSON.stringify(worst));
  assert.ok(worst.epochMs > stalledAtEpochMs && worst.epochMs < stalledAtEpochMs + 2500, `the row is the stall's second on the wall clock: ${JSON.stringify({ stalledAtEpochMs, stopsAtMs, sent, now: Date.now(), rows })}`);
  for (const row of rows) assert.ok(row.busyPct !== null && row.busyPct >= 0 && row.busyPct <= 100, JSON.stringify(row));

  // The run's summary, on a media clock that started with the stream.
  const mediaStartMs = stopsAtMs - 3000;
  const summary = emulatorBehind(rows.map(({ epochMs, ...row }) => ({ t: (epochMs - mediaStartMs) / 1000, ...row })), [0, 5]);
  assert.equal(summary?.behind, true);
  assert.ok(summary.seconds >= 1 && summary.spans.some((span) => span.fromS <= 3 && span.toS >= 2), JSON.stringify(summary));
  assert.equal(summary.lateMaxMs, worst.lateMaxMs);
});
