/**
 * iperf3's JSON output (`iperf3 -c … -J --get-server-output`, version 3.x) turned into per-second flow rows on the
 * media clock. Pure: no I/O.
 *
 * iperf3 reports intervals (about 1 s each) relative to its own test start. The caller gives each test's anchor: the
 * media-clock second at which the receiver's interval 0 began. Each interval's bytes are spread evenly over the
 * interval and summed per media second, so the row of second t holds what arrived in (t-1, t] (the getStats clock).
 */
import { InputError, errorMessage } from '../system/errors.js';

/**
 * @typedef {object} Iperf3Interval
 * @property {number} startS  seconds since the test start (that side's clock)
 * @property {number} endS
 * @property {number} bytes
 * @property {number|null} rttMs  the sender's smoothed RTT at the end of the interval (TCP_INFO), null when not given
 */

/**
 * @typedef {object} Iperf3Test
 * @property {'tcp'|'udp'} protocol
 * @property {Iperf3Interval[]} receiver  the receiving side's intervals (the server's, from --get-server-output);
 *   the sender's when the server's output is missing
 * @property {'server'|'sender'} receiverSource  where `receiver` came from
 * @property {Iperf3Interval[]} sender
 * @property {{bytesSent: number, bytesReceived: number|null, meanRttMs: number|null, minRttMs: number|null,
 *   maxRttMs: number|null, retransmits: number|null, lostPercent: number|null, congestionControl: string|null}} totals
 */

/**
 * @typedef {object} FlowRow
 * @property {number} t  media second; the row covers (t-1, t]
 * @property {string} flow
 * @property {number} rateKbps  receiver goodput in that second
 * @property {'iperf3'} source
 * @property {number} [rttMs]  the sender's smoothed RTT, overlap-weighted over the second (TCP only)
 */

/** @param {number} value @param {number} digits */
const round = (value, digits) => Number(value.toFixed(digits));

/**
 * @param {unknown} raw  one `intervals` array of iperf3's JSON
 * @param {string} where  for error messages
 * @returns {Iperf3Interval[]}
 */
function parseIntervals(raw, where) {
  if (!Array.isArray(raw)) throw new InputError(`${where}: "intervals" is not an array; is this iperf3 -J output?`);
  return raw.map((interval, index) => {
    const sum = interval?.sum;
    const { start, end, bytes } = sum ?? {};
    if (![start, end, bytes].every(Number.isFinite) || end < start || bytes < 0) {
      throw new InputError(`${where}: intervals[${index}].sum needs numeric start <= end and bytes >= 0, got ${JSON.stringify(sum)}`);
    }
    /** @type {Array<{ rtt?: unknown }|null>} */
    const streams = Array.isArray(interval.streams) ? interval.streams : [];
    const rtts = streams.map((stream) => stream?.rtt)
      .filter(/** @returns {rtt is number} */ (rtt) => Number.isFinite(rtt));
    return { startS: start, endS: end, bytes, rttMs: rtts.length ? rtts.reduce((a, b) => a + b, 0) / rtts.length / 1000 : null };
  });
}

/**
 * Parses a client's JSON document. An iperf3 that failed reports `error`; that becomes an Error carrying its message.
 * @param {string} text  the client's stdout
 * @param {string} [where]  names the output in error messages (e.g. the file)
 * @returns {Iperf3Test}
 */
