// `npm test`: the pure tests (test/unit/) several files at a time, then the tests with servers, relays, namespaces and
// browsers (test/*.test.js) one file at a time, as they measure rates and delays on the host's cores. One TAP stream
// and one summary for the whole run (test/helpers/summary-reporter.js: the slowest tests and files, the failures), with
// node's closing counts (`# pass N`, `# fail N`) once; exit 1 when a test failed. Files given as arguments
// (`node test/run.js test/e2e-sfu.test.js`) run the same way; without any, every file. Temporary files live in one
// folder per run (below).
import { chmodSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { run } from 'node:test';
import { tap } from 'node:test/reporters';
import { fileURLToPath } from 'node:url';
import summaryReporter from './helpers/summary-reporter.js';

const TEST_DIR = path.dirname(fileURLToPath(import.meta.url));
const UNIT_DIR = path.join(TEST_DIR, 'unit');
const testFiles = (dir) => readdirSync(dir).filter((name) => name.endsWith('.test.js')).sort().map((name) => path.join(dir, name));

// Every temporary file of the run (tempDir's folders, browser profiles, run folders) goes under one folder: removed
// when every test passed, kept and named when one failed, so its runs can be read. Others may pass through it, as
// through /tmp: tests run PostgreSQL as `postgres` and read files as `nobody` in folders of their own below it.
const runTmpDir = mkdtempSync(path.join(os.tmpdir(), 'wtb-npm-test-'));
chmodSync(runTmpDir, 0o755);
process.env.TMPDIR = runTmpDir;

const given = process.argv.slice(2).map((file) => path.resolve(file));
const files = given.length ? given : [...testFiles(UNIT_DIR), ...testFiles(TEST_DIR)];
const phases = [
  { files: files.filter((file) => path.dirname(file) === UNIT_DIR), concurrency: os.availableParallelism() },
  { files: files.filter((file) => path.dirname(file) !== UNIT_DIR), concurrency: 1 },
].filter((phase) => phase.files.length > 0);

// The closing counts each run() ends with (`test:diagnostic` of the root: "pass 12"), added up over the phases.
const COUNTS = ['tests', 'suites', 'pass', 'fail', 'cancelled', 'skipped', 'todo'];
const isRootCount = (event) => event.type === 'test:diagnostic' && event.data.nesting === 0 && event.data.file === undefined
  && /^(tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) /.test(event.data.message);

/**
 * The phases' events as one run: top-level tests numbered on across phases, one plan and one set of counts at the end.
 * @returns {AsyncGenerator<{ type: string, data: any }>}
 */
async function* events() {
  const started = performance.now();
  /** @type {Map<string, number>} */
  const counts = new Map(COUNTS.map((name) => [name, 0]));
  let planned = 0;
  for (const phase of phases) {
    const offset = planned;
    for await (const event of run(phase)) {
      if (isRootCount(event)) {
        const [name, value] = event.data.message.split(' ');
        if (counts.has(name)) counts.set(name, counts.get(name) + Number(value));
        continue;
      }
      if (event.type === 'test:plan' && event.data.nesting === 0 && event.data.file === undefined) {
        planned += event.data.count;
        continue;
      }
      if (event.data?.nesting === 0 && typeof event.data.testNumber === 'number') event.data.testNumber += offset;
      yield event;
    }
  }
  yield { type: 'test:plan', data: { nesting: 0, count: planned } };
  counts.set('duration_ms', performance.now() - started);
  for (const [name, value] of counts) yield { type: 'test:diagnostic', data: { nesting: 0, message: `${name} ${value}` } };
  if (counts.get('fail') + counts.get('cancelled') > 0) process.exitCode = 1;
}

// Both reporters read every event; the summary is printed after the TAP stream's closing counts.
const source = Readable.from(events(), { objectMode: true });
const summary = /** @type {Readable} */ (source.compose(summaryReporter)).toArray();
for await (const text of source.compose(tap)) process.stdout.write(text);
process.stdout.write((await summary).join(''));
if (process.exitCode === 1) process.stdout.write(`# the run's temporary files are kept in ${runTmpDir}\n`);
else rmSync(runTmpDir, { recursive: true, force: true });
