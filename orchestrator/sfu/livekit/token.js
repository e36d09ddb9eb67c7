// LiveKit's access tokens: HS256 JWTs signed with the server's API secret (LiveKit's auth: `iss` the API key, `sub`
// the participant's identity, `video` its grants). Minted per peer per run; the secret never leaves the orchestrator.
import { createHmac } from 'node:crypto';

/** Long enough for the longest run's join and reconnects, short enough that a leaked token soon means nothing. */
export const TOKEN_TTL_S = 6 * 3600;

/**
 * @typedef {object} VideoGrant  the grants LiveKit reads (protocol's VideoGrant, camelCase in the JWT)
 * @property {string} [room]
 * @property {boolean} [roomJoin]
 * @property {boolean} [roomCreate]
 * @property {boolean} [roomList]
 * @property {boolean} [roomAdmin]
 * @property {boolean} [canPublish]
 * @property {boolean} [canSubscribe]
 * @property {boolean} [canPublishData]
 */

/** @param {string|Buffer} data */
const base64url = (data) => Buffer.from(data).toString('base64url');

/**
 * A signed token.
 * @param {{ apiKey: string, apiSecret: string, identity?: string, grant: VideoGrant, nowS: number, ttlS?: number }} options
 * @returns {string}
 */
export function accessToken({ apiKey, apiSecret, identity, grant, nowS, ttlS = TOKEN_TTL_S }) {
  const header = base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
  const claims = {
    iss: apiKey, nbf: Math.floor(nowS) - 10, exp: Math.floor(nowS) + ttlS,
    ...(identity ? { sub: identity, name: identity } : {}), video: grant,
  };
  const payload = base64url(JSON.stringify(claims));
  const signature = createHmac('sha256', apiSecret).update(`${header}.${payload}`).digest('base64url');
  return `${header}.${payload}.${signature}`;
}
