import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildSummaryTable, buildDerived, runStatistics, MAIN_ROWS } from '../../orchestrator/report/summary-table.js';
import { normalizeResult } from '../../orchestrator/report/result-file.js';

/**
 * @typedef {import('../../orchestrator/report/summary-table.js').SummaryRow} SummaryRow
 * @typedef {import('../../orchestrator/report/summary-table.js').ResolutionRow} ResolutionRow
 */

const stat = (mean, sd = 1, n = 10) => ({ mean, sd, median: mean, p5: mean, p95: mean, n });
const base = { rateKbps: 1000, queuePackets: 50, queueMs: null, oneWayDelayMs: 0, jitterMs: 0, lossPct: 0, lossBurst: null };

function result({ summary, reference }) {
  const timeline = [];
  for (let t = 1; t <= 30; t += 1) {
    timeline.push({ t, peer: 'p0', remote: 'p1', video: { recvKbps: 800 }, audio: { recvKbps: 40 }, rttMs: 10 });
    timeline.push({ t, peer: 'p1', remote: 'p0', video: { recvKbps: t <= 20 ? 600 : null }, audio: { recvKbps: 40 }, rttMs: 30 });
  }
  return normalizeResult({
    schemaVersion: 1, scenario: { name: 's', durationS: 30, warmupS: 0, reference }, timeline, summary,
    network: { links: { a: base, b: base, c: base, d: base }, routes: { 'p0->p1': ['a', 'b'], 'p1->p0': ['c', 'd'] }, configured: ['a', 'b', 'c', 'd'].map((link) => ({ t: 0, link, ...base })) },
  });
}

test('the table uses the written summary, per peer and averaged, with the reference; per-run references go to the derived table', () => {
  const summary = {
    windowS: [10, 30], setupMs: { p0: 1000, p1: 1200, max: 1200 }, utilization: { p0: 0.5, p1: 0.7, overall: 0.6 },
    peers: { p0: { 'video.recvKbps': stat(800), 'video.recvWidth': stat(1280), 'video.recvHeight': stat(720) }, p1: { 'video.recvKbps': stat(600) } },
    overall: { 'video.recvKbps': stat(700), 'video.recvWidth': stat(1280), 'video.recvHeight': stat(720) },
  };
  const reference = {
    source: 'J16',
    metrics: { 'video.recvKbps': { mean: 650, sd: 30 }, 'video.recvWidth': { mean: 1020 }, 'video.recvHeight': { mean: 574 }, 'video.nackCount': { mean: 5 }, utilization: { mean: 0.77 } },
  };
  const table = buildSummaryTable(result({ summary, reference }));
  assert.deepEqual(table.peers, ['p0', 'p1']);
  assert.equal(table.computed, false);
  assert.deepEqual(table.windowS, [10, 30]);
  assert.deepEqual(table.rows.slice(0, MAIN_ROWS.length).map((r) => r.key), MAIN_ROWS);
  const video = /** @type {SummaryRow} */ (table.rows.find((r) => r.key === 'video.recvKbps'));
  assert.equal(video.overall.mean, 700);
  assert.equal(video.perPeer.p1.mean, 600);
  assert.deepEqual(video.reference, { mean: 650, sd: 30 });
  const res = /** @type {ResolutionRow} */ (table.rows.find((r) => r.key === 'resolution'));
  assert.equal(res.reference.width.mean, 1020);
  assert.equal(res.overall.height.mean, 720);
  const nacks = table.rows.find((r) => r.key === 'video.nackCount');
  assert.deepEqual(nacks.reference, { mean: 5, sd: null });
  assert.equal(nacks.extra, true, 'a referenced per-second metric gets a row even without data');
  assert.ok(!table.rows.some((r) => r.key === 'utilization'), 'per-run references go to the derived table');

  const derived = buildDerived(result({ summary, reference }));
  const figure = (path) => derived.figures.find((f) => f.path === path);
  assert.deepEqual(figure('utilization'), {
    path: 'utilization', perPeer: { p0: 0.5, p1: 0.7 }, value: 0.6, reference: { mean: 0.77, sd: null }, compared: 0.6, comparedOver: null,
  });
  assert.equal(figure('setupMs').value, 1200);
  assert.equal(figure('jainIndex'), undefined, 'no shared link, no reference: no row');
});

test('without a summary the statistics are computed from the timeline by lib/result/run-summary.js', () => {
  const stats = runStatistics(result({ summary: null, reference: null }));
  assert.equal(stats.computed, true);
  assert.equal(stats.peers.p0['video.recvKbps'].mean, 800);
  assert.equal(stats.peers.p1['video.recvKbps'].n, 20);
  assert.equal(stats.overall.rttMs.mean, 20);
  assert.equal(stats.utilization.p0, 0.84);
  const table = buildSummaryTable(result({ summary: null, reference: null }));
  assert.equal(table.computed, true);
  assert.equal(/** @type {SummaryRow} */ (table.rows.find((r) => r.key === 'audio.recvKbps')).overall.mean, 40);
});

test('a result with nothing in it still gives a table of empty cells', () => {
  const table = buildSummaryTable(normalizeResult({ schemaVersion: 1 }));
  assert.deepEqual(table.peers, []);
  assert.equal(table.rows.length, MAIN_ROWS.length);
  const derived = buildDerived(normalizeResult({ schemaVersion: 1 }));
  assert.deepEqual(derived.figures, []);
  assert.deepEqual(derived.fairness.links, []);
});
