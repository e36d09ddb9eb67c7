// What a page changes in a remote description before it applies it (pure; the page and the unit tests import it).
import { withoutTransportCc } from './bandwidth-estimation.js';
import { withVideoBitrates } from './media-source.js';

/**
 * The remote description as this run negotiates: with the RFC 8867 source its video codecs carry the start, minimum
 * and maximum rate (Chromium's sender reads them from the remote description); with receive-side estimation (REMB) it
 * offers no transport-wide feedback. A description without SDP (a rollback) is left as it is.
 * @param {RTCSessionDescriptionInit} description @param {{ rfc8867Source: boolean, rembOnly: boolean }} options
 * @returns {RTCSessionDescriptionInit}
 */
export function negotiatedDescription(description, { rfc8867Source, rembOnly }) {
  const { type, sdp } = description;
  if (sdp === undefined || (!rfc8867Source && !rembOnly)) return description;
  const bitrates = rfc8867Source ? withVideoBitrates(sdp) : sdp;
  return { type, sdp: rembOnly ? withoutTransportCc(bitrates) : bitrates };
}
