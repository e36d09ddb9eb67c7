import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InputError } from '../../orchestrator/lib/system/errors.js';
import { referenceValue } from '../../orchestrator/lib/scenario/reference.js';
import {
  REPRODUCTIONS, buildReproduction, columnKey, columnMetric, findReproduction, publishedValue, reproductionValues, reproductionsOf,
  tableScenarios,
} from '../../orchestrator/lib/scenario/reproductions.js';
import { listScenarios, loadScenario } from '../../orchestrator/lib/scenario/scenario-file.js';
import { renderReproductionPage } from '../../orchestrator/suite/render-reproduction.js';

const SHIPPED = listScenarios().map((s) => s.name);
/** The tables of J16 §8-1, §8-5, §8-7 (codecs) and F, whose every cell has a published value. */
const ORIGINAL = ['j16-table-8-1', 'j16-table-8-2', 'j16-table-8-3', 'j16-table-8-4', 'j16-table-8-8', 'j16-table-8-11', 'f-table-2', 'f-table-3',
  'f-table-4'];
const referenceOf = (name) => loadScenario(name).reference;
/** The table and figure numbers a citation names: ["8-7", "8-8"] of "J16 §8-5 and §8-7, tables 8-7 and 8-8"; also lists ("8-4, 8-5"). */
const citedNumbers = (citation) => [...citation.matchAll(/(?:tables?|figures?|and|,) (\d+(?:-\d+)?)\b/g)].map((m) => m[1]);
/** Whether a reference's source names one of the table's tables or figures. */
const namesTable = (source, table) => source.startsWith(table.source)
  && citedNumbers(table.citation).some((n) => new RegExp(`(?:tables?|figures?) (?:[\\d-]+ and )?${n}\\b`).test(source));

test('the issue\'s tables are all defined, with unique ids', () => {
  const ids = REPRODUCTIONS.map((t) => t.id);
  assert.equal(new Set(ids).size, ids.length);
  for (const id of ['j16-table-8-1', 'j16-table-8-2', 'j16-table-8-3', 'j16-table-8-4', 'j16-table-8-8', 'f-table-2', 'f-table-3', 'f-table-4',
    'j16-changing-conditions', 'j16-multi-party', 'j16-cross-traffic', 'j16-table-8-9', 'j16-constrained-device', 'j16-table-8-11',
    'i22-media-vs-data', 'rfc8867-rmcat']) {
    assert.ok(ids.includes(id), id);
  }
});

test('every row is a shipped scenario and every column a catalogue or derived path with a unit', () => {
  for (const table of REPRODUCTIONS) {
    assert.ok(table.rows.length && table.columns.length, table.id);
    for (const row of table.rows) assert.ok(SHIPPED.includes(row.scenario), `${table.id}: ${row.scenario} is not shipped`);
    for (const { path } of table.columns) {
      assert.ok(columnMetric(path), `${table.id}: ${path} is in neither lib/result/metric-catalogue.js nor lib/scenario/reproductions/derived.js`);
      assert.equal(typeof columnMetric(path).unit, 'string');
    }
    for (const cause of table.causes) {
      for (const path of cause.columns ?? []) assert.ok(table.columns.some((c) => c.path === path), `${table.id}: cause ${cause.id} names ${path}`);
    }
  }
});

