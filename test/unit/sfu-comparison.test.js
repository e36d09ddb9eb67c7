// SFUs side by side (report/sfu-comparison.js, render-sfu-comparison.js): per subscriber, seconds on each received
// layer, received layer changes, cap moves, freezes, glass-to-glass and VMAF, from result.json read as untrusted input.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compareSfus, differInSfu, sfuComparisonsOf, sfuOf, sfuRunFigures } from '../../orchestrator/report/sfu-comparison.js';
import { renderSfuSection } from '../../orchestrator/report/render-sfu-comparison.js';
import { renderCompareReport } from '../../orchestrator/report/render-compare.js';
import { renderSuitePage } from '../../orchestrator/suite/render-suite.js';
import { buildSuiteSummary } from '../../orchestrator/suite/summary.js';
import { DEFAULT_REGRESSION } from '../../orchestrator/suite/baseline.js';
import { makeResult } from '../fixtures/results/make-result.js';

const sizes = [{ layer: 0, rid: 'h', widthPx: 320, heightPx: 180 }, { layer: 1, rid: 'f', widthPx: 640, heightPx: 360 }];
const publisher = { kind: 'simulcast', codec: 'vp8', scalabilityMode: null, temporalLayers: 3, inactiveRids: [], layers: sizes };

/**
 * p2's received layers of p0 and p1 over 10 s (warm-up 2 s): p0 on L1 to 5 s, then L0; p1 on L1, no picture at 6 s,
 * L1 again at 7 s (no change), L0 from 8 s; p0 receives p1 on L1 throughout.
 * @param {string} sfu @param {Record<string, unknown>} [extra]
 */
function simulcastResult(sfu, extra = {}) {
  /** @type {Array<[number, string, number|null]>} */
  const p2 = [];
  for (let t = 1; t <= 10; t += 1) {
    p2.push([t, 'p0', t <= 5 ? 1 : 0]);
    p2.push([t, 'p1', t === 6 ? null : t < 8 ? 1 : 0]);
  }
  const received = [
    ...p2.map(([t, feed, layer]) => ({ t, peer: 'p2', feed, layer, widthPx: null, heightPx: null, fps: layer === null ? 0 : 30, kbps: 300 })),
    ...Array.from({ length: 10 }, (_, i) => ({ t: i + 1, peer: 'p0', feed: 'p1', layer: 1, widthPx: 640, heightPx: 360, fps: 30, kbps: 900 })),
  ];
  const moves = [
    { atS: 4, rateKbps: 300, direction: 'down', fromLevel: 2, targetLevel: null, reachedAtS: 6, afterS: 2 },
    { atS: 9, rateKbps: 2500, direction: 'up', fromLevel: 0, targetLevel: 2, reachedAtS: null, afterS: null },
  ];
  return {
    status: 'passed',
    scenario: { name: 'sfu-simulcast-3', durationS: 10, warmupS: 2 },
    environment: { sfu: { name: sfu, version: '1.0' } },
    network: { emulator: 'netem' },
    layers: {
      publishers: { p0: publisher, p1: publisher },
      received,
      switches: [],
      downlinks: {
        p2: [{ atS: 0, rateKbps: 2500 }, { atS: 4, rateKbps: 300 }, { atS: 9, rateKbps: 2500 }], p0: [{ atS: 0, rateKbps: null }],
      },
      checks: [{ check: 'followsDownlinkCap', peer: 'p2', passed: false, detail: '', moves }],
    },
    summary: {
      viewer: {
        streams: {
          'p0->p2': { glassToGlassMs: { median: 150, p95: 400 }, freezes: { count: 2, totalMs: 700 }, quality: { vmaf: { mean: 70.5 } } },
          'p1->p2': { glassToGlassMs: { median: 160, p95: 300 }, freezes: { count: 1, totalMs: 250 }, quality: { vmaf: null } },
          'p1->p0': { glassToGlassMs: { median: 60, p95: 90 }, freezes: { count: 0, totalMs: 0 } },
        },
      },
    },
    ...extra,
  };
}

