// How a run proves itself to a node relay's control port (no I/O). The port speaks plain HTTP, so no secret crosses
// it and nothing captured there can be used again:
//  - the orchestrator asks the node for a nonce: its issue time, random bytes and the node's MAC over both (stateless:
//    a flood of nonce requests holds nothing), valid for NONCE_TTL_MS and for one open only;
//  - `open` carries an HMAC with the Grid's registration secret over the node's label, the method, that nonce (so the
//    node's clock, when it was issued) and the body's SHA-256;
//  - both sides then derive the run key from the registration secret, the node's label and the nonce: one key per node
//    and per run, never sent. Every later request carries an HMAC with it over the same fields and a sequence number
//    that the node accepts once (within a window, as requests may overtake one another).
// Every request is authenticated by its header alone, before its body is read.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** The request header that carries `<counter> <body SHA-256, hex> <HMAC, hex>`; counter: the nonce for open, else the sequence number. */
export const AUTH_HEADER = 'x-wtb-auth';
/** A nonce opens the node relay this long after it was issued, and once. */
export const NONCE_TTL_MS = 10_000;
/** Sequence numbers older than the newest by this many are refused; each newer one is accepted once. */
export const REPLAY_WINDOW = 256;
const NONCE_PATTERN = /^(\d{1,16})\.([0-9a-f]{32})\.([0-9a-f]{64})$/;
const AUTH_PATTERN = /^(\S{1,200}) ([0-9a-f]{64}) ([0-9a-f]{64})$/;
const SEQUENCE_PATTERN = /^[1-9]\d{0,14}$/;

/** @param {string|Uint8Array} data */
export const sha256Hex = (data) => createHash('sha256').update(data).digest('hex');

/** @param {string} key @param {string} text */
const hmacHex = (key, text) => createHmac('sha256', key).update(text).digest('hex');

/**
 * Whether a MAC from the network is the expected one, in time independent of where they differ: their digests are
 * compared, so a given value of any length or encoding is simply wrong (as signaling/admission.js compares secrets).
 * @param {unknown} given @param {string} expected
 */
export const macMatches = (given, expected) => typeof given === 'string'
  && timingSafeEqual(createHash('sha256').update(given).digest(), createHash('sha256').update(expected).digest());

/** A nonce the node issues now. @param {Buffer} nodeKey  the node's own random key @param {number} [nowMs] */
export function issueNonce(nodeKey, nowMs = Date.now()) {
  const issued = `${Math.floor(nowMs)}.${randomBytes(16).toString('hex')}`;
  return `${issued}.${createHmac('sha256', nodeKey).update(issued).digest('hex')}`;
}

/**
 * Whether a nonce is one this node issued less than NONCE_TTL_MS ago (single use is the caller's: `used`).
 * @param {Buffer} nodeKey @param {string} nonce @param {number} [nowMs]
 */
export function nonceIsFresh(nodeKey, nonce, nowMs = Date.now()) {
  const match = NONCE_PATTERN.exec(nonce);
  if (!match) return false;
  const ageMs = nowMs - Number(match[1]);
  return ageMs >= 0 && ageMs < NONCE_TTL_MS
    && macMatches(match[3], createHmac('sha256', nodeKey).update(`${match[1]}.${match[2]}`).digest('hex'));
}

/**
 * The run key of one node and one run: both ends derive it, neither sends it.
 * @param {string} registrationSecret @param {string} label  the node's (grid-node --label) @param {string} nonce
 */
export const runKey = (registrationSecret, label, nonce) => hmacHex(registrationSecret, `wtb-node-relay-run\n${label}\n${nonce}`);

/**
 * The MAC of one request: bound to the node, the method, the counter (nonce or sequence number) and the body.
 * @param {string} key @param {{ label: string, method: string, counter: string, bodySha256: string }} request
 */
const requestMac = (key, { label, method, counter, bodySha256 }) => hmacHex(key, `wtb-node-relay\n${label}\n${method}\n${counter}\n${bodySha256}`);

/**
 * The header value a request carries (the orchestrator's side).
 * @param {string} key  the registration secret for open, else the run key
 * @param {{ label: string, method: string, counter: string, body: string }} request
 */
export function authHeader(key, { label, method, counter, body }) {
  const bodySha256 = sha256Hex(body);
  return `${counter} ${bodySha256} ${requestMac(key, { label, method, counter, bodySha256 })}`;
}

/**
 * A request's header checked against a key (the node's side): null when it is not that key's, else the counter and
 * the body's SHA-256 the body must then have.
 * @param {unknown} header @param {string} key @param {{ label: string, method: string }} request
 * @returns {{ counter: string, bodySha256: string }|null}
 */
export function checkAuth(header, key, { label, method }) {
  const match = typeof header === 'string' ? AUTH_PATTERN.exec(header) : null;
  if (!match) return null;
  const [, counter, bodySha256, mac] = match;
  return macMatches(mac, requestMac(key, { label, method, counter, bodySha256 })) ? { counter, bodySha256 } : null;
}

/**
 * The sequence numbers of one run: each accepted once, none older than the newest by REPLAY_WINDOW or more.
 * @returns {(counter: string) => boolean}  true: accepted now, never again
 */
export function sequenceGuard() {
  let newest = 0;
  /** @type {Set<number>} */
  const seen = new Set();
  return (counter) => {
    const sequence = SEQUENCE_PATTERN.test(counter) ? Number(counter) : 0;
    if (sequence <= newest - REPLAY_WINDOW || sequence === 0 || seen.has(sequence)) return false;
    seen.add(sequence);
    if (sequence > newest) {
      newest = sequence;
      for (const old of seen) if (old <= newest - REPLAY_WINDOW) seen.delete(old);
    }
    return true;
  };
}