test('published values come from the scenario\'s reference when it is this table, else from the table; a row without one says why', () => {
  for (const table of REPRODUCTIONS) {
    for (const row of table.rows) {
      const reference = referenceOf(row.scenario);
      const isThisTable = namesTable(reference?.source ?? '', table);
      if (row.published === 'reference') {
        assert.ok(isThisTable, `${table.id}/${row.scenario}: its reference (${reference?.source}) is not ${table.citation}`);
      } else {
        assert.ok(!isThisTable || !Object.keys(reference.metrics ?? {}).length, `${table.id}/${row.scenario}: the scenario's reference is this table; take the values from it`);
      }
      const own = row.published === 'reference' ? row.extra ?? {} : row.published;
      for (const key of Object.keys(own)) assert.ok(table.columns.some((c) => columnKey(c) === key), `${table.id}/${row.scenario}: ${key} is no column`);
      const values = table.columns.map((column) => publishedValue(row, columnKey(column), reference));
      assert.ok(values.length > 0, `${table.id}: columns`);
      if (row.why) assert.ok(values.every((v) => v === null), `${table.id}/${row.scenario}: says why it has no published value but has one`);
      else if (ORIGINAL.includes(table.id)) assert.ok(values.every(Number.isFinite), `${table.id}/${row.scenario}: a cell without a published value`);
      else assert.ok(values.some(Number.isFinite), `${table.id}/${row.scenario}: no published value and no reason`);
      for (const column of table.columns) {
        const value = publishedValue(row, columnKey(column), reference);
        if (row.published !== 'reference' || own[columnKey(column)] !== undefined) {
          assert.ok(value === null || value !== referenceValue(reference, column.path)?.mean, `${table.id}/${row.scenario}/${column.path}: copied from the reference`);
        }
      }
    }
  }
});

test('a reference row reads the scenario\'s reference, so a changed reference changes the table', () => {
  const row = findReproduction('j16-table-8-1').rows[0];
  const reference = referenceOf(row.scenario);
  assert.equal(publishedValue(row, 'video.recvKbps', reference), reference.metrics['video.recvKbps'].mean);
  const changed = { ...reference, metrics: { ...reference.metrics, 'video.recvKbps': { mean: 1234, sd: null } } };
  assert.equal(publishedValue(row, 'video.recvKbps', changed), 1234);
  assert.equal(publishedValue(row, 'video.recvKbps', null), null);
});

test('a per-change column reads the reference\'s value for that change (byChangeAtS), and none for a change it does not give', () => {
  const row = findReproduction('j16-changing-conditions').rows.find((r) => r.scenario === 'changing-bandwidth');
  const reference = referenceOf(row.scenario);
  const byChange = reference.metrics.timeToSteadyS.byChangeAtS;
  assert.deepEqual([publishedValue(row, 'timeToSteadyS@60', reference), publishedValue(row, 'timeToSteadyS@180', reference)],
    [byChange['60'], byChange['180']]);
  assert.equal(publishedValue(row, 'timeToSteadyS@120', reference), null, 'J16 timed the increases only');
  const changed = { ...reference, metrics: { timeToSteadyS: { mean: 20, sd: null, byChangeAtS: { 60: 20 } } } };
  assert.equal(publishedValue(row, 'timeToSteadyS@60', changed), 20);
  assert.equal(publishedValue(row, 'timeToSteadyS@180', changed), null);
  assert.equal(publishedValue(row, 'utilization', reference), reference.metrics.utilization.mean);
});

test('an unknown table id is bad input listing the known ones', () => {
  assert.throws(() => findReproduction('j16-table-9-9'), (error) => error instanceof InputError
    && /unknown reproduction 'j16-table-9-9'; known: j16-table-8-1, .*f-table-4/.test(error.message));
});

test('reproductionsOf picks the tables with a row among the scenarios', () => {
  assert.deepEqual(reproductionsOf(['unconstrained']).map((t) => t.id), ['j16-table-8-1']);
  assert.deepEqual(reproductionsOf(['loss-20', 'nothing']).map((t) => t.id), ['j16-table-8-3', 'f-table-3']);
  assert.deepEqual(reproductionsOf(['variable-loss']).map((t) => t.id), ['j16-changing-conditions']);
  assert.deepEqual(reproductionsOf(['codec-av1']), [], 'J16 compared no AV1');
  assert.deepEqual(tableScenarios(findReproduction('f-table-4')).length, 6);
});

