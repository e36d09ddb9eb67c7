// The results store's pure parts: drift, the dashboard's nightly aggregation, browser changes, CSV, the
// baseline rolled from stored nights, the migration plan, and drift as a suite warning.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { detectDrift, driftWarnings } from '../../orchestrator/lib/stats/drift.js';
import { DEFAULT_REGRESSION } from '../../orchestrator/suite/baseline.js';
import { renderMarkdown } from '../../orchestrator/suite/markdown.js';
import { renderSuitePage } from '../../orchestrator/suite/render-suite.js';
import { buildSuiteSummary } from '../../orchestrator/suite/summary.js';
import { fakeResult } from '../fixtures/suites/make-suite-result.js';
import { DASHBOARD_METRICS, browserChanges, buildTrends } from '../../orchestrator/history/trends.js';
import { nightMetricRows } from '../../orchestrator/history/night-metrics.js';
import { toCsv } from '../../orchestrator/history/export.js';
import { MIGRATIONS, SCHEMA_VERSION, pendingMigrations } from '../../orchestrator/history/schema.js';
import { nightBaselines, rollBaselines } from '../../orchestrator/suite/baseline.js';
import { metricRows } from '../../orchestrator/history/records.js';
import { summarize } from '../../orchestrator/lib/result/run-summary.js';

test('a slow drift of 2 % a night, under any one night\'s 10 % gate, is flagged over two windows of 7 nights', () => {
  const flat = Array.from({ length: 7 }, () => 1500);
  const sliding = Array.from({ length: 7 }, (_, i) => 1500 * (1 - 0.02 * (i + 1)));
  const drift = detectDrift([...flat, ...sliding], { nights: 7, thresholdPct: 5, worseWhen: 'lower' });
  assert.ok(drift, 'flagged');
  assert.equal(drift.worse, true);
  assert.equal(drift.fromIndex, 7);
  assert.ok(drift.changePct < -5 && drift.changePct > -10, String(drift.changePct));
});

test('noise within the threshold, too few nights, or a rise of a metric worse when higher are told apart', () => {
  const noisy = [100, 103, 98, 101, 99, 102, 100, 97, 101, 103, 99, 100, 98, 102];
  assert.equal(detectDrift(noisy, { nights: 7, thresholdPct: 10, worseWhen: 'lower' }), null);
  assert.equal(detectDrift(noisy.slice(0, 13), { nights: 7, thresholdPct: 0, worseWhen: 'lower' }), null, 'needs 2 × 7 nights');
  const rtt = [...Array(3).fill(40), ...Array(3).fill(60)];
  const drift = detectDrift(rtt, { nights: 3, thresholdPct: 10, worseWhen: 'higher' });
  assert.equal(drift.worse, true);
  assert.equal(Math.round(drift.changePct), 50);
  assert.equal(detectDrift([0, 0, 2, 2], { nights: 2, thresholdPct: 10, worseWhen: 'higher' }).changePct, null, 'from 0');
});

const nights = ['2026-01-01', '2026-01-02', '2026-01-03'].map((day, i) => ({
  id: `n${i}`, started_at: `${day}T01:00:00Z`, outcome: 'passed', browser: i < 2 ? 'chromium 156.0.1' : 'chromium 157.0.2', commit_sha: null, report: `r${i}.html`,
}));

