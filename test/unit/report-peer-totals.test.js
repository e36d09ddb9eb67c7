// The run report's multi-party figures: per-peer totals from four peers in a full mesh, and the CPU-limited note.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeResult } from '../fixtures/results/make-result.js';
import { renderRunReport } from '../../orchestrator/report/render-run.js';
import { buildRunCharts } from '../../orchestrator/report/series.js';
import { normalizeResult } from '../../orchestrator/report/result-file.js';

const text = (html) => html.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');

test('a 4-peer mesh shows each peer\'s uplink, downlink and streams; a 2-peer call does not', () => {
  const large = makeResult('large');
  const html = renderRunReport(large);
  assert.match(html, /<h3>Per-peer totals<\/h3>/);
  for (const peer of ['p0', 'p1', 'p2', 'p3']) {
    const totals = large.summary.peerTotals[peer];
    assert.equal(totals.videoStreamsReceived, 3, `${peer} receives its three remotes`);
    const row = text(html.match(new RegExp(`<tr data-peer="${peer}">.*?</tr>`))[0]);
    assert.ok(row.includes(` ${Math.round(totals.uplinkKbps)} `) && row.includes(` ${Math.round(totals.downlinkKbps)} `), row);
  }
  assert.doesNotMatch(renderRunReport(makeResult('static')), /Per-peer totals/);
});

test('a CPU-limited run says so in its notes, a run without CPU limitation does not', () => {
  const result = makeResult('static');
  assert.doesNotMatch(renderRunReport(result), /CPU-limited:/);
  result.summary.cpuLimitation = { share: 0.45, byPeer: { p0: 0.9, p1: 0 }, limited: true, thresholdShare: 0.2, seconds: [12, 13] };
  assert.match(text(renderRunReport(result)), /CPU-limited: in 45\.0 % of the measured seconds \(over 20\.0 %\)/);
});

test('multi-party peers get an uplink vs downlink panel summed over their connections; two-party peers do not', () => {
  const panelIds = (result) => buildRunCharts(normalizeResult(result)).sections.flatMap((s) => s.panels.map((p) => p.id));
  const large = makeResult('large');
  const panel = buildRunCharts(normalizeResult(large)).sections[0].panels[0];
  assert.equal(panel.id, 'p0-uplink-downlink');
  const at = (series, t) => series.y[series.x.indexOf(t)];
  const sentAt60 = large.timeline.filter((e) => e.peer === 'p0' && Math.round(e.t) === 60)
    .reduce((sum, e) => sum + (e.video?.sendKbps ?? 0) + (e.audio?.sendKbps ?? 0), 0);
  assert.ok(Math.abs(at(panel.series[0], 60) - sentAt60) < 0.01, `uplink at 60 s: ${at(panel.series[0], 60)} vs ${sentAt60}`);
  assert.ok(panelIds(large).includes('p3-uplink-downlink'));
  assert.ok(!panelIds(makeResult('static')).some((id) => id.endsWith('uplink-downlink')));
});

