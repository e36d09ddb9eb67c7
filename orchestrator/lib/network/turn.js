// A TURN server between the peers (pure): the scenario's `turn` field, coturn's configuration for one run, and the
// URL a page puts in its iceServers. The server itself runs in orchestrator/run/turn-server.js.
import { InputError } from '../system/errors.js';
import { describeValue, expectObject, isOneOf } from '../input/validate.js';

/** How a page reaches the TURN server: TURN over UDP, over TCP, or over TLS on TCP (RFC 8656 §3.1). */
export const TURN_TRANSPORTS = /** @type {const} */ (['udp', 'tcp', 'tls']);

/** @typedef {{ transport: typeof TURN_TRANSPORTS[number] }} TurnRequest  a scenario's `turn` field, validated */

/**
 * The scenario's `turn` field: every connection of the call relayed by the run's TURN server over `transport`
 * (the pages' iceTransportPolicy is `relay`). A mesh call's only: an SFU is itself the server the pages reach.
 * @param {unknown} value @param {{ file: string, topology: string }} where
 * @returns {TurnRequest|null}
 */
export function validateTurn(value, { file, topology }) {
  if (value === undefined || value === null) return null;
  const turn = expectObject(value, `${file}: turn`, ['transport']);
  if (!isOneOf(TURN_TRANSPORTS, turn.transport)) {
    throw new InputError(`${file}: turn.transport: ${describeValue(turn.transport)} is not a TURN transport: use one of ${TURN_TRANSPORTS.join(', ')}`);
  }
  if (topology !== 'mesh') throw new InputError(`${file}: turn: a TURN server needs topology mesh (this scenario has topology ${topology}); remove turn or the topology`);
  return { transport: turn.transport };
}

/**
 * @typedef {object} TurnListeners
 * @property {string} address  where it listens and relays (the address every peer's packets reach it on)
 * @property {number} port     TURN over UDP and TCP
 * @property {number} tlsPort  TURN over TLS
 * @property {number} minRelayPort  its relayed transport addresses' range
 * @property {number} maxRelayPort
 */

/**
 * coturn's configuration: one address, its listeners, long-term credentials of one user, the run's certificate.
 * No CLI, no database outside the run, no stray relays (multicast, loopback).
 * @param {TurnListeners & { username: string, password: string, realm: string, certFile: string, keyFile: string,
 *   pidFile: string, dbFile: string }} options
 * @returns {string}
 */
export function coturnConfig({
  address, port, tlsPort, minRelayPort, maxRelayPort, username, password, realm, certFile, keyFile, pidFile, dbFile,
}) {
  return [
    `listening-ip=${address}`, `relay-ip=${address}`, `listening-port=${port}`, `tls-listening-port=${tlsPort}`,
    `min-port=${minRelayPort}`, `max-port=${maxRelayPort}`, 'fingerprint', 'lt-cred-mech', `user=${username}:${password}`,
    `realm=${realm}`, `cert=${certFile}`, `pkey=${keyFile}`, `pidfile=${pidFile}`, `userdb=${dbFile}`, 'no-cli', 'no-dtls',
    'no-multicast-peers', 'no-software-attribute', 'log-file=stdout', 'simple-log', 'verbose', '',
  ].join('\n');
}

/**
 * The URL a page gives RTCPeerConnection for this transport (RFC 7065): TLS is `turns:` on the TLS port.
 * @param {TurnRequest['transport']} transport @param {Pick<TurnListeners, 'address'|'port'|'tlsPort'>} listeners
 */
export function turnUrl(transport, { address, port, tlsPort }) {
  return transport === 'tls' ? `turns:${address}:${tlsPort}?transport=tcp` : `turn:${address}:${port}?transport=${transport}`;
}
