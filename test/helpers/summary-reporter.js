// A node:test reporter that ends the output with one line per failed test (todo excluded), so a
// CI log cut to its head and tail still names what failed and where.

/**
 * @param {AsyncIterable<{type: string, data: any}>} source
 * @returns {AsyncGenerator<string>}
 */
export default async function* failureSummary(source) {
  /** @type {string[]} */
  const failures = [];
  for await (const event of source) {
    if (event.type !== 'test:fail' || event.data.todo || event.data.skip) continue;
    const { name, file, line, details } = event.data;
    const cause = details?.error?.cause ?? details?.error;
    const message = String(cause?.message ?? cause ?? '').split('\n')[0].slice(0, 300);
    failures.push(`FAILED ${name} (${file ?? '?'}:${line ?? '?'}): ${message}`);
  }
  yield failures.length ? `\n# ${failures.length} failed:\n${failures.join('\n')}\n` : '\n# no failures\n';
}
