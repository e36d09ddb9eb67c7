// A node:test reporter that ends the output with one line per failed test (todo excluded), so a CI log cut to its
// head and tail still names what failed and where; then the ten slowest tests and files, so the suite's time budget
// stays visible (README "Tests").

const SLOWEST = 10;

/**
 * A file's time: from the previous file's last event to its own last one, which counts its start-up and hooks
 * (test/run.js runs test/*.test.js one file at a time). Files run side by side (test/unit/) report in turn, so each
 * is charged what the run waited for it after the one before: the files' times still add up to the run's.
 * @param {Map<string, number>} fileMs @param {{ file?: string, now: number, last: { file?: string, at: number } }} step
 */
function chargeFile(fileMs, { file, now, last }) {
  if (!file) return;
  fileMs.set(file, (fileMs.get(file) ?? 0) + (now - last.at));
  last.file = file;
  last.at = now;
}

/** @param {Iterable<[string, number]>} rows @param {string} heading */
function slowest(rows, heading) {
  const top = [...rows].sort((a, b) => b[1] - a[1]).slice(0, SLOWEST);
  return top.length ? `# ${heading}:\n${top.map(([name, ms]) => `#   ${(ms / 1000).toFixed(1).padStart(7)} s  ${name}`).join('\n')}\n` : '';
}

/**
 * @param {AsyncIterable<{type: string, data: any}>} source
 * @returns {AsyncGenerator<string>}
 */
export default async function* summaryReporter(source) {
  /** @type {string[]} */
  const failures = [];
  /** @type {Map<string, number>} */
  const testMs = new Map();
  /** @type {Map<string, number>} */
  const fileMs = new Map();
  const started = Date.now();
  const last = { file: undefined, at: started };
  const root = process.cwd() + '/';
  for await (const event of source) {
    const file = typeof event.data?.file === 'string' ? event.data.file.replace(root, '') : undefined;
    if (event.type === 'test:pass' || event.type === 'test:fail') {
      chargeFile(fileMs, { file, now: Date.now(), last });
      if (event.data.nesting === 0) testMs.set(`${event.data.name} (${file ?? '?'})`, event.data.details?.duration_ms ?? 0);
    }
    if (event.type !== 'test:fail' || event.data.todo || event.data.skip) continue;
    const { name, line, details } = event.data;
    const cause = details?.error?.cause ?? details?.error;
    const message = String(cause?.message ?? cause ?? '').split('\n')[0].slice(0, 300);
    failures.push(`FAILED ${name} (${file ?? '?'}:${line ?? '?'}): ${message}`);
  }
  yield `\n${slowest(testMs, `the ${SLOWEST} slowest tests`)}${slowest(fileMs, `the ${SLOWEST} slowest files`)}`
    + `# all tests: ${((Date.now() - started) / 60_000).toFixed(1)} min\n`;
  yield failures.length ? `\n# ${failures.length} failed:\n${failures.join('\n')}\n` : '\n# no failures\n';
}
