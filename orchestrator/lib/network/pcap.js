/**
 * Classic libpcap capture files (what `tcpdump -w` writes) and the UDP/IPv4 datagrams in them, read as hostile input:
 * every length is checked against the bytes that are there and against fixed bounds before it is used. Pure: the
 * caller reads the file (lib/input/input-file.js readInputBytes) and names it; every error names it too.
 */
import { InputError } from '../system/errors.js';

/** A capture file larger than this is refused before it is read (a 10 s wire check writes about 20 MiB). */
export const MAX_PCAP_BYTES = 64 * 1024 * 1024;
export const MAX_PCAP_RECORDS = 1_000_000;
/** tcpdump's default snapshot length: no record may hold more. */
export const MAX_SNAPLEN_BYTES = 262_144;
const GLOBAL_HEADER_BYTES = 24;
const RECORD_HEADER_BYTES = 16;
export const LINKTYPE_ETHERNET = 1;
const ETHERNET_HEADER_BYTES = 14;
const ETHERTYPE_IPV4 = 0x0800;
const IP_PROTOCOL_UDP = 17;
const UDP_HEADER_BYTES = 8;
/** The magic number as read little-endian: the file's byte order and its timestamps' unit. */
const MAGICS = new Map([
  [0xa1b2c3d4, { littleEndian: true, fractionsPerSecond: 1e6 }],
  [0xd4c3b2a1, { littleEndian: false, fractionsPerSecond: 1e6 }],
  [0xa1b23c4d, { littleEndian: true, fractionsPerSecond: 1e9 }],
  [0x4d3cb2a1, { littleEndian: false, fractionsPerSecond: 1e9 }],
]);

/**
 * @typedef {object} PcapRecord
 * @property {number} atMs  capture time in ms since the epoch, to the file's µs or ns
 * @property {number} originalBytes  the packet's length on the wire
 * @property {Buffer} data  the captured bytes (a view into the file's bytes)
 *
 * @typedef {object} PcapCapture
 * @property {number} linkType  LINKTYPE_* of every record
 * @property {number} snaplenBytes
 * @property {PcapRecord[]} records  in file order
 *
 * @typedef {object} UdpDatagram
 * @property {number} atMs
 * @property {string} sourceAddress
 * @property {number} sourcePort
 * @property {string} destinationAddress
 * @property {number} destinationPort
 * @property {number} ipBytes  the IPv4 packet's total length (headers included)
 * @property {Buffer} payload  the UDP payload
 */

/**
 * @param {Buffer} bytes  the whole file
 * @param {string} shown  the file as the user sees it, for the errors
 * @returns {PcapCapture}
 */
export function parsePcap(bytes, shown) {
  const fail = (/** @type {string} */ reason) => new InputError(`${shown}: ${reason}`);
  if (bytes.length < GLOBAL_HEADER_BYTES) {
    throw fail(`truncated pcap: ${bytes.length} bytes, less than its ${GLOBAL_HEADER_BYTES}-byte header; stop tcpdump and wait for it to exit before reading`);
  }
  const format = MAGICS.get(bytes.readUInt32LE(0));
  if (!format) {
    throw fail(`not a classic pcap file (magic 0x${bytes.readUInt32BE(0).toString(16).padStart(8, '0')}); capture with \`tcpdump -w\` (pcapng is not read)`);
  }
  const { littleEndian, fractionsPerSecond } = format;
  const u16 = (/** @type {number} */ at) => (littleEndian ? bytes.readUInt16LE(at) : bytes.readUInt16BE(at));
  const u32 = (/** @type {number} */ at) => (littleEndian ? bytes.readUInt32LE(at) : bytes.readUInt32BE(at));
  if (u16(4) !== 2 || u16(6) !== 4) throw fail(`pcap version ${u16(4)}.${u16(6)}, only 2.4 is read`);
  const snaplenBytes = u32(16);
  if (snaplenBytes === 0 || snaplenBytes > MAX_SNAPLEN_BYTES) {
    throw fail(`snapshot length ${snaplenBytes} bytes, outside 1…${MAX_SNAPLEN_BYTES}; capture with tcpdump's default -s`);
  }
  /** @type {PcapRecord[]} */
  const records = [];
  for (let at = GLOBAL_HEADER_BYTES; at < bytes.length;) {
    const where = `record ${records.length + 1} (byte ${at})`;
    if (records.length === MAX_PCAP_RECORDS) throw fail(`more than ${MAX_PCAP_RECORDS} records; capture fewer packets (a shorter run or a narrower filter)`);
    if (bytes.length - at < RECORD_HEADER_BYTES) throw fail(`truncated pcap: ${where} has ${bytes.length - at} of its ${RECORD_HEADER_BYTES} header bytes; the capture was cut`);
    const [seconds, fraction, capturedBytes, originalBytes] = [u32(at), u32(at + 4), u32(at + 8), u32(at + 12)];
    if (fraction >= fractionsPerSecond) throw fail(`${where}: timestamp fraction ${fraction} is not below ${fractionsPerSecond}`);
    if (capturedBytes > snaplenBytes || capturedBytes > originalBytes) {
      throw fail(`${where} claims ${capturedBytes} captured bytes, over the snapshot length ${snaplenBytes} or its length ${originalBytes} on the wire`);
    }
    const dataAt = at + RECORD_HEADER_BYTES;
    if (bytes.length - dataAt < capturedBytes) {
      throw fail(`truncated pcap: ${where} claims ${capturedBytes} bytes, ${bytes.length - dataAt} remain; the capture was cut`);
    }
    const atMs = seconds * 1000 + (fraction * 1000) / fractionsPerSecond;
    records.push({ atMs, originalBytes, data: bytes.subarray(dataAt, dataAt + capturedBytes) });
    at = dataAt + capturedBytes;
  }
  return { linkType: u32(20), snaplenBytes, records };
}

