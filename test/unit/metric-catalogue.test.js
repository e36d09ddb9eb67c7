// The metric catalogue (orchestrator/lib/result/metric-catalogue.js) against everything that produces or shows metrics: a field the
// page measures but the catalogue lacks, or a catalogue metric the summary, report or suite does not know, fails here.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dataMetrics, intervalMetrics, snapshotFromStats } from '../../client-app/stats.js';
import { flowList, pageFlowRows } from '../../orchestrator/lib/cross/flow-list.js';
import { withWireLoss } from '../../orchestrator/lib/result/loss.js';
import { viewerSection, withViewer } from '../../orchestrator/lib/viewer/viewer.js';
import { withMosPerSecond } from '../../orchestrator/lib/audio/audio-windows.js';
import { summarizeOffsets, withLipSyncPerSecond } from '../../orchestrator/lib/audio/lip-sync.js';
import {
  HEADLINE_LEVELS, METRICS, METRIC_PATHS as REFERENCE_METRIC_PATHS, RUN_METRIC_PATHS, TIMELINE_METRIC_PATHS, headlinePaths, metricByPath,
  metricsOfList,
} from '../../orchestrator/lib/result/metric-catalogue.js';
import { SENDER_FIELDS, missingTimelineFields } from '../../orchestrator/lib/scenario/peer-browsers.js';
import { renderCompareReport } from '../../orchestrator/report/render-compare.js';
import { renderCodecTable } from '../../orchestrator/report/codec-table.js';
import { metricKeys, summarize } from '../../orchestrator/lib/result/run-summary.js';
import { metricInfo } from '../../orchestrator/report/format.js';
import { buildRunCharts } from '../../orchestrator/report/series.js';
import { LINE_STYLES, PEER_PANELS } from '../../orchestrator/report/peer-series.js';
import { VIEWER_LINE_STYLES, VIEWER_PANELS } from '../../orchestrator/report/viewer-series.js';
import { normalizeResult } from '../../orchestrator/report/result-file.js';
import { buildDerived, buildSummaryTable } from '../../orchestrator/report/summary-table.js';
import { parseCondition } from '../../orchestrator/suite/assertions.js';
import { DEFAULT_REGRESSION } from '../../orchestrator/suite/baseline.js';
import { KNOWN_METRICS, WORSE_WHEN, metricPool, runValues } from '../../orchestrator/lib/result/metric-values.js';

// A getStats() report with every stats object and counter the page reads, as Chromium fills them mid-call.
const report = (ts, k) => [
  { id: 'CV', type: 'codec', mimeType: 'video/VP8' },
  { id: 'CA', type: 'codec', mimeType: 'audio/opus' },
  { id: 'OV', type: 'outbound-rtp', kind: 'video', timestamp: ts, bytesSent: 300_000 * k, framesSent: 30 * k, packetsSent: 300 * k,
    totalPacketSendDelay: 0.9 * k, retransmittedBytesSent: 1000 * k, framesEncoded: 30 * k, totalEncodeTime: 0.24 * k, frameWidth: 1280,
    frameHeight: 720, framesPerSecond: 30, qualityLimitationReason: 'none', qualityLimitationDurations: { none: k, bandwidth: 0 }, codecId: 'CV' },
  { id: 'IV', type: 'inbound-rtp', kind: 'video', timestamp: ts, bytesReceived: 290_000 * k, packetsReceived: 300 * k, packetsLost: 3 * k,
    framesDecoded: 29 * k, frameWidth: 1280, frameHeight: 720, jitter: 0.004, nackCount: 2 * k, pliCount: k, freezeCount: k,
    totalFreezesDuration: 0.2 * k, codecId: 'CV',
    jitterBufferDelay: 1.2 * k, jitterBufferEmittedCount: 29 * k, retransmittedPacketsReceived: 2 * k, fecPacketsReceived: k,
    retransmittedBytesReceived: 1000 * k,
    qpSum: 29 * 40 * k },
  { id: 'MV', type: 'media-source', kind: 'video', timestamp: ts, frames: 30 * k, framesPerSecond: 30 },
  { id: 'OA', type: 'outbound-rtp', kind: 'audio', timestamp: ts, bytesSent: 5000 * k, codecId: 'CA' },
  { id: 'IA', type: 'inbound-rtp', kind: 'audio', timestamp: ts, bytesReceived: 4900 * k, packetsReceived: 50 * k, packetsLost: k,
    jitter: 0.0021, codecId: 'CA', jitterBufferDelay: 2.4 * k, jitterBufferEmittedCount: 48_000 * k, totalSamplesReceived: 48_000 * k,
    concealedSamples: 480 * k, insertedSamplesForDeceleration: 96 * k, removedSamplesForAcceleration: 48 * k,
    totalAudioEnergy: 0.01 * k, totalSamplesDuration: k },
  { id: 'RV', type: 'remote-inbound-rtp', kind: 'video', timestamp: ts, totalRoundTripTime: 0.05 * k, roundTripTimeMeasurements: k },
  { id: 'T', type: 'transport', selectedCandidatePairId: 'CP' },
  { id: 'CP', type: 'candidate-pair', nominated: true, state: 'succeeded', currentRoundTripTime: 0.05, availableOutgoingBitrate: 2_500_000 },
];

