// How a reproduced table is declared (pure): its columns as headings by column key and its rows by label, so that each
// column and row is written once, as data (lib/scenario/reproductions.js, reproductions/families.js); and the column
// sets several J16 tables share.

/**
 * @typedef {import('../reproductions.js').Reproduction} Reproduction
 * @typedef {import('../reproductions.js').ReproductionColumn} ReproductionColumn
 * @typedef {import('../reproductions.js').ReproductionRow} ReproductionRow
 * @typedef {string | [string, ...number[]] | Omit<ReproductionRow, 'label'>} RowData  a scenario's name: the row's
 *   published values are its reference; [scenario, ...values]: the published values in column order; else the row
 * @typedef {Omit<Reproduction, 'columns'|'rows'> & { columns: Record<string, string>, rows: Record<string, RowData> }} TableData
 *   columns: heading by column key (columnKey); rows: by label
 */

/** J16 §8-1's tables. */
export const J16_COLUMNS = {
  'audio.recvKbps': 'Audio (kbps)', 'video.recvKbps': 'Video (kbps)', rttMs: 'RTT (ms)', lossPct: 'P.L.',
  'video.recvWidth': 'Avg resolution (width)', 'video.recvHeight': 'Avg resolution (height)', 'video.recvFps': 'FPS',
};
/** J16 table 8-8's receiving characteristics, also those of §8-6 and §8-7. */
export const J16_VIDEO = {
  'video.recvKbps': 'Data rate (kbps)', rttMs: 'RTT (ms)', lossPct: 'Packet loss (%)',
  'video.recvWidth': 'Resolution (width)', 'video.recvHeight': 'Resolution (height)', 'video.recvFps': 'Framerate (FPS)',
};

const RATIO = '×';

/** A column's key in `published` and in a row's cells: its path, or '×' + path for a ratio. @param {ReproductionColumn} column */
export const columnKey = (column) => (column.ratioToBaseline ? `${RATIO}${column.path}` : column.path);

/** @param {string} key a column key @param {string} heading @returns {ReproductionColumn} */
const columnOf = (key, heading) => (key.startsWith(RATIO)
  ? { path: key.slice(RATIO.length), heading, ratioToBaseline: true }
  : { path: key, heading });

/** @param {string} label @param {RowData} data @param {string[]} keys the column keys @returns {ReproductionRow} */
function rowOf(label, data, keys) {
  if (typeof data === 'string') return { label, scenario: data, published: 'reference' };
  if (!Array.isArray(data)) return { label, ...data };
  const [scenario, ...values] = data;
  return { label, scenario, published: Object.fromEntries(values.map((value, i) => [keys[i], value])) };
}

/**
 * @param {TableData} table
 * @returns {Reproduction}
 */
export function reproductionTable({ id, source, citation, title, note, columns, verdicts, rows, causes, repetitions }) {
  const keys = Object.keys(columns);
  return {
    id, source, citation, title, ...(note === undefined ? {} : { note }), ...(repetitions === undefined ? {} : { repetitions }),
    columns: keys.map((key) => columnOf(key, columns[key])),
    ...(verdicts === undefined ? {} : { verdicts }),
    rows: Object.entries(rows).map(([label, data]) => rowOf(label, data, keys)),
    causes,
  };
}

/**
 * Rows that publish nothing, with why.
 * @param {string} why
 * @param {Record<string, string>} scenarios by label
 * @returns {Record<string, RowData>}
 */
export const unpublishedRows = (why, scenarios) => Object.fromEntries(Object.entries(scenarios)
  .map(([label, scenario]) => [label, { scenario, published: {}, why }]));