test('a run\'s values are its window means (per-second metrics) and per-run values, with its clock', () => {
  const result = {
    scenario: { timeScale: 0.1, durationS: 30, nominalDurationS: 300 },
    summary: { overall: { 'video.recvKbps': { mean: 1800, median: 2000 }, rttMs: { mean: null } }, utilization: { overall: 0.7 }, setupMs: { max: 1500 } },
  };
  const { values, clock } = reproductionValues(result, ['video.recvKbps', 'rttMs', 'utilization', 'setupMs']);
  assert.deepEqual(values, { 'video.recvKbps': 1800, utilization: 0.7, setupMs: 1500 });
  assert.deepEqual(clock, { timeScale: 0.1, durationS: 30, nominalDurationS: 300 });
  assert.deepEqual(reproductionValues(null), { values: {}, clock: null });
});

/**
 * Runs of a table's scenarios whose video rate is `base + 100 k` for repetition k.
 * @param {Parameters<typeof tableScenarios>[0]} table
 * @param {{ base?: number, repetitions?: number, status?: (k: number) => string }} [options]
 */
function runsOf(table, { base = 1000, repetitions = 3, status = () => 'passed' } = {}) {
  return tableScenarios(table).flatMap((scenario) => Array.from({ length: repetitions }, (_, k) => ({
    scenario, repetition: k + 1, status: status(k), report: `${scenario}/run-${k + 1}/report.html`,
    values: { 'video.recvKbps': base + 100 * k, rttMs: 10 + k }, clock: { timeScale: 1, durationS: 300, nominalDurationS: 300 },
  })));
}

test('each cell: median and IQR over the passed runs, the published value, the deviation', () => {
  const table = findReproduction('j16-table-8-4');
  const references = Object.fromEntries(tableScenarios(table).map((name) => [name, referenceOf(name)]));
  const runs = runsOf(table, { repetitions: 5, status: (k) => (k === 4 ? 'failed' : 'passed') });
  const built = buildReproduction(table, { runs, references, environment: { video: '720p30', cpus: 2 } });
  assert.equal(built.rows.length, 3);
  const row = built.rows.find((r) => r.scenario === 'bandwidth-750');
  assert.equal(row.passedRuns, 4);
  assert.equal(row.runs.length, 5);
  const video = row.cells.find((c) => c.path === 'video.recvKbps');
  assert.deepEqual(video.ours, { median: 1150, q1: 1075, q3: 1225, n: 4 }, 'the failed fifth run (1400) is left out');
  assert.equal(video.published, references['bandwidth-750'].metrics['video.recvKbps'].mean);
  assert.equal(video.deviation, 1150 - video.published);
  assert.equal(video.relativeDeviation, (1150 - video.published) / video.published);
  const width = row.cells.find((c) => c.path === 'video.recvWidth');
  assert.equal(width.ours, null);
  assert.equal(width.deviation, null);
  assert.equal(built.compressed, false);
  const loss = row.cells.find((c) => c.path === 'lossPct');
  assert.ok(!loss.causes.includes('source'), 'the source resolution bears on video, not loss');
  assert.ok(video.causes.includes('source') && video.causes.includes('chrome-2016'));
});

test('known causes apply only to runs they describe', () => {
  const table = findReproduction('j16-table-8-1');
  const references = { unconstrained: referenceOf('unconstrained') };
  // The cores cause needs a run whose record shows CPU limitation (the row-level rule: reproduction-run-kinds.test.js).
  const runs = runsOf(table).map((run) => ({ ...run, hostLimited: true }));
  const ids = (environment) => buildReproduction(table, { runs, references, environment }).causes.map((c) => c.id);
  assert.ok(ids({ video: '720p30', cpus: 2 }).includes('source'));
  assert.ok(ids({ video: '720p30', cpus: 2 }).includes('cores'));
  assert.ok(!ids({ video: '1080p50', cpus: 2 }).includes('source'), 'a 1080p50 source is J16\'s');
  assert.ok(!ids({ video: '720p30', cpus: 32 }).includes('cores'));
  const text = buildReproduction(table, { runs, references, environment: { video: '360p30', cpus: 2 } }).causes.find((c) => c.id === 'source').text;
  assert.match(text, /these runs sent 360p30/);
});

