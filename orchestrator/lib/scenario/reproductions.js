// The published tables the harness reproduces (pure): for each, its rows (a shipped scenario each), its columns (a
// metric catalogue path each) and the published values, and the known causes of a deviation. Where a row's values
// are its scenario's reference (orchestrator/scenarios/*.json `reference.metrics`), the row says so and the values
// are read from the scenario (one owner); only values no scenario carries are written here, in the metric's unit.
// The suite report renders one page per table (suite/render-reproduction.js); `reproduce <id>` runs a table.
import { InputError } from '../system/errors.js';
import { metricByPath } from '../result/metric-catalogue.js';
import { referenceValue } from './reference.js';
import { finiteOrNull, percentile } from '../stats/statistics.js';
import { fieldOf, isRecord, pathOf } from '../input/validate.js';
import { CORES, HOST_RTT, J16_CHROME, J16_SOURCE, OPUS_DEFAULT, RTX_PADDING } from './reproductions/causes.js';
import { derivedMetric, perChangePath } from './reproductions/derived.js';
import { runCpuLimited } from './reproductions/host-bound.js';
import { measuredPhrase } from './reproductions/run-kinds.js';
import { FAMILY_TABLES } from './reproductions/families.js';
import { J16_COLUMNS, J16_VIDEO, columnKey, reproductionTable } from './reproductions/tables.js';
import { VERDICT_PATHS, expectedBehaviour, rmcatVerdict } from './reproductions/verdicts.js';

/**
 * @typedef {object} ReproductionColumn
 * @property {string} path      a catalogue path (lib/result/metric-catalogue.js) or a derived one (lib/scenario/reproductions/derived.js,
 *   e.g. 'timeToSteadyS@60': after the change at 1:00, published as its reference's byChangeAtS entry)
 * @property {string} heading   the paper's column heading
 * @property {boolean} [ratioToBaseline]  the row's median over its baseline row's (published under '×' + path)
 *
 * @typedef {object} ReproductionRow
 * @property {string} label     the paper's row heading
 * @property {string} scenario  a shipped scenario's name
 * @property {'reference'|Record<string, number>} published  'reference': the scenario's reference is this row;
 *   else the published values by column key (columns without one were not published for the row)
 * @property {Record<string, number>} [extra]  with 'reference': values the paper gives that the reference does not carry
 * @property {string} [baseline]  the scenario a ratio column divides by
 * @property {string} [why]       why the row has no published value
 *
 * @typedef {object} KnownCause
 * @property {string} id
 * @property {string} text      one line; {video} and {cpus} are replaced by the runs' own, {measured} by `measured`'s figures
 * @property {string[]} [columns]  the columns it bears on; all when omitted
 * @property {string[]} [rows]     the rows (scenarios) it bears on; all when omitted
 * @property {{ videoOtherThan?: string, cpusAtMost?: number, mediaSourceOtherThan?: string, cpuLimitedRows?: boolean }} [when]
 *   applies only to runs like these; cpuLimitedRows: only to the rows with a passed run whose record shows CPU
 *   limitation (host-bound.js runCpuLimited)
 * @property {{ path: string, by: 'emulator'|'audio' }} [measured]  the figure the text quotes per row and per kind of
 *   run (reproductions/run-kinds.js measuredPhrase): the median of the rows' passed runs
 *
 * @typedef {object} Reproduction
 * @property {string} id        typed on the command line: `reproduce <id>`
 * @property {string} source    the paper, abbreviated as in docs/catalog.md (J16, F, I22, RFC 8867)
 * @property {string} citation  where in the paper
 * @property {string} title     the table's caption
 * @property {string} [note]    how the table maps onto the scenarios (rows or columns not reproduced)
 * @property {ReproductionColumn[]} columns
 * @property {ReproductionRow[]} rows
 * @property {KnownCause[]} causes
 * @property {boolean} [verdicts]  judge each row by RFC 8868's criteria (lib/scenario/reproductions/verdicts.js)
 * @property {number} [repetitions]  the paper's runs of each row where not the plan's 5 (J16's and F's): `reproduce` plans as many
 */

const F_CHROME = {
  id: 'rrtcc',
  text: 'F measured an RRTCC-era Chrome (receiver-side estimate, TFRC-style loss response) over 10-minute calls between '
    + 'two real hosts; today\'s GCC reacts to delay and loss differently, so F\'s figures are a shape to compare, not a target',
};