test('a saturated host is noted in the report', () => {
  const result = makeResult('static');
  assert.doesNotMatch(renderRunReport(result), /Host saturated:/);
  result.resources = { rows: [], summary: {}, hostSaturation: { share: 0.5, saturated: true, thresholdPct: 180, cores: 2 } };
  assert.match(text(renderRunReport(result)), /Host saturated: in 50\.0 % of the measured seconds the browsers and the relay together used at least 180 % of CPU \(2 cores/);
});

test('a run whose relay fell behind its schedule says so in the report\'s notes, with its spans; one that kept up does not', () => {
  const result = makeResult('static');
  result.summary.emulatorBehind = { behind: false, seconds: 0, measuredSeconds: 60, spans: [], lateMaxMs: 0.6 };
  assert.doesNotMatch(renderRunReport(result), /Emulator fell behind/);
  const spans = [{ fromS: 11, toS: 13 }, { fromS: 40, toS: 41 }];
  result.summary.emulatorBehind = { behind: true, seconds: 3, measuredSeconds: 60, spans, lateMaxMs: 27.3 };
  result.network.emulator = 'relay';
  assert.match(text(renderRunReport(result)), /Emulator fell behind: in 3 of 60 s of the call \(0:11–0:13, 0:40–0:41\) the relay's datagrams left late beyond its limit at p99 \(relay: 1 ms native, 2 ms dgram\) \(the latest 27\.3 ms\)/);
  assert.doesNotMatch(text(renderRunReport(result)), /off the CPU/);
  result.summary.emulatorBehind = { behind: true, seconds: 3, measuredSeconds: 60, spans, lateMaxMs: 6.1, hostStallSeconds: 2 };
  assert.match(text(renderRunReport(result)), /In 2 of those seconds the host held the relay off the CPU as long \(other processes on its cores/);
  // A hand-edited result without spans still renders its note.
  result.summary.emulatorBehind = { behind: true, seconds: 2 };
  assert.match(text(renderRunReport(result)), /Emulator fell behind: in 2 of — s of the call \(\) the relay's/);
});

test("an SFU call shows Janus's view of each peer's legs beside the browser's uplink and downlink; a missing view is noted", () => {
  const result = makeResult('large');
  // Janus's readings: p0's publisher leg (audio + video in) and its subscriptions to p1 and p2 (out), once a second.
  const row = (t, feed, kind, direction, bitrateKbps) => ({ t, peer: 'p0', feed, role: feed === 'p0' ? 'publisher' : 'subscriber', kind, direction, bitrateKbps });
  result.sfu = {
    unavailable: null,
    rows: [1, 2, 3].flatMap((t) => [
      row(t + 0.02, 'p0', 'audio', 'fromPeer', 40), row(t + 0.02, 'p0', 'video', 'fromPeer', 1000 + t),
      row(t + 0.02, 'p1', 'video', 'toPeer', 900), row(t + 0.02, 'p2', 'video', 'toPeer', 800),
      { ...row(t + 0.02, 'p0', 'video', 'fromPeer', 5000), peer: 'p1' },
    ]),
  };
  const panel = buildRunCharts(normalizeResult(result)).sections[0].panels.find((p) => p.id === 'p0-uplink-downlink');
  const series = (label) => panel.series.find((s) => s.label === label);
  assert.deepEqual(series('uplink as Janus received it').y, [1041, 1042, 1043]);
  assert.deepEqual(series('downlink as Janus sent it').y, [1700, 1700, 1700]);
  assert.deepEqual(series('downlink as Janus sent it').x, [1.02, 2.02, 3.02]);
  assert.equal(panel.series.length, 4, "the browser's two lines and Janus's two");
  const p3 = buildRunCharts(normalizeResult(result)).sections.flatMap((s) => s.panels).find((p) => p.id === 'p3-uplink-downlink');
  assert.equal(p3.series.length, 2, 'a peer Janus has no readings of keeps the browser lines alone');
  assert.doesNotMatch(renderRunReport(result), /Janus's view missing/);
  result.sfu = { unavailable: 'the Admin API failed: HTTP 403', rows: [] };
  assert.match(text(renderRunReport(result)), /Janus's view missing: the Admin API failed: HTTP 403; the browsers' figures stand alone\./);
});

test("the report's header names the peers the scenario gave their own video preset", () => {
  const result = makeResult('large');
  const runMedia = { preset: '360p30', video: '/m/360.y4m', width: 640, height: 360, fps: 30 };
  result.environment.media = { ...runMedia, peers: { p0: runMedia, p1: runMedia, p2: { preset: '180p30', video: '/m/180.y4m', width: 320, height: 180, fps: 30 } } };
  assert.match(text(renderRunReport(result)), /Media 360p30, 640×360, 30 fps; p2: 180p30 /);
  result.environment.media = runMedia;
  assert.match(text(renderRunReport(result)), /Media 360p30, 640×360, 30 fps Host/);
});

test('an SFU call with simulcast draws each subscriber\'s received layers beside its downlink, with the switches and checks; one without has none', () => {
  const result = makeResult('large');
  const sizes = [{ layer: 0, rid: 'q', widthPx: 320, heightPx: 180 }, { layer: 1, rid: 'h', widthPx: 640, heightPx: 360 }];
  const received = (t, peer, feed, layer) => ({ t, peer, feed, layer, ...sizes[layer], fps: 30, kbps: 400 });
  result.layers = {
    publishers: { p0: { kind: 'simulcast', codec: 'vp8', scalabilityMode: null, temporalLayers: 3, inactiveRids: [], layers: sizes } },
    sent: [],
    received: [1, 2, 3, 4].flatMap((t) => ['p1', 'p2'].map((peer) => received(t, peer, 'p0', peer === 'p2' && t > 2 ? 0 : 1))),
    switches: [{ atS: 2.4, decidedAtS: 2, peer: 'p2', feed: 'p0', from: { spatial: 1, temporal: 2 }, to: { spatial: 0, temporal: 2 }, cause: 'loss <b>9 %</b>', budgetKbps: 300 }],
    downlinks: { p1: [{ atS: 0, rateKbps: null }], p2: [{ atS: 0, rateKbps: 2500 }, { atS: 2, rateKbps: 500 }] },
    checks: [{ check: 'followsDownlinkCap', peer: 'p2', passed: true, detail: 'down at 2 s (500 kbps): after 1 s' }],
    passed: true,
  };
  const html = renderRunReport(result);
  assert.match(html, /<nav class="toc">.*<a href="#layers">Received layers<\/a>/);
  assert.match(html, /<section class="charts block" id="layers">.*<canvas id="chart-layers-p1".*<canvas id="chart-layers-p2".*Layer switches the harness asked for \(1, 0:02–0:02\).*<h3>Layer checks<\/h3>.*<\/section>/s);
  assert.match(text(html), /followsDownlinkCap p2 passed down at 2 s \(500 kbps\): after 1 s/);
  assert.match(html, /loss &lt;b&gt;9 %&lt;\/b&gt;/);
  const panel = buildRunCharts(normalizeResult(result)).sections.find((s) => s.id === 'layers')?.panels.find((p) => p.id === 'layers-p2');
  // The capacity is network.configured's, as in the other panels: this fixture's p2.down is unlimited, whatever `layers` says.
  assert.deepEqual(panel?.series.map((s) => s.label), ['layer ← p0', 'switch asked ← p0']);
  assert.match(panel?.title ?? '', /\(unlimited\)$/);
  assert.deepEqual(panel?.series[0].y, [1, 1, 0, 0]);
  delete result.layers;
  assert.doesNotMatch(renderRunReport(result), /id="layers"|Layer checks|Received layers/);
});