/**
 * The UDP/IPv4 datagrams of an Ethernet capture (what tcpdump writes for `lo` or a veth), in capture order; frames
 * of other protocols are left out.
 * @param {PcapCapture} capture @param {string} shown  the file, for the errors
 * @returns {UdpDatagram[]}
 */
export function udpDatagrams({ linkType, records }, shown) {
  if (linkType !== LINKTYPE_ETHERNET) {
    throw new InputError(`${shown}: link type ${linkType}, only Ethernet (${LINKTYPE_ETHERNET}) is read; capture on lo or a veth, not on "any"`);
  }
  /** @type {UdpDatagram[]} */
  const datagrams = [];
  records.forEach((record, index) => {
    const datagram = udpDatagram(record, `${shown}: record ${index + 1}`);
    if (datagram) datagrams.push(datagram);
  });
  return datagrams;
}

/** @param {PcapRecord} record @param {string} where @returns {UdpDatagram|null} */
function udpDatagram({ atMs, originalBytes, data }, where) {
  if (data.length < ETHERNET_HEADER_BYTES) throw new InputError(`${where}: a frame of ${data.length} bytes, shorter than an Ethernet header`);
  if (data.readUInt16BE(12) !== ETHERTYPE_IPV4) return null;
  const ip = data.subarray(ETHERNET_HEADER_BYTES);
  if (ip.length < 20) throw new InputError(`${where}: cut inside its IPv4 header (${ip.length} bytes); capture with tcpdump's default -s`);
  const headerBytes = (ip[0] & 0x0f) * 4;
  if (ip[0] >> 4 !== 4 || ip[9] !== IP_PROTOCOL_UDP) return null;
  const ipBytes = ip.readUInt16BE(2);
  if (headerBytes < 20 || ipBytes < headerBytes + UDP_HEADER_BYTES || ETHERNET_HEADER_BYTES + ipBytes > originalBytes) {
    throw new InputError(`${where}: malformed IPv4/UDP header (header ${headerBytes} bytes, total ${ipBytes}, frame ${originalBytes})`);
  }
  if (ip.length < ipBytes) {
    throw new InputError(`${where}: cut at the snapshot length (${ip.length} of ${ipBytes} IP bytes); capture with tcpdump's default -s`);
  }
  if ((ip.readUInt16BE(6) & 0x3fff) !== 0) throw new InputError(`${where}: an IPv4 fragment; fragments are not reassembled`);
  const udp = ip.subarray(headerBytes, ipBytes);
  if (udp.readUInt16BE(4) !== udp.length) throw new InputError(`${where}: UDP length ${udp.readUInt16BE(4)} is not the ${udp.length} bytes the IP header leaves`);
  return {
    atMs,
    sourceAddress: ip.subarray(12, 16).join('.'),
    sourcePort: udp.readUInt16BE(0),
    destinationAddress: ip.subarray(16, 20).join('.'),
    destinationPort: udp.readUInt16BE(2),
    ipBytes,
    payload: udp.subarray(UDP_HEADER_BYTES),
  };
}

/**
 * The datagrams a UDP GSO message stands for: a capture on `lo` sees the message before the kernel cuts it into
 * segments of segmentBytes of payload (the last one may be shorter), each with the message's own headers.
 * @param {UdpDatagram} datagram @param {number} segmentBytes  the sender's segment size (UDP_SEGMENT)
 * @returns {UdpDatagram[]}  [datagram] when it fits one segment
 */
export function splitSegments(datagram, segmentBytes) {
  if (!Number.isInteger(segmentBytes) || segmentBytes < 1) throw new RangeError(`segmentBytes must be a positive integer, got ${segmentBytes}`);
  const { payload, ipBytes } = datagram;
  if (payload.length <= segmentBytes) return [datagram];
  const headerBytes = ipBytes - payload.length;
  /** @type {UdpDatagram[]} */
  const segments = [];
  for (let at = 0; at < payload.length; at += segmentBytes) {
    const piece = payload.subarray(at, at + segmentBytes);
    segments.push({ ...datagram, ipBytes: headerBytes + piece.length, payload: piece });
  }
  return segments;
}