/** F ran every call 10 minutes, 5 times; its own scenarios run 600 s since 2026-11-30 (their runs.json clocks say each run's). */
const F_LENGTH = 'F ran each call 10 minutes, 5 times: F\'s own rows here run 600 s (runs published before 2026-11-30 ran 300 s, '
  + 'and are measured again at 600 s, a run\'s length in runs.json\'s clock)';
const F_SHARED = `${F_LENGTH}; the rows F shares with J16 are J16's 5-minute runs, one set of runs per condition.`;

const TABLES = /** @type {import('./reproductions/tables.js').TableData[]} */ ([
  {
    id: 'j16-table-8-1', source: 'J16', citation: 'J16 §8-1-1, table 8-1', title: 'Average results for unconstrained test',
    columns: J16_COLUMNS, rows: { Unconstrained: 'unconstrained' },
    causes: [J16_SOURCE, CORES, {
      id: 'ceiling',
      text: 'J16\'s 2.5 Mbps is the 2016 browser\'s video cap; today\'s cap depends on the sent resolution (2 Mbps at 960×540)',
      columns: ['video.recvKbps'],
    }, OPUS_DEFAULT, HOST_RTT],
  },
  {
    id: 'j16-table-8-2', source: 'J16', citation: 'J16 §8-1-2, table 8-2', title: 'Average results of limiting latency',
    columns: J16_COLUMNS, rows: { '100ms': 'latency-100', '250ms': 'latency-250', '500ms': 'latency-500' },
    causes: [J16_SOURCE, CORES, OPUS_DEFAULT],
  },
  {
    id: 'j16-table-8-3', source: 'J16', citation: 'J16 §8-1-3, table 8-3', title: 'Average results of adding packet loss',
    note: 'J16 compares with 0 % loss: that is table 8-1 (unconstrained).',
    columns: J16_COLUMNS, rows: { '5%': 'loss-5', '10%': 'loss-10', '20%': 'loss-20' },
    causes: [J16_SOURCE, CORES, { ...J16_CHROME, columns: ['video.recvKbps', 'video.recvWidth', 'video.recvHeight', 'video.recvFps'] },
      OPUS_DEFAULT, HOST_RTT, RTX_PADDING],
  },
  {
    id: 'j16-table-8-4', source: 'J16', citation: 'J16 §8-1-4, table 8-4', title: 'Average results of limiting bandwidth',
    columns: J16_COLUMNS, rows: { '1500kbps': 'bandwidth-1500', '750kbps': 'bandwidth-750', '250kbps': 'bandwidth-250' },
    causes: [J16_SOURCE, CORES, { ...J16_CHROME, columns: ['video.recvKbps', 'rttMs', 'lossPct'] }, OPUS_DEFAULT],
  },
  {
    id: 'j16-table-8-8', source: 'J16', citation: 'J16 §8-5, tables 8-7 (procedure) and 8-8',
    title: 'Average receiving characteristics during 7 minute session (Chrome ↔ Chrome)',
    note: 'The row is the mean of J16\'s Chrome 1 and Chrome 2 columns; the iOS and Android columns need mobile peers.',
    columns: J16_VIDEO, rows: { 'Chrome ↔ Chrome': 'seven-minute-mix' }, causes: [J16_SOURCE, CORES, J16_CHROME],
  },
  {
    id: 'f-table-2', source: 'F', citation: 'F §4.1, table 2', title: 'Summary of averaged results with different latency conditions',
    note: F_SHARED,
    columns: {
      'video.recvKbps': 'bitRate (Kbit/s)', rttMs: 'RTT (ms)', residualLossPct: 'Residual Loss (%)', lossPct: 'Packet Loss (%)',
    },
    rows: {
      '50ms': 'latency-50', '100ms': ['latency-100', 1789.56, 310, 0.12, 0.83], '200ms': 'latency-200',
      '500ms': ['latency-500', 423.37, 1245.81, 0.91, 0.65],
    },
    causes: [F_CHROME, {
      id: 'f-path',
      text: 'F\'s RTT exceeds twice the added delay (250 ms at 50 ms each way): its path between two real hosts added delay '
        + 'the scenario does not',
      columns: ['rttMs'],
    }],
  },
  {
    id: 'f-table-3', source: 'F', citation: 'F §4.2, table 3', title: 'Different Packet Loss Rates', note: F_SHARED,
    columns: { 'video.recvKbps': 'bitRate (Kbps)', rttMs: 'RTT (ms)', residualLossPct: 'Residual Loss (%)' },
    rows: {
      '1%': 'loss-1', '5%': ['loss-5', 1945.27, 10.2, 0.52], '10%': ['loss-10', 1593.51, 8.89, 0.86], '20%': ['loss-20', 379.42, 5.59, 3.24],
    },
    causes: [F_CHROME, { ...RTX_PADDING, columns: ['video.recvKbps'] }],
  },
  {
    id: 'f-table-4', source: 'F', citation: 'F §4.3, table 4', title: 'Different Queue Sizes', note: `${F_LENGTH}.`,
    columns: { 'video.recvKbps': 'Rate (Kbps)', rttMs: 'RTT (ms)', residualLossPct: 'Residual Loss (%)', lossPct: 'Loss (%)' },
    rows: {
      '1 Mbps, 100ms': 'queue-size-1000-100ms', '1 Mbps, 1s': 'queue-size-1000-1s', '1 Mbps, 10s': 'queue-size-1000-10s',
      '5 Mbps, 100ms': 'queue-size-5000-100ms', '5 Mbps, 1s': 'queue-size-5000-1s', '5 Mbps, 10s': 'queue-size-5000-10s',
    },
    causes: [F_CHROME],
  },
  {
    id: 'f-figure-13', source: 'F', citation: 'F §4.4, figure 13', title: 'Loss and latency: 10 % loss and 50 ms delay in a 1 Mbit/s limit',
    note: `F shows the rate falling and the RTT constant through the call, in a figure without values. ${F_LENGTH}.`,
    columns: { 'video.recvKbps': 'Rate (Kbps)', rttMs: 'RTT (ms)', residualLossPct: 'Residual Loss (%)', lossPct: 'Loss (%)' },
    rows: {
      '1 Mbps, 500 ms queue, 10 % loss, 50 ms': { scenario: 'loss-latency', published: {}, why: 'F §4.4 gives a figure (13) and no values' },
    },
    causes: [F_CHROME],
  },
]).map(reproductionTable);