// p0 also shares a screen (lib/media/screen-share.js): a second video m-line, mid 2, at a lower frame rate.
const withScreen = (ts, k) => [...report(ts, k),
  { id: 'OS', type: 'outbound-rtp', kind: 'video', mid: '2', timestamp: ts, bytesSent: 90_000 * k, framesSent: 5 * k, frameHeight: 720,
    qualityLimitationDurations: { none: k }, codecId: 'CV' },
  { id: 'IS', type: 'inbound-rtp', kind: 'video', mid: '2', timestamp: ts, bytesReceived: 89_000 * k, packetsReceived: 90 * k, packetsLost: 0,
    framesDecoded: 5 * k, frameWidth: 1280, frameHeight: 720, qpSum: 5 * 30 * k, codecId: 'CV' }];

/** A 2-peer, 20 s timeline as result.json holds it: what the page sends (`{ t, peer, remote, ...intervalMetrics() }`) and the wire loss. */
function pageTimeline() {
  const timeline = [];
  for (let t = 1; t <= 20; t += 1) {
    const metrics = intervalMetrics(snapshotFromStats(withScreen(t * 1000, t), '2'), snapshotFromStats(withScreen((t + 1) * 1000, t + 1), '2'));
    // p0 also sends p1 a bulk data-channel flow.
    const counters = (k) => ({ sentBytes: 250_000 * k, receivedBytes: 249_000 * k });
    const { sentKbps, recvKbps } = dataMetrics(counters(t), counters(t + 1), 1);
    timeline.push({ t, peer: 'p0', remote: 'p1', ...metrics, data: { sentKbps } }, { t, peer: 'p1', remote: 'p0', ...metrics, data: { recvKbps } });
  }
  const truth = Object.keys(LINKS).flatMap((link) => timeline.map(({ t }) => ({ t, link, packetsIn: 400, dropsLoss: 4, dropsQueue: 2 })));
  // Audio quality (run/audio-quality.js): one scored 20 s window per direction.
  const scored = ['p0', 'p1'].map((peer) => ({ peer, remote: peer === 'p0' ? 'p1' : 'p0', windows: [{ startS: 0, endS: 20, mosLqo: 4.2 }] }));
  const seen = withViewer(withWireLoss(timeline, truth, ROUTES), viewerFixture().perSecond);
  return withLipSyncPerSecond(withMosPerSecond(seen, scored), LIP_SYNC);
}

/** Lip sync (lib/audio/lip-sync.js): a mark every 2 s each way, the audio 20-28 ms after its frame. */
const LIP_SYNC = ['p0', 'p1'].map((peer) => {
  const marks = [1, 3, 5, 7, 9, 11, 13, 15, 17, 19].map((atS, i) => ({ atS: atS + 0.03, offsetMs: 20 + i, estimated: false }));
  const counts = { onsets: 10, droppedOnsets: 0, unpaired: 0, expectedMarks: 10 };
  const received = marks.map((mark) => ({ ...mark, seenMs: mark.offsetMs + 40, captureSkewMs: 40 }));
  return { peer, remote: peer === 'p0' ? 'p1' : 'p0', ...counts, marks: received, summary: summarizeOffsets(marks), seen: summarizeOffsets(marks) };
});

