// The run report of a run with cross-traffic flows (issue 12): the stacked "Flows on the bottleneck" panels, the flow
// changes marked on every chart, and the one fairness table per bottleneck direction.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildRunCharts, markers } from '../../orchestrator/report/series.js';
import { stackedFlowSeries } from '../../orchestrator/report/network-series.js';
import { fairnessByLink, flowEvents } from '../../orchestrator/report/derived.js';
import { renderRunReport } from '../../orchestrator/report/render-run.js';
import { normalizeResult } from '../../orchestrator/report/result-file.js';
import { makeResult } from '../fixtures/results/make-result.js';

/** The JSON embedded for the dashboard script. @param {string} html */
const embedded = (html) => JSON.parse(/<script id="report-data" type="application\/json">(.*?)<\/script>/s.exec(html)[1]);

test('stacked series: one per flow on a common time axis, 0 where a flow has no rate, a gap where none has, first flow at the bottom', () => {
  const rows = [
    { t: 1, flow: 'b', rateKbps: 100 },
    { t: 2, flow: 'b', rateKbps: 110 }, { t: 2, flow: 'a', rateKbps: 500 },
    { t: 3, flow: 'a', rateKbps: 400 },
    // seconds 4 and 5: no flow reported
    { t: 6, flow: 'a', rateKbps: 300 }, { t: 6, flow: 'b', rateKbps: 200 }, { t: 6, flow: 'other', rateKbps: 999 },
  ];
  const series = stackedFlowSeries(rows, ['a', 'b'], (f) => (f === 'a' ? '#000001' : '#000002'));
  assert.deepEqual(series.map((s) => s.label), ['b', 'a'], 'b carried data first');
  assert.deepEqual(series[0].x, [1, 2, 3, 4, 6]);
  assert.deepEqual(series[0].y, [100, 110, 0, null, 200]);
  assert.deepEqual(series[1].x, [1, 2, 3, 4, 6]);
  assert.deepEqual(series[1].y, [0, 500, 400, null, 300]);
  assert.equal(series[1].color, '#000001');
});

test('when flows join, leave, pause and resume: nothing for the main call, which runs throughout', () => {
  /** @type {Parameters<typeof flowEvents>[0]} */
  const list = [
    { name: 'call', kind: 'call', main: true, startS: 0, stopS: 100, pauses: [] },
    { name: 'media-3', kind: 'call', startS: 0, stopS: 100, pauses: [{ atS: 40, durationS: 20 }] },
    { name: 'short', kind: 'tcp-short', startS: 30, stopS: 80 },
  ];
  assert.deepEqual(flowEvents(list, 100).map((e) => `${e.atS} ${e.flow} ${e.change}`), [
    '30 short joins', '40 media-3 pauses', '60 media-3 resumes', '80 short leaves',
  ]);
});

test('the flows section leads the report: stacked panels per direction with the configured capacity, and Jain per second', () => {
  const charts = buildRunCharts(normalizeResult(makeResult('flows')));
  const flows = charts.sections[0];
  assert.equal(flows.id, 'flows');
  assert.equal(flows.title, 'Flows on the bottleneck');
  assert.deepEqual(flows.panels.map((p) => p.id), [
    'flows-bottleneck_fwd-stacked', 'flows-bottleneck_fwd-jain', 'flows-bottleneck_back-stacked', 'flows-bottleneck_back-jain',
  ]);
  const fwd = flows.panels[0];
  assert.equal(fwd.stacked, true);
  assert.deepEqual(fwd.series.map((s) => s.label), ['call:fwd', 'call-2:fwd', 'call-3:fwd', 'tcp', 'configured capacity']);
  const [call, call2, call3, tcp, capacity] = fwd.series;
  for (const s of [call2, call3, tcp]) assert.deepEqual(s.x, call.x, 'one time axis for the stack');
  const at = (s, t) => s.y[s.x.indexOf(t)];
  const rowAt = (flow, t) => makeResult('flows').flows.rows.find((r) => r.flow === flow && r.t === t).rateKbps;
  assert.equal(call.color, flows.panels[2].series[0].color, "a call's two directions share its colour");
  assert.notEqual(call.color, call2.color);
  assert.equal(at(tcp, 100), 0, 'tcp has not started');
  assert.equal(at(tcp, 210), rowAt('tcp', 210));
  assert.equal(at(call3, 170), 0, 'call-3 is paused');
  assert.equal(at(call3, 130), rowAt('call-3:fwd', 130));
  assert.deepEqual([capacity.configured, capacity.x, capacity.y], [true, [0, 270, 300], [2000, 1500, 1500]]);
  assert.deepEqual(flows.panels[2].series.map((s) => s.label), ['call:back', 'call-2:back', 'call-3:back', 'configured capacity'], 'tcp is forward only');
  // Jain's index per second is lib/cross/fairness.js's series over the competing flows: at 3:30 over all four.
  const jain = flows.panels[1].series[0];
  const rates = ['call:fwd', 'call-2:fwd', 'call-3:fwd', 'tcp'].map((f) => rowAt(f, 210));
  const expected = rates.reduce((a, b) => a + b) ** 2 / (4 * rates.reduce((a, b) => a + b * b, 0));
  assert.ok(Math.abs(at(jain, 210) - expected) < 0.01, `${at(jain, 210)} vs ${expected}`);
  // The route-based Jain panel would count the calls only: a run with flows has it in the flows section.
  assert.ok(!charts.sections.flatMap((s) => s.panels).some((p) => p.id === 'net-jain'));
});

