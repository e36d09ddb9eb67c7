import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dataMetrics, intervalLossPct, intervalMetrics, snapshotFromStats } from '../../client-app/stats.js';

// A trimmed getStats() report as Chromium returns it (standard webrtc-stats fields only).
const report = ({ ts, vSent, vRecv, framesDecoded, framesSent, vLost, vRecvPk, aLost, aRecvPk, rttTotal, rttN, limited }) => [
  { id: 'CV', type: 'codec', mimeType: 'video/VP8' },
  { id: 'OV', type: 'outbound-rtp', kind: 'video', timestamp: ts, bytesSent: vSent, framesSent, frameWidth: 1280, frameHeight: 720,
    qualityLimitationReason: 'bandwidth', qualityLimitationDurations: limited, codecId: 'CV', encoderImplementation: 'libvpx' },
  { id: 'IV', type: 'inbound-rtp', kind: 'video', timestamp: ts, bytesReceived: vRecv, packetsReceived: vRecvPk, packetsLost: vLost,
    framesDecoded, frameWidth: 640, frameHeight: 360, nackCount: 3, pliCount: 1, freezeCount: 0, codecId: 'CV', qpSum: framesDecoded * 40 + (ts > 10_000 ? 150 : 0),
    decoderImplementation: 'ExternalDecoder (libvpx)' },
  { id: 'OA', type: 'outbound-rtp', kind: 'audio', timestamp: ts, bytesSent: 5000 },
  { id: 'IA', type: 'inbound-rtp', kind: 'audio', timestamp: ts, bytesReceived: 4000, packetsReceived: aRecvPk, packetsLost: aLost, jitter: 0.0042 },
  { id: 'RV', type: 'remote-inbound-rtp', kind: 'video', timestamp: ts, totalRoundTripTime: rttTotal, roundTripTimeMeasurements: rttN },
  { id: 'T', type: 'transport', selectedCandidatePairId: 'CP' },
  { id: 'CP', type: 'candidate-pair', currentRoundTripTime: 0.25, availableOutgoingBitrate: 1_500_000 },
];

test('per-interval rates, fps and loss come from counter deltas over the real interval length', () => {
  const a = snapshotFromStats(report({
    ts: 10_000, vSent: 0, vRecv: 0, framesDecoded: 0, framesSent: 0, vLost: 0, vRecvPk: 0, aLost: 0, aRecvPk: 0,
    rttTotal: 1, rttN: 2, limited: { none: 1, bandwidth: 0 },
  }));
  const b = snapshotFromStats(report({
    ts: 12_000, vSent: 500_000, vRecv: 250_000, framesDecoded: 60, framesSent: 58, vLost: 10, vRecvPk: 90,
    aLost: 20, aRecvPk: 80, rttTotal: 2.5, rttN: 5, limited: { none: 1.5, bandwidth: 1.5 },
  }));
  const m = intervalMetrics(a, b);
  assert.equal(m.intervalS, 2);
  assert.equal(m.video.sendKbps, 2000); // 500 kB * 8 / 2 s
  assert.equal(m.video.recvKbps, 1000);
  assert.equal(m.video.recvFps, 30);
  assert.equal(m.video.sentFps, 29);
  assert.equal(m.video.lossPct, 10);
  assert.equal(m.audio.lossPct, 20);
  assert.equal(m.lossPct, 15); // all inbound RTP: 30 lost of 200
  assert.equal(m.rttMs, 500); // 1.5 s over 3 new RTCP measurements
  assert.equal(m.audio.jitterMs, 4.2);
  assert.equal(m.video.qualityLimitationReason, 'bandwidth'); // longest over the interval, not the first-listed
  assert.equal(m.video.codec, 'VP8');
  assert.equal(m.video.encoderImplementation, 'libvpx');
  assert.equal(m.video.decoderImplementation, 'ExternalDecoder (libvpx)');
  assert.equal(m.video.qpPerFrame, 42.5); // (60 × 40 + 150) / 60 decoded frames
  assert.equal(m.availableOutgoingKbps, 1500);
  assert.equal(m.video.recvWidth, 640);
  assert.equal(m.audio.sendKbps, 0);
});

