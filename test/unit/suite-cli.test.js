// The suite, baseline and merge commands as a user runs them, without browsers: bad input (exit 2), no browser
// (exit 3, outputs still written), crashed runs (4), regressions (1) and --no-fail.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCli, tempDir } from '../helpers/cli.js';
import { fakeResult, writeFakeSuiteDir } from '../fixtures/suites/make-suite-result.js';

const env = { GITHUB_STEP_SUMMARY: '' };
const cli = (args) => runCli(args, { env, timeoutMs: 60_000 });
const dir = tempDir('wtb-suite-cli-');
const file = (name, content) => {
  const target = path.join(dir, name);
  writeFileSync(target, typeof content === 'string' ? content : JSON.stringify(content));
  return target;
};

test('bad input exits 2 and names the file and field (or the flag)', async () => {
  const suite = file('bad-suite.json', { name: 'bad-suite', description: 'd', scenarios: [{ scenario: 'unconstrained', repetitions: 'five' }] });
  const assertions = file('bad-assertions.json', { scenarios: { unconstrained: [{ check: 'video.recvKbps median >= fast' }] } });
  const baseline = file('bad-baseline.json', { kind: 'webrtc-testbed-baseline', schemaVersion: 1, suite: 's', scenarios: { unconstrained: { runs: 5, values: { 'video.recvKbps': [1, 2, null] } } } });
  /** @type {Array<[string[], RegExp]>} */
  const cases = [
    [['suite', 'nightlyy'], /unknown suite 'nightlyy'; built-in suites: nightly, sfu-side-by-side, smoke/],
    [['suite', suite], /bad-suite\.json: scenarios\[0\]\.repetitions: must be an integer >= 1, got "five"/],
    [['suite', 'smoke', '--assertions', assertions], /bad-assertions\.json: scenarios\.unconstrained\[0\]\.check: 'video\.recvKbps median >= fast': 'fast' is not a number/],
    [['suite', 'smoke', '--baseline', baseline], /bad-baseline\.json: scenarios\.unconstrained\.values\.video\.recvKbps\[2\]: must be a number, got null/],
    [['suite', 'smoke', '--baseline', path.join(dir, 'missing.json')], /missing\.json: cannot read the baseline \(no such file\)/],
    [['suite', 'smoke', '--shard', '3/2'], /--shard 3\/2: must be k\/n/],
    [['suite', 'smoke', '--metrics', 'video.recvKbps,rtt'], /--metrics: unknown metric 'rtt'/],
    [['suite', 'smoke', '--alpha', '2'], /--alpha: must be a number > 0 and <= 0\.5, got 2/],
    [['suite', 'smoke', '--video', '4k'], /--video 4k: neither a preset/],
    [['suite', 'smoke', '--repetitions', '0'], /--repetitions must be an integer of at least 1/],
    [['suite', 'smoke', '--duration', '0'], /--duration must be a number of seconds above 0, got 0/],
    [['suite', 'smoke', '--warmup', '-1'], /--warmup must be 0 or more seconds, got -1/],
    [['suite', 'smoke', '--duration', '5'], /smoke\.json: scenarios\[0\]: .*warmupS \(10 s, from the file\) must be less than the run's duration \(5 s, set by --duration\)/],
    [['baseline', 'save', dir], /summary\.json: cannot read the suite summary \(no such file\)/],
    [['merge', path.join(dir, 'bad-suite.json')], /bad-suite\.json: kind: must be "webrtc-testbed-suite"/],
  ];
  for (const [args, pattern] of cases) {
    const { code, stderr } = await cli(args);
    assert.equal(code, 2, `${args.join(' ')}: exit ${code}\n${stderr}`);
    assert.match(stderr, pattern, args.join(' '));
  }
});

test('--dry-run prints the deterministic slice of a shard', async () => {
  const first = await cli(['suite', 'nightly', '--dry-run', '--shard', '1/6']);
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stdout, /^suite nightly shard 1\/6: \d+ runs, about \d+ min$/m);
  assert.match(first.stdout, /^ {2}[a-z0-9.-]+\s+5 × \d+ s \(time scale 1, warm-up \d+ s\)/m);
  assert.equal((await cli(['suite', 'nightly', '--dry-run', '--shard', '1/6'])).stdout, first.stdout);
});

test('no browser: exit 3, and the suite outputs are written with the environment error', async () => {
  const out = tempDir('wtb-suite-env-');
  const { code, stderr } = await cli(['suite', 'smoke', '--browser-path', '/nonexistent/chrome', '--out', out]);
  assert.equal(code, 3, stderr);
  assert.match(stderr, /--browser-path/);
  const summary = JSON.parse(readFileSync(path.join(out, 'summary.json'), 'utf8'));
  assert.equal(summary.outcome, 'environment-error');
  assert.equal(summary.exitCode, 3);
  assert.match(summary.problems[0], /^unconstrained run 1: .*--browser-path/);
  assert.deepEqual(summary.notRun, ['unconstrained', 'latency-250', 'bandwidth-750', 'loss-20']);
  assert.match(readFileSync(path.join(out, 'junit.xml'), 'utf8'), /<error message="[^"]*--browser-path/);
  assert.ok(existsSync(path.join(out, 'report.html')));
  assert.match(readFileSync(path.join(out, 'summary.md'), 'utf8'), /^### ⚠️ environment error: suite `smoke` \(exit 3\)/);
});