test('the dashboard aggregates each night to the median and IQR of its runs\' medians, with regressions and browser changes', () => {
  const values = [1, 2, 3, 4, 5].flatMap((v) => [
    { night_id: 'n0', scenario: 's', metric: 'video.recvKbps', median: v * 100, reference: 2000, browser_version: '156.0.1' },
    { night_id: 'n2', scenario: 's', metric: 'video.recvKbps', median: v * 10, reference: 2000, browser_version: '157.0.2' },
  ]);
  const aggregates = nightMetricRows(values, [{ night_id: 'n2', scenario: 's', metric: 'video.recvKbps' }]);
  assert.deepEqual(aggregates.find((row) => row.night_id === 'n2'), {
    night_id: 'n2', scenario: 's', metric: 'video.recvKbps', median: 30, q1: 20, q3: 40, n: 5, reference: 2000, browser_version: '157.0.2', regression: 1,
  });
  const trends = buildTrends({
    nights, aggregates, metrics: ['video.recvKbps', 'rttMs'],
    statuses: [{ night_id: 'n2', scenario: 's', status: 'passed', runs: 5 }],
  });
  const series = trends.scenarios[0].series['video.recvKbps'];
  assert.deepEqual(series.x, [0, 2], 'a night without runs is a gap, not a zero');
  assert.deepEqual(series.med, [300, 30]);
  assert.deepEqual([series.q1[0], series.q3[0]], [200, 400]);
  assert.deepEqual(series.n, [5, 5]);
  assert.equal(series.reference, 2000);
  assert.deepEqual(series.regressions, [2]);
  assert.equal(trends.scenarios[0].series.rttMs, undefined, 'no values, no series');
  assert.deepEqual(trends.scenarios[0].latest, { night: 2, verdict: 'regression' });
  assert.deepEqual(trends.browserChanges, [{ night: 2, from: 'chromium 156.0.1', to: 'chromium 157.0.2' }]);
});

test('an unknown browser on a night is not a browser change', () => {
  assert.deepEqual(browserChanges([{ browser: 'a' }, { browser: null }, { browser: 'a' }]), []);
});

test('CSV quotes commas, quotes and newlines', () => {
  assert.equal(toCsv([{ a: 'x,y', b: 'say "hi"', c: null }, { a: 1, b: 'l1\nl2', c: 2 }]), 'a,b,c\n"x,y","say ""hi""",\n1,"l1\nl2",2\n');
  assert.equal(toCsv([]), '');
});

test('the rolling baseline from the store keeps the newest green nights of the machine class, runs counted once', () => {
  const machine = { os: 'linux 6.1 x64', cpu: 'x', cores: 2, browser: 'chromium 156', emulator: 'relay' };
  const stored = [3, 2, 1].map((i) => ({
    id: `n${i}`, suite: 'nightly', started_at: `2026-01-0${i}T01:00:00Z`, browser: 'chromium 156.0.1', emulator: 'relay',
    machine_class: JSON.stringify(i === 1 ? { ...machine, cores: 4 } : machine),
  }));
  const values = stored.flatMap((night) => ['r1', 'r2'].flatMap((run) => ['rttMs', 'lossPct'].map((metric) => ({
    night_id: night.id, run_id: `${night.id}${run}`, scenario: 's', metric, median: 1,
  }))));
  const rolled = rollBaselines(nightBaselines(stored, values), { keepNights: 5 });
  assert.equal(rolled.scenarios.s.runs, 4, 'two nights of the class × two runs');
  assert.equal(rolled.scenarios.s.values.rttMs.length, 4);
  assert.deepEqual(rolled.machineClass, machine);
});

test('migrations are numbered 1..n and a store of version 1 gets exactly the later ones', () => {
  assert.deepEqual(MIGRATIONS.map((m) => m.version), Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1));
  assert.deepEqual(pendingMigrations(1).map((m) => m.version), MIGRATIONS.slice(1).map((m) => m.version));
  assert.deepEqual(pendingMigrations(SCHEMA_VERSION), []);
});