test('the backward direction has a panel only when two or more flows cross it', () => {
  const r = makeResult('flows');
  for (const entry of r.flows.list) if (entry.name !== 'call') entry.series = entry.series.filter((s) => !s.name.endsWith(':back'));
  const ids = buildRunCharts(normalizeResult(r)).sections[0].panels.map((p) => p.id);
  assert.deepEqual(ids, ['flows-bottleneck_fwd-stacked', 'flows-bottleneck_fwd-jain']);
});

test('flow changes are markers of every chart, labelled, beside the schedule change', () => {
  const r = normalizeResult(makeResult('flows'));
  const marks = markers(r, 300);
  assert.deepEqual(marks.filter((m) => m.kind === 'flow').map((m) => `${m.tS} ${m.label}`), [
    '60 call-2 joins', '120 call-3 joins', '160 call-3 pauses', '180 call-3 resumes', '200 tcp joins', '240 call-3 leaves', '260 tcp leaves',
  ]);
  assert.deepEqual(marks.filter((m) => m.kind === 'change').map((m) => m.tS), [270]);
  // Two changes at one time share one marker.
  r.flows.list.find((f) => f.name === 'tcp').startS = 240;
  assert.equal(markers(r, 300).find((m) => m.tS === 240).label, 'call-3 leaves, tcp joins');
  // The markers belong to the chart data as a whole, which the dashboard draws on every panel, the peers' included.
  const html = renderRunReport(makeResult('flows'));
  const data = embedded(html);
  assert.equal(data.markers.filter((m) => m.kind === 'flow').length, 7);
  assert.ok(data.sections.some((s) => s.id === 'peer-p0' && s.panels.length > 0));
  assert.match(html, /<i class="k-flow"><\/i>flow joins, leaves, pauses or resumes/);
  assert.doesNotMatch(renderRunReport(makeResult('static')), /<i class="k-flow">/, 'no flow key without flows');
});

