// Interrupts and clean-up around netem set-up, as root with real namespaces: whatever moment a Ctrl-C lands, the
// run's namespaces, veths and nft tables are gone afterwards; a SIGKILLed run's guardian removes them and its browsers;
// `cleanup` leaves a live run alone. Run it alone on the machine (it starts browsers).
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { netemCapabilities } from '../orchestrator/emulators/netem/capabilities.js';
import { ownerFile } from '../orchestrator/lib/system/owners.js';
import { parseStat } from '../orchestrator/lib/devices/proc-stat.js';

import { CLI, processesTagged, runCli, runTag, tempDir } from './helpers/cli.js';
import { shortRunId } from '../orchestrator/lib/system/run-id.js';

const capped = fileURLToPath(new URL('./fixtures/scenarios/netem-bandwidth-1000.json', import.meta.url));
const caps = await netemCapabilities();
const skip = caps.netns && caps.htb ? false : `needs root with network namespaces and htb: ${caps.reasons.join('; ')}`;

const sh = (command, args) => execFileSync(command, args, { encoding: 'utf8' });
/** Namespaces, root-namespace links and root-namespace nft tables, one name each. */
const snapshot = () => [
  ...sh('ip', ['netns', 'list']).split('\n').filter(Boolean).map((line) => `netns ${line.split(' ')[0]}`),
  ...[...sh('ip', ['-o', 'link', 'show']).matchAll(/^\d+: ([^:@\s]+)/gm)].map((m) => `link ${m[1]}`),
  ...sh('nft', ['list', 'tables']).split('\n').filter(Boolean).map((line) => `nft ${line}`),
];
/** What a test left: everything not there before it, and anything of the harness's netem runs at all. */
const HARNESS_OBJECT = /^(netns wtb-|link wtb[a-z0-9]+c$|nft table \S+ wtb)/;
const leftBehind = (before) => snapshot().filter((name) => !before.includes(name) || HARNESS_OBJECT.test(name));

const module = (file) => JSON.stringify(fileURLToPath(new URL(file, import.meta.url)));
/**
 * A child that builds the netem emulator as a run does: the process handlers of lib/system/shutdown.js installed, the
 * emulator's closer registered through registerCleanup → onCleanup, and a first Ctrl-C answered by running every
 * closer (the run's tear-down) and exiting 130. It prints "starting" just before set-up and "ready" after it.
 * @param {string} runId
 */
