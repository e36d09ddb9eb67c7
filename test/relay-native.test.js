// The relay's native addon (native/relay_io.c) at its own edge: what JS hands it (arrays, send rows, slots) is checked
// there, so a wrong row is counted and refused, never sent twice or freed twice, and a wrong call throws a TypeError
// that names what it wanted. Real sockets on 127.0.0.1, a few datagrams; about a second.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';
import { packetPath } from '../orchestrator/emulators/relay/packet-io.js';

const HOST = '127.0.0.1';
const skip = packetPath.kind === 'native' ? false : `the native packet path is not built here (${packetPath.note})`;
/** @type {any} */
const addon = skip ? null : createRequire(import.meta.url)('../orchestrator/emulators/relay/native/build/Release/relay_io.node');

/**
 * An addon io with one socket bound, what it received (rows of [socketId, address, port, length, slot]) and each
 * timer firing's timerWakeMs; onTimerFired runs inside the callback of a firing.
 */
function openIo(onTimerFired = () => {}) {
  const meta = new Uint32Array(addon.MAX_BATCH * addon.META_COLUMNS);
  const arrivals = new Float64Array(addon.MAX_BATCH);
  const sends = new Uint32Array(addon.MAX_SENDS * addon.SEND_COLUMNS);
  /** @type {number[][]} */
  const received = [];
  /** @type {number[]} */
  const timerWakes = [];
  const io = addon.create((/** @type {number} */ count, /** @type {boolean} */ timerFired, /** @type {number} */ timerWakeMs) => {
    for (let i = 0; i < count; i++) received.push([...meta.subarray(i * addon.META_COLUMNS, (i + 1) * addon.META_COLUMNS)]);
    if (timerFired) {
      timerWakes.push(timerWakeMs);
      onTimerFired();
    }
  }, meta, arrivals, sends);
  const [socketId, port] = addon.bind(io, HOST, 1 << 20);
  return { io, sends, received, timerWakes, socketId, port };
}

/** @param {Uint32Array} sends @param {number} row @param {number[]} values */
const writeRow = (sends, row, values) => sends.set(values, row * addon.SEND_COLUMNS);

