// Interrupts and clean-up around netem set-up, as root with real namespaces: whatever moment a Ctrl-C lands, the
// run's namespaces, veths and nft tables are gone afterwards; `cleanup` leaves a live run alone.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { netemCapabilities } from '../orchestrator/emulators/netem/capabilities.js';
import { shortRunId } from '../orchestrator/emulators/netem/topology.js';
import { runCli, tempDir } from './helpers/cli.js';

const capped = fileURLToPath(new URL('./fixtures/scenarios/netem-bandwidth-1000.json', import.meta.url));
const caps = await netemCapabilities();
const skip = caps.netns && caps.htb ? false : `needs root with network namespaces and htb: ${caps.reasons.join('; ')}`;

const sh = (command, args) => execFileSync(command, args, { encoding: 'utf8' });
/** Everything of the harness's netem runs that is visible from the root namespace. */
const harnessObjects = () => [
  ...sh('ip', ['netns', 'list']).split('\n').filter((line) => line.startsWith('wtb-')),
  ...[...sh('ip', ['-o', 'link', 'show']).matchAll(/^\d+: (wtb[a-z0-9]+c)[@:]/gm)].map((m) => m[1]),
  ...[...sh('nft', ['list', 'tables']).matchAll(/^table \S+ (wtb\S*)$/gm)].map((m) => m[1]),
];

/** Runs a netem scenario and sends `signals` SIGINTs `delayMs` after the CLI names the scenario. */
async function interruptDuringSetUp(delayMs, signals = 1) {
  let armed = false;
  const run = await runCli(['scenario', capped, '--emulator', 'netem', '--video', '360p30', '--out', tempDir()], {
    timeoutMs: 90_000,
    onOutput: (text, child) => {
      if (armed || !/^scenario netem-bandwidth-1000/m.test(text)) return;
      armed = true;
      for (let i = 0; i < signals; i += 1) setTimeout(() => child.kill('SIGINT'), delayMs + 30 * i);
    },
  });
  assert.ok(armed, run.stderr);
  return run;
}

for (const delayMs of [0, 50, 150, 400, 900]) {
  test(`one Ctrl-C ${delayMs} ms into netem set-up leaves no namespace, veth or nft table`, { skip }, async () => {
    const { code, stderr } = await interruptDuringSetUp(delayMs);
    assert.equal(code, 130, stderr);
    assert.deepEqual(harnessObjects(), []);
  });
}

test('two Ctrl-Cs during netem set-up exit at once and still remove what was built', { skip }, async () => {
  const { code, stderr } = await interruptDuringSetUp(150, 2);
  assert.equal(code, 130, stderr);
  assert.match(stderr, /SIGINT again/);
  assert.deepEqual(harnessObjects(), []);
});

test('three Ctrl-Cs during netem set-up: the forced exit deletes the namespaces without waiting', { skip }, async () => {
  const { code, stderr } = await interruptDuringSetUp(150, 3);
  assert.equal(code, 130, stderr);
  assert.deepEqual(harnessObjects(), []);
});

test('cleanup without --run-id leaves a live run alone and removes it once its orchestrator is dead', { skip }, async (t) => {
  const module = (file) => JSON.stringify(fileURLToPath(new URL(file, import.meta.url)));
  const runId = `live-${process.pid}`;
  const script = `
    import { installProcessHandlers, onCleanup } from ${module('../orchestrator/lib/shutdown.js')};
    import { createEmulator } from ${module('../orchestrator/emulators/index.js')};
    import { loadScenario } from ${module('../orchestrator/lib/scenario.js')};
    installProcessHandlers();
    const { compiled } = loadScenario(${JSON.stringify(capped)});
    await createEmulator('netem', { compiled, peers: ['p0', 'p1'], runId: ${JSON.stringify(runId)}, registerCleanup: onCleanup });
    console.log('ready');
    setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  t.after(() => child.kill('SIGKILL'));
  await new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => String(chunk).includes('ready') && resolve(undefined));
    child.once('exit', (code) => reject(new Error(`the live run exited early (${code})`)));
  });
  const ours = `wtb-${shortRunId(runId)}-`;
  const live = await runCli(['cleanup']);
  assert.equal(live.code, 0, live.stderr);
  assert.match(live.stdout, new RegExp(`left 1 run\\(s\\) in progress alone \\(${shortRunId(runId)}\\)`));
  assert.equal(harnessObjects().filter((name) => name.startsWith(ours)).length, 3, 'router and two peer namespaces still there');

  child.kill('SIGKILL');
  await new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(undefined) : child.once('exit', resolve)));
  const dead = await runCli(['cleanup']);
  assert.equal(dead.code, 0, dead.stderr);
  assert.match(dead.stdout, /removed 3 namespaces/);
  assert.deepEqual(harnessObjects(), []);
});