test('the fairness table: per direction, phases with each flow\'s rate and share, utilisation, Jain and convergence; the run against the reference', () => {
  const result = makeResult('flows');
  const html = renderRunReport(result);
  assert.equal(html.match(/<h3>Fairness on shared links<\/h3>/g).length, 1, 'one fairness table');
  const fwd = result.summary.fairness.links['bottleneck.fwd'];
  const overview = /<table class="summary fairness-run">(.*?)<\/table>/s.exec(html)[1];
  const linkRow = /<tr data-link="bottleneck.fwd">(.*?)<\/tr>/s.exec(overview)[1];
  assert.match(linkRow, /\(call:fwd, call-2:fwd, call-3:fwd, tcp\)/);
  const cells = [...linkRow.matchAll(/<td>(.*?)<\/td>/g)].map((m) => m[1]);
  assert.deepEqual(cells, [fwd.jainIndex.toFixed(3), fwd.jainIndexPerSecond.toFixed(3), `${(fwd.utilization * 100).toFixed(1)} %`]);
  assert.match(overview, new RegExp(`<tr class="run"><th scope="row">Run <span class="note">\\(mean over the links\\)</span></th><td class="avg">${result.summary.jainIndex.toFixed(3)}</td>`));
  assert.match(overview, /<tr class="ref"><th scope="row">Reference <span class="note">J16 §8-4 \(fixture\)<\/span><\/th><td class="ref">0\.980<\/td><td class="ref">—<\/td>/);
  assert.match(overview, /<tr class="diff">.*?<td class="diff">\+0\.\d{3} \(\+\d\.\d %\)<\/td><td class="diff">—<\/td>/s);

  const table = /<table class="summary phases" data-link="bottleneck.fwd">(.*?)<\/table>/s.exec(html)[1];
  const head = [...table.matchAll(/<th scope="col">(.*?)<\/th>/g)].map((m) => m[1]);
  assert.deepEqual(head, ['Phase', 'Change', 'Converged after', 'call:fwd (kbps)', 'call-2:fwd (kbps)', 'call-3:fwd (kbps)', 'tcp (kbps)', 'Utilisation', 'Jain&#39;s index']);
  const rows = [...table.matchAll(/<tr><td>(.*?)<\/tr>/gs)].map((m) => m[1]);
  assert.equal(rows.length, fwd.phases.length);
  assert.match(rows[0], /^0:10–1:00<\/td><td class="what">start<\/td><td>—<\/td><td>\d+ <span class="note">\(\d+\.\d %\)<\/span><\/td>(<td class="inactive"><\/td>){3}/);
  const tcpJoins = fwd.phases.findIndex((p) => p.fromS === 200);
  const p = fwd.phases[tcpJoins];
  assert.equal(fwd.convergence.find((c) => c.atS === 200).convergenceS, 0, 'the fixture converges at once when tcp joins');
  assert.equal(rows[tcpJoins], `3:20–4:00</td><td class="what">tcp joins</td><td>0 s</td>`
    + `${p.flows.map((f) => `<td>${Math.round(p.meanKbps[f])} <span class="note">(${(p.shareOfCapacity[f] * 100).toFixed(1)} %)</span></td>`).join('')}`
    + `<td>${(p.utilization * 100).toFixed(1)} %</td><td class="avg">${p.jainIndex.toFixed(3)}</td>`);
  assert.match(html, /<table class="summary phases" data-link="bottleneck.back">/);
  // Jain's index stays below 0.9 once call-3 leaves tcp with two calls: not converged.
  assert.equal(fwd.convergence.find((c) => c.atS === 240).convergenceS, null);
  assert.match(table, /<td>4:00–4:20<\/td><td class="what">call-3:fwd leaves<\/td><td><span class="note">not converged<\/span><\/td>/);
  // The derived table's run figures are the summary's, over the flows, not recomputed over the calls' routes.
  assert.match(/<tr data-metric="jainIndex">(.*?)<\/tr>/s.exec(html)[1], new RegExp(`<td class="avg">${result.summary.jainIndex.toFixed(3)}</td><td class="ref">0\\.980</td>`));
});

test('each join or leave belongs to the phase holding the first second after it; one in no phase is listed, not lost', () => {
  const phase = (fromS, toS, flows) => ({ fromS, toS, seconds: toS - fromS, flows, meanKbps: {}, shareOfCapacity: {}, totalKbps: null,
    capacityKbps: 2000, utilization: 0.9, jainIndex: flows.length >= 2 ? 0.9 : null });
  /** @type {Record<string, import('../../orchestrator/lib/cross/fairness.js').LinkFairness>} */
  const links = {
    'bottleneck.fwd': {
      flows: ['call:fwd', 'tcp'], phases: [phase(0, 30, ['call:fwd']), phase(30, 60, ['call:fwd', 'tcp'])],
      jainIndex: 0.9, jainIndexPerSecond: 0.85, series: [], utilization: 0.9,
      convergence: [
        { atS: 30, change: 'join', flow: 'tcp', convergenceS: null }, { atS: 29.7, change: 'join', flow: 'early', convergenceS: 2 },
        { atS: 60, change: 'leave', flow: 'tcp', convergenceS: 3 },
      ],
    },
  };
  const { byFlows, links: [link] } = fairnessByLink({ links }, []);
  assert.equal(byFlows, true);
  assert.deepEqual(link.flows, ['call:fwd', 'tcp']);
  // 29.7 + 0.5 rounds up to second 31, which (30, 60] holds; after 60 there is no phase.
  assert.deepEqual(link.phases.map((p) => p.changes.map((c) => c.flow)), [[], ['tcp', 'early']]);
  assert.deepEqual(link.unmatched.map((c) => c.flow), ['tcp']);
  const groups = [{ links: ['a', 'b'], flows: ['x', 'y'], phases: [{ fromS: 1, toS: 9, seconds: 9, flows: ['x'], meanKbps: { x: 1 }, jainIndex: null }],
    jainIndex: null, series: [], jainIndexPerSecond: null, byActiveFlows: {}, flowMeansKbps: {} }];
  assert.deepEqual(fairnessByLink({ links: {} }, groups), {
    byFlows: false, links: [{ link: 'a, b', flows: ['x', 'y'], phases: [], jainIndex: null, jainIndexPerSecond: null, utilization: null, unmatched: [] }],
  }, 'without flows: the routes\' groups, their phases of one flow left out');
});