/**
 * What the pages' frame readers saw over those 20 s: each peer's camera at 30 fps and the other's frames 80 ms later,
 * one frame in 30 lost and a 400 ms freeze at 10 s; one scored capture a second.
 */
function viewerFixture() {
  const startMs = 1_000_000;
  const frames = Array.from({ length: 600 }, (_, i) => ({ code: i % 300, atMs: startMs + 1 + (i * 1000) / 30 }));
  const shown = frames.filter((frame, i) => i % 30 !== 7 && !(i > 300 && i < 312)).map((frame) => ({ ...frame, atMs: frame.atMs + 80 }));
  const batch = (peer, source, list) => ({
    peer, source, codes: list.map((f) => f.code), epochMs: list.map((f) => f.atMs), readMs: 12,
  });
  const scores = [['p0', 'p1'], ['p1', 'p0']].flatMap(([peer, remote]) => Array.from({ length: 20 }, (_, i) => ({
    peer, remote, epochMs: startMs + i * 1000 + 500, code: (i * 30) % 300, width: 640, height: 360, psnrDb: 30 + (i % 3), ssim: 0.9,
    vmaf: 80 + (i % 4),
  })));
  return viewerSection({
    batches: [batch('p0', 'local', frames), batch('p1', 'local', frames), batch('p0', 'p1', shown), batch('p1', 'p0', shown),
      batch('p1', 'p0:screen', shown)],
    media: {
      p0: { fps: 30, frames: 300, frameCode: true, screen: { fps: 30, frames: 300, frameCode: true } },
      p1: { fps: 30, frames: 300, frameCode: true },
    },
    mediaStartEpochMs: startMs, durationS: 20, warmupS: 0,
    scores: [...scores, ...scores.filter((score) => score.remote === 'p0').map((score) => ({ ...score, remote: 'p0:screen', psnrDb: 40 }))],
  });
}

const LINK = { rateKbps: 4000, queuePackets: 50, queueMs: null, oneWayDelayMs: 25, jitterMs: 0, lossPct: 0, lossBurst: null };
// Both flows cross one link (a per-run Jain's index) and the schedule changes once (a time to steady rate).
const ROUTES = { 'p0->p1': ['p0.up', 'shared', 'p1.down'], 'p1->p0': ['p1.up', 'shared', 'p0.down'] };
const LINKS = Object.fromEntries(['p0.up', 'p0.down', 'p1.up', 'p1.down', 'shared'].map((link) => [link, LINK]));
const SCHEDULE_EVENTS = [{ atS: 30, link: 'shared', params: { ...LINK, rateKbps: 5000 }, cause: 'schedule[1] step' }];

/**
 * That timeline three times over (60 s) as a result.json: summary by lib/result/run-summary.js, a reference quoting every metric.
 * A TCP flow joins the call's forward direction on the bottleneck at 20 s at the call's rate (a convergence time).
 */
function pageResult() {
  const timeline = [0, 20, 40].flatMap((shiftS) => pageTimeline().map((entry) => ({ ...entry, t: entry.t + shiftS })));
  const configured = [...Object.keys(LINKS), 'bottleneck.fwd'].map((link) => ({ t: 0, link, ...LINK }));
  const list = flowList({ peers: 2, durationS: 60, flows: [{ name: 'tcp', kind: 'tcp', startS: 20, stopS: 60, direction: 'forward' }], network: { bottleneck: {} } });
  const callRows = pageFlowRows(list, timeline);
  const tcpRows = callRows.filter((row) => row.flow === 'call:fwd' && row.t > 20).map((row) => ({ ...row, flow: 'tcp', source: 'iperf3' }));
  const flows = { list, rows: [...callRows, ...tcpRows] };
  const summary = summarize({
    timeline, warmupS: 5, durationS: 60, setupMs: { p0: 900, p1: 1100 }, configured, routes: ROUTES, scheduleEvents: SCHEDULE_EVENTS, flows,
  });
  // The marks of the three 20 s copies: drift needs 20 s of them.
  const marks = [0, 20, 40].flatMap((shiftS) => LIP_SYNC.flatMap((stream) => stream.marks)
    .map(({ atS, offsetMs }) => ({ atS: atS + shiftS, offsetMs })));
  const handover = { outageMs: 2400, newPairShare: 1, timeToSteadyS: 6 };
  Object.assign(summary, { lipSync: summarizeOffsets(marks), talk: { minCorrelation: 0.9 }, handover });
  const reference = { source: 'fixture', metrics: Object.fromEntries(REFERENCE_METRIC_PATHS.map((path) => [path, { mean: 1 }])) };
  return {
    schemaVersion: 1, status: 'passed', errors: [], timeline, summary, flows,
    scenario: { name: 'fixture', durationS: 60, warmupS: 5, peers: 2, reference },
    network: { emulator: 'relay', links: LINKS, routes: ROUTES, configured, truth: [], commands: [], scheduleEvents: SCHEDULE_EVENTS },
  };
}

