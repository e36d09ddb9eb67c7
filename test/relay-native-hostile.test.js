// The relay's native addon (native/relay_io.c) called from hostile JavaScript, without packet-io.js's guards: after
// destroy(), with its shared arrays detached or shrunk, and dropped without destroy(). Each case runs in a child
// Node, so a crash shows as a signal exit (SIGSEGV) instead of taking the test runner down; each must end in a
// JavaScript error. About 3 s.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { packetPath } from '../orchestrator/emulators/relay/packet-io.js';

const skip = packetPath.kind === 'native' ? false : `the native packet path is not built here (${packetPath.note})`;
const ADDON = fileURLToPath(new URL('../orchestrator/emulators/relay/native/build/Release/relay_io.node', import.meta.url));

/**
 * Runs body in a child Node (CommonJS, --expose-gc) and says how it ended and what it reported. The child has:
 * addon; arrays(elements): meta, arrivals and sends of at least the addon's sizes (64 Mi elements each for a larger
 * size, which the C library maps on their own pages and unmaps when freed: a later access to them faults at once);
 * newIo(arrays); report(value), which prints value as JSON and exits; attempt(call), which reports what call threw;
 * freeDetached(), which collects what a transfer left behind; sendTo(port).
 * @param {string} body
 * @returns {Promise<{ code: number|null, signal: string|null, report: any, stderr: string }>}
 */
function inChild(body) {
  const script = `
const addon = require(${JSON.stringify(ADDON)});
const dgram = require('node:dgram');
const arrays = (elements = 0) => ({
  meta: new Uint32Array(Math.max(elements, addon.MAX_BATCH * addon.META_COLUMNS)),
  arrivals: new Float64Array(Math.max(elements, addon.MAX_BATCH)),
  sends: new Uint32Array(Math.max(elements, addon.MAX_SENDS * addon.SEND_COLUMNS)),
});
const newIo = ({ meta, arrivals, sends } = arrays()) => addon.create(() => {}, meta, arrivals, sends);
const report = (value) => { process.stdout.write(JSON.stringify(value)); process.exit(0); };
const attempt = (call) => {
  try {
    call();
    report({ returned: true });
  } catch (error) {
    report({ name: error.name, message: error.message });
  }
};
const freeDetached = () => new Promise((resolve) => { gc(); setTimeout(() => { gc(); setTimeout(resolve, 50); }, 50); });
const sendTo = (port) => {
  const socket = dgram.createSocket('udp4');
  socket.send(Buffer.from('datagram'), port, '127.0.0.1', () => socket.close());
};
${body}`;
  return new Promise((resolve) => {
    const child = execFile(process.execPath, ['--expose-gc', '-e', script], { timeout: 10_000 }, (_error, stdout, stderr) => {
      resolve({ code: child.exitCode, signal: child.signalCode, report: stdout ? JSON.parse(stdout) : null, stderr });
    });
  });
}

/** @param {Awaited<ReturnType<typeof inChild>>} ended @param {RegExp} message */
function assertThrew(ended, message) {
  assert.equal(ended.signal, null, `the child died of ${ended.signal}; stderr: ${ended.stderr}`);
  assert.equal(ended.code, 0, `the child exited ${ended.code}; stderr: ${ended.stderr}`);
  assert.equal(ended.report?.name !== undefined, true, `a JavaScript error, not ${JSON.stringify(ended.report)}`);
  assert.match(ended.report.message, message);
}

const callsAfterDestroy = {
  bind: 'addon.bind(io, "127.0.0.1", 65536)',
  release: 'addon.release(io, 0)',
  flush: 'addon.flush(io, 1)',
  setTimer: 'addon.setTimer(io, 1)',
  takeOffCpuMaxMs: 'addon.takeOffCpuMaxMs(io)',
  closeSocket: 'addon.closeSocket(io, socketId)',
  destroy: 'addon.destroy(io)',
};

for (const [name, call] of Object.entries(callsAfterDestroy)) {
  test(`${name}() on a destroyed io throws instead of using its freed memory`, { skip }, async () => {
    // The io is freed once libuv has closed its handles: a later timer runs after that.
    assertThrew(await inChild(`
const { meta, arrivals, sends } = arrays();
const io = newIo({ meta, arrivals, sends });
const [socketId] = addon.bind(io, '127.0.0.1', 65536);
sends.set([socketId, 0, 9, 0x7f000001]);
addon.destroy(io);
setTimeout(() => attempt(() => ${call}), 50);`), /relay_io: the io was destroyed/);
  });
}