test('the audio cause marks J16\'s audio columns only, the host RTT cause the open links\' RTT on a small host', () => {
  const causesOf = (id, scenario, path, cpus = 2) => {
    const table = findReproduction(id);
    const references = Object.fromEntries(tableScenarios(table).map((name) => [name, referenceOf(name)]));
    const built = buildReproduction(table, { runs: runsOf(table), references, environment: { video: '720p30', cpus } });
    return built.rows.find((r) => r.scenario === scenario).cells.find((c) => c.path === path).causes;
  };
  for (const [id, scenario] of [['j16-table-8-1', 'unconstrained'], ['j16-table-8-2', 'latency-500'], ['j16-table-8-3', 'loss-5'],
    ['j16-table-8-4', 'bandwidth-250']]) {
    assert.ok(causesOf(id, scenario, 'audio.recvKbps').includes('opus-default'), `${id}: audio`);
    assert.ok(!causesOf(id, scenario, 'video.recvKbps').includes('opus-default'), `${id}: video is not the audio encoder's`);
  }
  assert.ok(causesOf('j16-table-8-1', 'unconstrained', 'rttMs').includes('host-rtt'));
  assert.ok(causesOf('j16-table-8-3', 'loss-10', 'rttMs').includes('host-rtt'));
  assert.ok(!causesOf('j16-table-8-1', 'unconstrained', 'rttMs', 32).includes('host-rtt'), 'measured on 2 cores only');
  assert.ok(!causesOf('j16-table-8-2', 'latency-100', 'rttMs').includes('host-rtt'), 'the added delay dominates there');
  assert.ok(!causesOf('j16-table-8-1', 'unconstrained', 'audio.recvKbps').includes('host-rtt'));
});

test('compressed runs are flagged', () => {
  const table = findReproduction('j16-table-8-1');
  const runs = runsOf(table).map((run) => ({ ...run, clock: { timeScale: 0.1, durationS: 30, nominalDurationS: 300 } }));
  assert.equal(buildReproduction(table, { runs, references: {} }).compressed, true);
});

test('the page shows every row with our value beside the published one, and the causes', () => {
  const table = findReproduction('j16-table-8-2');
  const references = Object.fromEntries(tableScenarios(table).map((name) => [name, referenceOf(name)]));
  const built = buildReproduction(table, { runs: runsOf(table), references, environment: { video: '720p30', cpus: 2 } });
  const html = renderReproductionPage(built, { suiteName: 'nightly <x>', environment: { video: '720p30', cpus: 2 } });
  assert.match(html, /nightly &lt;x&gt;/);
  assert.match(html, /J16 §8-1-2, table 8-2: Average results of limiting latency/);
  for (const row of built.rows) {
    const tr = new RegExp(`<tr data-scenario="${row.scenario}">(.*?)</tr>`, 's').exec(html)?.[1];
    assert.ok(tr, row.scenario);
    const video = row.cells.find((c) => c.path === 'video.recvKbps');
    assert.match(tr, new RegExp(`data-path="video.recvKbps" data-ours="${video.ours.median}" data-published="${video.published}"`));
    assert.match(tr, /<span class="ours">1100/);
    assert.match(tr, /IQR 1050–1150/);
    assert.match(tr, new RegExp(`paper ${Math.round(video.published)}`));
    assert.match(tr, /3\/3 runs passed/);
  }
  assert.match(html, /<li id="cause-source">J16 injected a 1080p50 source; these runs sent 720p30/);
  assert.match(html, /<sup><a href="#cause-source"/);
});
