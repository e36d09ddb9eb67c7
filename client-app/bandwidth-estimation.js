// Which feedback the congestion controller runs on (pure; the page and the unit tests import it). `send-side`, the
// browsers' default: transport-wide congestion control, each packet's arrival reported back and the sender's GCC
// estimating from delay and loss. `remb`: receive-side estimation, the receiver's own estimate sent back in REMB
// messages (J16's 2016 Chrome), negotiated by leaving transport-cc out of every remote description: both ends then
// fall back to the abs-send-time extension and REMB, which Chromium still offers.

/** The header extension that carries transport-wide sequence numbers (draft-holmer-rmcat-transport-wide-cc-extensions-01). */
export const TRANSPORT_CC_EXTENSION = 'http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01';

/**
 * The SDP without transport-wide feedback: no `transport-cc` rtcp-fb line and no transport-wide sequence number
 * extension, so the answer (or the sender reading this answer) negotiates REMB instead.
 * @param {string} sdp
 */
export function withoutTransportCc(sdp) {
  const eol = sdp.includes('\r\n') ? '\r\n' : '\n';
  return sdp.split(eol)
    .filter((line) => !/^a=rtcp-fb:\S+ transport-cc\s*$/.test(line) && !(line.startsWith('a=extmap:') && line.includes(TRANSPORT_CC_EXTENSION)))
    .join(eol);
}

/**
 * Whether a video direction negotiated transport-wide feedback, from its sender's or receiver's parameters; null where
 * the browser does not list negotiated header extensions.
 * @param {{ getParameters(): { headerExtensions?: Array<{ uri: string }> } } | undefined} endpoint
 * @returns {boolean|null}
 */
export function negotiatedTransportCc(endpoint) {
  const extensions = endpoint?.getParameters().headerExtensions;
  return Array.isArray(extensions) ? extensions.some((extension) => extension.uri === TRANSPORT_CC_EXTENSION) : null;
}
