// Firefox's getStats() mapped onto the timeline (client-app/stats.js), from a report captured in a real Firefox, and
// the fields a browser lacks (lib/scenario/peer-browsers.js missingTimelineFields).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { intervalMetrics, snapshotFromStats } from '../../client-app/stats.js';
import { missingTimelineFields } from '../../orchestrator/lib/scenario/peer-browsers.js';

const fixture = JSON.parse(readFileSync(new URL('../fixtures/firefox-stats.json', import.meta.url), 'utf8'));
const [before, after] = fixture.reports.map(snapshotFromStats);
const interval = intervalMetrics(before, after);

test('Firefox fills the rates, resolution, frame rate, codec, RTT and loss from its standard stats', () => {
  assert.match(fixture.userAgent, /Firefox\/153/);
  const { video, audio } = interval;
  for (const [name, value] of Object.entries({ 'video.sendKbps': video.sendKbps, 'video.recvKbps': video.recvKbps, 'audio.sendKbps': audio.sendKbps, 'audio.recvKbps': audio.recvKbps })) {
    assert.ok(value > 10, `${name} ${value}`);
  }
  assert.deepEqual([video.sentWidth, video.sentHeight, video.recvWidth, video.recvHeight], [480, 270, 480, 270]);
  assert.ok(video.sentFps > 25 && video.recvFps > 25, `fps sent ${video.sentFps}, received ${video.recvFps}`);
  assert.equal(video.codec, 'VP8');
  assert.equal(video.lossPct, 0);
  assert.equal(interval.lossPct, 0);
  assert.deepEqual([video.nackCount, video.pliCount, video.freezeCount, video.freezeDurationMs], [0, 0, 0, 0]);
  assert.ok(video.jitterBufferDelayMs > 0 && audio.jitterBufferDelayMs > 0);
  // From remote-inbound-rtp's totalRoundTripTime over roundTripTimeMeasurements, as in Chromium.
  assert.ok(interval.rttMs > 0 && interval.rttMs < 100, `rtt ${interval.rttMs}`);
});

test('what Firefox does not report stays null: no 0 that was never measured', () => {
  const { video } = interval;
  assert.equal(video.qualityLimitationReason, null);
  assert.equal(video.retransmittedPacketsReceived, null);
  assert.equal(video.retransmittedKbps, null);
  assert.equal(video.fecPacketsReceived, null);
  // Its inbound-rtp has no qpSum: the received frames' mean QP is unknown, not 0.
  assert.equal(video.qpPerFrame, null);
  // Without its retransmission count the loss after repair is unknown, for video and for all streams together.
  assert.equal(video.residualLossPct, null);
  assert.equal(interval.residualLossPct, null);
  assert.equal(interval.availableOutgoingKbps, null);
});

test("Firefox's candidate pair RTT of 0 with responses received is unmeasured, not 0 ms", () => {
  const pair = fixture.reports[1].find((stats) => stats.type === 'candidate-pair' && stats.selected);
  assert.equal(pair.currentRoundTripTime, 0);
  assert.ok(pair.responsesReceived > 0);
  assert.equal(after.candidatePair.currentRttMs, null);
  // With no new RTCP measurement in the interval, the RTT is then unknown.
  const same = intervalMetrics({ ...after, timestampMs: after.timestampMs - 1000 }, after);
  assert.equal(same.rttMs, null);
});

test('missingTimelineFields lists the fields null in every second that had their media, and only those', () => {
  const firefox = [1, 2, 3].map((t) => ({ t, peer: 'p1', remote: 'p0', ...interval }));
  // Firefox reports no encoder or decoder implementation, no pacer delay, and qpSum only for what it sends.
  assert.deepEqual(missingTimelineFields(firefox), [
    'availableOutgoingKbps', 'residualLossPct', 'video.decoderImplementation', 'video.encoderImplementation',
    'video.fecPacketsReceived', 'video.packetSendDelayMs', 'video.qpPerFrame', 'video.qualityLimitationReason',
    'video.residualLossPct', 'video.retransmittedKbps', 'video.retransmittedPacketsReceived',
  ]);
  // A field filled in one second is not missing; a peer that only receives lacks no sender field.
  const once = firefox.map((sample, i) => (i === 1 ? { ...sample, availableOutgoingKbps: 900 } : sample));
  assert.ok(!missingTimelineFields(once).includes('availableOutgoingKbps'));
  const receiveOnly = firefox.map((sample) => ({
    ...sample, video: { ...sample.video, sendKbps: 0 }, audio: { ...sample.audio, sendKbps: 0 },
  }));
  assert.ok(!missingTimelineFields(receiveOnly).includes('video.qualityLimitationReason'));
  assert.ok(!missingTimelineFields(receiveOnly).includes('availableOutgoingKbps'));
  // Seconds without media say nothing about the browser.
  const silent = { t: 1, peer: 'p0', remote: 'p1', video: { sendKbps: null, recvKbps: null, codec: null }, rttMs: null };
  assert.deepEqual(missingTimelineFields([silent]), []);
});
