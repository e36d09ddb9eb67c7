// suite/power.js: the resampled detection and false-alarm rates of the regression gate, checked against exact
// enumeration of every draw on small fixture pools; and bench/regression-power.js --dry-run end to end.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createRandom } from '../../orchestrator/lib/stats/random.js';
import { DEFAULT_REGRESSION, compareMetric } from '../../orchestrator/suite/baseline.js';
import { drawIndices, estimatePower, formatPowerTable, smallestDetected } from '../../orchestrator/suite/power.js';

const options = { ...DEFAULT_REGRESSION, metrics: ['video.recvKbps', 'rttMs'] };
const runs = (rates, rtts = rates.map(() => 3)) => rates.map((rate, i) => ({ 'video.recvKbps': rate, rttMs: rtts[i] }));
const rowOf = (rows, label, metric) => rows.find((row) => row.label === label && row.metric === metric);

/** @param {number} n @param {number} k @returns {number[][]} every k-subset of 0..n-1 */
function subsets(n, k, start = 0) {
  if (k === 0) return [[]];
  const out = [];
  for (let i = start; i <= n - k; i += 1) for (const rest of subsets(n, k - 1, i + 1)) out.push([i, ...rest]);
  return out;
}

test('drawIndices: k distinct indices in range, every index equally likely', () => {
  const random = createRandom(7);
  const hits = new Array(8).fill(0);
  for (let draw = 0; draw < 8000; draw += 1) {
    const picked = drawIndices(8, 5, random);
    assert.equal(new Set(picked).size, 5);
    for (const i of picked) hits[i] += 1;
  }
  // Each index is picked with probability 5/8: 5000 of 8000 draws, binomial sd ≈ 43.
  for (const count of hits) assert.ok(Math.abs(count - 5000) < 200, `${hits}`);
});

test('the false-alarm rate is the gate\'s rate over disjoint halves of the unchanged runs, as exact enumeration gives', () => {
  // Ten distinct RTTs: a split regresses only when the current half sits clearly above the baseline half.
  const unchanged = { label: 'same', effect: 0, runs: runs(Array(10).fill(1000), [3, 3.2, 3.4, 3.6, 3.8, 4, 4.4, 4.8, 5.2, 5.6]) };
  const splits = subsets(10, 5);
  const values = unchanged.runs.map((run) => run.rttMs);
  const exact = splits.filter((baseIdx) => {
    const currentIdx = values.map((_, i) => i).filter((i) => !baseIdx.includes(i));
    return compareMetric('rttMs', baseIdx.map((i) => values[i]), currentIdx.map((i) => values[i]), options).verdict === 'regression';
  }).length / splits.length;
  assert.ok(exact > 0 && exact < 0.05, `exact ${exact}`);
  const rows = estimatePower({ unchanged, degraded: [], options, draws: 20000, seed: 3 });
  const rate = rowOf(rows, 'same', 'rttMs').regressionRate;
  // Binomial sd at 20000 draws ≈ 0.0012; overlapping halves would give a different rate.
  assert.ok(Math.abs(rate - exact) < 0.005, `resampled ${rate}, exact ${exact}`);
  assert.equal(rowOf(rows, 'same', 'video.recvKbps').regressionRate, 0, 'identical values never regress');
  assert.equal(rowOf(rows, 'same', 'any').regressionRate, rate);
});

test('the detection rate of a degraded pool matches exact enumeration of 5-of-10 baseline × 5-of-7 current draws', () => {
  const unchanged = { label: 'cap 1500', effect: 0, runs: runs([1200, 1180, 1230, 1150, 1210, 1190, 1170, 1240, 1160, 1220]) };
  // Overlapping with the baseline: some draws are significant and large enough, others not.
  const degraded = { label: 'cap 1350', effect: 0.1, runs: runs([1080, 1050, 1120, 1200, 990, 1150, 1010]) };
  let regressions = 0;
  let total = 0;
  const base = unchanged.runs.map((run) => run['video.recvKbps']);
  const current = degraded.runs.map((run) => run['video.recvKbps']);
  for (const b of subsets(10, 5)) {
    for (const c of subsets(7, 5)) {
      total += 1;
      if (compareMetric('video.recvKbps', b.map((i) => base[i]), c.map((i) => current[i]), options).verdict === 'regression') regressions += 1;
    }
  }
  const exact = regressions / total;
  assert.ok(exact > 0.1 && exact < 0.9, `exact ${exact}: the fixture should sit in between`);
  const rows = estimatePower({ unchanged, degraded: [degraded], options, draws: 20000, seed: 11 });
  const rate = rowOf(rows, 'cap 1350', 'video.recvKbps').regressionRate;
  assert.ok(Math.abs(rate - exact) < 0.015, `resampled ${rate}, exact ${exact}`);
  assert.equal(rowOf(rows, 'cap 1350', 'rttMs').regressionRate, 0);
  assert.ok(Math.abs(rowOf(rows, 'cap 1350', 'video.recvKbps').relativeChange - (1080 - 1195) / 1195) < 1e-9);
  // Seeded: the same seed gives the same rates.
  const again = () => estimatePower({ unchanged, degraded: [degraded], options, draws: 500, seed: 5 });
  assert.deepEqual(again(), again());
});