test('RTT falls back to the ICE candidate pair when no RTCP measurement arrived in the interval', () => {
  const common = {
    vSent: 0, vRecv: 0, framesDecoded: 0, framesSent: 0, vLost: 0, vRecvPk: 0, aLost: 0, aRecvPk: 0, rttTotal: 1, rttN: 2, limited: {},
  };
  const m = intervalMetrics(snapshotFromStats(report({ ts: 1000, ...common })), snapshotFromStats(report({ ts: 2000, ...common })));
  assert.equal(m.rttMs, 250);
  assert.equal(m.lossPct, null); // no packets at all: unknown, not 0
});

test('loss is lost / (received + lost) and never negative when duplicates make packetsLost fall', () => {
  assert.equal(intervalLossPct({ packetsReceived: 0, packetsLost: 5 }, { packetsReceived: 100, packetsLost: 3 }), 0);
  assert.equal(intervalLossPct(null, { packetsReceived: 1, packetsLost: 0 }), null);
});

test('a peer connection without video yields nulls, not zeros', () => {
  const snap = (ts) => snapshotFromStats([{ id: 'IA', type: 'inbound-rtp', kind: 'audio', timestamp: ts, bytesReceived: ts, packetsReceived: 1, packetsLost: 0 }]);
  const m = intervalMetrics(snap(1000), snap(2000));
  assert.equal(m.video.recvKbps, null);
  assert.equal(m.video.recvFps, null);
  assert.equal(m.audio.recvKbps, 8);
});

test('non-increasing timestamps are rejected', () => {
  const s = snapshotFromStats([{ id: 'x', type: 'transport', timestamp: 5 }]);
  assert.throws(() => intervalMetrics(s, s), /timestamps must increase/);
});

test('video jitter, jitter-buffer delay per emitted sample, and retransmitted / FEC packets come from the inbound counters', () => {
  const inbound = (ts, k) => [
    { id: 'IV', type: 'inbound-rtp', kind: 'video', timestamp: ts, bytesReceived: 1000 * k, packetsReceived: 100 * k, packetsLost: 2 * k,
      jitter: 0.0125, jitterBufferDelay: 1.5 * k * k, jitterBufferEmittedCount: 30 * k,
      retransmittedPacketsReceived: 4 * k, retransmittedBytesReceived: 250 * k, fecPacketsReceived: k },
    { id: 'IA', type: 'inbound-rtp', kind: 'audio', timestamp: ts, bytesReceived: 100 * k, packetsReceived: 50 * k, packetsLost: 0,
      jitter: 0.002, jitterBufferDelay: 4.8 * k, jitterBufferEmittedCount: 48_000 * k },
  ];
  const m = intervalMetrics(snapshotFromStats(inbound(1000, 1)), snapshotFromStats(inbound(2000, 2)));
  assert.equal(m.video.jitterMs, 12.5);
  // Δ delay (6 − 1.5 s) over Δ emitted (30 frames): 150 ms each; the cumulative ratio (6 s / 60) would say 100 ms.
  assert.equal(m.video.jitterBufferDelayMs, 150);
  assert.equal(m.audio.jitterBufferDelayMs, 0.1);
  assert.equal(m.video.retransmittedPacketsReceived, 4);
  assert.equal(m.video.fecPacketsReceived, 1);
  assert.equal(m.video.retransmittedKbps, 2); // 250 of the 1000 bytes received in 1 s were RTX
  assert.equal(m.video.recvKbps, 8);
  assert.equal(m.video.retransmittedSentKbps, null, 'no outbound stream: unknown');
  // 2 lost, 4 retransmissions received: nothing left missing (never below 0); audio lost nothing either.
  assert.equal(m.video.lossPct, 1.961);
  assert.equal(m.video.residualLossPct, 0);
  assert.equal(m.residualLossPct, 0);
  assert.equal(m.audio.jitterMs, 2);
});

test('no samples emitted in the interval: the jitter-buffer delay is unknown, not 0', () => {
  const snap = (ts) => snapshotFromStats([{ id: 'IV', type: 'inbound-rtp', kind: 'video', timestamp: ts, packetsReceived: 0, packetsLost: 0,
    jitterBufferDelay: 3, jitterBufferEmittedCount: 90 }]);
  const m = intervalMetrics(snap(1000), snap(2000));
  assert.equal(m.video.jitterBufferDelayMs, null);
  assert.equal(m.audio.jitterBufferDelayMs, null);
});

