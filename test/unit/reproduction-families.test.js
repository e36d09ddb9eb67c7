import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildReproduction, columnKey, findReproduction, reproductionValues, tableScenarios } from '../../orchestrator/lib/scenario/reproductions.js';
import { derivedMetric } from '../../orchestrator/lib/scenario/reproductions/derived.js';
import { rmcatVerdict } from '../../orchestrator/lib/scenario/reproductions/verdicts.js';
import { loadScenario } from '../../orchestrator/lib/scenario/scenario-file.js';
import { renderReproductionPage } from '../../orchestrator/suite/render-reproduction.js';

/** A change each minute, as J16 §8-2-1's schedule, and the seconds after each until the video rate steps to its new level. */
const SETTLE_S = { 60: 17, 120: 5, 180: 19, 240: 5 };

/**
 * Both directions' video rate per second and the schedule's changes, on a clock compressed by timeScale: at each change
 * the rate drops to 1000 kbps and steps to 2000 after the change's SETTLE_S run seconds, so its time to a steady rate
 * (lib/stats/steady-rate.js: the first second whose 5 s forward mean stays within ±15 % of 2000) is SETTLE_S − 1.
 * @param {number} [timeScale]
 */
function steppedRun(timeScale = 1) {
  const changes = Object.entries(SETTLE_S).map(([atS, settleS]) => ({ atS: Number(atS) * timeScale, settleS }));
  const rateAt = (t) => {
    const last = changes.filter((c) => c.atS <= t).at(-1);
    return last && t < last.atS + last.settleS ? 1000 : 2000;
  };
  const timeline = Array.from({ length: 300 * timeScale }, (_, i) => i + 1).flatMap((t) => [['p0', 'p1'], ['p1', 'p0']]
    .map(([peer, remote]) => ({ t, peer, remote, video: { recvKbps: rateAt(t) } })));
  const scheduleEvents = changes.flatMap(({ atS }) => ['p0.up', 'p1.up'].map((link) => ({ atS, link, params: {}, cause: 'schedule' })));
  return { timeline, scheduleEvents };
}

/**
 * A result.json as the runner writes it (docs/results-schema.md), with the fields the family tables read: the call's
 * means, per-peer totals, the bottleneck's fairness phases, the emulator's truth and the video rate around the
 * schedule's changes. `scale` varies it per scenario.
 */
function fixtureResult({ scale = 1, jain = 0.95 } = {}) {
  const phase = (fromS, toS, flows, kbps) => ({
    fromS, toS, seconds: toS - fromS, flows,
    meanKbps: Object.fromEntries(flows.map((f, i) => [f, kbps[i]])), jainIndex: jain - (flows.length - 2) * 0.1,
  });
  const overall = { 'video.recvKbps': 1500 * scale, rttMs: 120, lossPct: 0.5, 'video.recvWidth': 960, 'video.recvHeight': 540, 'video.recvFps': 30 };
  const { timeline, scheduleEvents } = steppedRun();
  return {
    scenario: { timeScale: 1, durationS: 300, nominalDurationS: 300 },
    timeline,
    summary: {
      windowS: [10, 300],
      overall: Object.fromEntries(Object.entries(overall).map(([path, mean]) => [path, { mean }])),
      utilization: { overall: 0.7 }, jainIndex: jain, convergenceS: 12,
      peerTotals: {
        p0: { uplinkKbps: 1000 * scale, downlinkKbps: 2000 * scale, downlinkToUplink: 2 },
        p1: { uplinkKbps: 1200 * scale, downlinkKbps: 2200 * scale, downlinkToUplink: 1.8 },
      },
      fairness: {
        links: {
          'bottleneck.fwd': {
            flows: ['call:fwd', 'tcp', 'data'], utilization: 0.9,
            phases: [phase(10, 40, ['call:fwd', 'tcp'], [900, 700]), phase(40, 100, ['call:fwd', 'tcp', 'data'], [600, 500, 400])],
          },
        },
      },
    },
    network: { truth: [9, 11, 12, 301].map((t) => ({ t, link: 'bottleneck.fwd', queueDelayMsP50: t })), scheduleEvents },
  };
}

