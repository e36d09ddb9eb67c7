// A page's bulk data flows (the orchestrator's data-start/data-stop commands): ordered, reliable channels sending as
// fast as SCTP takes them, the bytes each side counts, and the buffer mark that follows the rate SCTP took.

// Bulk transfer: 16 KiB messages (well under every browser's SCTP message limit), refilled whenever the channel's
// buffer drains below its low-water mark, up to twice it. The mark follows a quarter second of the rate SCTP took
// in the last interval: enough that SCTP never waits for the page, little enough that a stop takes effect at once.
const DATA_MESSAGE = new Uint8Array(16 * 1024);
const MIN_LOW_WATER_BYTES = 64 * 1024;
const MAX_LOW_WATER_BYTES = 4 * 1024 * 1024;
const DATA_OPEN_TIMEOUT_MS = 10_000;

/** @typedef {{ channel: RTCDataChannel, handedBytes: number, stopped: boolean, fill: () => void }} SendingChannel */
/**
 * A remote's flows: the channels this page sends on (with the bytes it handed to each) and the bytes it received.
 * @typedef {{ sending: SendingChannel[], receiving: RTCDataChannel[], receivedBytes: number }} RemoteFlows
 */

/**
 * @param {object} page
 * @param {(type: string, data?: object) => void} page.report  an event to the orchestrator
 * @param {(message: string) => void} page.reportError
 * @param {() => boolean} page.isStopping  the call is ending: errors of channels torn down with it are expected
 * @param {(remote: string, pc: RTCPeerConnection) => Promise<void>} page.renegotiate  sends a new offer
 */
export function createDataFlows({ report, reportError, isStopping, renegotiate }) {
  /** @type {Map<string, RemoteFlows>} a remote's entry lives from its first channel until the sample after its last closed */
  const flows = new Map();
  /** @param {string} remote */
  const flowWith = (remote) => {
    let flow = flows.get(remote);
    if (!flow) flows.set(remote, flow = { sending: [], receiving: [], receivedBytes: 0 });
    return flow;
  };
  /** Reports a channel's opening and closing, and an error while the call runs. @param {string} remote @param {RTCDataChannel} channel */
  const watchChannel = (remote, channel) => {
    const state = () => report('data-channel', { remote, flow: channel.label, state: channel.readyState });
    channel.addEventListener('open', state);
    channel.addEventListener('close', state);
    channel.addEventListener('error', (event) => {
      if (!isStopping()) reportError(`data channel ${channel.label} with ${remote}: ${/** @type {RTCErrorEvent} */ (event).error?.message ?? 'error'}`);
    });
  };
  return {
    /**
     * An ordered, reliable channel to a connected remote, sending as fast as SCTP takes it until stop.
     * @param {string} remote @param {string} flowName @param {RTCPeerConnection} pc  the connection to it
     */
    async start(remote, flowName, pc) {
      const channel = pc.createDataChannel(flowName, { ordered: true });
      const fill = () => {
        while (!sending.stopped && channel.readyState === 'open' && channel.bufferedAmount < 2 * channel.bufferedAmountLowThreshold) {
          channel.send(DATA_MESSAGE);
          sending.handedBytes += DATA_MESSAGE.byteLength;
        }
      };
      /** @type {SendingChannel} */
      const sending = { channel, handedBytes: 0, stopped: false, fill };
      flowWith(remote).sending.push(sending);
      watchChannel(remote, channel);
      channel.bufferedAmountLowThreshold = MIN_LOW_WATER_BYTES;
      channel.addEventListener('open', fill);
      channel.addEventListener('bufferedamountlow', fill);
      setTimeout(() => {
        if (channel.readyState === 'connecting' && !isStopping()) reportError(`data channel ${flowName} to ${remote} did not open within ${DATA_OPEN_TIMEOUT_MS / 1000} s`);
      }, DATA_OPEN_TIMEOUT_MS);
      // The connection's first channel adds SCTP to the session: renegotiated here, answered as any offer.
      if (pc.sctp === null) await renegotiate(remote, pc);
    },
    /** Closes this page's channels of the flow. @param {string} remote @param {string} flowName */
    stop(remote, flowName) {
      for (const sending of flows.get(remote)?.sending ?? []) {
        if (sending.channel.label !== flowName) continue;
        sending.stopped = true;
        sending.channel.close();
      }
    },
    /** A channel the remote opened: its bytes are counted. @param {string} remote @param {RTCDataChannel} channel */
    receive(remote, channel) {
      const flow = flowWith(remote);
      flow.receiving.push(channel);
      channel.binaryType = 'arraybuffer';
      channel.addEventListener('message', ({ data }) => { flow.receivedBytes += data.byteLength; });
      watchChannel(remote, channel);
    },
    /**
     * Every data flow's cumulative counters now; a flow whose channels have all closed is read a last time and dropped.
     * @returns {Map<string, import('./stats.js').DataCounters>}
     */
    readCounters() {
      const counters = new Map();
      for (const [remote, flow] of flows) {
        // bufferedAmount is not reset when a channel closes: what never left stays out of the count.
        const sentBytes = flow.sending.reduce((sum, { channel, handedBytes }) => sum + handedBytes - channel.bufferedAmount, 0);
        const receivedBytes = flow.receiving.length ? flow.receivedBytes : null;
        counters.set(remote, { sentBytes: flow.sending.length ? sentBytes : null, receivedBytes });
        const channels = [...flow.sending.map(({ channel }) => channel), ...flow.receiving];
        if (channels.every((channel) => channel.readyState === 'closed')) flows.delete(remote);
      }
      return counters;
    },
    /** @param {string} remote @param {number|null|undefined} sentKbps over the last interval */
    followRate(remote, sentKbps) {
      const lowWaterBytes = Math.min(MAX_LOW_WATER_BYTES, Math.max(MIN_LOW_WATER_BYTES, ((sentKbps ?? 0) * 1000) / 8 / 4));
      for (const { channel, fill } of flows.get(remote)?.sending ?? []) {
        channel.bufferedAmountLowThreshold = lowWaterBytes;
        // 'bufferedamountlow' fires only when the buffer falls through the mark: one raised above the buffer would never
        // fire, and the flow would stall for good (seen as data channels stopping 4-8 s into 5 and 10 Mbps runs).
        if (channel.bufferedAmount <= lowWaterBytes) fill();
      }
    },
  };
}
