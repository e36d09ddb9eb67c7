// The run report's simulcast/SVC charts (report/layer-series.js) and tables (report/render-layers.js): per subscriber,
// each feed's received layer over time with the harness's switches and the downlink capacity; malformed rows dropped.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  MAX_LAYERS, buildLayersSection, downlinkSteps, feedSeries, layerCategories, layersOf, receivedTip, subscriberPanel, switchTip,
} from '../../orchestrator/report/layer-series.js';
import { layerTables } from '../../orchestrator/report/render-layers.js';
import { buildRunCharts } from '../../orchestrator/report/series.js';
import { linkHistories } from '../../orchestrator/report/network.js';
import { normalizeResult } from '../../orchestrator/report/result-file.js';

const sizes = [{ layer: 0, rid: 'q', widthPx: 320, heightPx: 180 }, { layer: 1, rid: 'h', widthPx: 640, heightPx: 360 }];
const publisher = { kind: 'simulcast', codec: 'vp8', scalabilityMode: null, temporalLayers: 3, inactiveRids: [], layers: sizes };
const row = (t, peer, feed, layer, kbps = 400) => ({
  t, peer, feed, layer, widthPx: layer === null ? null : sizes[layer].widthPx, heightPx: layer === null ? null : sizes[layer].heightPx,
  fps: 30, kbps,
});

/** p2 receives p0 and p1 (on layer 1, then 0 after its downlink cap at 10 s), p0 receives p1; the harness switched p2's p0 at 11.2 s. */
function layers() {
  return {
    publishers: { p0: publisher, p1: publisher },
    sent: [],
    received: [1, 2, 3, 10, 11, 12, 13].flatMap((t) => [
      row(t, 'p2', 'p0', t < 12 ? 1 : 0), row(t, 'p2', 'p1', t < 13 ? 1 : 0), row(t, 'p0', 'p1', 1)]),
    switches: [{ atS: 11.2, decidedAtS: 11, peer: 'p2', feed: 'p0', from: { spatial: 1, temporal: 2 }, to: { spatial: 0, temporal: 2 }, cause: 'loss 23.0 % > 5 %', budgetKbps: 450 }],
    downlinks: { p0: [{ atS: 0, rateKbps: null }], p2: [{ atS: 0, rateKbps: 2500 }, { atS: 10, rateKbps: 500 }] },
    checks: [
      { check: 'layersSent', peer: 'p0', passed: true, detail: '2 layers sent at their resolutions' },
      { check: 'followsDownlinkCap', peer: 'p2', passed: false, detail: 'down at 10 s (500 kbps): after 2 s', moves: [] },
    ],
    passed: false,
  };
}

const span = { startS: 0, endS: 20 };
const colorOf = (/** @type {string} */ peer) => ({ p0: '#0072B2', p1: '#D55E00' })[peer] ?? '#009E73';

test('layersOf keeps well-formed rows only: names, finite times, small integer layers; peer names never reach a prototype', () => {
  assert.equal(layersOf({}), null);
  assert.equal(layersOf({ layers: null }), null);
  assert.equal(layersOf({ layers: [1] }), null);
  // Rows a hand-edited or hostile result.json may hold, whatever the harness writes.
  const raw = /** @type {{ received: unknown[], switches: unknown[], checks: unknown[] }} */ (layers());
  raw.received.push({ t: 'x', peer: 'p2', feed: 'p0', layer: 1 }, { t: 4, peer: '', feed: 'p0', layer: 1 }, 7,
    { t: 5, peer: 'p2', feed: 'p0', layer: 1e9, kbps: 'a lot' }, { t: 6, peer: 'p2', feed: 'p0', layer: 0.5 });
  raw.switches.push({ atS: null, peer: 'p2', feed: 'p0' }, { atS: 3, peer: 'p2', feed: 'p1', from: 'up', to: { spatial: -1, temporal: 2 } });
  raw.checks.push({ check: 7, peer: null, passed: 'yes', detail: { html: '<b>' } });
  const l = /** @type {NonNullable<ReturnType<typeof layersOf>>} */ (layersOf({ layers: raw }));
  assert.equal(l.received.length, 21 + 2, 'the rows without a time or a peer are dropped');
  assert.deepEqual(l.received.slice(-2).map((r) => [r.layer, r.kbps]), [[null, null], [null, null]], 'an absurd or fractional layer is no layer');
  assert.deepEqual(l.switches.map((s) => s.atS), [3, 11.2], 'sorted by time, the one without a time dropped');
  assert.deepEqual([l.switches[0].from, l.switches[0].to], [null, { spatial: null, temporal: 2 }]);
  assert.deepEqual(l.checks.at(-1), { check: '', peer: '', passed: null, detail: '' });
  assert.equal(l.passed, false);
  const hostile = layersOf({ layers: { publishers: { constructor: publisher, __proto__: 5 }, received: [row(1, 'p2', 'constructor', 1)], downlinks: { toString: 1 } } });
  assert.ok(hostile?.publishers instanceof Map && hostile.publishers.get('constructor')?.layers.length === 2);
  assert.equal(hostile?.publishers.get('toString'), undefined);
  assert.deepEqual(hostile?.downlinks.get('toString'), []);
});