test('the derived values: per-peer totals, per-flow rates while every flow runs, Jain by flow count, queuing delay', () => {
  const result = fixtureResult();
  const value = (path) => derivedMetric(path).from(result);
  assert.equal(value('peerTotals.uplinkKbps'), 1100);
  assert.equal(value('peerTotals.downlinkToUplink'), 1.9);
  assert.equal(value('flowKbps.call:fwd'), 600, 'the phase with all three flows, not the two-flow one');
  assert.equal(value('flowKbps.data'), 400);
  assert.ok(Math.abs(value('fairness.jain2Flows') - 0.95) < 1e-9);
  assert.ok(Math.abs(value('fairness.jain3Flows') - 0.85) < 1e-9);
  assert.equal(value('bottleneck.queueDelayMs'), 11.5, 'only the window (10, 300]');
  assert.equal(value('bottleneck.utilization'), 0.9);
  assert.equal(derivedMetric('flowKbps.tcp').from({ summary: { fairness: null } }), null);
  assert.equal(derivedMetric('bottleneck.queueDelayMs').from({}), null);
});

test('the time to a steady rate after one change of the schedule, matched by its nominal second on a compressed clock too', () => {
  const result = fixtureResult();
  const after = (/** @type {string} */ path, /** @type {unknown} */ of = result) => derivedMetric(path).from(of);
  assert.deepEqual([after('timeToSteadyS@60'), after('timeToSteadyS@120'), after('timeToSteadyS@180')], [16, 4, 18]);
  assert.equal(after('timeToSteadyS@90'), null, 'no change at 1:30');
  const { timeline, scheduleEvents } = steppedRun(0.5);
  const compressed = {
    ...result, timeline, network: { scheduleEvents }, scenario: { timeScale: 0.5, durationS: 150, nominalDurationS: 300 },
    summary: { ...result.summary, windowS: [5, 150] },
  };
  assert.deepEqual([after('timeToSteadyS@60', compressed), after('timeToSteadyS@180', compressed)], [16, 18], 'run seconds, as the run report');
  assert.equal(after('timeToSteadyS@60', { ...result, timeline: null }), null);
  assert.equal(after('timeToSteadyS@60', {}), null);
  assert.equal(derivedMetric('timeToSteadyS@60').unit, 's');
  assert.equal(derivedMetric('timeToSteadyS@soon'), undefined);
  assert.equal(derivedMetric('timeToSteadyS'), undefined, 'the mean over every change is the catalogue\'s');
});

test('the time to a steady rate from the call\'s start, and the peak rate each direction held for 5 s', () => {
  const callOf = (/** @type {(t: number, peer: string) => number} */ kbps) => ({
    scenario: { timeScale: 1, durationS: 120, nominalDurationS: 120 }, summary: { windowS: [10, 120] }, network: { scheduleEvents: [] },
    timeline: Array.from({ length: 120 }, (_, i) => i + 1).flatMap((t) => [['p0', 'p1'], ['p1', 'p0']]
      .map(([peer, remote]) => ({ t, peer, remote, video: { recvKbps: kbps(t, peer) } }))),
  });
  // Both directions ramp up 100 kbps a second to 1500 at 12 s, then hold 2000: the 5 s mean from 11 s is 1780, within
  // 15 % of 2000, and from 10 s 1640 is not.
  const ramp = callOf((t) => (t <= 12 ? 300 + t * 100 : 2000));
  assert.equal(derivedMetric('timeToSteadyS@0').from(ramp), 11);
  assert.equal(derivedMetric('timeToSteadyS@0').label, 'Time to steady rate after the call starts');
  // p0 receives 2600 for 5 s, p1 3000 for 4 s: their best 5 s means are 2600 and 2800; one second alone is no peak.
  const peaks = callOf((t, peer) => (peer === 'p0' && t >= 30 && t < 35 ? 2600 : peer === 'p1' && t >= 30 && t < 34 ? 3000 : 2000));
  assert.equal(derivedMetric('video.peakRecvKbps')?.from(peaks), 2700);
  // Seconds outside the measurement window (t ≤ 10) do not count.
  assert.equal(derivedMetric('video.peakRecvKbps')?.from(callOf((t) => (t <= 10 ? 5000 : 1000))), 1000);
  assert.equal(derivedMetric('video.peakRecvKbps')?.from({ ...peaks, timeline: 'x' }), null);
  assert.equal(derivedMetric('video.peakRecvKbps')?.from({ ...peaks, timeline: peaks.timeline.filter((e) => e.t <= 14) }), null, 'under 5 s in the window');
});

