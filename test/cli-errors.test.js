import assert from 'node:assert/strict';
import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { processesTagged, runCli, runTag, tempDir } from './helpers/cli.js';

test('list prints every scenario with a description', async () => {
  const { code, stdout } = await runCli(['list']);
  assert.equal(code, 0);
  assert.match(stdout, /^latency-500\s+\S.+$/m);
  assert.match(stdout, /^unconstrained\s+\S.+$/m);
});

test('an unknown scenario exits 2 and lists the known names', async () => {
  const { code, stderr } = await runCli(['scenario', 'latency-5000']);
  assert.equal(code, 2);
  assert.match(stderr, /unknown scenario 'latency-5000'/);
  assert.match(stderr, /latency-500/);
  assert.match(stderr, /bandwidth-750/);
});

test('an invalid scenario file exits 2 naming the file, the field and the reason', async () => {
  const file = path.join(tempDir(), 'broken.json');
  writeFileSync(file, JSON.stringify({ name: 'broken', description: 'x', network: { link: { lossPct: 120 } } }));
  const { code, stderr } = await runCli(['scenario', file]);
  assert.equal(code, 2);
  assert.match(stderr, /broken\.json/);
  assert.match(stderr, /network\.link\.lossPct/);
  assert.match(stderr, /120/);

  writeFileSync(file, '{"name": "broken",');
  const truncated = await runCli(['scenario', file]);
  assert.equal(truncated.code, 2);
  assert.match(truncated.stderr, /broken\.json/);
});

test('bad flags exit 2 naming the flag', async () => {
  const { code, stderr } = await runCli(['scenario', 'unconstrained', '--time-scale', '-1']);
  assert.equal(code, 2);
  assert.match(stderr, /--time-scale/);
  for (const command of [['scenario', 'unconstrained'], ['suite', 'smoke', '--dry-run']]) {
    const codec = await runCli([...command, '--codec', 'vp7']);
    assert.equal(codec.code, 2, `${command[0]}: ${codec.stderr}`);
    assert.match(codec.stderr, /--codec: "vp7" is not a codec the harness can select; use one of vp8, vp9, h264, av1/);
  }
  const sfu = await runCli(['scenario', 'sfu-2', '--codec', 'vp9']);
  assert.equal(sfu.code, 2);
  assert.match(sfu.stderr, /--codec: codec selection needs a mesh call; scenario sfu-2 has topology sfu/);
});

test('no browser: exit 3 with a message naming --browser-path and npm run setup', async () => {
  const out = tempDir();
  const { code, stderr } = await runCli(['scenario', 'unconstrained', '--browser-path', '/nonexistent/chrome', '--out', out]);
  assert.equal(code, 3);
  assert.match(stderr, /--browser-path/);
  assert.match(stderr, /npm run setup/);
});


test('an --out that cannot be created exits 2 naming it before any browser starts', async () => {
  const file = path.join(tempDir(), 'a-file');
  writeFileSync(file, '');
  const { code, stderr } = await runCli(['scenario', 'unconstrained', '--video', '360p30', '--out', path.join(file, 'run')]);
  assert.equal(code, 2, stderr);
  assert.match(stderr, /--out .*a-file\/run: cannot create the directory/);
  assert.doesNotMatch(stderr, /emulator:|launched/, 'nothing started');
});

test('an --out that holds a result exits 2 unless --force', async () => {
  const out = tempDir();
  writeFileSync(path.join(out, 'result.json'), '{"kept": true}');
  const { code, stderr } = await runCli(['scenario', 'unconstrained', '--video', '360p30', '--out', out]);
  assert.equal(code, 2);
  assert.match(stderr, /already holds a result\.json: pass --force/);
  assert.equal(readFileSync(path.join(out, 'result.json'), 'utf8'), '{"kept": true}');
});

test('Ctrl-C mid-run writes an aborted result and leaves no browser or relay running', async () => {
  const out = tempDir();
  const { tag, env } = runTag();
  let sent = false;
  let descendantsSeen = 0;
  const { code, stderr } = await runCli(['scenario', 'unconstrained', '--video', '360p30', '--duration', '60', '--out', out], {
    env,
    onOutput: (text, child) => {
      if (!sent && /call started/.test(text)) {
        sent = true;
        setTimeout(() => {
          descendantsSeen = processesTagged(tag).length;
          child.kill('SIGINT');
        }, 3000);
      }
    },
  });
  assert.ok(sent, `the call never started:\n${stderr}`);
  assert.equal(code, 130, stderr);
  const result = JSON.parse(readFileSync(path.join(out, 'result.json'), 'utf8'));
  assert.equal(result.status, 'aborted');
  assert.match(result.errors[0].message, /SIGINT/);
  assert.ok(result.timeline.length > 0, 'samples taken before the interrupt are kept');
  assert.ok(!existsSync(path.join(out, '.result.json.tmp')));
  assert.ok(descendantsSeen >= 3, `expected the CLI, its relay and browsers while running, saw ${descendantsSeen} processes`);
  assert.deepEqual(processesTagged(tag), []);
});

