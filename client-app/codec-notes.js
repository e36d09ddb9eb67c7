// The `codec` events the orchestrator checks against the requested codec: each video direction's codec with a remote,
// and whether it negotiated transport-wide feedback, reported when first seen and whenever it changes.
import { negotiatedTransportCc } from './bandwidth-estimation.js';
import { negotiatedCodecs } from './codec.js';

/** @param {(type: string, data?: object) => void} report  a page event to the orchestrator */
export function createCodecNotes(report) {
  /** @type {Map<string, string>} `<remote> <direction>` → the last reported codec, as JSON */
  const last = new Map();
  /** @type {WeakMap<RTCPeerConnection, { sdp: string, send: boolean|null, recv: boolean|null }>} what each negotiation gave */
  const feedback = new WeakMap();
  /**
   * Whether each video direction negotiated transport-wide feedback, read once per negotiation (its remote description).
   * @param {RTCPeerConnection} [pc]
   */
  const transportWideCcOf = (pc) => {
    const sdp = pc?.currentRemoteDescription?.sdp ?? '';
    const known = pc && feedback.get(pc);
    if (!pc || known?.sdp === sdp) return known ?? { send: null, recv: null };
    const video = pc.getTransceivers().find((transceiver) => transceiver.receiver.track.kind === 'video');
    const read = { sdp, send: negotiatedTransportCc(video?.sender), recv: negotiatedTransportCc(video?.receiver) };
    feedback.set(pc, read);
    return read;
  };
  /**
   * any: getStats entries, whose fields depend on their type and the browser
   * @param {string} remote @param {Array<Record<string, any>>} stats @param {RTCPeerConnection} [pc]  absent: a LiveKit leg
   */
  const note = (remote, stats, pc) => {
    const transportWideCc = transportWideCcOf(pc);
    for (const [direction, codec] of Object.entries(negotiatedCodecs(stats))) {
      if (!codec) continue;
      const noted = { ...codec, transportWideCc: transportWideCc[/** @type {'send'|'recv'} */ (direction)] };
      const json = JSON.stringify(noted);
      if (last.get(`${remote} ${direction}`) === json) continue;
      last.set(`${remote} ${direction}`, json);
      report('codec', { remote, direction, ...noted });
    }
  };
  return {
    note,
    /**
     * Until sampling starts (its ticks take over), reads a connected remote's codecs four times a second.
     * @param {string} remote @param {RTCPeerConnection} pc @param {() => boolean} sampling
     */
    watch(remote, pc, sampling) {
      const timer = setInterval(async () => {
        if (sampling() || pc.connectionState === 'closed') clearInterval(timer);
        else note(remote, [...(await pc.getStats()).values()], pc);
      }, 250);
    },
    /** A hung-up remote: a new call with it reports its codecs afresh. @param {string} remote */
    forget(remote) {
      for (const key of [...last.keys()]) if (key.startsWith(`${remote} `)) last.delete(key);
    },
  };
}