test('a worse slow drift becomes a suite warning in summary.md and report.html, and the suite still passes', () => {
  const daily = [...Array(7).fill(1500), ...Array(7).fill(1200)];
  const days = daily.map((_, i) => ({ ...nights[0], id: `d${i}`, started_at: `2026-01-${String(i + 1).padStart(2, '0')}T01:00:00Z` }));
  const rows = (metric, value) => days.map((night) => ({ night_id: night.id, scenario: 's', metric, median: value(night), browser_version: null, reference: null }));
  const trends = buildTrends({
    nights: days, statuses: [], metrics: ['video.recvKbps', 'rttMs'],
    aggregates: nightMetricRows([...rows('video.recvKbps', (n) => daily[days.indexOf(n)]), ...rows('rttMs', (n) => daily[days.indexOf(n)] / 10)], []),
  });
  assert.equal(trends.drifts.length, 2, 'the rate fell (worse), the RTT fell (better)');
  const warnings = driftWarnings(trends.drifts);
  assert.deepEqual(warnings, ['slow drift (results store): s video.recvKbps: drifted -20.0 % (worse): median of the last 7 nights 1200 vs 1500 the 7 before']);

  const summary = buildSuiteSummary({
    suite: /** @type {Parameters<typeof buildSuiteSummary>[0]['suite']} */ ({ name: 'smoke', description: 'd' }), regression: DEFAULT_REGRESSION, assertions: {}, assertionsFile: null, scenarios: ['s'],
    runs: [{ scenario: 's', repetition: 1, dir: 's/run-1', hasReport: false, result: fakeResult({ seed: 1 }) }],
    startedAt: '2026-01-15T01:00:00Z', endedAt: '2026-01-15T01:10:00Z',
  });
  assert.deepEqual(summary.warnings, []);
  summary.warnings.push(...warnings);
  assert.equal(summary.outcome, 'passed');
  assert.match(renderMarkdown(summary), /\*\*Warnings\*\* \(not failures\)\n\n- ⚠️ slow drift \(results store\): s video\.recvKbps: drifted -20\.0 %/);
  assert.match(renderSuitePage(summary), /<section class="problems warn" id="warnings">.*slow drift \(results store\): s video\.recvKbps/s);
});

test('a stored IQR holds its median when the peers have unequal counts of a sparse metric (VMAF on captured seconds)', () => {
  const result = fakeResult();
  // p0 scored 3 seconds around 96, p1 every second around 99: pooled, the seconds of p1 would set the IQR.
  for (const entry of result.timeline) {
    if (entry.t <= 5) continue;
    if (entry.peer === 'p1') entry.video.vmaf = 99 + (entry.t % 3) / 10;
    else if (entry.t % 5 === 0) entry.video.vmaf = 96 + (entry.t % 2) / 10;
  }
  result.summary = summarize({ timeline: result.timeline, warmupS: 5, durationS: 20, setupMs: {}, configured: [], routes: {} });
  // The fixture holds the parts of a result the metric rows read.
  const rows = metricRows(/** @type {import('../../orchestrator/report/result-file.js').ReportResult} */ (/** @type {unknown} */ (result)), 'run');
  const row = rows.find((r) => r.metric === 'video.vmaf');
  assert.ok(row && row.q1 !== null && row.q3 !== null, 'a VMAF row with quartiles');
  assert.ok(row.median < 98, `the median is the mean of the peers' medians: ${row.median}`);
  assert.ok(row.q1 <= row.median && row.median <= row.q3, `IQR ${row.q1}..${row.q3} around ${row.median}`);
  assert.equal(row.n, 3 + 15);
});

test('the store keeps a run\'s audio MOS-LQO when it scored audio, and the dashboard draws it; a run without has no row', () => {
  /** @param {object} result */
  const rowsOf = (result) => metricRows(/** @type {import('../../orchestrator/report/result-file.js').ReportResult} */ (/** @type {unknown} */ (result)), 'run');
  const mos = rowsOf(fakeResult({ mosLqo: 4.2 })).find((r) => r.metric === 'audio.mosLqo');
  assert.ok(mos && mos.median > 4 && mos.median < 4.5 && mos.n === 30, JSON.stringify(mos));
  assert.equal(rowsOf(fakeResult()).find((r) => r.metric === 'audio.mosLqo'), undefined);
  assert.ok(DASHBOARD_METRICS.includes('audio.mosLqo'));
});