test('a SIGKILLed orchestrator leaves no browser or relay behind (they exit with their parent)', async () => {
  const out = tempDir();
  const { tag, env } = runTag();
  let killed = false;
  await runCli(['scenario', 'unconstrained', '--video', '360p30', '--duration', '60', '--out', out], {
    env,
    onOutput: (text, child) => {
      if (!killed && /call started/.test(text)) {
        killed = true;
        child.kill('SIGKILL');
      }
    },
  });
  assert.ok(killed, 'the call never started');
  let left = processesTagged(tag);
  for (let waitedMs = 0; left.length && waitedMs < 15_000; waitedMs += 500) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    left = processesTagged(tag);
  }
  assert.deepEqual(left, [], 'processes still running 15 s after the orchestrator was killed');
});

test('SIGTERM after the parent stopped reading our output still shuts down cleanly (no EPIPE loop)', async () => {
  const out = tempDir();
  const { tag, env } = runTag();
  let signalled = false;
  const started = Date.now();
  const run = await runCli(['scenario', 'unconstrained', '--video', '360p30', '--duration', '60', '--out', out], {
    env,
    onOutput: (text, child) => {
      if (!signalled && /call started/.test(text)) {
        signalled = true;
        // What a killed CI runner leaves behind: nobody reads our stdout/stderr any more.
        child.stdout.destroy();
        child.stderr.destroy();
        setTimeout(() => child.kill('SIGTERM'), 500);
      }
    },
  });
  assert.ok(signalled, 'the call never started');
  assert.ok(Date.now() - started < 45_000, `took ${Date.now() - started} ms to stop`);
  assert.equal(run.code, 130);
  assert.equal(JSON.parse(readFileSync(path.join(out, 'result.json'), 'utf8')).status, 'aborted');
  assert.deepEqual(processesTagged(tag), []);
});

test('list shows the scenario groups with their members', async () => {
  const { code, stdout } = await runCli(['list']);
  assert.equal(code, 0);
  assert.match(stdout, /^queue-size\s+6 scenarios: .*\(F §4\.3\)\n\s+queue-size-1000-1s, .*queue-size-5000-100ms$/m);
});

test('a group is loaded whole before any browser starts: a member that cannot load exits 2 naming its file', async () => {
  const { code, stderr } = await runCli(['scenario', 'queue-size', '--duration', '5', '--warmup', '10']);
  assert.equal(code, 2, stderr);
  assert.match(stderr, /queue-size-1000-1s\.json: warmupS/);
  assert.doesNotMatch(stderr, /emulator:|launched/, 'nothing started');
});

