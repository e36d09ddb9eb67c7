import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildRunCharts, markers } from '../../orchestrator/report/series.js';
import { withGaps, mergeConfigured, configuredSeries, tint } from '../../orchestrator/report/chart-series.js';
import { qualityReasonIndex } from '../../orchestrator/report/peer-series.js';
import { linkKbps } from '../../orchestrator/report/network-series.js';
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
  // Events with only the fields the markers read.
  const scheduleEvents = /** @type {typeof r.network.scheduleEvents} */ (Array.from({ length: 100 }, (_, i) => ({ atS: 1 + i * 0.5, link: 'p0.up', params: {} })));
  const ramp = { ...r, network: { ...r.network, scheduleEvents } };
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

test('loss on the wire vs after recovery: a panel per received flow, and the wire loss per link in the network section', () => {
  const lossy = { ...base, lossPct: 5 };
  const timeline = [];
  const truth = [];
  for (let t = 1; t <= 10; t += 1) {
    const loss = (extra) => ({
      video: {
        recvKbps: 500, lossPct: 4.9, residualLossPct: 0.5, recoveredLossPct: 4.5, retransmittedPacketsReceived: 6,
        jitterMs: 4, jitterBufferDelayMs: 40,
      },
      audio: { recvKbps: 39, lossPct: 5, recoveredLossPct: 0, jitterMs: 2, jitterBufferDelayMs: 60 }, wireLossPct: 5, ...extra,
    });
    timeline.push(entry(t, 'p0', 'p1', loss({})), entry(t, 'p0', 'p2', loss({ wireLossPct: 0 })));
    truth.push({ t, link: 'p1.up', packetsIn: 200, dropsLoss: 10, dropsQueue: 0 }, { t, link: 'p2.up', packetsIn: 0, dropsLoss: 0, dropsQueue: 0 });
  }
  const result = normalizeResult({
    schemaVersion: 1, status: 'passed', errors: [], scenario: { name: 'lossy', durationS: 10, warmupS: 0 }, timeline,
    network: {
      links: { 'p1.up': lossy, 'p2.up': base, 'p0.down': base },
      routes: { 'p1->p0': ['p1.up', 'p0.down'], 'p2->p0': ['p2.up', 'p0.down'] }, configured: [], scheduleEvents: [], truth,
    },
  });
  const charts = buildRunCharts(result);
  const p0 = charts.sections.find((s) => s.id === 'peer-p0').panels;
  const flows = p0.filter((p) => p.id.startsWith('p0-loss-recovery-'));
  assert.deepEqual(flows.map((p) => p.title), ['Loss: on the wire vs after recovery (p1 → p0)', 'Loss: on the wire vs after recovery (p2 → p0)']);
  const fromP1 = flows[0];
  assert.deepEqual(fromP1.series.map((s) => s.label),
    ['on the wire', 'video after recovery', 'video before retransmission (receiver)', 'audio after recovery', 'video recovered',
      'video retransmissions received', 'configured loss']);
  assert.deepEqual(fromP1.series.slice(0, 5).map((s) => s.y[0]), [5, 0.5, 4.9, 5, 4.5]);
  assert.equal(fromP1.series[5].axis, 'y2');
  assert.deepEqual(fromP1.series[6].y, [5, 5], 'the route p1->p0 is configured with 5 %');
  assert.equal(flows[1].series[0].y[0], 0);
  const jitter = p0.find((p) => p.id === 'p0-jitter');
  assert.deepEqual(jitter.series.map((s) => s.label), ['audio ← p1', 'audio ← p2', 'video ← p1', 'video ← p2']);
  const buffer = p0.find((p) => p.id === 'p0-jitter-buffer');
  assert.deepEqual([buffer.series[0].y[0], buffer.series[2].y[0]], [60, 40]);
  const wire = charts.sections.find((s) => s.id === 'network').panels.find((p) => p.id === 'net-wire-loss');
  assert.deepEqual(wire.series.filter((s) => !s.configured).map((s) => [s.label, s.y[0]]), [['p1.up', 5]], 'p2.up carried nothing: no line');
});

test('a result without timeline has no chart sections', () => {
  assert.deepEqual(buildRunCharts(normalizeResult({ schemaVersion: 1 })).sections, []);
});

test('tint mixes a colour with white', () => {
  assert.equal(tint('#000000', 0.5), '#808080');
  assert.equal(tint('#0072B2', 0), '#0072b2');
});
