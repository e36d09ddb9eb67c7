// References reach the report: every published figure of every SHIPPED scenario (orchestrator/scenarios/*.json) is
// shown in the reference column of its row, in the metric's shown unit; and the one reference shape is validated.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { listScenarios, loadScenario } from '../../orchestrator/lib/scenario/scenario-file.js';
import { metricByPath } from '../../orchestrator/lib/result/metric-catalogue.js';
import { referenceValue, validateReference } from '../../orchestrator/lib/scenario/reference.js';
import { renderRunReport } from '../../orchestrator/report/render-run.js';
import { renderCompareReport } from '../../orchestrator/report/render-compare.js';
import { formatMeanSd, formatNumber } from '../../orchestrator/report/format.js';
import { makeResult } from '../fixtures/results/make-result.js';

/** A result of the shipped scenario `name`: the scheduled fixture's run (5 min, changes each minute) under that scenario. */
function resultOf(name) {
  const { compiled, ...scenario } = loadScenario(name);
  assert.ok(compiled, 'the loader compiles the network, result.json leaves it out');
  return { ...makeResult('scheduled'), scenario };
}

/** The cells of the first table row for a metric. @param {string} html @param {string} path */
function rowCells(html, path) {
  const row = new RegExp(`<tr data-metric="${path.replace(/\./g, '\\.')}"[^>]*>(.*?)</tr>`, 's').exec(html);
  assert.ok(row, `a row for ${path}`);
  return {
    ref: /<td class="ref">(.*?)<\/td>/s.exec(row[1])?.[1],
    diff: /<td class="diff">(.*?)<\/td>/s.exec(row[1])?.[1],
  };
}

const names = listScenarios().map((s) => s.name);

test('every published figure of every shipped scenario is shown in its reference column', () => {
  let checked = 0;
  for (const name of names) {
    const { reference } = loadScenario(name);
    if (!reference) continue;
    const paths = Object.keys(reference.metrics);
    checked += paths.length;
    const html = renderRunReport(resultOf(name));
    for (const path of paths) {
      const { mean, sd } = referenceValue(reference, path);
      if (path === 'video.recvWidth' || path === 'video.recvHeight') {
        const res = `${Math.round(reference.metrics['video.recvWidth'].mean)} × ${Math.round(reference.metrics['video.recvHeight'].mean)}`;
        assert.equal(rowCells(html, 'resolution').ref, res, `${name}: resolution`);
        continue;
      }
      const { scale = 1, decimals } = metricByPath(path);
      const shown = formatMeanSd({ mean: mean * scale, sd: sd === null ? null : sd * scale }, decimals);
      const cells = rowCells(html, path);
      assert.equal(cells.ref, shown, `${name}: ${path}`);
      assert.notEqual(cells.diff, undefined, `${name}: ${path} has a Δ cell`);
    }
  }
  assert.ok(checked >= 100, `${checked} published figures checked`);
});

test("published figures that lived in notes: bandwidth-1500's 80 % utilisation, changing-bandwidth's 16 s / 18 s", () => {
  const bandwidth = renderRunReport(resultOf('bandwidth-1500'));
  assert.equal(rowCells(bandwidth, 'utilization').ref, '80.0');
  const changing = renderRunReport(resultOf('changing-bandwidth'));
  assert.equal(rowCells(changing, 'utilization').ref, '77.0');
  assert.equal(rowCells(changing, 'timeToSteadyS').ref, '17.0');
  // The per-change table: J16's figure beside the run's at 1:00 and 3:00 only.
  const steady = /<table class="summary steady">.*?<\/table>/s.exec(changing)[0];
  const refs = [...steady.matchAll(/<tr><td>([0-9:]+)<\/td>.*?<td class="ref">(.*?)<\/td><\/tr>/gs)].map(([, at, ref]) => [at, ref]);
  assert.deepEqual(refs, [['0:00', '—'], ['1:00', '16 s'], ['2:00', '—'], ['3:00', '18 s'], ['4:00', '—']]);
  // Compared over those changes, not all four.
  assert.match(rowCells(changing, 'timeToSteadyS').diff ?? '', /^[+−]?[0-9.]+/);
  assert.match(changing, /Δ over the changes at 1:00, 3:00: run [0-9.]+/);
});