test('a subscriber\'s figures: seconds on each layer averaged over its feeds, each received change, cap moves, freezes, delay, VMAF', () => {
  const run = sfuRunFigures(simulcastResult('janus'), { label: 'run 1', href: 'a/report.html' });
  assert.deepEqual([run.sfu, run.sfuVersion, run.emulator, run.scenario, run.status], ['janus', '1.0', 'netem', 'sfu-simulcast-3', 'passed']);
  assert.deepEqual(run.subscribers.map((s) => s.peer), ['p0', 'p2']);
  const p2 = run.subscribers[1];
  assert.ok(p2.received);
  // Window (2, 10]: p0 on L1 at 3-5 (3 s), L0 at 6-10 (5 s); p1 on L1 at 3-5 and 7 (4 s), none at 6, L0 at 8-10 (3 s).
  assert.deepEqual(p2.received.layers, [
    { layer: 0, label: 'L0 · 180p', seconds: 4, share: 0.5 },
    { layer: 1, label: 'L1 · 360p', seconds: 3.5, share: 0.438 },
  ]);
  assert.equal(p2.received.noPictureS, 0.5);
  assert.deepEqual(p2.received.feeds, ['p0', 'p1']);
  // A second without a picture is no change: p1's L1 → (none) → L1 is none, its L1 → L0 at 8 s is one.
  assert.deepEqual(p2.received.switches, [{ atS: 6, feed: 'p0', from: 1, to: 0 }, { atS: 8, feed: 'p1', from: 1, to: 0 }]);
  assert.deepEqual(p2.received.capMoves, [
    { atS: 4, rateKbps: 300, direction: 'down', fromLevel: 2, afterS: 2 }, { atS: 9, rateKbps: 2500, direction: 'up', fromLevel: 0, afterS: null },
  ]);
  assert.deepEqual(p2.freezes, { count: 3, totalMs: 950 });
  assert.deepEqual(p2.glassToGlassMs, [{ feed: 'p0', median: 150, p95: 400 }, { feed: 'p1', median: 160, p95: 300 }]);
  assert.deepEqual(p2.vmaf, [{ feed: 'p0', mean: 70.5 }], 'p1 → p2 has no VMAF: not listed');
  // p0 has one feed on L1 throughout and an open downlink: no cap move, no change.
  const p0 = run.subscribers[0];
  assert.deepEqual(p0.received?.layers.map((l) => [l.label, l.seconds, l.share]), [['L0 · 180p', 0, 0], ['L1 · 360p', 8, 1]]);
  assert.deepEqual([p0.received?.switches, p0.received?.capMoves, p0.vmaf], [[], [], null]);
});

test('a result without layers or viewer figures, or with hostile ones, is "not measured", never an error', () => {
  const bare = sfuRunFigures({}, { label: 'bare' });
  assert.deepEqual([bare.sfu, bare.scenario, bare.status, bare.subscribers], [null, 'unnamed', 'unknown', []]);
  for (const hostile of [null, 7, 'x', [], { layers: 'x', summary: { viewer: { streams: [] } } }]) {
    assert.deepEqual(sfuRunFigures(hostile, { label: 'h' }).subscribers, []);
  }
  const noLayers = sfuRunFigures(simulcastResult('livekit', { layers: null }), { label: 'run 2' });
  assert.deepEqual(noLayers.subscribers.map((s) => [s.peer, s.received, s.freezes?.count]), [['p0', null, 0], ['p2', null, 3]]);
  const noViewer = sfuRunFigures(simulcastResult('livekit', { summary: null }), { label: 'run 3' });
  assert.deepEqual(noViewer.subscribers.map((s) => [s.peer, Boolean(s.received), s.freezes, s.glassToGlassMs, s.vmaf]),
    [['p0', true, null, null, null], ['p2', true, null, null, null]]);
  const garbage = simulcastResult('livekit');
  garbage.layers.received.push(/** @type {any} any: hostile rows */ (null), /** @type {any} any: hostile rows */ ({ t: 'x', peer: 'p2', feed: 'p0', layer: 1 }),
    { t: 4, peer: 'p2', feed: 'p0', layer: /** @type {any} any: a layer out of range */ (99), widthPx: null, heightPx: null, fps: 30, kbps: 1 });
  garbage.layers.checks.push(/** @type {any} any: a hostile check */ ({ check: 'followsDownlinkCap', peer: 'p0', moves: [null, { atS: 'soon' }, { atS: 3, direction: '<b>' }] }));
  Object.assign(garbage.summary.viewer.streams, { nonsense: { freezes: { count: 5 } }, '->p2': {}, 'p9->p2': { freezes: { count: 'many' }, glassToGlassMs: 'slow' } });
  const figures = sfuRunFigures(garbage, { label: 'g' });
  const p2 = figures.subscribers.find((s) => s.peer === 'p2');
  assert.deepEqual(p2?.freezes, { count: 3, totalMs: 950 }, 'counts that are not numbers are left out');
  assert.equal(p2?.received?.layers.reduce((sum, l) => sum + l.seconds, 0), 7.5, 'an out-of-range layer is no picture');
  assert.deepEqual(figures.subscribers.find((s) => s.peer === 'p0')?.received?.capMoves, [{ atS: 3, rateKbps: null, direction: 'down', fromLevel: null, afterS: null }]);
  const html = renderSfuSection([compareSfus([figures, noLayers, noViewer])]);
  assert.match(html, /<tr data-row="layer-1"><th scope="row">On L1 · 360p<\/th>(<td data-sfu="livekit">[^<]+ s <span class="note">\([^)]+\)<\/span><\/td>){1}<td data-sfu="livekit"><span class="note">not measured<\/span><\/td>/);
});