test('the layer axis names each layer by its height when every feed has it at one height', () => {
  const l = /** @type {NonNullable<ReturnType<typeof layersOf>>} */ (layersOf({ layers: layers() }));
  const p = l.publishers.get('p0');
  assert.deepEqual(layerCategories([p, p], 2), ['L0 · 180p', 'L1 · 360p']);
  assert.deepEqual(layerCategories([p, p], 3), ['L0 · 180p', 'L1 · 360p', 'L2']);
  const other = { kind: 'simulcast', layers: [{ layer: 0, widthPx: 640, heightPx: 360 }] };
  assert.deepEqual(layerCategories([p, other], 2), ['L0', 'L1'], 'feeds of different sizes: the index alone');
  assert.deepEqual(layerCategories([undefined], 1), ['L0'], 'a feed without a publisher entry');
});

test('a subscriber\'s downlink capacity comes from its <peer>.down link, else from the layers section', () => {
  const l = /** @type {NonNullable<ReturnType<typeof layersOf>>} */ (layersOf({ layers: layers() }));
  const base = { rateKbps: 2500, queuePackets: 50, oneWayDelayMs: 0, lossPct: 0 };
  const histories = linkHistories({ links: { 'p2.down': base }, configured: [{ t: 10, link: 'p2.down', ...base, rateKbps: 300 }] });
  assert.deepEqual(downlinkSteps(l, histories, 'p2', span), [[0, 2500], [10, 300], [20, 300]], 'network.configured wins');
  assert.deepEqual(downlinkSteps(l, new Map(), 'p2', span), [[0, 2500], [10, 500], [20, 500]]);
  assert.equal(downlinkSteps(l, new Map(), 'p0', span), null, 'unlimited throughout');
  assert.equal(downlinkSteps(l, new Map(), 'p9', span), null, 'no entry');
  l.downlinks.set('p3', [{ atS: 30, rateKbps: 100 }, { atS: 0, rateKbps: null }, { atS: 5, rateKbps: 800 }]);
  assert.deepEqual(downlinkSteps(l, new Map(), 'p3', span), [[0, null], [5, 800], [20, 100]], 'sorted, clamped to the span');
});

test('a feed\'s line steps with its received layer, breaks where seconds or pictures are missing, and carries tips', () => {
  const rows = [row(1, 'p2', 'p0', 1, 498.1), row(2, 'p2', 'p0', 1), row(3, 'p2', 'p0', null), row(6, 'p2', 'p0', 0, 151.4)];
  const switches = [{ atS: 5.456, decidedAtS: 5, peer: 'p2', feed: 'p0', from: { spatial: 1, temporal: 2 }, to: { spatial: 0, temporal: 2 }, cause: 'loss', budgetKbps: 300 },
    { atS: 7, decidedAtS: 7, peer: 'p2', feed: 'p0', from: null, to: { spatial: null, temporal: 1 }, cause: '', budgetKbps: null }];
  const [line, marks, ...rest] = feedSeries(rows, switches, { feed: 'p0', color: '#0072B2', offset: 0.05 });
  assert.equal(rest.length, 0);
  assert.deepEqual(line.x, [1, 2, 3, 4, 6]);
  assert.deepEqual(line.y, [1.05, 1.05, null, null, 0.05]);
  assert.equal(line.stepped, true);
  assert.deepEqual(line.tips, ['layer 1 · 640×360 · 498 kbps · 30.0 fps', 'layer 1 · 640×360 · 400 kbps · 30.0 fps', 'no picture · 400 kbps · 30.0 fps', '', 'layer 0 · 320×180 · 151 kbps · 30.0 fps']);
  assert.deepEqual({ points: marks.points, x: marks.x, y: marks.y, label: marks.label }, { points: true, x: [5.46], y: [0.05], label: 'switch asked ← p0' },
    'a switch without a spatial layer asked for is no marker');
  assert.equal(marks.tips?.[0], 'S1 T2 → S0 T2 (loss, budget 300 kbps)');
  assert.equal(feedSeries(rows, [], { feed: 'p0', color: '#000000', offset: 0 }).length, 1, 'no switches, no markers');
  assert.equal(switchTip({ ...switches[1], to: { spatial: 1, temporal: null } }), '? → S1 T?');
  assert.equal(receivedTip({ ...rows[0], widthPx: null, fps: null, kbps: null }), 'layer 1');
});