test('the comparison page shows the same references, per-run ones included', () => {
  const runs = [1, 2].map((seed) => ({ result: { ...makeResult('scheduled', { seed }), scenario: resultOf('changing-bandwidth').scenario }, sourcePath: `r${seed}/result.json` }));
  const html = renderCompareReport(runs);
  assert.equal(rowCells(html, 'utilization').ref, '77.0');
  assert.equal(rowCells(html, 'timeToSteadyS').ref, '17.0');
  const bandwidth = renderCompareReport([1, 2].map((seed) => ({ result: { ...makeResult('static', { seed }), scenario: resultOf('bandwidth-1500').scenario }, sourcePath: `b${seed}/result.json` })));
  assert.equal(rowCells(bandwidth, 'video.recvKbps').ref, formatNumber(1149.9, null));
  assert.equal(rowCells(bandwidth, 'utilization').ref, '80.0');
});

test('a reference is one shape: catalogue paths, per-change values only for timeToSteadyS, a mean that agrees with them', () => {
  const where = 'x.json: reference';
  assert.deepEqual(validateReference({ source: 'J16', metrics: { timeToSteadyS: { byChangeAtS: { 60: 16, 180: 18 } } } }, where).metrics.timeToSteadyS,
    { mean: 17, sd: null, byChangeAtS: { 60: 16, 180: 18 } });
  assert.deepEqual(validateReference({ source: 'J16', metrics: { jainIndex: { mean: 0.79 } } }, where).metrics, { jainIndex: { mean: 0.79, sd: null } });
  assert.equal(validateReference(undefined, where), null);
  const rejects = [
    [{ source: 'J16', utilization: 0.8 }, /x\.json: reference\.utilization: move it to x\.json: reference\.metrics\.utilization/],
    [{ source: 'J16', metrics: { timeToSteady: { mean: 1 } } }, /reference\.metrics: unknown field 'timeToSteady'; allowed: .*timeToSteadyS/],
    [{ source: 'J16', metrics: { rttMs: { byChangeAtS: { 60: 1 } } } }, /rttMs\.byChangeAtS: only timeToSteadyS is measured per schedule change/],
    [{ source: 'J16', metrics: { timeToSteadyS: { mean: 20, byChangeAtS: { 60: 16, 180: 18 } } } }, /timeToSteadyS\.mean: 20 is not the mean of byChangeAtS \(17\)/],
    [{ source: 'J16', metrics: { timeToSteadyS: { byChangeAtS: { '1:00': 16 } } } }, /key '1:00' is not a change time in seconds/],
    [{ source: 'J16', metrics: { timeToSteadyS: { byChangeAtS: {} } } }, /give at least one change/],
    [{ source: 'J16', metrics: { 'video.recvKbps': 1150 } }, /metrics\.video\.recvKbps: must be an object, got/],
  ];
  for (const [raw, message] of rejects) assert.throws(() => validateReference(raw, where), { name: 'InputError', message });
});

test('referenceValue reads results of any age: values without a finite mean are no reference', () => {
  assert.deepEqual(referenceValue({ metrics: { rttMs: { mean: 23, sd: 'x' } } }, 'rttMs'), { mean: 23, sd: null });
  assert.equal(referenceValue({ metrics: { rttMs: 23 } }, 'rttMs'), null);
  assert.equal(referenceValue({ metrics: { rttMs: { mean: null } } }, 'rttMs'), null);
  assert.equal(referenceValue(null, 'rttMs'), null);
  assert.deepEqual(referenceValue({ metrics: { timeToSteadyS: { mean: 17, byChangeAtS: { 60: 16, x: 3 } } } }, 'timeToSteadyS'), { mean: 17, sd: null, byChangeAtS: { 60: 16 } });
});
