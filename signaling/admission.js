// Who may join the signaling server, and how many may wait to: a run's room admits each of its peers once, with that
// peer's secret (orchestrator/lib/system/peer-secrets.js); without a room (tests, benches, manual experiments) any name joins
// any room. No I/O. The reasons are for the run's record only: a refused client hears nothing but "join refused".
import { createHash, timingSafeEqual } from 'node:crypto';
import { isName } from './messages.js';

/** A secret as the orchestrator makes it: base64url, at least 128 bits. */
export const SECRET_PATTERN = /^[A-Za-z0-9_-]{22,128}$/;
/** Without a room: any number may join, so these bound what one local process can hold open. */
export const OPEN_MAX_UNJOINED = 64;
export const OPEN_MAX_CONNECTIONS = 256;

/** @param {string} text */
const digest = (text) => createHash('sha256').update(text).digest();

/**
 * Whether a page's secret is the expected one, in time independent of where they differ (equal-length digests).
 * @param {string|undefined} given @param {string} expected
 */
export const secretMatches = (given, expected) => given !== undefined && timingSafeEqual(digest(given), digest(expected));

/**
 * The admission rules of one server. Throws a TypeError for options that would admit anyone (a room without secrets)
 * or a malformed secret; the message never quotes a secret.
 * @param {{ room?: string, secrets?: Map<string, string>|Record<string, string> }} options
 * @returns {{ peers: string[]|null, maxUnjoined: number, maxConnections: number,
 *   refuseJoin: (join: { room: string, peer: string, secret?: string }, alreadyJoined: boolean) => string|null }}
 *   refuseJoin: null when the join may proceed, else why not (naming what the client asked for, never a secret)
 */
export function createAdmission({ room, secrets }) {
  if (room === undefined && secrets === undefined) {
    return {
      peers: null, maxUnjoined: OPEN_MAX_UNJOINED, maxConnections: OPEN_MAX_CONNECTIONS,
      refuseJoin: (join, alreadyJoined) => (alreadyJoined ? `peer "${join.peer}" is already in room "${join.room}"` : null),
    };
  }
  if (!isName(room)) throw new TypeError(`startSignalingServer: room ${JSON.stringify(room)} is not a name of 1-64 letters, digits, '.', '_' or '-'`);
  if (secrets === undefined) throw new TypeError(`startSignalingServer: room "${room}" needs secrets (peer → secret): without them any local process could join as a peer`);
  const expected = new Map(secrets instanceof Map ? secrets : Object.entries(secrets));
  for (const [peer, secret] of expected) {
    if (!isName(peer)) throw new TypeError(`startSignalingServer: secrets: peer ${JSON.stringify(peer)} is not a name of 1-64 letters, digits, '.', '_' or '-'`);
    if (typeof secret !== 'string' || !SECRET_PATTERN.test(secret)) {
      throw new TypeError(`startSignalingServer: secrets.${peer} is not 22-128 base64url characters (orchestrator/lib/system/peer-secrets.js makes them)`);
    }
  }
  if (expected.size === 0) throw new TypeError(`startSignalingServer: room "${room}" has no peers in secrets`);
  // Compared even for an unknown peer, so the time taken does not tell which peers exist.
  const stranger = [...expected.values()][0];
  const maxUnjoined = 2 * expected.size + 8;
  return {
    peers: [...expected.keys()],
    maxUnjoined,
    maxConnections: expected.size + maxUnjoined,
    refuseJoin({ room: asked, peer, secret }, alreadyJoined) {
      const matches = secretMatches(secret, expected.get(peer) ?? stranger);
      if (asked !== room) return `room "${asked}" is not this run's`;
      if (!expected.has(peer)) return `peer "${peer}" is not expected`;
      if (!matches) return `${secret === undefined ? 'no' : 'a wrong'} secret for "${peer}"`;
      if (alreadyJoined) return `peer "${peer}" has already joined`;
      return null;
    },
  };
}
