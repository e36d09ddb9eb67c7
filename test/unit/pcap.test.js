// Classic pcap files as hostile input: both byte orders and timestamp units, the UDP/IPv4 datagrams in an Ethernet
// capture, GSO messages cut into their datagrams, and every truncation, bound and wrong magic refused with the file
// named. The fixtures are built here, byte by byte.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { InputError } from '../../orchestrator/lib/system/errors.js';
import {
  LINKTYPE_ETHERNET, MAX_PCAP_BYTES, MAX_PCAP_RECORDS, MAX_SNAPLEN_BYTES, parsePcap, splitSegments, udpDatagrams,
} from '../../orchestrator/lib/network/pcap.js';
import { readPcapFile } from '../../orchestrator/lib/network/pcap-file.js';

const rejects = (fn, pattern) => assert.throws(fn, (error) => error instanceof InputError && pattern.test(error.message));

/** A 24-byte global header. */
function globalHeader({ littleEndian = true, nano = false, major = 2, minor = 4, snaplen = 262_144, linkType = LINKTYPE_ETHERNET } = {}) {
  const header = Buffer.alloc(24);
  const [u16, u32] = littleEndian ? ['writeUInt16LE', 'writeUInt32LE'] : ['writeUInt16BE', 'writeUInt32BE'];
  header[u32](nano ? 0xa1b23c4d : 0xa1b2c3d4, 0);
  header[u16](major, 4);
  header[u16](minor, 6);
  header[u32](snaplen, 16);
  header[u32](linkType, 20);
  return header;
}

/** A record: its 16-byte header and the captured bytes. */
function record(data, options = {}) {
  const { seconds = 1_700_000_000, fraction = 0, littleEndian = true, capturedBytes = data.length, originalBytes = data.length } = options;
  const header = Buffer.alloc(16);
  const u32 = littleEndian ? 'writeUInt32LE' : 'writeUInt32BE';
  header[u32](seconds, 0);
  header[u32](fraction, 4);
  header[u32](capturedBytes, 8);
  header[u32](originalBytes, 12);
  return Buffer.concat([header, data]);
}

/** An Ethernet frame holding an IPv4/UDP datagram; overrides corrupt one header field. */
function udpFrame(payload, options = {}) {
  const { sourcePort = 40_000, destinationPort = 50_000, flags = 0 } = options;
  const { ipBytes = 28 + payload.length, udpBytes = 8 + payload.length } = options;
  const ethernet = Buffer.alloc(14);
  ethernet.writeUInt16BE(0x0800, 12);
  const ip = Buffer.alloc(20);
  ip[0] = 0x45;
  ip.writeUInt16BE(ipBytes, 2);
  ip.writeUInt16BE(flags, 6);
  ip[8] = 64;
  ip[9] = 17;
  ip.set([127, 0, 0, 1], 12);
  ip.set([127, 0, 0, 2], 16);
  const udp = Buffer.alloc(8);
  udp.writeUInt16BE(sourcePort, 0);
  udp.writeUInt16BE(destinationPort, 2);
  udp.writeUInt16BE(udpBytes, 4);
  return Buffer.concat([ethernet, ip, udp, payload]);
}

const arpFrame = () => Buffer.concat([Buffer.alloc(12), Buffer.from([0x08, 0x06]), Buffer.alloc(28)]);
const file = (...parts) => Buffer.concat(parts);

test('a little-endian µs capture: records with their times, the UDP/IPv4 datagrams in capture order, other frames left out', () => {
  const capture = parsePcap(file(
    globalHeader(),
    record(udpFrame(Buffer.from('abc')), { fraction: 250_500 }),
    record(arpFrame(), { fraction: 300_000 }),
    record(udpFrame(Buffer.from('de'), { sourcePort: 1, destinationPort: 2 }), { seconds: 1_700_000_001, fraction: 7 }),
  ), 'cap.pcap');
  assert.equal(capture.linkType, LINKTYPE_ETHERNET);
  assert.equal(capture.records.length, 3);
  assert.equal(capture.records[0].atMs, 1_700_000_000_250.5);
  const datagrams = udpDatagrams(capture, 'cap.pcap');
  assert.equal(datagrams.length, 2);
  assert.deepEqual({ ...datagrams[0], payload: datagrams[0].payload.toString() }, {
    atMs: 1_700_000_000_250.5, sourceAddress: '127.0.0.1', sourcePort: 40_000, destinationAddress: '127.0.0.2',
    destinationPort: 50_000, ipBytes: 31, payload: 'abc',
  });
  assert.deepEqual([datagrams[1].sourcePort, datagrams[1].destinationPort, datagrams[1].atMs], [1, 2, 1_700_000_001_000.007]);
});