test('the sends array detached (its memory freed) makes flush() throw instead of reading freed memory', { skip }, async () => {
  assertThrew(await inChild(`
const shared = arrays(64 * 1024 * 1024);
const io = newIo(shared);
const [socketId] = addon.bind(io, '127.0.0.1', 65536);
shared.sends.set([socketId, 0, 9, 0x7f000001]);
structuredClone(shared.sends.buffer, { transfer: [shared.sends.buffer] });
freeDetached().then(() => attempt(() => addon.flush(io, 1)));`), /relay_io: sends is detached or smaller than MAX_SENDS \* SEND_COLUMNS/);
});

for (const name of ['meta', 'arrivals']) {
  test(`the ${name} array detached (its memory freed) stops the io with an error at the next datagram instead of writing freed memory`,
    { skip }, async () => {
      const ended = await inChild(`
const shared = arrays(64 * 1024 * 1024);
const io = newIo(shared);
const [, port] = addon.bind(io, '127.0.0.1', 65536);
process.on('uncaughtException', (error) => {
  // The io stopped: it reads no more, and a call on it throws.
  try {
    addon.setTimer(io, 1);
    report({ returned: true });
  } catch (after) {
    report({ name: error.name, message: error.message + ' / then: ' + after.message });
  }
});
structuredClone(shared.${name}.buffer, { transfer: [shared.${name}.buffer] });
freeDetached().then(() => sendTo(port));`);
      assertThrew(ended, new RegExp(`relay_io: ${name} is detached or smaller than .* / then: relay_io: the io was destroyed`));
    });
}

test('the sends array on a resizable buffer shrunk to nothing makes flush() throw instead of reading past it', { skip }, async () => {
  assertThrew(await inChild(`
const shared = arrays();
const buffer = new ArrayBuffer(shared.sends.byteLength, { maxByteLength: shared.sends.byteLength });
const io = newIo({ ...shared, sends: new Uint32Array(buffer) });
buffer.resize(0);
attempt(() => addon.flush(io, 1));`), /relay_io: sends is detached or smaller than MAX_SENDS \* SEND_COLUMNS/);
});

test('an io dropped without destroy() is freed when collected: its sockets close and the process can exit', { skip }, async () => {
  // Beside it, destroyed ios collected before and after libuv closed their handles: each is freed once (no double free).
  const ended = await inChild(`
let io = newIo();
const [, port] = addon.bind(io, '127.0.0.1', 65536);
io = null;
let collectedBeforeClosed = newIo();
let collectedAfterClosed = newIo();
addon.destroy(collectedBeforeClosed);
addon.destroy(collectedAfterClosed);
collectedBeforeClosed = null;
gc();
setTimeout(() => { collectedAfterClosed = null; }, 20);
setTimeout(() => freeDetached().then(() => {
  // The port is free again once the finalizer closed its socket; the process then exits on its own, as no handle of
  // the addon holds its event loop.
  const socket = dgram.createSocket('udp4');
  socket.on('error', (error) => report({ name: error.name, message: error.message }));
  socket.bind(port, '127.0.0.1', () => {
    socket.close();
    process.stdout.write(JSON.stringify({ rebound: port }));
  });
}), 40);`);
  assert.equal(ended.signal, null, `the child was killed (${ended.signal}): the dropped io kept its event loop alive`);
  assert.equal(ended.code, 0, ended.stderr);
  assert.equal(typeof ended.report?.rebound, 'number', `the port was freed: ${JSON.stringify(ended.report)}`);
});

test('process.exit() with an io still open ends cleanly (the finalizer runs at teardown)', { skip }, async () => {
  const ended = await inChild(`
const io = newIo();
addon.bind(io, '127.0.0.1', 65536);
addon.setTimer(io, 1000);
setTimeout(() => report({ exited: true }), 20);`);
  assert.equal(ended.signal, null, ended.stderr);
  assert.deepEqual([ended.code, ended.report], [0, { exited: true }]);
});
