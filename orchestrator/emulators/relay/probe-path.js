/**
 * The calibration ProbePath through a UdpRelay: two loopback sockets registered as peers p0 and p1,
 * probing p0 -> p1 across ["p0.up", "p1.down"] with the conditions on p0.up (as scenarios put them).
 */
import dgram from 'node:dgram';
import { normalizeLinkParams } from '../../lib/network/link-model.js';
import { probeClockMs } from '../calibration.js';

const UNCONSTRAINED = normalizeLinkParams({}, 'relay probe path');
export const PROBE_SENDER = 'p0';
export const PROBE_RECEIVER = 'p1';
export const PROBE_LINK = `${PROBE_SENDER}.up`;

/** @param {string} host @returns {Promise<dgram.Socket>} */
async function loopbackSocket(host) {
  const socket = dgram.createSocket('udp4');
  await new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.bind({ address: host, port: 0 }, () => resolve(undefined));
  });
  return socket;
}

/**
 * @param {Pick<import('./client.js').RelayProcess, 'configure' | 'register'> | import('./relay.js').UdpRelay} relay
 *   a started relay, in-process or child; the path neither starts nor closes it
 * @param {{host?: string}} [options]
 * @returns {Promise<import('../calibration.js').ProbePath & {senderPort: number, receiverProxyPort: number}>}
 */
export async function createRelayProbePath(relay, { host = '127.0.0.1' } = {}) {
  const sender = await loopbackSocket(host);
  const receiver = await loopbackSocket(host);
  const close = () => Promise.all([sender, receiver].map((socket) => new Promise((resolve) => socket.close(() => resolve(undefined)))))
    .then(() => undefined);
  try {
    const senderPort = sender.address().port;
    await relay.register({ peer: PROBE_SENDER, remotePeer: PROBE_RECEIVER, address: host, port: senderPort });
    // The sender addresses the socket that represents the receiver towards it.
    const receiverProxyPort = await relay.register({
      peer: PROBE_RECEIVER, remotePeer: PROBE_SENDER, address: host, port: receiver.address().port,
    });
    await relay.configure({
      links: { [PROBE_LINK]: UNCONSTRAINED, [`${PROBE_RECEIVER}.down`]: UNCONSTRAINED },
      routes: { [`${PROBE_SENDER}->${PROBE_RECEIVER}`]: [PROBE_LINK, `${PROBE_RECEIVER}.down`] },
    });
    /** @type {(payload: Buffer, recvMs: number) => void} */
    let handler = () => {};
    receiver.on('message', (payload) => handler(payload, probeClockMs()));
    return {
      senderPort,
      receiverProxyPort,
      configure: async (params, trace) => {
        await relay.configure({ links: { [PROBE_LINK]: params }, ...trace });
      },
      send: (payload) => sender.send(payload, receiverProxyPort, host),
      onReceive: (next) => { handler = next; },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