test('every numeric timeline field the page measures is in the catalogue, and every per-second metric is measured', () => {
  const measured = metricKeys(pageTimeline());
  assert.deepEqual(measured.filter((path) => !TIMELINE_METRIC_PATHS.includes(path)), [], 'timeline fields missing from lib/result/metric-catalogue.js');
  assert.deepEqual(TIMELINE_METRIC_PATHS.filter((path) => !measured.includes(path)), [], 'catalogue metrics the page never measures');
});

test('the catalogue is well formed: unique paths, known headline levels, one row per headline metric, per-run values', () => {
  assert.equal(new Set(METRICS.map((m) => m.path)).size, METRICS.length);
  for (const m of METRICS) {
    assert.ok(m.label && typeof m.unit === 'string', m.path);
    assert.ok(m.decimals === null || Number.isInteger(m.decimals), m.path);
    assert.ok(['lower', 'higher'].includes(m.worseWhen), m.path);
    assert.ok(m.headline === undefined || HEADLINE_LEVELS.includes(m.headline), m.path);
    assert.equal(Number.isInteger(m.row), m.headline !== undefined, `${m.path}: a row exactly when it is a headline metric`);
    assert.equal(typeof m.fromSummary === 'function', m.per === 'run', `${m.path}: per-run metrics say where their value is`);
  }
  const rows = METRICS.filter((m) => m.headline).map((m) => m.row);
  assert.equal(new Set(rows).size, rows.length);
  // The levels nest: whatever an overview shows, the summary tables show too.
  for (const [i, level] of HEADLINE_LEVELS.entries()) {
    const shown = headlinePaths(level);
    assert.ok(shown.length > 0, level);
    for (const wider of HEADLINE_LEVELS.slice(i)) assert.ok(shown.every((p) => headlinePaths(wider).includes(p)));
  }
});

test('every catalogue metric is known to the summary: per-second statistics, or the per-run value', () => {
  const { summary } = pageResult();
  for (const path of TIMELINE_METRIC_PATHS) assert.ok(summary.overall[path]?.n > 0, `summary.overall has no values for ${path}`);
  for (const m of METRICS.filter((metric) => metric.per === 'run')) {
    assert.ok(Number.isFinite(m.fromSummary(summary)), `no per-run value for ${m.path}`);
  }
});

test('every catalogue metric is known to the report: label and unit, and a row of the summary or derived table', () => {
  for (const m of METRICS) {
    assert.deepEqual(metricInfo(m.path), m);
    assert.notEqual(metricInfo(m.path).label, m.path);
  }
  const result = normalizeResult(pageResult());
  const shown = buildSummaryTable(result).rows.flatMap((row) => (row.key === 'resolution' ? ['video.recvWidth', 'video.recvHeight'] : [row.key]));
  assert.deepEqual(TIMELINE_METRIC_PATHS.filter((path) => !shown.includes(path)), [], 'referenced metrics without a row');
  const { figures } = buildDerived(result);
  assert.deepEqual(figures.map((f) => f.path), RUN_METRIC_PATHS, 'every per-run metric is a row of the derived table');
  for (const f of figures) {
    assert.ok(Number.isFinite(f.value), `${f.path} has a value`);
    assert.equal(f.value, metricByPath(f.path).fromSummary(result.summary), `${f.path}: the report shows what the summary says`);
    assert.deepEqual(f.reference, { mean: 1, sd: null }, `${f.path}: its reference is read`);
  }
});