test('runs are compared when they went through different SFUs: one scenario per comparison, columns grouped by SFU', () => {
  assert.equal(sfuOf(simulcastResult('janus')), 'janus');
  assert.equal(sfuOf({ environment: { sfu: { name: '' } } }), null);
  assert.equal(differInSfu([simulcastResult('janus'), simulcastResult('janus')]), false);
  assert.equal(differInSfu([simulcastResult('janus'), simulcastResult('livekit'), {}]), true);
  const runs = ['janus', 'livekit', 'janus'].map((sfu, i) => sfuRunFigures(simulcastResult(sfu), { label: `run ${i + 1}` }));
  const other = sfuRunFigures({ ...simulcastResult('janus'), scenario: { name: 'sfu-3', durationS: 10, warmupS: 2 } }, { label: 'sfu-3' });
  const comparisons = sfuComparisonsOf([...runs, other]);
  assert.deepEqual(comparisons.map((c) => [c.scenario, c.sfus, c.peers, c.runs.map((r) => r.label)]),
    [['sfu-simulcast-3', ['janus', 'livekit'], ['p0', 'p2'], ['run 1', 'run 3', 'run 2']]], 'sfu-3 ran through one SFU only');
  assert.equal(renderSfuSection([]), '');
});

test('the section: a table per subscriber with a column per run, values escaped, a missing figure "not measured"', () => {
  const hostile = simulcastResult('<img src=x>');
  const runs = [sfuRunFigures(simulcastResult('janus'), { label: 'run 1', href: 'j/report.html' }), sfuRunFigures(hostile, { label: 'run <2>' })];
  const html = renderSfuSection([compareSfus(runs)], { titled: true });
  assert.doesNotMatch(html, /<img|run <2>/);
  assert.match(html, /<h3 class="scenario">sfu-simulcast-3 <small class="note">janus · &lt;img src=x&gt;<\/small><\/h3>/);
  assert.match(html, /<h4 data-peer="p2">p2 <small class="note">downlink 2500 kbps from 0\.0 s → 300 kbps from 4\.0 s → 2500 kbps from 9\.0 s<\/small><\/h4>/);
  assert.match(html, /<tr data-row="layer-0"><th scope="row">On L0 · 180p<\/th><td data-sfu="janus">4\.0 s <span class="note">\(50 %\)<\/span><\/td>/);
  assert.match(html, /<td data-sfu="janus">2: 6\.0 s ← p0 L1→L0; 8\.0 s ← p1 L1→L0<\/td>/);
  assert.match(html, /down at 4\.0 s \(300 kbps\): <b>2\.0 s<\/b><br>up at 9\.0 s \(2500 kbps\): <b>no move<\/b>/);
  assert.match(html, /<a href="j\/report\.html">run 1<\/a>/);
  // p0 has no VMAF in either run.
  assert.match(html, /<tr data-row="vmaf"><th scope="row">VMAF mean<\/th><td data-sfu="janus"><span class="note">not measured<\/span><\/td>/);
});

test('the compare page sets runs through different SFUs side by side, and only those', () => {
  /** @param {string|null} sfu */
  const run = (sfu) => {
    const result = makeResult('static');
    const { layers, summary } = simulcastResult(sfu ?? '');
    return { ...result, environment: { ...result.environment, ...(sfu ? { sfu: { name: sfu, version: '1' } } : {}) }, layers, summary: { ...result.summary, ...summary } };
  };
  const page = (/** @type {Array<string|null>} */ sfus) => renderCompareReport(sfus.map((sfu, i) => ({ result: run(sfu), sourcePath: `r${i}/result.json` })));
  const both = page(['janus', 'livekit']);
  assert.match(both, /<section class="block" id="sfus"><h2>SFUs side by side<\/h2>/);
  assert.match(both, /<th scope="col" data-sfu="livekit">livekit/);
  assert.doesNotMatch(page(['janus', 'janus']), /id="sfus"/);
  assert.doesNotMatch(page([null, null]), /id="sfus"/);
});

test('the suite page shows the comparisons it is given; summary.json records each run\'s SFU', () => {
  const runs = ['janus', 'livekit'].map((sfu) => ({ scenario: `sfu-simulcast-3.${sfu}`, repetition: 1, dir: `sfu-simulcast-3.${sfu}/run-1`, hasReport: true,
    result: simulcastResult(sfu) }));
  const summary = buildSuiteSummary({
    suite: { name: 's', description: 'd', file: 's.json', emulator: 'netem' }, regression: DEFAULT_REGRESSION, assertions: {}, assertionsFile: null,
    scenarios: runs.map((r) => r.scenario), runs, startedAt: 'a', endedAt: 'b',
  });
  assert.deepEqual(summary.runs.map((r) => r.sfu), ['janus', 'livekit']);
  const comparisons = sfuComparisonsOf(summary.runs.map((r, i) => sfuRunFigures(runs[i].result, { label: r.scenario, href: r.report })));
  assert.match(renderSuitePage(summary, { sfuComparisons: comparisons }), /<h2>SFUs side by side<\/h2>[\s\S]*<a href="sfu-simulcast-3\.livekit\/run-1\/report\.html">/);
  assert.doesNotMatch(renderSuitePage(summary), /SFUs side by side/);
});