/** @type {readonly Reproduction[]} */
export const REPRODUCTIONS = Object.freeze([...TABLES, ...FAMILY_TABLES]);

export { columnKey };

/** A column path's label, unit and decimals: the catalogue's, else the derived metric's. @param {string} path */
export const columnMetric = (path) => metricByPath(path) ?? derivedMetric(path);

/**
 * @param {string} id
 * @returns {Reproduction}
 * @throws {InputError} naming the known ids
 */
export function findReproduction(id) {
  const table = REPRODUCTIONS.find((t) => t.id === id);
  if (!table) throw new InputError(`unknown reproduction '${id}'; known: ${REPRODUCTIONS.map((t) => t.id).join(', ')} (\`reproduce --list\`)`);
  return table;
}

/** @param {Reproduction} table @returns {string[]} its scenarios, in row order, each once */
export const tableScenarios = (table) => [...new Set(table.rows.map((row) => row.scenario))];

/**
 * The tables with at least one row among these scenarios.
 * @param {string[]} scenarios
 */
export const reproductionsOf = (scenarios) => REPRODUCTIONS.filter((table) => table.rows.some((row) => scenarios.includes(row.scenario)));

/** Every catalogue path some table compares. */
export const REPRODUCTION_PATHS = [...new Set([...REPRODUCTIONS.flatMap((table) => table.columns.map((c) => c.path)), ...VERDICT_PATHS])];

/**
 * A reference's value for a column key: its mean, or for a per-change column ('timeToSteadyS@60') the value it gives
 * for that change (byChangeAtS); null when it has none.
 * @param {unknown} reference @param {string} key
 */
function referenceFigure(reference, key) {
  const change = perChangePath(key);
  if (!change) return referenceValue(reference, key)?.mean ?? null;
  const byChange = Object.entries(referenceValue(reference, change.path)?.byChangeAtS ?? {});
  return byChange.find(([atS]) => Number(atS) === change.atS)?.[1] ?? null;
}