test('every catalogue metric is known to the suite: assertions, direction and a per-run value for the baseline comparison', () => {
  const result = pageResult();
  const values = runValues(result);
  for (const m of METRICS) {
    assert.ok(KNOWN_METRICS.includes(m.path), m.path);
    assert.equal(WORSE_WHEN[m.path], m.worseWhen, m.path);
    assert.equal(parseCondition(`${m.path} median >= 0`, 'fixture').metric, m.path);
    assert.ok(Number.isFinite(values[m.path]), `no per-run value of ${m.path} to compare with a baseline`);
    assert.ok(metricPool([result], m.path).length > 0, `no values of ${m.path} for an assertion`);
  }
  assert.ok(DEFAULT_REGRESSION.metrics.length > 0, 'DEFAULT_REGRESSION.metrics: nothing to check');
  assert.ok(DEFAULT_REGRESSION.metrics.every((path) => KNOWN_METRICS.includes(path)));
});

test('the sender fields, the compare charts and the codec table come from the catalogue', () => {
  // A peer that only sends: a sender metric left null is missing, a receiver metric is not judged (and vice versa).
  const senders = METRICS.filter((m) => m.side === 'sender');
  assert.ok(senders.length > 0 && senders.every((m) => m.per === 'second'));
  // What a peer that only sends measures (no inbound-rtp in its stats) is exactly the catalogue's sender side.
  const sendOnly = (ts, k) => withScreen(ts, k).filter((s) => s.type !== 'inbound-rtp');
  const sendingTimeline = [{ t: 1, peer: 'p0', remote: 'p1', ...intervalMetrics(snapshotFromStats(sendOnly(1000, 1), '2'), snapshotFromStats(sendOnly(2000, 2), '2')) }];
  assert.deepEqual(metricKeys(sendingTimeline).sort(), senders.map((m) => m.path).sort());
  for (const m of TIMELINE_METRIC_PATHS.map(metricByPath)) {
    const [kind, field] = m.path.includes('.') ? m.path.split('.') : [null, m.path];
    assert.equal(SENDER_FIELDS.has(field), m.side === 'sender', m.path);
    // The rates say whether media flows; the data channel's are judged apart from media.
    if (kind === 'data' || field === 'sendKbps' || field === 'recvKbps') continue;
    const nullField = (media) => (kind ? { [kind]: { ...media, [field]: null } } : { video: media, [field]: null });
    const sendingOnly = missingTimelineFields([{ t: 1, ...nullField({ sendKbps: 500, recvKbps: 0 }) }]);
    const receivingOnly = missingTimelineFields([{ t: 1, ...nullField({ sendKbps: 0, recvKbps: 500 }) }]);
    assert.equal(sendingOnly.includes(m.path), m.side === 'sender', `${m.path} judged while sending`);
    assert.equal(receivingOnly.includes(m.path), m.side !== 'sender', `${m.path} judged while receiving`);
  }
  const result = pageResult();
  const compared = metricsOfList('compare');
  assert.ok(compared.length > 0);
  assert.equal(new Set(compared.map((m) => m.compare.row)).size, compared.length, 'one chart per row');
  const html = renderCompareReport([{ result, sourcePath: 'a/result.json' }, { result, sourcePath: 'b/result.json' }]);
  for (const m of compared) assert.ok(html.includes(JSON.stringify(m.compare.title)), `the compare page charts ${m.path}`);
  const tabled = metricsOfList('codecTable');
  assert.ok(tabled.length > 0);
  const codec = (name) => ({ ...result, scenario: { ...result.scenario, codec: { mimeType: `video/${name}` } } });
  const table = renderCodecTable([normalizeResult(codec('VP8')), normalizeResult(codec('VP9'))]);
  for (const m of tabled) {
    const shared = tabled.filter((other) => other.codecTable === m.codecTable).length > 1;
    assert.ok(table.includes(`data-metric="${shared ? 'resolution' : m.path}"`), `the codec table has a row for ${m.path}`);
  }
});