test('a subscriber\'s panel: one line per feed set apart on the layer axis, its switches, and its capacity on the second axis', () => {
  const l = /** @type {NonNullable<ReturnType<typeof layersOf>>} */ (layersOf({ layers: layers() }));
  const panel = subscriberPanel(l, 'p2', { span, histories: new Map(), colorOf });
  assert.equal(panel.id, 'layers-p2');
  assert.deepEqual(panel.yCategories, ['L0 · 180p', 'L1 · 360p']);
  assert.deepEqual(panel.series.map((s) => s.label), ['layer ← p0', 'switch asked ← p0', 'layer ← p1', 'downlink capacity (p2.down)']);
  assert.deepEqual(panel.series.map((s) => s.color), ['#0072B2', '#0072B2', '#D55E00', '#222222']);
  const [p0, , p1, capacity] = panel.series;
  assert.deepEqual(p0.y.filter((v) => v !== null), [0.95, 0.95, 0.95, 0.95, 0.95, -0.05, -0.05]);
  assert.deepEqual(p1.y.filter((v) => v !== null), [1.05, 1.05, 1.05, 1.05, 1.05, 1.05, 0.05]);
  assert.deepEqual([capacity.axis, capacity.configured, capacity.stepped, capacity.y], ['y2', true, true, [2500, 500, 500]]);
  assert.match(panel.title, /^p2: .*downlink capacity$/);
  const open = subscriberPanel(l, 'p0', { span, histories: new Map(), colorOf });
  assert.match(open.title, /\(unlimited\)$/);
  assert.deepEqual(open.series.map((s) => [s.label, s.y[0]]), [['layer ← p1', 1]], 'one feed sits on its layer, no capacity line');
  l.received.push({ ...l.received[0], layer: MAX_LAYERS - 1 });
  assert.equal(subscriberPanel(l, 'p2', { span, histories: new Map(), colorOf }).yCategories?.length, MAX_LAYERS, 'an axis for every layer seen');
});

test('the Received layers section: a panel per subscriber in the run\'s charts; none for a run without layers', () => {
  const result = normalizeResult({ schemaVersion: 1, scenario: { name: 'sfu', durationS: 20 }, timeline: [], network: {}, layers: layers() });
  const section = buildLayersSection(result, { span, histories: new Map(), colorOf });
  assert.deepEqual(section?.panels.map((p) => p.id), ['layers-p0', 'layers-p2']);
  assert.equal(buildRunCharts(result).sections[0]?.id, 'layers');
  const without = normalizeResult({ schemaVersion: 1, scenario: { name: 'sfu', durationS: 20 }, timeline: [], network: {} });
  assert.equal(buildLayersSection(without, { span, histories: new Map(), colorOf }), null);
  assert.ok(!buildRunCharts(without).sections.some((s) => s.id === 'layers'));
  assert.deepEqual(layerTables(without), {});
  const empty = buildLayersSection({ layers: { ...layers(), received: [] } }, { span, histories: new Map(), colorOf });
  assert.deepEqual(empty?.panels, [], 'a section without panels keeps its tables');
  assert.match(layerTables({ layers: { ...layers(), received: [] } }).layers, /No subscriber's received layer was recorded/);
});

test('the layer tables list the switches and the checks, escaping every value from the result', () => {
  const raw = layers();
  raw.switches[0].cause = '<img src=x onerror=alert(1)>';
  raw.checks[1].detail = '<script>alert(1)</script>';
  raw.checks[1].peer = 'p2"><b>';
  const html = layerTables({ layers: raw }).layers;
  assert.doesNotMatch(html, /<img|<script|"><b>/);
  assert.match(html, /&lt;img src=x onerror=alert\(1\)&gt;/);
  assert.match(html, /<td>11\.2 s<\/td><td>11\.0<\/td><td>p2<\/td><td>p0<\/td><td>1 \/ 2<\/td><td>0 \/ 2<\/td>.*<td>450<\/td>/);
  assert.match(html, /<tr data-check="followsDownlinkCap" data-peer="p2&quot;&gt;&lt;b&gt;">.*status-failed/);
  assert.match(html, /1 of 2 checks failed/);
  assert.match(html, /triangles are the layers the harness asked/);
  const quiet = layerTables({ layers: { ...layers(), switches: [], checks: [] } }).layers;
  assert.match(quiet, /No layer switch was asked for: the SFU chose the layers itself/);
  assert.match(quiet, /No layer check was recorded/);
  assert.doesNotMatch(quiet, /triangles/, 'no switches, no word of markers');
});
