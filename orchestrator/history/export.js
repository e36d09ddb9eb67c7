// CSV for `history export` (pure): RFC 4180 quoting, a header row of the columns.

/** @param {unknown} value */
function cell(value) {
  if (value === null || value === undefined) return '';
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** @param {Record<string, unknown>[]} rows all with the same columns */
export function toCsv(rows) {
  if (!rows.length) return '';
  const columns = Object.keys(rows[0]);
  return `${[columns.join(','), ...rows.map((row) => columns.map((column) => cell(row[column])).join(','))].join('\n')}\n`;
}