test('reproduce: --list names every table; an unknown table or a bad flag exits 2 naming it', async () => {
  const list = await runCli(['reproduce', '--list']);
  assert.equal(list.code, 0, list.stderr);
  assert.match(list.stdout, /^j16-table-8-1\s+J16 §8-1-1, table 8-1: .*\n\s+unconstrained$/m);
  assert.match(list.stdout, /^f-table-4\s+/m);

  const unknown = await runCli(['reproduce', 'j16-table-9-9']);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /unknown reproduction 'j16-table-9-9'; known: j16-table-8-1/);

  const repetitions = await runCli(['reproduce', 'j16-table-8-1', '--repetitions', '0']);
  assert.equal(repetitions.code, 2);
  assert.match(repetitions.stderr, /--repetitions must be an integer of at least 1, got 0/);

  const video = await runCli(['reproduce', 'j16-table-8-1', '--video', '4k']);
  assert.equal(video.code, 2);
  assert.match(video.stderr, /--video 4k: neither a preset/);

  for (const [flag, value] of [['--max-runs', '0'], ['--multi-party-repetitions', '1.5']]) {
    const bad = await runCli(['reproduce', '--all', '--out', tempDir('wtb-reproduce-flag-'), flag, value]);
    assert.equal(bad.code, 2, `${flag} ${value}`);
    assert.match(bad.stderr, new RegExp(`${flag} must be an integer of at least 1, got ${value}`));
  }
  const publish = await runCli(['reproduce', '--all', '--publish', tempDir('wtb-publish-')]);
  assert.equal(publish.code, 2);
  assert.match(publish.stderr, /--publish needs --out/);

  // Each table's paper's repetitions unless --repetitions says otherwise: I22 ran 10, J16 and F 5.
  const i22 = await runCli(['reproduce', 'i22-media-vs-data', '--dry-run']);
  assert.match(i22.stdout, /^media-vs-data-2m-uncoupled\/run-10 +120 s +run$/m);
  assert.match(i22.stdout, /^70 runs of 7 scenarios/m);
  assert.match((await runCli(['reproduce', 'i22-media-vs-data', '--repetitions', '2', '--dry-run'])).stdout, /^14 runs of 7 scenarios/m);
  assert.match((await runCli(['reproduce', 'j16-table-8-4', '--dry-run'])).stdout, /^15 runs of 3 scenarios/m);

  // The browsers' congestion control as an experiment on a table: planned with it, refused where a scenario cannot take it.
  const trials = 'WebRTC-Bwe-LossBasedBweV2/Enabled:false/';
  const remb = await runCli(['reproduce', 'j16-cross-traffic', '--bandwidth-estimation', 'remb', '--field-trials', trials, '--repetitions', '1', '--dry-run']);
  assert.equal(remb.code, 0, remb.stderr);
  assert.match(remb.stdout, /^tcp-cross-traffic\/run-1 +720 s +run$/m);
  assert.ok(remb.stdout.includes(`every run with field trials ${trials} and remb estimation (an experiment: --publish refuses its runs)`), remb.stdout);
  const sfu = await runCli(['reproduce', '--all', '--bandwidth-estimation', 'remb', '--dry-run']);
  assert.equal(sfu.code, 2);
  assert.match(sfu.stderr, /--bandwidth-estimation: remb needs a mesh call .* scenario sfu-2 has topology sfu/);
  const badTrials = await runCli(['reproduce', 'j16-table-8-1', '--field-trials', 'WebRTC-A/x --no-sandbox/', '--dry-run']);
  assert.equal(badTrials.code, 2);
  assert.match(badTrials.stderr, /--field-trials: WebRTC-A's group "x --no-sandbox" must be letters, digits/);
});

test('kernel cross traffic on a backend that cannot carry it exits 2 naming --emulator relay, before any browser', async () => {
  for (const [scenario, emulator] of [['tcp-cross-traffic', 'netem'], ['rmcat-5.7', 'dummynet']]) {
    const out = tempDir();
    const { code, stderr } = await runCli(['scenario', scenario, '--emulator', emulator, '--out', out]);
    assert.equal(code, 2, `${scenario} on ${emulator}: ${stderr}`);
    assert.match(stderr, /--emulator relay/, `${scenario} on ${emulator}`);
    assert.doesNotMatch(stderr, /launched/);
  }
});

/** Writes a scenario file into a fresh folder. @param {string} name @param {object|string} content */
function writeScenario(name, content) {
  const dir = tempDir();
  const file = path.join(dir, `${name}.json`);
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify({ name, description: 'd', ...content }));
  return { dir, file };
}

// A browser path that does not exist: had validation passed, the run would stop with exit 3 naming it.
const NO_BROWSER = ['--browser-path', '/nonexistent/chromium'];

test('a scenario that would exhaust the machine exits 2 naming the file and field, before any browser starts', async () => {
  const deep = `{"name": "deep", "description": "d", "network": ${'['.repeat(20_000)}${']'.repeat(20_000)}}`;
  /** @type {Array<[string, object|string, RegExp]>} */
  const cases = [
    ['ramp', { durationS: 86_400, peers: 32, network: { schedule: [{ at: 0, links: 'all', ramp: { field: 'rateKbps', from: 5000, to: 100, durationS: 86_400, everyS: 0.1 } }] } },
      /ramp\.json: network\.schedule: compiles to 55296064 link changes .*at most 500000/],
    ['bursts', { durationS: 86_400, network: { bottleneck: { rateKbps: 2000 } }, flows: Array.from({ length: 100 }, (_, i) => ({ name: `s${i}`, kind: 'tcp-short' })) },
      /bursts\.json: flows: the kernel flows need \d+ iperf3 servers .*at most 1000/],
    ['day', { durationS: 86_400, peers: 4 }, /day\.json: durationS: a 86400 s run of 4 peers makes a result\.json of about 1879 MiB; .*pass --duration 11773 or less/],
    ['deep', deep, /deep\.json:1:\d+: the scenario nests arrays and objects more than 64 deep/],
  ];
  for (const [name, content, pattern] of cases) {
    const { file } = writeScenario(name, content);
    const { code, stderr } = await runCli(['scenario', file, '--out', tempDir(), ...NO_BROWSER], { timeoutMs: 60_000 });
    assert.equal(code, 2, `${name}: ${stderr}`);
    assert.match(stderr, pattern, name);
    assert.doesNotMatch(stderr, /RangeError|heap|browser/i, name);
  }
});

