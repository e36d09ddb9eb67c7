// RFC 8867 §4.3's media source for the RMCAT cases (pure; the page and the unit tests import it): adaptive video
// between 150 kbps and 1.5 Mbps that starts at 150 kbps. The ceiling is standard (RTCRtpSender maxBitrate); the floor
// and the start rate only through Chromium's own SDP parameters on the video codecs' fmtp lines, which its sender reads
// from the remote description.

export const RFC8867_VIDEO = Object.freeze({ minKbps: 150, startKbps: 150, maxKbps: 1500 });

/** Codecs that carry no picture of their own, whose fmtp lines stay as they are. */
const NOT_MEDIA = /^(rtx|red|ulpfec|flexfec-03)$/i;

/**
 * The SDP with x-google-min-bitrate, -start-bitrate and -max-bitrate on every video codec (an fmtp line added
 * where a codec has none, the parameters replaced where it has them).
 * @param {string} sdp
 * @param {{ minKbps: number, startKbps: number, maxKbps: number }} [limits]
 */
export function withVideoBitrates(sdp, { minKbps, startKbps, maxKbps } = RFC8867_VIDEO) {
  const eol = sdp.includes('\r\n') ? '\r\n' : '\n';
  const params = `x-google-min-bitrate=${minKbps};x-google-start-bitrate=${startKbps};x-google-max-bitrate=${maxKbps}`;
  const lines = sdp.split(eol);
  const out = [];
  let inVideo = false;
  /** @type {Set<string>} */
  const withFmtp = new Set(lines.filter((l) => l.startsWith('a=fmtp:')).map((l) => l.slice(7).split(' ')[0]));
  for (const line of lines) {
    if (line.startsWith('m=')) inVideo = line.startsWith('m=video');
    const rtpmap = inVideo ? /^a=rtpmap:(\d+) ([^/]+)\//.exec(line) : null;
    const fmtp = inVideo ? /^a=fmtp:(\d+) (.*)$/.exec(line) : null;
    if (fmtp && mediaCodec(lines, fmtp[1])) {
      const kept = fmtp[2].split(';').filter((p) => p && !p.trim().startsWith('x-google-'));
      out.push(`a=fmtp:${fmtp[1]} ${[...kept, params].join(';')}`);
      continue;
    }
    out.push(line);
    if (rtpmap && !NOT_MEDIA.test(rtpmap[2]) && !withFmtp.has(rtpmap[1])) out.push(`a=fmtp:${rtpmap[1]} ${params}`);
  }
  return out.join(eol);
}

/** Whether a payload type is a picture codec (not RTX, RED or FEC). @param {string[]} lines @param {string} pt */
function mediaCodec(lines, pt) {
  const rtpmap = lines.find((l) => l.startsWith(`a=rtpmap:${pt} `));
  return rtpmap !== undefined && !NOT_MEDIA.test(rtpmap.split(' ')[1].split('/')[0]);
}