test('with flows, the run\'s utilisation is the bottleneck\'s (all flows over its capacity), not a peer\'s share', () => {
  const { summary } = makeResult('flows');
  const links = Object.values(summary.fairness.links);
  const bottleneck = links.reduce((sum, link) => sum + link.utilization, 0) / links.length;
  assert.ok(bottleneck > 0.3, `bottleneck utilisation ${bottleneck}`);
  assert.equal(summary.utilization.overall, bottleneck);
  // A peer's own share of a shared bottleneck is not the run's utilisation.
  assert.ok(summary.utilization.p0 < bottleneck, `p0 ${summary.utilization.p0} vs ${bottleneck}`);
});

test('a kernel flow\'s own drops and delay per second beside the link\'s, per direction its tunnel crosses; older results have none', () => {
  const r = makeResult('flows');
  const seconds = [201, 202, 203];
  r.network.truth = seconds.map((t, i) => ({ t, link: 'bottleneck.fwd', dropsQueue: 3 + i, dropsLoss: 1, oneWayDelayMsP50: 180 + i }));
  r.flows.truth = [
    ...seconds.map((t, i) => ({ t, flow: 'tcp', direction: 'forward', bytesOut: 1000, dropsQueue: 2 + i, dropsLoss: 0, oneWayDelayMsP50: 181 + i })),
    // The ACKs go back: not a series of the forward link's panels.
    ...seconds.map((t) => ({ t, flow: 'tcp', direction: 'back', bytesOut: 50, dropsQueue: 0, dropsLoss: 0, oneWayDelayMsP50: 1 })),
  ];
  r.flows.truth[1].dropsLoss = 'many';
  const panels = buildRunCharts(normalizeResult(r)).sections[0].panels;
  assert.deepEqual(panels.map((p) => p.id).slice(0, 4), [
    'flows-bottleneck_fwd-stacked', 'flows-bottleneck_fwd-jain', 'flows-bottleneck_fwd-drops', 'flows-bottleneck_fwd-delay',
  ]);
  const [drops, delay] = [panels[2], panels[3]];
  assert.deepEqual(drops.series.map((s) => s.label), ['bottleneck.fwd, every flow', 'tcp']);
  assert.deepEqual(drops.series.map((s) => s.y), [[4, 5, 6], [2, null, 4]], 'a value that is not a number is a gap');
  assert.deepEqual(delay.series.map((s) => [s.label, s.y]), [['bottleneck.fwd, every flow', [180, 181, 182]], ['tcp (its route)', [181, 182, 183]]]);
  // Its ACKs cross the back link, under that link's panels.
  const backDelay = panels.find((p) => p.id === 'flows-bottleneck_back-delay');
  assert.deepEqual(backDelay?.series.map((s) => [s.label, s.y]), [['tcp (its route)', [1, 1, 1]]], 'the back link has no truth rows here');
  // A result made before the relay counted drops per tunnel: its rows carry bytes only.
  r.flows.truth = r.flows.truth.map(({ t, flow, direction, bytesOut }) => ({ t, flow, direction, bytesOut }));
  assert.deepEqual(buildRunCharts(normalizeResult(r)).sections[0].panels.map((p) => p.id).filter((id) => /drops|delay/.test(id)), []);
});