export function parseIperf3Client(text, where = 'iperf3 output') {
  let json;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new InputError(`${where}: not JSON (${errorMessage(error)}); iperf3 must run with -J.${text.trim() ? ` It printed: ${text.trim().slice(0, 300)}` : ' It printed nothing.'}`);
  }
  if (typeof json?.error === 'string') throw new InputError(`${where}: iperf3 reported: ${json.error}`);
  const protocol = json?.start?.test_start?.protocol;
  if (protocol !== 'TCP' && protocol !== 'UDP') {
    throw new InputError(`${where}: start.test_start.protocol is ${JSON.stringify(protocol)}, expected "TCP" or "UDP"`);
  }
  const sender = parseIntervals(json.intervals, where);
  const server = json.server_output_json;
  const receiver = server && Array.isArray(server.intervals) ? parseIntervals(server.intervals, `${where} (server_output_json)`) : null;
  const end = json.end ?? {};
  const senderStream = end.streams?.[0]?.sender;
  const received = end.sum_received?.bytes ?? server?.end?.sum_received?.bytes;
  const lostPercent = server?.end?.sum_received?.lost_percent ?? end.sum?.lost_percent;
  return {
    protocol: protocol === 'TCP' ? 'tcp' : 'udp',
    receiver: receiver ?? sender,
    receiverSource: receiver ? 'server' : 'sender',
    sender,
    totals: {
      bytesSent: end.sum_sent?.bytes ?? sender.reduce((total, { bytes }) => total + bytes, 0),
      bytesReceived: Number.isFinite(received) ? received : null,
      meanRttMs: Number.isFinite(senderStream?.mean_rtt) ? round(senderStream.mean_rtt / 1000, 3) : null,
      minRttMs: Number.isFinite(senderStream?.min_rtt) ? round(senderStream.min_rtt / 1000, 3) : null,
      maxRttMs: Number.isFinite(senderStream?.max_rtt) ? round(senderStream.max_rtt / 1000, 3) : null,
      retransmits: Number.isFinite(end.sum_sent?.retransmits) ? end.sum_sent.retransmits : null,
      lostPercent: protocol === 'UDP' && Number.isFinite(lostPercent) ? lostPercent : null,
      congestionControl: end.sender_tcp_congestion ?? null,
    },
  };
}

/** Seconds of [fromS, toS] inside the media second (t-1, t]. @param {number} fromS @param {number} toS @param {number} t */
const overlapS = (fromS, toS, t) => Math.max(0, Math.min(toS, t) - Math.max(fromS, t - 1));

/**
 * Per-second rows of one flow from its tests (one for a long flow, one per burst of a short-TCP flow). Every second
 * from the one holding windowS[0] to the one holding the end of the window or of the last interval gets a row,
 * 0 kbps where nothing arrived (between bursts); rates of overlapping tests add up.
 * @param {{flow: string, windowS: [number, number], tests: {anchorS: number, test: Iperf3Test}[]}} input
 *   windowS: the flow's configured [startS, stopS] on the media clock
 * @returns {FlowRow[]}
 */
export function flowRows({ flow, windowS, tests }) {
  const placed = tests.map(({ anchorS, test }) => ({
    receiver: test.receiver.map((interval) => ({ ...interval, fromS: anchorS + interval.startS, toS: anchorS + interval.endS })),
    sender: test.sender.map((interval) => ({ ...interval, fromS: anchorS + interval.startS, toS: anchorS + interval.endS })),
  }));
  const lastS = Math.max(windowS[1], ...placed.flatMap(({ receiver }) => receiver.map(({ toS }) => toS)));
  /** @type {FlowRow[]} */
  const rows = [];
  for (let t = Math.floor(windowS[0]) + 1; t < lastS + 1; t++) {
    let bits = 0;
    let rttWeighted = 0;
    let rttWeight = 0;
    for (const { receiver, sender } of placed) {
      for (const { fromS, toS, bytes } of receiver) {
        const share = overlapS(fromS, toS, t);
        if (share > 0) bits += (bytes * 8 * share) / (toS - fromS);
      }
      for (const { fromS, toS, rttMs } of sender) {
        const share = overlapS(fromS, toS, t);
        if (share > 0 && rttMs !== null) {
          rttWeighted += rttMs * share;
          rttWeight += share;
        }
      }
    }
    rows.push({
      t, flow, rateKbps: round(bits / 1000, 3), source: 'iperf3', ...(rttWeight > 0 ? { rttMs: round(rttWeighted / rttWeight, 3) } : {}),
    });
  }
  return rows;
}