/**
 * The published value of a cell, or null when the paper gives none.
 * @param {ReproductionRow} row
 * @param {string} key a column key (columnKey)
 * @param {unknown} reference the row's scenario's reference (for rows whose published values are it)
 */
export function publishedValue(row, key, reference) {
  const values = row.published === 'reference' ? row.extra ?? {} : row.published;
  const fromReference = row.published === 'reference' ? referenceFigure(reference, key) : null;
  if (fromReference !== null) return fromReference;
  return Number.isFinite(values[key]) ? values[key] : null;
}

/**
 * @typedef {object} ReproductionRun
 * @property {string} scenario
 * @property {number} repetition
 * @property {string} status
 * @property {string|null} report  relative to the suite directory
 * @property {Record<string, number>} values  by catalogue path
 * @property {{ timeScale: number, durationS: number, nominalDurationS: number }|null} clock
 * @property {string|null} [emulator]  the network emulator and the relay's packet path (suite/reproduction-runs.js)
 * @property {string|null} [audio]     the audio loop its peers sent
 * @property {import('./reproductions/host-evidence.js').HostEvidence|null} [hostEvidence]
 * @property {boolean} [hostLimited]   the suite's CPU flag
 * @property {string[]} [variant]     how it changed the browsers' congestion control from the shipped scenario
 */

/**
 * What a reproduction takes from one run: per catalogue path, the run's mean over its measurement window averaged
 * over peers (J16 and F report means), or a per-run metric's value; and how its clock was compressed.
 * @param {unknown} result a result.json of any harness version, read field by field; a value counts when it is a finite number
 * @param {string[]} paths
 * @returns {{ values: Record<string, number>, clock: ReproductionRun['clock'] }}
 */
export function reproductionValues(result, paths = REPRODUCTION_PATHS) {
  /** @type {Record<string, number>} */
  const values = {};
  const summary = fieldOf(result, 'summary');
  for (const path of paths) {
    const metric = metricByPath(path);
    const derived = derivedMetric(path);
    const value = derived ? derived.from(result)
      : metric?.per === 'run' ? metric.fromSummary?.(isRecord(summary) ? summary : {}) : pathOf(summary, 'overall', path, 'mean');
    const figure = finiteOrNull(value);
    if (figure !== null) values[path] = figure;
  }
  const [timeScale, durationS, nominalDurationS] = ['timeScale', 'durationS', 'nominalDurationS']
    .map((field) => finiteOrNull(pathOf(result, 'scenario', field)));
  const clock = timeScale !== null && durationS !== null && nominalDurationS !== null ? { timeScale, durationS, nominalDurationS } : null;
  return { values, clock };
}

/**
 * @param {KnownCause} cause
 * @param {{ video?: string|null, cpus?: number|null, mediaSource?: string|null }} environment
 */
function causeApplies(cause, environment) {
  const { videoOtherThan, cpusAtMost, mediaSourceOtherThan } = cause.when ?? {};
  if (videoOtherThan !== undefined && environment.video === videoOtherThan) return false;
  if (mediaSourceOtherThan !== undefined && environment.mediaSource === mediaSourceOtherThan) return false;
  const { cpus } = environment;
  if (cpusAtMost !== undefined && !(typeof cpus === 'number' && Number.isFinite(cpus) && cpus <= cpusAtMost)) return false;
  return true;
}

/**
 * @typedef {object} ReproductionCell
 * @property {string} path
 * @property {string} key                     the column key (columnKey)
 * @property {number|null} published
 * @property {{ median: number, q1: number, q3: number, n: number }|null} ours  over the passed runs' values; for a
 *   ratio column, the ratio of the medians (q1 = q3 = median)
 * @property {number|null} deviation          ours.median − published
 * @property {number|null} relativeDeviation  deviation / |published|; null when published is 0
 * @property {string[]} causes                ids of the known causes that bear on it
 */

/** Median and quartiles of a path's values over some runs, or null. @param {ReproductionRun[]} runs @param {string} path */
function spread(runs, path) {
  const values = runs.map((run) => run.values[path])
    .filter(/** @returns {value is number} */ (value) => Number.isFinite(value)).sort((a, b) => a - b);
  if (!values.length) return null;
  // A percentile of values, which the check above found there are.
  const at = (/** @type {number} */ p) => /** @type {number} */ (percentile(values, p));
  return { median: at(50), q1: at(25), q3: at(75), n: values.length };
}

