import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withGaps, mergeConfigured, configuredSeries, qualityReasonIndex, buildRunCharts, markers, tint, linkKbps } from '../../orchestrator/report/series.js';
import { normalizeResult } from '../../orchestrator/report/result-file.js';

const base = { rateKbps: null, queuePackets: 50, queueMs: null, oneWayDelayMs: 10, jitterMs: 0, lossPct: 0, lossBurst: null };
const entry = (t, peer, remote, extra = {}) => ({
  t, peer, remote, intervalS: 1,
  video: { sendKbps: 900, recvKbps: 880, recvWidth: 640, recvHeight: 360, recvFps: 30, qualityLimitationReason: 'bandwidth' },
  audio: { sendKbps: 40, recvKbps: 39, jitterMs: 2 },
  rttMs: 21, lossPct: 0, availableOutgoingKbps: 950, ...extra,
});

/** Two peers, 1 min, 1000 kbps uplinks with a change to 500 at 30 s, p0's seconds 20–24 missing. */
function smallResult({ truth = null } = {}) {
  const timeline = [];
  for (let t = 1; t <= 60; t += 1) {
    if (!(t >= 20 && t <= 24)) timeline.push(entry(t, 'p0', 'p1'));
    timeline.push(entry(t, 'p1', 'p0', { rttMs: t === 40 ? null : 22 }));
  }
  return normalizeResult({
    schemaVersion: 1, status: 'failed', errors: [{ atS: 45, peer: 'p1', message: 'x'.repeat(100) }],
    scenario: { name: 'small', durationS: 60, warmupS: 5 },
    timeline,
    network: {
      links: { 'p0.up': { ...base, rateKbps: 1000 }, 'p0.down': base, 'p1.up': { ...base, rateKbps: 1000 }, 'p1.down': base },
      routes: { 'p0->p1': ['p0.up', 'p1.down'], 'p1->p0': ['p1.up', 'p0.down'] },
      configured: [{ t: 30, link: 'p0.up', ...base, rateKbps: 500 }, { t: 30, link: 'p1.up', ...base, rateKbps: 500 }],
      scheduleEvents: [{ atS: 30, link: 'p0.up', params: { rateKbps: 500 } }, { atS: 30, link: 'p1.up', params: { rateKbps: 500 } }],
      truth,
    },
  });
}

test('withGaps breaks the line where seconds are missing instead of bridging them', () => {
  assert.deepEqual(withGaps([[1, 5], [2, 6], [5, 7], [6, null], [7, 8]]), { x: [1, 2, 3, 5, 6, 7], y: [5, 6, null, 7, null, 8] });
  assert.deepEqual(withGaps([]), { x: [], y: [] });
  assert.deepEqual(withGaps([[0.5, 1], [1, 1], [1.5, 1], [3, 1]]).y, [1, 1, 1, null, 1]);
});

test('identical configured lines merge into one; different ones keep their labels', () => {
  const a = configuredSeries([[0, 1000], [60, 1000]], 'capacity p1→p0');
  const b = configuredSeries([[0, 1000], [60, 1000]], 'capacity p0→p1');
  const c = configuredSeries([[0, 500], [60, 500]], 'capacity p0→p2');
  const measured = { label: 'receive', x: [1], y: [1], color: '#000' };
  assert.deepEqual(mergeConfigured([measured, a, b, null], 'configured capacity').map((s) => s.label), ['receive', 'configured capacity']);
  assert.deepEqual(mergeConfigured([a, b, c], 'configured').map((s) => s.label), ['capacity p1→p0 = capacity p0→p1', 'capacity p0→p2']);
  assert.equal(configuredSeries(null, 'x'), null);
});

test('quality-limitation reasons map to categories; unknown strings count as other', () => {
  assert.equal(qualityReasonIndex('none'), 0);
  assert.equal(qualityReasonIndex('cpu'), 2);
  assert.equal(qualityReasonIndex('thermal'), 3);
  assert.equal(qualityReasonIndex(null), null);
});

test('run charts: a section per peer with the configured condition on the rate, RTT and loss panels', () => {
  const charts = buildRunCharts(smallResult());
  assert.deepEqual([charts.xMinS, charts.xMaxS, charts.warmupS], [0, 60, 5]);
  assert.deepEqual(charts.sections.map((s) => s.title), ['Peer p0', 'Peer p1']);
  const p0 = charts.sections[0].panels;
  assert.deepEqual(p0.map((p) => p.id), ['p0-video-rate', 'p0-audio-rate', 'p0-rtt', 'p0-loss', 'p0-frames', 'p0-quality-limitation', 'p0-jitter', 'p0-available-outgoing']);
  const video = p0[0];
  assert.deepEqual(video.series.map((s) => s.label), ['receive ← p1', 'send → p1', 'configured capacity']);
  assert.deepEqual(video.series[2].x, [0, 30, 60]);
  assert.deepEqual(video.series[2].y, [1000, 500, 500]);
  assert.ok(video.series[0].y.includes(null), 'the missing seconds 20–24 break the line');
  const rtt = p0.find((p) => p.id === 'p0-rtt');
  assert.deepEqual(rtt.series.at(-1).y, [40, 40]); // 10 ms on each of the four links of both routes
  const frames = p0.find((p) => p.id === 'p0-frames');
  assert.equal(frames.series.find((s) => s.axis === 'y2').tips[0], '640×360');
  assert.ok(!charts.sections.some((s) => s.id === 'network'), 'no network section without truth or shared links');
});

test('markers: schedule changes and errors', () => {
  const r = smallResult();
  const m = markers(r, 60);
  assert.deepEqual(m.map((x) => [x.tS, x.kind]), [[30, 'change'], [45, 'error']]);
  const ramp = { ...r, network: { ...r.network, scheduleEvents: Array.from({ length: 100 }, (_, i) => ({ atS: 1 + i * 0.5, link: 'p0.up', params: {} })) } };
  assert.deepEqual(markers(ramp, 100).filter((x) => x.kind === 'change').map((x) => x.tS), [50.5]);
});

test('network section from truth: queueing delay, drops, throughput against the configured link rate', () => {
  const truth = [];
  for (let t = 1; t <= 60; t += 1) truth.push({ t, link: 'p0.up', bytesOut: 125000, dropsQueue: t === 31 ? 12 : 0, dropsLoss: 0, queueDelayMsP50: 1, queueDelayMsP95: 3 });
  const net = buildRunCharts(smallResult({ truth })).sections.find((s) => s.id === 'network');
  assert.deepEqual(net.panels.map((p) => p.id), ['net-queue-delay', 'net-drops', 'net-throughput']);
  const throughput = net.panels[2];
  assert.equal(throughput.series[0].y[0], 1000);
  assert.deepEqual(throughput.series.at(-1).y, [1000, 500, 500]);
  assert.equal(linkKbps({ t: 3, bytesOut: 250000 }, { t: 1 }), 1000);
  assert.equal(linkKbps({ t: 3, bytesOut: null }, undefined), null);
});

test('a result without timeline has no chart sections', () => {
  assert.deepEqual(buildRunCharts(normalizeResult({ schemaVersion: 1 })).sections, []);
});

test('tint mixes a colour with white', () => {
  assert.equal(tint('#000000', 0.5), '#808080');
  assert.equal(tint('#0072B2', 0), '#0072b2');
});