test('a big-endian ns capture reads the same datagrams, to the nanosecond', () => {
  const bytes = file(globalHeader({ littleEndian: false, nano: true }), record(udpFrame(Buffer.from('x')), { littleEndian: false, fraction: 123_456_789 }));
  const [datagram] = udpDatagrams(parsePcap(bytes, 'be.pcap'), 'be.pcap');
  assert.ok(Math.abs(datagram.atMs - 1_700_000_000_123.456789) < 1e-3, `atMs ${datagram.atMs}`);
  assert.equal(datagram.payload.toString(), 'x');
  assert.deepEqual(parsePcap(globalHeader(), 'empty.pcap').records, [], 'a capture of nothing has no records');
});

test('wrong magic, another version, a snapshot length out of bounds: refused with the file named', () => {
  const pcapng = Buffer.from(globalHeader());
  pcapng.writeUInt32LE(0x0a0d0d0a, 0);
  rejects(() => parsePcap(pcapng, 'ng.pcap'), /^ng\.pcap: not a classic pcap file \(magic 0x0a0d0d0a\); capture with `tcpdump -w`/);
  rejects(() => parsePcap(Buffer.from('{"json": true, "not": "pcap"}'), 'a.json'), /^a\.json: not a classic pcap file/);
  rejects(() => parsePcap(globalHeader({ minor: 2 }), 'old.pcap'), /^old\.pcap: pcap version 2\.2, only 2\.4/);
  rejects(() => parsePcap(globalHeader({ snaplen: MAX_SNAPLEN_BYTES + 1 }), 's.pcap'), /^s\.pcap: snapshot length 262145 bytes, outside/);
  rejects(() => parsePcap(globalHeader({ snaplen: 0 }), 's.pcap'), /^s\.pcap: snapshot length 0 bytes/);
});

test('truncated files: in the global header, in a record header, in a record\'s data', () => {
  const whole = file(globalHeader(), record(udpFrame(Buffer.alloc(10))));
  rejects(() => parsePcap(whole.subarray(0, 10), 'cut.pcap'), /^cut\.pcap: truncated pcap: 10 bytes, less than its 24-byte header/);
  rejects(() => parsePcap(whole.subarray(0, 24 + 9), 'cut.pcap'), /^cut\.pcap: truncated pcap: record 1 \(byte 24\) has 9 of its 16 header bytes/);
  rejects(() => parsePcap(whole.subarray(0, whole.length - 1), 'cut.pcap'), /^cut\.pcap: truncated pcap: record 1 \(byte 24\) claims 52 bytes, 51 remain/);
  assert.equal(parsePcap(whole, 'whole.pcap').records.length, 1);
});

test('a record\'s lengths, timestamp and count are bounded: over the snapshot length, over its wire length, a fraction of a second too large, too many records', () => {
  const frame = udpFrame(Buffer.alloc(10));
  rejects(() => parsePcap(file(globalHeader({ snaplen: 40 }), record(frame)), 'r.pcap'), /^r\.pcap: record 1 \(byte 24\) claims 52 captured bytes, over the snapshot length 40/);
  rejects(() => parsePcap(file(globalHeader(), record(frame, { originalBytes: 51 })), 'r.pcap'), /claims 52 captured bytes, .* its length 51 on the wire/);
  rejects(() => parsePcap(file(globalHeader(), record(frame, { fraction: 1_000_000 })), 'r.pcap'), /^r\.pcap: record 1 \(byte 24\): timestamp fraction 1000000 is not below 1000000/);
  const manyRecords = Buffer.alloc(24 + 16 * (MAX_PCAP_RECORDS + 1)); // empty records: 0 bytes captured of 0
  globalHeader().copy(manyRecords);
  rejects(() => parsePcap(manyRecords, 'many.pcap'), /^many\.pcap: more than 1000000 records; capture fewer packets/);
  const huge = Buffer.from(globalHeader());
  huge.writeUInt32LE(0xffffffff, 16);
  rejects(() => parsePcap(file(huge, record(frame)), 'r.pcap'), /snapshot length 4294967295 bytes/);
});

