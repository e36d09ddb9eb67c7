/**
 * Janus puts its ICE candidates in its SDP (no trickle from its side over HTTP). On their way to a page each one is
 * rewritten by the emulator, like a page's trickled candidate, or dropped, so media cannot bypass the emulated links.
 * Pure apart from the rewrite it is given.
 */

/**
 * @typedef {{candidate: string, sdpMid?: string|null, sdpMLineIndex?: number|null}} CandidateInit
 * @callback RewriteCandidate  the emulator's rewriteCandidate, bound to one direction: the new candidate or null (drop)
 * @param {CandidateInit} candidate
 * @returns {Promise<CandidateInit|null>}
 */

/**
 * Rewrites every `a=candidate:` line of an SDP through `rewrite`, dropping those it refuses. Lines end in CRLF
 * (RFC 8866), but a lone LF is kept as it came.
 * @param {string} sdp
 * @param {RewriteCandidate} rewrite
 * @returns {Promise<{sdp: string, kept: number, dropped: number}>}
 */
export async function rewriteSdpCandidates(sdp, rewrite) {
  const eol = sdp.includes('\r\n') ? '\r\n' : '\n';
  const lines = sdp.split(eol);
  let kept = 0;
  let dropped = 0;
  const out = [];
  for (const line of lines) {
    if (!line.startsWith('a=candidate:')) {
      out.push(line);
      continue;
    }
    const rewritten = await rewrite({ candidate: line.slice('a='.length) });
    if (rewritten) {
      out.push(`a=${rewritten.candidate}`);
      kept += 1;
    } else {
      dropped += 1;
    }
  }
  return { sdp: out.join(eol), kept, dropped };
}