function startChild(runId) {
  const script = `
    import { installProcessHandlers, onCleanup, onInterrupt, runCleanup } from ${module('../orchestrator/lib/system/shutdown.js')};
    import { createEmulator } from ${module('../orchestrator/emulators/index.js')};
    import { loadScenario } from ${module('../orchestrator/lib/scenario/scenario-file.js')};
    installProcessHandlers();
    onInterrupt(async () => { await runCleanup(); process.exit(130); });
    const { compiled } = loadScenario(${JSON.stringify(capped)});
    console.log('starting');
    try {
      await createEmulator('netem', { compiled, peers: ['p0', 'p1'], runId: ${JSON.stringify(runId)}, registerCleanup: onCleanup });
      console.log('ready');
    } catch (error) {
      console.log('set-up stopped: ' + error.message);
    }
    setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => { stdout += chunk; child.emit('line', stdout); });
  child.stderr.on('data', (chunk) => { stderr += chunk; });
  /** @type {Promise<{code: number|null, signal: string|null, stdout: string, stderr: string}>} */
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal, stdout, stderr })));
  /** @param {string} word */
  const printed = (word) => new Promise((resolve, reject) => {
    child.on('line', (text) => text.includes(word) && resolve(undefined));
    exited.then(() => reject(new Error(`the child exited before printing ${word}: ${stdout}${stderr}`)));
  });
  return { child, exited, printed };
}

/** @type {Array<[string, number|null]>} */
const points = [['0 ms into', 0], ['50 ms into', 50], ['150 ms into', 150], ['250 ms into', 250], ['400 ms into', 400], ['after', null]];
for (const [when, delayMs] of points) {
  const title = `a Ctrl-C ${when} netem set-up leaves no namespace, veth, nft table or owner file of the run`;
  test(title, { skip, timeout: 120_000 }, async (t) => {
    const before = snapshot();
    const runId = `int-${process.pid}-${delayMs ?? 'done'}`;
    const { child, exited, printed } = startChild(runId);
    if (delayMs === null) {
      await printed('ready');
      assert.ok(snapshot().some((name) => name.startsWith(`netns wtb-${shortRunId(runId)}-`)), 'set-up built the namespaces');
    } else {
      await printed('starting');
      await /** @type {Promise<void>} */ (new Promise((resolve) => setTimeout(resolve, delayMs)));
    }
    child.kill('SIGINT');
    const { code, stdout, stderr } = await exited;
    // Where the Ctrl-C landed: "set-up stopped: … interrupted" when set-up was still running.
    t.diagnostic(stdout.trim().split('\n').at(-1) ?? '');
    assert.equal(code, 130, `${stdout}${stderr}`);
    assert.deepEqual(leftBehind(before), []);
    assert.ok(!existsSync(ownerFile(shortRunId(runId))), 'the owner file is removed with the run');
  });
}

/** Runs a netem scenario through the CLI and sends `signals` SIGINTs `delayMs` after it names the scenario. */
async function interruptCliDuringSetUp(delayMs, signals) {
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

test('the CLI: one Ctrl-C during netem set-up ends the run aborted and removes what was built', { skip }, async () => {
  const before = snapshot();
  const { code, stderr } = await interruptCliDuringSetUp(150, 1);
  assert.equal(code, 130, stderr);
  assert.deepEqual(leftBehind(before), []);
});

test('the CLI: two Ctrl-Cs during netem set-up exit at once and still remove what was built', { skip }, async () => {
  const before = snapshot();
  const { code, stderr } = await interruptCliDuringSetUp(150, 2);
  assert.equal(code, 130, stderr);
  assert.match(stderr, /SIGINT again/);
  assert.deepEqual(leftBehind(before), []);
});

test('the CLI: three Ctrl-Cs during netem set-up, the forced exit deletes the namespaces without waiting', { skip }, async () => {
  const before = snapshot();
  const { code, stderr } = await interruptCliDuringSetUp(150, 3);
  assert.equal(code, 130, stderr);
  assert.deepEqual(leftBehind(before), []);
});

/** A process that runs (a zombie waiting to be reaped does not). @param {string} pid */
const running = (pid) => {
  try {
    return parseStat(readFileSync(`/proc/${pid}/stat`, 'utf8')).state !== 'Z';
  } catch {
    return false;
  }
};

/** @param {() => boolean} predicate @param {number} timeoutMs @returns {Promise<boolean>} whether it came true in time */
async function eventually(predicate, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (!predicate() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  return predicate();
}

test('a SIGKILLed netem call: its guardian removes the namespaces, the root veth and route, the owner file and the browsers', { skip, timeout: 120_000 }, async () => {
  const before = snapshot();
  const out = tempDir();
  const { env, tag } = runTag();
  const child = spawn(process.execPath, [CLI, 'scenario', capped, '--emulator', 'netem', '--video', '360p30', '--duration', '60', '--out', out],
    { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => { stderr += chunk; });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code)));
  const peerNetns = () => snapshot().filter((name) => /^netns wtb-[a-z0-9]+-p[01]$/.test(name) && !before.includes(name)).map((name) => name.slice(6));
  // In the call: both peers' namespaces hold a browser.
  const inCall = () => {
    const names = peerNetns();
    return names.length === 2 && names.every((netns) => sh('ip', ['netns', 'pids', netns]).trim() !== '');
  };
  assert.ok(await eventually(inCall, 60_000), `no call came up: ${stderr}`);
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const id = /^wtb-([a-z0-9]+)-/.exec(peerNetns()[0])[1];
  const browsers = peerNetns().flatMap((netns) => sh('ip', ['netns', 'pids', netns]).split('\n').filter(Boolean));
  assert.ok(browsers.length >= 2, 'browsers run in the peers\' namespaces');
  assert.match(sh('ip', ['route', 'show']), new RegExp(`dev wtb${id}c`), 'the route to the peers goes through the root veth');
  assert.ok(existsSync(ownerFile(id)), 'the run owns its id');

  child.kill('SIGKILL');
  assert.equal(await exited, 'SIGKILL');
  const ours = () => snapshot().filter((name) => name.startsWith(`netns wtb-${id}-`) || name === `link wtb${id}c`);
  const browsersLeft = () => browsers.filter(running);
  assert.ok(await eventually(() => ours().length === 0 && processesTagged(tag).length === 0 && browsersLeft().length === 0, 15_000),
    `left after 15 s: ${ours().join(', ')}; processes ${[...processesTagged(tag), ...browsersLeft()].join(' ')}`);
  assert.deepEqual(leftBehind(before), []);
  assert.doesNotMatch(sh('ip', ['route', 'show']), new RegExp(`wtb${id}c`));
  assert.ok(!existsSync(ownerFile(id)), 'the owner file is removed');
  const log = readFileSync(path.join(out, 'netem-guardian.log'), 'utf8');
  assert.match(log, new RegExp(`orchestrator gone without removing its netem topology[\\s\\S]*ok: ip link del dev wtb${id}c[\\s\\S]*ok: ip netns del wtb-${id}-r`));
});

const LIVE_RUN_TEST = 'cleanup without --run-id leaves a live run alone and removes it once its orchestrator and its guardian are dead';
test(LIVE_RUN_TEST, { skip, timeout: 120_000 }, async (t) => {
  const before = snapshot();
  const runId = `live-${process.pid}`;
  const { child, exited, printed } = startChild(runId);
  t.after(() => child.kill('SIGKILL'));
  await printed('ready');
  const ours = `netns wtb-${shortRunId(runId)}-`;
  const live = await runCli(['cleanup']);
  assert.equal(live.code, 0, live.stderr);
  assert.match(live.stdout, new RegExp(`left 1 run\\(s\\) in progress alone \\(${shortRunId(runId)}\\)`));
  assert.equal(snapshot().filter((name) => name.startsWith(ours)).length, 3, 'router and two peer namespaces still there');

  // The guardian dies first, so nothing removes the run but `cleanup`.
  const guardian = sh('ps', ['-o', 'pid=,args=', '--ppid', String(child.pid)]).split('\n').find((line) => line.includes('netem/guardian.js'));
  assert.ok(guardian, 'the run has a guardian');
  process.kill(Number(guardian.trim().split(' ')[0]), 'SIGKILL');
  child.kill('SIGKILL');
  await exited;
  const dead = await runCli(['cleanup']);
  assert.equal(dead.code, 0, dead.stderr);
  assert.match(dead.stdout, /removed 3 namespaces \((wtb-[a-z0-9]+-(p0|p1|r)(, )?){3}\); 1 root link \(wtb[a-z0-9]+c\)/);
  assert.deepEqual(leftBehind(before), []);
  assert.ok(!existsSync(ownerFile(shortRunId(runId))), 'the dead run\'s owner file is removed');
});