test('malformed frames are refused with the file and record named: short, cut, bad lengths, fragments, another link type', () => {
  const datagrams = (...frames) => udpDatagrams(parsePcap(file(globalHeader(), ...frames.map((frame) => record(frame))), 'm.pcap'), 'm.pcap');
  rejects(() => datagrams(Buffer.alloc(10)), /^m\.pcap: record 1: a frame of 10 bytes, shorter than an Ethernet header/);
  rejects(() => datagrams(udpFrame(Buffer.alloc(4)).subarray(0, 30)), /^m\.pcap: record 1: cut inside its IPv4 header \(16 bytes\)/);
  rejects(() => datagrams(udpFrame(Buffer.alloc(4)), udpFrame(Buffer.alloc(4), { ipBytes: 24 })), /^m\.pcap: record 2: malformed IPv4\/UDP header \(header 20 bytes, total 24/);
  rejects(() => datagrams(udpFrame(Buffer.alloc(4), { ipBytes: 100 })), /malformed IPv4\/UDP header \(header 20 bytes, total 100, frame 46\)/);
  rejects(() => datagrams(udpFrame(Buffer.alloc(4), { udpBytes: 99 })), /^m\.pcap: record 1: UDP length 99 is not the 12 bytes/);
  rejects(() => datagrams(udpFrame(Buffer.alloc(4), { flags: 0x2000 })), /^m\.pcap: record 1: an IPv4 fragment/);
  const cut = udpFrame(Buffer.alloc(100));
  const snapped = udpDatagrams.bind(null, parsePcap(file(globalHeader(), record(cut.subarray(0, 60), { originalBytes: cut.length })), 'c.pcap'), 'c.pcap');
  rejects(snapped, /^c\.pcap: record 1: cut at the snapshot length \(46 of 128 IP bytes\)/);
  rejects(() => udpDatagrams(parsePcap(globalHeader({ linkType: 113 }), 'any.pcap'), 'any.pcap'), /^any\.pcap: link type 113, only Ethernet \(1\) is read; capture on lo/);
});

test('splitSegments cuts a GSO message into its datagrams, each with the message\'s headers; one that fits stays whole', () => {
  const [message] = udpDatagrams(parsePcap(file(globalHeader(), record(udpFrame(Buffer.from('aaaabbbbcc')))), 'g.pcap'), 'g.pcap');
  const pieces = splitSegments(message, 4);
  assert.deepEqual(pieces.map((piece) => [piece.payload.toString(), piece.ipBytes, piece.sourcePort, piece.atMs]), [
    ['aaaa', 32, 40_000, message.atMs], ['bbbb', 32, 40_000, message.atMs], ['cc', 30, 40_000, message.atMs],
  ]);
  assert.deepEqual(splitSegments(message, 10), [message]);
  assert.throws(() => splitSegments(message, 0), RangeError);
});

test('readPcapFile: a real file is read and parsed; a missing one, a directory and one over the size bound are refused by name', (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'pcap-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const good = path.join(dir, 'good.pcap');
  writeFileSync(good, file(globalHeader(), record(udpFrame(Buffer.from('hi')))));
  assert.equal(udpDatagrams(readPcapFile(good), good)[0].payload.toString(), 'hi');
  const escaped = (name) => path.join(dir, name).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  rejects(() => readPcapFile(path.join(dir, 'none.pcap')), new RegExp(`^${escaped('none.pcap')}: cannot read the capture file \\(no such file\\)`));
  rejects(() => readPcapFile(dir), /the capture file is a directory/);
  const big = path.join(dir, 'big.pcap');
  writeFileSync(big, '');
  truncateSync(big, MAX_PCAP_BYTES + 1); // sparse: nothing is written
  rejects(() => readPcapFile(big), new RegExp(`^${escaped('big.pcap')}: the capture file is larger than 64 MiB, the limit \\(MAX_PCAP_BYTES in`));
});