/** @param {ReturnType<typeof spread>} ours @param {ReturnType<typeof spread>} base */
function ratioOf(ours, base) {
  if (!ours || !base || base.median === 0) return null;
  const median = ours.median / base.median;
  return { median, q1: median, q3: median, n: Math.min(ours.n, base.n) };
}

/**
 * One table filled with a suite's runs: per row, our median and IQR over the passed repetitions beside each
 * published value, the deviation and the known causes that apply to these runs; with `verdicts`, each row's
 * expected behaviour (from its scenario's reference) and RFC 8868 verdict.
 * @param {Reproduction} table
 * @param {object} input
 * @param {ReproductionRun[]} input.runs the suite's runs of the table's scenarios
 * @param {Record<string, unknown>} input.references scenario name -> its reference
 * @param {{ video?: string|null, cpus?: number|null, mediaSource?: string|null }} [input.environment] of the runs
 */
export function buildReproduction(table, { runs, references, environment = {} }) {
  const passedOf = (/** @type {string} */ scenario) => runs.filter((run) => run.scenario === scenario && run.status === 'passed');
  const applicable = table.causes.filter((cause) => causeApplies(cause, environment)).map((cause) => ({
    ...cause,
    text: cause.text.replaceAll('{video}', environment.video ?? 'another source').replaceAll('{cpus}', String(environment.cpus ?? '?'))
      .replaceAll('{measured}', cause.measured ? measuredOf(cause.measured, table, cause.rows, passedOf) : ''),
  }));
  const rows = table.rows.map((row) => {
    const mine = runs.filter((run) => run.scenario === row.scenario);
    const passed = passedOf(row.scenario);
    const cpuLimited = passed.some(runCpuLimited);
    const rowCauses = applicable.filter((c) => (!c.rows || c.rows.includes(row.scenario)) && (!c.when?.cpuLimitedRows || cpuLimited));
    /** @type {ReproductionCell[]} */
    const cells = table.columns.map((column) => {
      const { path } = column;
      const key = columnKey(column);
      const published = publishedValue(row, key, references[row.scenario]);
      const base = column.ratioToBaseline && row.baseline ? spread(passedOf(row.baseline), path) : null;
      const ours = column.ratioToBaseline ? ratioOf(spread(passed, path), base) : spread(passed, path);
      const deviation = ours && published !== null ? ours.median - published : null;
      return {
        path, key, published, ours, deviation,
        relativeDeviation: deviation !== null && published !== null && published !== 0 ? deviation / Math.abs(published) : null,
        causes: rowCauses.filter((c) => !c.columns || c.columns.includes(path)).map((c) => c.id),
      };
    });
    const verdict = table.verdicts
      ? {
        expected: expectedBehaviour(references[row.scenario]),
        ...rmcatVerdict(row.scenario, Object.fromEntries([
          ...cells.map((cell) => [cell.key, cell.ours?.median ?? null]),
          ...VERDICT_PATHS.map((path) => [path, spread(passed, path)?.median ?? null]),
        ])),
      }
      : null;
    return { label: row.label, scenario: row.scenario, runs: mine, passedRuns: passed.length, cells, verdict };
  });
  const compressed = runs.some((run) => run.clock && (run.clock.timeScale !== 1 || run.clock.durationS < run.clock.nominalDurationS));
  // A cause no cell carries (a row condition no row met) is not listed.
  const causes = applicable.filter((c) => rows.some((row) => row.cells.some((cell) => cell.causes.includes(c.id))));
  // An experiment on the table's scenarios (--field-trials, --bandwidth-estimation), which the page says.
  const variants = [...new Set(runs.flatMap((run) => run.variant ?? []))];
  return { table, rows, causes, compressed, variants };
}

/**
 * A cause's `measured` figure over the table's rows it bears on.
 * @param {NonNullable<KnownCause['measured']>} measured @param {Reproduction} table @param {string[]|undefined} scenarios
 * @param {(scenario: string) => ReproductionRun[]} passedOf
 */
function measuredOf({ path, by }, table, scenarios, passedOf) {
  const rows = table.rows.filter((row) => !scenarios || scenarios.includes(row.scenario))
    .map((row) => ({ label: row.label, runs: passedOf(row.scenario) }));
  return measuredPhrase({ path, by, unit: columnMetric(path)?.unit ?? '' }, rows);
}