/** Each metric a value of its own (valueOf: its index + 1) in every second: a panel's measured lines then read as its metrics. */
const valueOf = (m) => TIMELINE_METRIC_PATHS.indexOf(m.path) + 1;
function numberedResult() {
  const result = pageResult();
  const timeline = result.timeline.map((entry) => {
    const copy = structuredClone(entry);
    for (const path of TIMELINE_METRIC_PATHS) {
      const [kind, field] = path.includes('.') ? path.split('.') : [null, path];
      if (kind) copy[kind] = { ...copy[kind], [field]: valueOf(metricByPath(path)) };
      else copy[field] = valueOf(metricByPath(path));
    }
    return copy;
  });
  return normalizeResult({ ...result, timeline });
}

test("the report's per-peer chart panels come from the catalogue: each charted metric is a line of its panel, in its order", () => {
  const charted = METRICS.filter((m) => m.chart);
  assert.ok(charted.length > 0);
  const panelIds = PEER_PANELS.map((panel) => panel.id);
  for (const m of charted) {
    assert.equal(m.per, 'second', `${m.path}: a chart line is per second`);
    assert.ok(panelIds.includes(m.chart.panel), `${m.path}: chart.panel ${m.chart.panel} is a panel of report/series.js PEER_PANELS`);
    assert.ok(m.chart.line in LINE_STYLES, `${m.path}: chart.line ${m.chart.line} is a style of report/series.js LINE_STYLES`);
  }
  const peer = buildRunCharts(numberedResult()).sections.find((section) => section.id === 'peer-p0');
  for (const { id, lines } of PEER_PANELS) {
    const expected = charted.filter((m) => m.chart.panel === id).sort((a, b) => a.chart.order - b.chart.order).map(valueOf);
    assert.ok(expected.length > 0 || lines, `panel ${id} has catalogue metrics`);
    if (!expected.length) continue;
    const panel = peer.panels.find((p) => p.id === `p0-${id}` || p.id === `p0-${id}-p1`);
    assert.ok(panel, `the report draws panel ${id}`);
    assert.deepEqual(panel.series.filter((s) => !s.configured).map((s) => s.y.find((v) => v !== null)), expected, `panel ${id}`);
  }
});

test("the report's viewer panels come from the catalogue: each metric with a viewerChart is a line of its panel, in its order", () => {
  const charted = METRICS.filter((m) => m.viewerChart);
  assert.ok(charted.length > 0);
  const panelIds = VIEWER_PANELS.map((panel) => panel.id);
  for (const m of charted) {
    assert.equal(m.per, 'second', `${m.path}: a viewer line is per second`);
    assert.ok(panelIds.includes(m.viewerChart.panel), `${m.path}: viewerChart.panel ${m.viewerChart.panel} is a panel of report/viewer-series.js VIEWER_PANELS`);
    assert.ok(m.viewerChart.line in VIEWER_LINE_STYLES, `${m.path}: viewerChart.line ${m.viewerChart.line} is a style of VIEWER_LINE_STYLES`);
  }
  const viewer = buildRunCharts(numberedResult()).sections.find((section) => section.id === 'viewer');
  assert.ok(viewer, 'the report draws what the viewer saw');
  for (const { id } of VIEWER_PANELS) {
    const expected = charted.filter((m) => m.viewerChart.panel === id).sort((a, b) => a.viewerChart.order - b.viewerChart.order);
    assert.ok(expected.length > 0, `viewer panel ${id} has catalogue metrics`);
    const panel = viewer.panels.find((p) => p.id === `viewer-p1-p0-${id}`);
    assert.ok(panel, `the report draws viewer panel ${id}`);
    const lines = panel.series.filter((s) => !s.configured);
    assert.deepEqual(lines.map((s) => s.y.find((v) => v !== null)), expected.map(valueOf), `viewer panel ${id}: values`);
    assert.deepEqual(lines.map((s) => s.label), expected.map((m) => m.viewerChart.label), `viewer panel ${id}: labels`);
  }
});