test('merge exits 4 on a crashed run, 1 on a regression, 0 with --no-fail; baseline save writes a usable baseline', async () => {
  const crashed = path.join(dir, 'crashed');
  await writeFakeSuiteDir(crashed, { runs: [{ scenario: 'unconstrained', result: fakeResult({ status: 'failed', errors: ['page crashed'] }) }] });
  const crash = await cli(['merge', crashed, '--out', path.join(dir, 'crashed-merged')]);
  assert.equal(crash.code, 4, crash.stderr);
  assert.match(crash.stdout, /`unconstrained` run 1: failed — page crashed/);
  assert.equal((await cli(['merge', crashed, '--out', path.join(dir, 'crashed-merged-2'), '--no-fail'])).code, 0);

  const normal = path.join(dir, 'normal');
  await writeFakeSuiteDir(normal, { runs: Array.from({ length: 5 }, (_, i) => ({ scenario: 'unconstrained', result: fakeResult({ seed: i + 1 }) })) });
  const baselineFile = path.join(dir, 'baselines', 'smoke.json');
  const saved = await cli(['baseline', 'save', normal, '--out', baselineFile]);
  assert.equal(saved.code, 0, saved.stderr);
  assert.match(saved.stdout, /unconstrained\s+5 runs\n/);
  assert.equal(JSON.parse(readFileSync(baselineFile, 'utf8')).scenarios.unconstrained.values['video.recvKbps'].length, 5);

  const slow = path.join(dir, 'slow');
  await writeFakeSuiteDir(slow, { runs: Array.from({ length: 5 }, (_, i) => ({ scenario: 'unconstrained', result: fakeResult({ seed: i + 1, videoKbps: 500 }) })) });
  const regression = await cli(['merge', slow, '--out', path.join(dir, 'slow-merged'), '--baseline', baselineFile]);
  assert.equal(regression.code, 1, regression.stderr);
  assert.match(regression.stdout, /\| unconstrained \| `video\.recvKbps` \| ❌ regression \|/);
  const same = await cli(['merge', normal, '--out', path.join(dir, 'normal-merged'), '--baseline', baselineFile]);
  assert.equal(same.code, 0, same.stdout);

  // Another machine class, or none recorded: refused (exit 2) before anything is written, unless allowed.
  const stored = JSON.parse(readFileSync(baselineFile, 'utf8'));
  const foreign = file('foreign-baseline.json', { ...stored, machineClass: { ...stored.machineClass, cores: 64 } });
  const refused = await cli(['merge', normal, '--out', path.join(dir, 'foreign-merged'), '--baseline', foreign]);
  assert.equal(refused.code, 2, refused.stderr);
  assert.match(refused.stderr, /foreign-baseline\.json is of machine class linux, \? × 64, chromium 156, relay, the runs in .*normal are of linux, \? × 2, chromium 156, relay; .*--allow-machine-mismatch/);
  assert.equal(existsSync(path.join(dir, 'foreign-merged')), false);
  const allowed = await cli(['merge', normal, '--out', path.join(dir, 'foreign-merged'), '--baseline', foreign, '--allow-machine-mismatch']);
  assert.equal(allowed.code, 0, allowed.stderr);
  assert.match(JSON.parse(readFileSync(path.join(dir, 'foreign-merged', 'summary.json'), 'utf8')).problems[0], /× 64.*compared anyway \(--allow-machine-mismatch\)/);
  const { machineClass: _, ...unstamped } = stored;
  const old = await cli(['merge', normal, '--out', path.join(dir, 'old-merged'), '--baseline', file('old-baseline.json', unstamped)]);
  assert.equal(old.code, 2, old.stderr);
  assert.match(old.stderr, /old-baseline\.json is of machine class unknown \(not recorded\) \(saved before machine classes were recorded\).*--allow-machine-mismatch/);

  const rolled = path.join(dir, 'rolled.json');
  const roll = await cli(['baseline', 'roll', baselineFile, foreign, path.join(dir, 'no-such-night.json'), '--like', normal, '--out', rolled]);
  assert.equal(roll.code, 0, roll.stderr);
  assert.equal(JSON.parse(readFileSync(rolled, 'utf8')).scenarios.unconstrained.runs, 5);
  assert.equal((await cli(['baseline', 'class', normal])).stdout, (await cli(['baseline', 'class', baselineFile])).stdout);
});