const PUBLISHED_FIGURES = {
  'j16-changing-conditions': ['paper 77.0', 'paper 16.0', 'paper 18.0', 'paper 30.0', 'paper 69.0'],
  'j16-multi-party': ['paper 2.03', 'paper 2.77', 'paper 2.00', 'paper 2.95'],
  'j16-cross-traffic': ['paper 78.0', 'paper 0.960', 'paper 0.790', 'paper 0.980', 'paper 0.940', 'paper 1408', 'paper 451'],
  'j16-table-8-9': ['paper 2457', 'paper 973', 'paper 547', 'paper 48.9'],
  'j16-constrained-device': ['paper 1148', 'paper 102', 'paper 772', 'paper 35.8'],
  'j16-table-8-11': ['paper 1440', 'paper 83.6', 'paper 2.51', 'paper 858', 'paper 483', 'paper 47.4', 'paper 1423', 'paper 892',
    'paper 45.5', 'paper 1154', 'paper 77.6', 'paper 2.43', 'paper 1279', 'paper 719', 'paper 36.1'],
  'i22-media-vs-data': ['paper 106', 'paper 1889', 'paper 0.556', 'paper 268'],
};

/** A table filled from fixture results: three passed runs per scenario, the nth scenario's rates scaled by n. */
function filled(id) {
  const table = findReproduction(id);
  const scenarios = tableScenarios(table);
  const runs = scenarios.flatMap((scenario, n) => [1, 2, 3].map((repetition) => ({
    scenario, repetition, status: 'passed', report: null, ...reproductionValues(fixtureResult({ scale: n + repetition / 10 })),
  })));
  const references = Object.fromEntries(scenarios.map((name) => [name, loadScenario(name).reference]));
  return buildReproduction(table, { runs, references, environment: { video: '720p30', cpus: 2 } });
}

for (const id of [...Object.keys(PUBLISHED_FIGURES), 'rfc8867-rmcat']) {
  test(`${id} renders from fixture results with every published figure beside our value`, () => {
    const built = filled(id);
    const html = renderReproductionPage(built, { suiteName: 'fixtures' });
    for (const figure of PUBLISHED_FIGURES[id] ?? []) assert.ok(html.includes(figure), `${id}: ${figure} missing`);
    const published = built.rows.flatMap((row) => row.cells.filter((cell) => cell.published !== null));
    assert.equal(published.length > 0, id !== 'rfc8867-rmcat', `${id}: published cells`);
    for (const cell of published) {
      assert.ok(cell.ours, `${id}/${cell.key}: our value from the fixtures`);
      assert.ok(html.includes(`data-published="${cell.published}" data-key="${cell.key}"`), `${id}/${cell.key}`);
    }
  });
}

test('a ratio column divides a row\'s median by its baseline row\'s (mesh-3 over mesh-2)', () => {
  const row = filled('j16-multi-party').rows.find((r) => r.scenario === 'mesh-3');
  const ratio = row.cells.find((cell) => cell.key === '×peerTotals.uplinkKbps');
  // mesh-2 is scenario 0 (scale 0.2 at the median run), mesh-3 scenario 1 (scale 1.2): uplink 1100 × scale.
  assert.ok(Math.abs(ratio.ours.median - 1.2 / 0.2) < 1e-9);
  assert.equal(ratio.published, 2.03);
  assert.equal(filled('j16-multi-party').rows.find((r) => r.scenario === 'mesh-2').cells[2].ours, null, 'a baseline row has no ratio');
});

test('the cross-traffic table marks TCP against the call, and only that row\'s flow columns, with its measured cause', () => {
  const built = filled('j16-cross-traffic');
  const causesOf = (scenario, key) => built.rows.find((r) => r.scenario === scenario).cells.find((c) => c.key === key).causes;
  for (const key of ['flowKbps.call:fwd', 'flowKbps.tcp', 'jainIndex']) assert.ok(causesOf('tcp-cross-traffic', key).includes('gcc-vs-tcp'), key);
  assert.ok(!causesOf('tcp-cross-traffic', 'utilization').includes('gcc-vs-tcp'));
  assert.ok(!causesOf('rtp-cross-traffic', 'jainIndex').includes('gcc-vs-tcp'), 'three calls have no TCP');
});

