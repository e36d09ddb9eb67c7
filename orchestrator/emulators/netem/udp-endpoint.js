/**
 * One end of the calibration probe, run inside a peer namespace (`ip netns exec <ns> node udp-endpoint.js`),
 * since a Node process cannot open sockets in another namespace. Talks to its parent over IPC:
 *   send <host> <port>     datagrams the parent sends are sent to host:port
 *   receive <host> <port>  datagrams received on host:port go to the parent with their arrival time
 */
import dgram from 'node:dgram';
import { PROBE_HEADER_BYTES, probeClockMs } from '../calibration.js';

const [mode, host, port] = process.argv.slice(2);
const send = process.send?.bind(process);
if (!send) throw new Error('udp-endpoint.js is netem/calibrate.js\'s forked child and reports over IPC; do not start it by hand');
const socket = dgram.createSocket('udp4');
process.on('disconnect', () => process.exit(0));
if (mode === 'receive') {
  socket.on('message', (payload) => send({ payload, recvMs: probeClockMs() }));
  socket.bind(Number(port), host, () => send({ ready: true }));
} else {
  process.on('message', (/** @type {Uint8Array} */ bytes) => {
    // Advanced IPC serialization delivers a Uint8Array.
    const payload = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    // Re-stamp the probe's send time (calibration.js layout: seq uint32, then sendMs float64) so the IPC hop
    // from the parent does not count as path delay.
    if (payload.length >= PROBE_HEADER_BYTES) payload.writeDoubleBE(probeClockMs(), 4);
    socket.send(payload, Number(port), host);
  });
  socket.bind(0, () => send({ ready: true }));
}
