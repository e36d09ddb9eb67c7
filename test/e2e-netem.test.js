// Real two-browser calls through the netem backend: Chromium inside network namespaces, htb/bfifo on the router.
// This machine's kernel lacks sch_netem, so the scenarios here use rate caps only (delay is refused up front).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { netemCapabilities } from '../orchestrator/emulators/netem/capabilities.js';

import { processesTagged, runCli, runScenarioCli, runTag, tempDir } from './helpers/cli.js';
import { shortRunId } from '../orchestrator/lib/system/run-id.js';

const capped = fileURLToPath(new URL('./fixtures/scenarios/netem-bandwidth-1000.json', import.meta.url));
const caps = await netemCapabilities();
const skip = caps.netns && caps.htb ? false : `needs root with network namespaces and htb: ${caps.reasons.join('; ')}`;

const sh = (command, args) => execFileSync(command, args, { encoding: 'utf8' });
const harnessNamespaces = () => sh('ip', ['netns', 'list']).split('\n').filter((line) => line.startsWith('wtb-'));

test('a call through namespaces with an htb cap of 1000 kbps keeps video under the cap', { skip }, async () => {
  // htb holds the cap from the first second, and the video passes 300 kbps within a few (in 10-20 s of two 20 s runs:
  // medians 775-790 kbps, p95 855-870): 10 s after a 4 s warm-up.
  const run = await runScenarioCli(capped, ['--emulator', 'netem', '--duration', '14', '--warmup', '4']);
  assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
  const { summary, network, environment } = run.result;
  assert.equal(environment.emulator, 'netem');
  for (const peer of ['p0', 'p1']) {
    assert.ok(summary.peers[peer]['video.recvKbps'].p95 <= 1000, `${peer} video recvKbps p95 ${summary.peers[peer]['video.recvKbps'].p95}`);
    assert.ok(summary.peers[peer]['video.recvKbps'].median > 300, `${peer} video barely flows: ${summary.peers[peer]['video.recvKbps'].median}`);
  }
  console.log(`netem 1000 kbps: video recvKbps ${['p0', 'p1'].map((peer) => `${peer} median ${summary.peers[peer]['video.recvKbps'].median}, p95 ${summary.peers[peer]['video.recvKbps'].p95}`).join('; ')}`);
  // Every system command is in the result, so the run can be audited and replayed by hand.
  const commands = network.commands.map((c) => c.cmd);
  assert.ok(commands.some((c) => /^ip netns add wtb-/.test(c)));
  assert.ok(commands.some((c) => /^tc .* htb rate 1000000bit /.test(c)), commands.filter((c) => c.includes('htb')).join('\n'));
  assert.ok(commands.some((c) => /^ip netns del(ete)? wtb-/.test(c)), 'teardown is logged too');
  assert.ok(network.truth.some((row) => row.bytesOut > 0), 'tc counters were read into network.truth');
  assert.deepEqual(harnessNamespaces(), []);
});

test('a delay scenario on a kernel without sch_netem stops before any browser starts, naming the module and the relay', { skip: skip || (caps.netem && 'this kernel has sch_netem') }, async () => {
  const { code, stderr } = await runCli(['scenario', 'latency-100', '--emulator', 'netem', '--out', tempDir()]);
  assert.equal(code, 3, stderr);
  assert.match(stderr, /sch_netem/);
  assert.match(stderr, /--emulator relay/);
  assert.doesNotMatch(stderr, /launched/);
  assert.deepEqual(harnessNamespaces(), []);
});

test('auto picks the relay when the kernel cannot run the scenario, and records why', { skip }, async () => {
  const scenario = caps.netem ? 'unconstrained' : 'latency-100';
  // Only the choice is checked: a short call.
  const run = await runScenarioCli(scenario, ['--emulator', 'auto', '--duration', '4', '--warmup', '1']);
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.result.environment.emulator, caps.netem ? 'netem' : 'relay');
  assert.match(run.result.environment.emulatorChoice, /^auto: /);
});

test('Ctrl-C during a netem call leaves no namespace, qdisc, nft table or browser', { skip }, async () => {
  const out = tempDir();
  const { tag, env } = runTag();
  let sent = false;
  const { code, stderr } = await runCli(['scenario', capped, '--emulator', 'netem', '--video', '360p30', '--out', out], {
    env,
    onOutput: (text, child) => {
      if (!sent && /call started/.test(text)) {
        sent = true;
        setTimeout(() => child.kill('SIGINT'), 2000);
      }
    },
  });
  assert.ok(sent, stderr);
  assert.equal(code, 130, stderr);
  assert.equal(JSON.parse(readFileSync(path.join(out, 'result.json'), 'utf8')).status, 'aborted');
  assert.deepEqual(harnessNamespaces(), []);
  assert.doesNotMatch(sh('tc', ['qdisc', 'show']), /htb|bfifo|netem/);
  assert.doesNotMatch(sh('nft', ['list', 'tables']), /wtb/);
  assert.deepEqual(processesTagged(tag), []);
});

test('a crash (uncaught error) with a netem topology up still removes it', { skip }, async () => {
  const module = (file) => JSON.stringify(fileURLToPath(new URL(file, import.meta.url)));
  // The same process handlers the CLI installs, around a real netem topology, then an uncaught error.
  const script = `
    import { installProcessHandlers, onCleanup } from ${module('../orchestrator/lib/system/shutdown.js')};
    import { createEmulator } from ${module('../orchestrator/emulators/index.js')};
    import { loadScenario } from ${module('../orchestrator/lib/scenario/scenario-file.js')};
    installProcessHandlers();
    const { compiled } = loadScenario(${JSON.stringify(capped)});
    await createEmulator('netem', { compiled, peers: ['p0', 'p1'], runId: 'crash-test', registerCleanup: onCleanup });
    console.log(JSON.stringify({ namespaces: (await import('node:child_process')).execFileSync('ip', ['netns', 'list'], { encoding: 'utf8' }) }));
    setTimeout(() => { throw new Error('simulated crash'); }, 50);`;
  const { code, stdout } = await new Promise((resolve) => {
    execFile(process.execPath, ['--input-type=module', '-e', script], (error, out) => resolve({ code: error?.code ?? 0, stdout: out }));
  });
  const ours = `wtb-${shortRunId('crash-test')}-`;
  assert.ok(JSON.parse(stdout.trim().split('\n').at(-1)).namespaces.includes(ours), 'the topology was up before the crash');
  assert.equal(code, 1);
  assert.deepEqual(harnessNamespaces().filter((line) => line.startsWith(ours)), []);
});
