// The `codec` events the orchestrator checks against the requested codec: each video direction's codec with a remote,
// and whether it negotiated transport-wide feedback, reported when first seen and whenever it changes.
import { negotiatedTransportCc } from './bandwidth-estimation.js';
import { negotiatedCodecs } from './codec.js';

/** @param {(type: string, data?: object) => void} report  a page event to the orchestrator */
export function createCodecNotes(report) {
  /** @type {Map<string, string>} `<remote> <direction>` → the last reported codec, as JSON */
  const last = new Map();
  /**
   * any: getStats entries, whose fields depend on their type and the browser
   * @param {string} remote @param {Array<Record<string, any>>} stats @param {RTCPeerConnection} [pc]  absent: a LiveKit leg
   */
  const note = (remote, stats, pc) => {
    const video = pc?.getTransceivers().find((transceiver) => transceiver.receiver.track.kind === 'video');
    const transportWideCc = { send: negotiatedTransportCc(video?.sender), recv: negotiatedTransportCc(video?.receiver) };
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