test('a scenario cannot make the harness read /etc/shadow, /dev/zero or a file outside its trace folders: exit 2, no content quoted', async () => {
  const { dir, file } = writeScenario('t', { durationS: 20, warmupS: 1, network: { link: { trace: '/etc/shadow' } } });
  const run = () => runCli(['scenario', file, '--out', tempDir(), ...NO_BROWSER], { timeoutMs: 60_000 });
  let { code, stderr } = await run();
  assert.equal(code, 2, stderr);
  assert.match(stderr, /t\.json: network\.link\.trace: trace '\/etc\/shadow' is an absolute path/);
  symlinkSync('/etc/passwd', path.join(dir, 'passwd.mahi'));
  writeFileSync(file, JSON.stringify({ name: 't', description: 'd', durationS: 20, warmupS: 1, network: { link: { trace: 'passwd.mahi' } } }));
  ({ code, stderr } = await run());
  assert.equal(code, 2, stderr);
  assert.match(stderr, /t\.json: network\.link\.trace: trace 'passwd\.mahi' is a link to a file outside/);
  // With its folder allowed, the file is read and refused by line, without a byte of it in the message.
  ({ code, stderr } = await runCli(['scenario', file, '--out', tempDir(), '--trace-dir', '/etc', ...NO_BROWSER], { timeoutMs: 60_000 }));
  assert.equal(code, 2, stderr);
  assert.match(stderr, /\/etc\/passwd:1: not a whole number of milliseconds/);
  assert.doesNotMatch(stderr, /root|nologin|bin\/(ba)?sh/);
  ({ code, stderr } = await runCli(['scenario', '/dev/zero', ...NO_BROWSER], { timeoutMs: 60_000 }));
  assert.equal(code, 2, stderr);
  assert.match(stderr, /\/dev\/zero: the scenario is not a regular file/);
  ({ code, stderr } = await runCli(['scenario', file, '--trace-dir', path.join(dir, 'missing'), ...NO_BROWSER], { timeoutMs: 60_000 }));
  assert.equal(code, 2, stderr);
  assert.match(stderr, /--trace-dir .*missing: not a folder/);
});

test('broken load, screenShare and handover fields and --screen-share exit 2 naming the file and field (or the flag) before any browser starts', async () => {
  const dir = tempDir();
  const base = { name: 'broken', description: 'x', durationS: 20 };
  /** @type {Array<[Record<string, unknown>, RegExp]>} */
  const cases = [
    [{ ...base, topology: 'sfu', peers: 3, load: { participants: 10_000, subscribe: 'none' } }, /load\.participants/],
    [{ ...base, load: { participants: 2, subscribe: 'none' } }, /load/],
    [{ ...base, screenShare: { peers: ['p9'] } }, /screenShare\.peers/],
    [{ ...base, network: { schedule: [{ at: 5, handover: 'p9' }] } }, /network\.schedule\[0\]\.handover/],
    [{ ...base, network: { schedule: [{ at: 50, handover: 'p0' }] } }, /network\.schedule\[0\]\.at/],
  ];
  for (const [i, [scenario, field]] of cases.entries()) {
    const file = path.join(dir, `broken-${i}.json`);
    writeFileSync(file, JSON.stringify({ ...scenario, name: `broken-${i}` }));
    const { code, stderr } = await runCli(['scenario', file, '--emulator', 'netem']);
    assert.equal(code, 2, `case ${i}: ${stderr}`);
    assert.match(stderr, new RegExp(`broken-${i}\\.json`), `case ${i}`);
    assert.match(stderr, field, `case ${i}: ${stderr}`);
    assert.doesNotMatch(stderr, /launched/, `case ${i}: no browser started`);
  }
  const flag = await runCli(['scenario', 'unconstrained', '--screen-share', 'p9']);
  assert.equal(flag.code, 2, flag.stderr);
  assert.match(flag.stderr, /--screen-share/);
});