test('the RMCAT table judges each case by RFC 8868\'s criteria beside the RFC 8867 expected behaviour', () => {
  const built = filled('rfc8867-rmcat');
  const html = renderReproductionPage(built, { suiteName: 'fixtures' });
  assert.equal(built.rows.length, 9);
  for (const row of built.rows) {
    assert.ok(row.verdict.expected?.startsWith('RFC 8867 §5.'), `${row.scenario}: ${row.verdict.expected}`);
    assert.match(html, new RegExp(`<tr data-scenario="${row.scenario.replace('.', '\\.')}">.*?<td class="verdict" data-verdict="(met|measured)">`, 's'));
  }
  assert.match(html, /Expected: RFC 8867 §5\.4: the competing flows converge/);
  assert.match(html, /no threshold in RFC 8868/);
  assert.match(html, /id="cause-media-source"/, 'runs without the RFC 8867 media source are marked');
  const table = findReproduction('rfc8867-rmcat');
  const withSource = buildReproduction(table, { runs: [], references: {}, environment: { mediaSource: 'rfc8867' } });
  assert.ok(!withSource.causes.some((c) => c.id === 'media-source'), 'runs with it are not');
  const five1 = built.rows.find((r) => r.scenario === 'rmcat-5.1').verdict;
  assert.equal(five1.verdict, 'measured');
  assert.equal(five1.criteria.find((c) => c.id === 'fairness').verdict, 'not applicable');
});

test('an unfair or unconverged RMCAT case is not met; no runs is no verdict', () => {
  const medians = (jain, convergence) => Object.fromEntries(findReproduction('rfc8867-rmcat').columns
    .map((c) => [columnKey(c), c.path === 'jainIndex' ? jain : c.path === 'convergenceS' ? convergence : 1]));
  assert.equal(rmcatVerdict('rmcat-5.4', medians(0.95, 12)).verdict, 'met');
  assert.equal(rmcatVerdict('rmcat-5.4', medians(0.5, 12)).verdict, 'not met');
  assert.equal(rmcatVerdict('rmcat-5.4', medians(0.95, null)).verdict, 'not met');
  assert.equal(rmcatVerdict('rmcat-5.4', {}).verdict, 'no runs');
});

test('a case whose flows all ran through the window (RFC 8867 §5.2) has no convergence to judge; one with a join does', () => {
  const medians = (changes) => ({
    ...Object.fromEntries(findReproduction('rfc8867-rmcat').columns
      .map((c) => [columnKey(c), c.path === 'jainIndex' ? 0.99 : c.path === 'convergenceS' ? null : 1])),
    'fairness.changes': changes,
  });
  const together = rmcatVerdict('rmcat-5.2', medians(0));
  assert.equal(together.criteria.find((c) => c.id === 'convergence')?.verdict, 'not applicable');
  assert.match(String(together.criteria.find((c) => c.id === 'convergence')?.threshold), /no flow joined or left/);
  assert.equal(together.verdict, 'met');
  assert.equal(rmcatVerdict('rmcat-5.2', medians(2)).verdict, 'not met', 'a join it never converged after');
  assert.equal(rmcatVerdict('rmcat-5.2', medians(null)).verdict, 'not met', 'runs published before the count are judged as before');
  // The count is a per-run value: the joins and leaves summary.fairness judged, over every link.
  const result = fixtureResult();
  result.summary.fairness.links['bottleneck.fwd'].convergence = [{ atS: 20, change: 'join' }, { atS: 40, change: 'join' }];
  assert.equal(reproductionValues(result).values['fairness.changes'], 2);
  result.summary.fairness.links['bottleneck.fwd'].convergence = [];
  assert.equal(reproductionValues(result).values['fairness.changes'], 0);
  delete result.summary.fairness;
  assert.equal(reproductionValues(result).values['fairness.changes'], undefined);
});

test('a single flow\'s bottleneck utilisation is its bytes out over the configured capacity in the window, not the peers\' mean', () => {
  // RFC 8867 §5.1 as a one-way call: p0 sends, so the peers' mean (summary.utilization) halves the link's.
  const result = fixtureResult();
  delete result.summary.fairness;
  result.summary.utilization = { overall: 0.45 };
  result.summary.windowS = [10, 14];
  result.network = {
    configured: [{ t: 0, link: 'bottleneck.fwd', rateKbps: 1000 }, { t: 12, link: 'bottleneck.fwd', rateKbps: 2000 }, { t: 0, link: 'p0.up', rateKbps: null }],
    // (10, 14]: 900 kbps of 1000 twice, then 1500 of 2000 twice; second 10 is outside the window.
    truth: [10, 11, 12, 13, 14].map((t) => ({ t, link: 'bottleneck.fwd', bytesOut: (t <= 12 ? 900 : 1500) * 125, queueDelayMsP50: 1 })),
    scheduleEvents: [],
  };
  assert.equal(Number(reproductionValues(result).values['bottleneck.utilization'].toFixed(4)), Number((4800 / 6000).toFixed(4)));
  result.network = { configured: [], truth: [], scheduleEvents: [] };
  assert.equal(reproductionValues(result).values['bottleneck.utilization'], 0.45, 'without truth, the call\'s');
});
