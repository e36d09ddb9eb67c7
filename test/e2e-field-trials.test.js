// Chromium field trials on a real run (--field-trials, lib/scenario/field-trials.js): each Chromium peer runs with them
// on its command line, result.json records them; a malformed string stops the run before anything starts.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { pidsMentioning, runCli, tempDir } from './helpers/cli.js';

test('--field-trials reaches every Chromium peer\'s command line as one element and is recorded in result.json', { timeout: 90_000 }, async () => {
  // A trial of this run's own (Chromium ignores a trial it does not know), beside one WebRTC reads.
  const own = `WTB-E2E-${randomUUID().slice(0, 8)}`;
  const trials = `${own}/On/WebRTC-Bwe-LossBasedBweV2/Enabled:false/`;
  const out = tempDir('wtb-field-trials-');
  /** Each process seen with the flag and no --type=, with its parent's pid. @type {Map<string, string>} */
  const seen = new Map();
  const poll = setInterval(() => {
    for (const pid of pidsMentioning(own)) {
      try {
        const argv = readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0');
        if (argv.includes(`--force-fieldtrials=${trials}`) && !argv.some((arg) => arg.startsWith('--type='))) seen.set(pid, parentPid(pid));
      } catch {
        // exited meanwhile
      }
    }
  }, 200);
  const run = await runCli(['scenario', 'unconstrained', '--video', '360p30', '--duration', '6', '--warmup', '2', '--field-trials', trials, '--out', out])
    .finally(() => clearInterval(poll));
  assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
  // Two peers, two browser processes (not their renderers) with the flag. A child the browser has forked but not yet
  // exec'd (a utility or zygote process starting) briefly carries the browser's own command line: not a browser.
  const browsers = [...seen.keys()].filter((pid) => !seen.has(seen.get(pid) ?? ''));
  assert.equal(browsers.length, 2, `browser processes with the flag: ${browsers.join(', ')} (all seen, pid→parent: ${JSON.stringify(Object.fromEntries(seen))})`);
  const result = JSON.parse(readFileSync(path.join(out, 'result.json'), 'utf8'));
  assert.equal(result.environment.fieldTrials, trials);
  assert.ok(result.timeline.some((entry) => entry.video?.recvKbps > 100), 'the call carried video');
  assert.deepEqual(pidsMentioning(own), [], 'nothing left running');
});

/** The parent's pid from /proc/<pid>/stat (its fourth field, after the command name in parentheses). @param {string} pid */
function parentPid(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1] ?? '';
}

test('a --field-trials string that could carry another flag stops the run with exit 2 naming it, before any browser starts', { timeout: 30_000 }, async () => {
  const out = tempDir('wtb-field-trials-');
  const run = await runCli(['scenario', 'unconstrained', '--field-trials', 'WebRTC-A/x --no-sandbox/', '--out', out]);
  assert.equal(run.code, 2, `${run.stdout}\n${run.stderr}`);
  assert.match(run.stderr, /--field-trials: WebRTC-A's group "x --no-sandbox" must be letters, digits/);
  assert.doesNotMatch(run.stdout + run.stderr, /launched/);
});