test('send rows: a good row is sent once; a repeated slot, an unknown socket and a slot not held are refused and counted', { skip }, async () => {
  const { io, sends, received, socketId, port } = openIo();
  const sink = dgram.createSocket('udp4');
  const sender = dgram.createSocket('udp4');
  try {
    sink.bind(0, HOST);
    await once(sink, 'listening');
    /** @type {Buffer[]} */
    const arrived = [];
    sink.on('message', (payload) => arrived.push(payload));
    sender.send(Buffer.from('first'), port, HOST);
    sender.send(Buffer.from('second'), port, HOST);
    for (let waited = 0; received.length < 2 && waited < 2000; waited += 10) await sleep(10);
    assert.equal(received.length, 2, 'the addon read both datagrams');
    const [slotA, slotB] = received.map((row) => row[4]);
    const address = (127 << 24) + 1;
    const sinkPort = sink.address().port;
    writeRow(sends, 0, [socketId, slotA, sinkPort, address]);
    writeRow(sends, 1, [socketId, slotA, sinkPort, address]); // the same slot again
    writeRow(sends, 2, [socketId + 7, slotB, sinkPort, address]); // no such socket: slotB is freed
    writeRow(sends, 3, [socketId, 123_456, sinkPort, address]); // never received
    writeRow(sends, 4, [socketId, slotB, sinkPort, address]); // freed by row 2
    assert.equal(addon.flush(io, 5), 4, 'four of five rows refused');
    for (let waited = 0; arrived.length < 1 && waited < 2000; waited += 10) await sleep(10);
    await sleep(50);
    assert.deepEqual(arrived.map(String), ['first'], 'the good row went out once');
    assert.throws(() => addon.release(io, slotA), /slot must be a received datagram's, not yet sent or released/);
  } finally {
    sender.close();
    sink.close();
    addon.destroy(io);
  }
});

test('calls with wrong arguments throw TypeErrors that name what the addon wants', { skip }, () => {
  assert.throws(() => addon.create(() => {}, new Uint32Array(1), new Float64Array(1), new Uint32Array(1)),
    { name: 'TypeError', message: /meta must be a Uint32Array of MAX_BATCH \* META_COLUMNS.*sends a Uint32Array of MAX_SENDS \* SEND_COLUMNS/ });
  const { io } = openIo();
  try {
    assert.throws(() => addon.flush(io, addon.MAX_SENDS + 1), { name: 'TypeError', message: /count must be the rows of sends written/ });
    assert.throws(() => addon.flush(io), { name: 'TypeError', message: /relay_io.flush\(io, count\)/ });
    assert.throws(() => addon.setTimer(io, 'soon'), { name: 'TypeError', message: /delayMs must be a number/ });
    assert.throws(() => addon.bind(io, 'localhost', 1024), { name: 'TypeError', message: /address must be an IPv4 literal/ });
    assert.throws(() => addon.closeSocket(io, 99), /unknown socket id/);
    assert.throws(() => addon.flush({}, 0), /not an open io handle/);
  } finally {
    addon.destroy(io);
  }
});

test('the timer says how long after its time the host woke an idle relay, and -1 when the relay was busy then', { skip }, async () => {
  const { io, timerWakes } = openIo();
  try {
    // Idle: the loop waits in epoll from before the timer's time; the host's wake-up is a fraction of a ms here.
    addon.setTimer(io, 20); // after the loop is surely back in its wait, also on a loaded host
    // One JS timer well past the relay's: a 10 ms poll woke the loop at 20 ms too, so it was busy at the timer's time.
    await sleep(60);
    for (let waited = 0; timerWakes.length < 1 && waited < 2000; waited += 10) await sleep(10);
    assert.equal(timerWakes.length, 1, 'the timer fired once');
    assert.ok(timerWakes[0] >= 0 && timerWakes[0] < 50, `idle wake-up ${timerWakes[0]} ms`);
    // Busy: JavaScript holds the loop 20 ms past the timer's time, so its lateness is the relay's own, not the host's.
    addon.setTimer(io, 2);
    const until = performance.now() + 22;
    while (performance.now() < until) { /* the relay's event loop is busy */ }
    for (let waited = 0; timerWakes.length < 2 && waited < 2000; waited += 10) await sleep(10);
    assert.deepEqual(timerWakes.slice(1), [-1]);
  } finally {
    addon.destroy(io);
  }
});

test('a turn\'s time off the CPU: a thread held 25 ms (blocked here, as the host\'s preemption holds it) counts, in any handle\'s turn; 25 ms of work does not', { skip }, async () => {
  const held = new Int32Array(new SharedArrayBuffer(4));
  /** @type {'block'|'spin'} */
  let turn = 'block';
  const { io, timerWakes } = openIo(() => {
    if (turn === 'block') Atomics.wait(held, 0, 0, 25);
    else for (const until = performance.now() + 25; performance.now() < until;) { /* the relay's own work */ }
  });
  /** Fires the timer, lets the turn end at the loop's next wait, and takes the figure. @param {number} firings */
  const afterFiring = async (firings) => {
    addon.takeOffCpuMaxMs(io);
    addon.setTimer(io, 1);
    for (let waited = 0; timerWakes.length < firings && waited < 2000; waited += 10) await sleep(10);
    assert.equal(timerWakes.length, firings, 'the timer fired');
    await sleep(20);
    return addon.takeOffCpuMaxMs(io);
  };
  try {
    const blockedMs = await afterFiring(1);
    assert.ok(blockedMs >= 24 && blockedMs < 1000, `held 25 ms: off the CPU ${blockedMs} ms`);
    turn = 'spin';
    const workingMs = await afterFiring(2);
    assert.ok(workingMs >= 0 && workingMs < blockedMs - 10, `25 ms of work: off the CPU ${workingMs} ms (held: ${blockedMs})`);
    assert.equal(addon.takeOffCpuMaxMs(io), 0, 'taking it resets it');
    // A turn of Node's own handles (here a JS timer; the relay's IPC) holds the relay's datagrams back as much.
    setTimeout(() => Atomics.wait(held, 0, 0, 25), 1);
    await sleep(60);
    const jsTimerMs = addon.takeOffCpuMaxMs(io);
    assert.ok(jsTimerMs >= 24 && jsTimerMs < 1000, `a JS timer held 25 ms: off the CPU ${jsTimerMs} ms`);
    assert.throws(() => addon.takeOffCpuMaxMs({}), /not an open io handle/);
  } finally {
    addon.destroy(io);
  }
});