test('a shift below the 10 % change criterion is never a regression, however consistent', () => {
  const unchanged = { label: 'a', effect: 0, runs: runs(Array.from({ length: 10 }, (_, i) => 1000 + i)) };
  const degraded = { label: 'b', effect: 0.05, runs: runs(Array.from({ length: 8 }, (_, i) => 950 + i)) };
  const rows = estimatePower({ unchanged, degraded: [degraded], options, draws: 300 });
  assert.equal(rowOf(rows, 'b', 'video.recvKbps').regressionRate, 0);
  const far = { label: 'c', effect: 0.2, runs: runs(Array.from({ length: 8 }, (_, i) => 800 + i)) };
  assert.equal(rowOf(estimatePower({ unchanged, degraded: [far], options, draws: 300 }), 'c', 'any').regressionRate, 1);
});

test('too few runs for disjoint false-alarm draws, or for a side, is an error', () => {
  assert.throws(() => estimatePower({ unchanged: { label: 'a', effect: 0, runs: runs([1, 2, 3, 4, 5, 6, 7, 8, 9]) }, degraded: [], options }), /a: 9 runs; the false-alarm draws need 10/);
  const tenRuns = { label: 'a', effect: 0, runs: runs(Array(10).fill(1)) };
  assert.throws(() => estimatePower({ unchanged: tenRuns, degraded: [{ label: 'b', effect: 0.1, runs: runs([1, 2, 3, 4]) }], options }), /b: 4 runs; at least 5/);
});

test('smallest detected effect needs >= 80 % detection and < 5 % false alarms; the table shows every pool', () => {
  const row = (label, effect, metric, regressionRate) => ({
    label, effect, metric, draws: 100, regressionRate, improvementRate: 0, relativeChange: -effect,
  });
  const rows = [
    row('p0', 0, 'x', 0.01), row('p1', 0.1, 'x', 0.5), row('p2', 0.2, 'x', 0.85), row('p3', 0.3, 'x', 1),
    row('p0', 0, 'y', 0.06), row('p1', 0.1, 'y', 0.9), row('p2', 0.2, 'y', 1), row('p3', 0.3, 'y', 1),
    row('p0', 0, 'z', 0), row('p1', 0.1, 'z', 0.1), row('p2', 0.2, 'z', 0.2), row('p3', 0.3, 'z', 0.79),
  ];
  assert.deepEqual(smallestDetected(rows), { x: 0.2, y: null, z: null });
  const table = formatPowerTable(rows);
  assert.match(table, /^\| metric \| p0 \(false alarms\) \| p1 \(−10 %\) \| p2 \(−20 %\) \| p3 \(−30 %\) \|$/m);
  assert.match(table, /^\| `x` \| 1\.0 %, median \+0\.0 % \| 50\.0 %, median −10\.0 % \| 85\.0 %, median −20\.0 % \| 100\.0 %, median −30\.0 % \|$/m);
});

test('bench/regression-power.js --dry-run plans the runs and analyses synthetic ones without a browser', () => {
  const bench = fileURLToPath(new URL('../../bench/regression-power.js', import.meta.url));
  const { status, stdout, stderr } = spawnSync(process.execPath, [bench, '--dry-run', '--draws', '300'], { encoding: 'utf8' });
  assert.equal(status, 0, stderr);
  assert.match(stdout, /^plan: 34 runs of 30 s \(cap 1500: 10, cap 1350: 8, cap 1200: 8, cap 1050: 8\)/);
  assert.match(stdout, /^\| any \(the gate\) \| /m);
  assert.match(stdout, /video\.recvKbps\s+(10|20|30) %/);
});
