// Per-run, per-peer secrets: what admits a page to the run's signaling room (signaling/admission.js). Each page gets
// its own in the fragment of the URL it opens, which no HTTP request carries, so no request line or server log sees
// it; the page sends it in its join. Never written into result.json, logs, commands or error messages.
import { randomBytes } from 'node:crypto';

/** 256 random bits per peer (at least 128 are needed). */
export const PEER_SECRET_BYTES = 32;

/**
 * One fresh secret per peer, base64url.
 * @param {string[]} peers @param {(size: number) => Buffer} [random] crypto.randomBytes unless a test counts calls
 * @returns {Map<string, string>} peer → secret
 */
export function createPeerSecrets(peers, random = randomBytes) {
  return new Map(peers.map((peer) => [peer, random(PEER_SECRET_BYTES).toString('base64url')]));
}

/**
 * A peer's page URL: its parameters in the query, its secret in the fragment, and there too, after a `~` (in neither
 * alphabet), the access token of an SFU the page signals to itself (LiveKit), and after another the run's TURN
 * credential (`<username>.<password>`, run/turn-server.js).
 * @param {string} baseUrl the signaling server's httpUrl @param {Record<string, string>} params @param {string} secret
 * @param {string} [sfuToken] @param {string} [turnCredential]
 */
export const pageUrl = (baseUrl, params, secret, sfuToken, turnCredential) => `${baseUrl}?${new URLSearchParams(params)}#${secret}`
  + `${sfuToken || turnCredential ? `~${sfuToken ?? ''}` : ''}${turnCredential ? `~${turnCredential}` : ''}`;

/**
 * Text with a URL's fragment (a page's secret) cut out wherever it appears: what a browser says about the page it
 * opened (a navigation error quotes the whole URL) can be recorded then.
 * @param {string} text @param {string} url
 */
export function withoutFragment(text, url) {
  const fragment = new URL(url).hash.slice(1);
  return fragment ? text.replaceAll(fragment, '…') : text;
}
