import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
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