test('loss after retransmission: the lost packets no retransmission received in the interval filled', () => {
  const prev = { packetsReceived: 0, packetsLost: 0, retransmittedPacketsReceived: 0 };
  const cur = { packetsReceived: 190, packetsLost: 10, retransmittedPacketsReceived: 7 };
  assert.equal(intervalLossPct(prev, cur), 5, 'Chromium counts repaired packets as lost');
  assert.equal(intervalLossPct(prev, cur, { afterRetransmission: true }), 1.5);
  assert.equal(intervalLossPct(prev, { packetsReceived: 190, packetsLost: 10 }, { afterRetransmission: true }), 5, 'no RTX counter: nothing repaired');
});

test('dataMetrics: kbps from byte counters over the interval; a flow new in the interval counts from zero', () => {
  assert.deepEqual(dataMetrics(null, { sentBytes: null, receivedBytes: 125_000 }, 0.5), { recvKbps: 2000 });
  assert.deepEqual(dataMetrics({ sentBytes: 10, receivedBytes: 0 }, { sentBytes: 10, receivedBytes: 0 }, 1), { sentKbps: 0, recvKbps: 0 });
  assert.deepEqual(dataMetrics(null, { sentBytes: null, receivedBytes: null }, 1), {});
  assert.throws(() => dataMetrics(null, { sentBytes: 1, receivedBytes: null }, 0), /must be positive/);
});

test('encode time per frame: the encoder\'s time over the frames it encoded in the interval; none encoded: unknown', () => {
  const at = (ts, framesEncoded, totalEncodeTime) => snapshotFromStats([
    { id: 'OV', type: 'outbound-rtp', kind: 'video', timestamp: ts, bytesSent: 0, framesEncoded, totalEncodeTime },
  ]);
  assert.equal(intervalMetrics(at(1000, 100, 1.5), at(2000, 130, 2.1)).video.encodeMsPerFrame, 20); // 0.6 s / 30 frames
  assert.equal(intervalMetrics(at(1000, 100, 1.5), at(2000, 100, 1.5)).video.encodeMsPerFrame, null);
  assert.equal(intervalMetrics(at(1000, undefined, undefined), at(2000, undefined, undefined)).video.encodeMsPerFrame, null);
});

test('captured frame rate: the camera track\'s frames (media-source) per second; a browser without them: unknown', () => {
  const at = (ts, frames, captured) => snapshotFromStats([
    { id: 'OV', type: 'outbound-rtp', kind: 'video', timestamp: ts, bytesSent: 0, framesSent: frames },
    ...(captured === undefined ? [] : [{ id: 'MV', type: 'media-source', kind: 'video', timestamp: ts, frames: captured }]),
    { id: 'MA', type: 'media-source', kind: 'audio', timestamp: ts, frames: 999 },
  ]);
  const m = intervalMetrics(at(1000, 100, 300), at(3000, 112, 360)).video;
  assert.deepEqual([m.capturedFps, m.sentFps], [30, 6]);
  assert.equal(intervalMetrics(at(1000, 100), at(2000, 130)).video.capturedFps, null);
});

test('retransmission rates: RTX bytes sent and received over the interval; a browser without the counter gives null', () => {
  const at = (ts, k, rtx) => snapshotFromStats([
    { id: 'OV', type: 'outbound-rtp', kind: 'video', timestamp: ts, bytesSent: 250_000 * k, ...(rtx ? { retransmittedBytesSent: 50_000 * k } : {}) },
    { id: 'IV', type: 'inbound-rtp', kind: 'video', timestamp: ts, bytesReceived: 500_000 * k, packetsReceived: 0, packetsLost: 0,
      ...(rtx ? { retransmittedBytesReceived: 300_000 * k } : {}) },
  ]);
  const m = intervalMetrics(at(1000, 1, true), at(3000, 2, true));
  assert.equal(m.video.retransmittedSentKbps, 200); // 50 kB * 8 / 2 s
  assert.equal(m.video.retransmittedKbps, 1200);
  assert.equal(m.video.recvKbps, 2000);
  const firefox = intervalMetrics(at(1000, 1, false), at(3000, 2, false));
  assert.equal(firefox.video.retransmittedKbps, null);
  assert.equal(firefox.video.retransmittedSentKbps, null);
  assert.equal(firefox.video.recvKbps, 2000);
});
