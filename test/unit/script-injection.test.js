// Generated shell scripts (export-script, the emulators' command lines) under hostile input: every value the
// generator writes stays one argument or one comment, so the script runs exactly the generator's commands.
// The scripts are executed for real by /bin/sh (and bash), with PATH holding only stubs that log their argv.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { planDummynet } from '../../orchestrator/emulators/dummynet/commands.js';
import { dummynetScript } from '../../orchestrator/emulators/dummynet/script.js';
import { netemScript } from '../../orchestrator/emulators/netem/script.js';
import { shellComment, shellJoin } from '../../orchestrator/emulators/script.js';
import { InputError } from '../../orchestrator/lib/system/errors.js';
import { loadScenario } from '../../orchestrator/lib/scenario/scenario-file.js';
import { compileNetwork } from '../../orchestrator/lib/network/schedule.js';
import { createRandom } from '../../orchestrator/lib/stats/random.js';

/** @typedef {import('../../orchestrator/lib/network/schedule.js').CompiledNetwork} CompiledNetwork */

/** Every command a generated script may run. */
const GENERATOR_COMMANDS = ['tc', 'ip', 'nft', 'ethtool', 'sysctl', 'sleep', 'ipfw', 'dnctl', 'pfctl', 'kldload', 'cat'];
/** /bin/sh, and bash (macOS's sh) where installed: absolute, since the scripts run with only the stubs on PATH. */
const SHELLS = ['sh', 'bash'].map((shell) => spawnSync('sh', ['-c', `command -v ${shell}`], { encoding: 'utf8' }).stdout.trim()).filter(Boolean);

const stubDir = mkdtempSync(path.join(os.tmpdir(), 'wtb-stubs-'));
// Each record: the argument count, the command name, its arguments, NUL-separated (no argument can hold a NUL).
// `pfctl … -f -` also logs the rules it reads: they are data the script carries too. Reading them first
// also orders the log: pfctl logs after the commands feeding its pipe have finished.
const STUB = `#!/bin/sh
input=
case " $* " in *' -f - '*) while IFS= read -r line; do input="$input$line/"; done; set -- "$@" "stdin: $input" ;; esac
printf '%s\\0' "$#" "\${0##*/}" "$@" >> "$STUB_LOG"
`;
for (const name of [...GENERATOR_COMMANDS, 'logargs']) {
  const stub = path.join(stubDir, name);
  writeFileSync(stub, STUB);
  chmodSync(stub, 0o755);
}
test.after(() => rmSync(stubDir, { recursive: true, force: true }));

/**
 * Runs a script with only the stubs on PATH; the commands it ran, as argv arrays.
 * @param {string} script @param {string} shell
 * @returns {string[][]}
 */
function runUnderStubs(script, shell) {
  const log = path.join(stubDir, 'log');
  writeFileSync(log, '');
  const file = path.join(stubDir, 'script.sh');
  writeFileSync(file, script);
  // In the stub directory: an injected redirection in a broken script writes there, not into the repo.
  const result = spawnSync(shell, [file], { cwd: stubDir, env: { PATH: stubDir, STUB_LOG: log, HOME: stubDir }, encoding: 'utf8' });
  assert.equal(result.status, 0, `${shell} exited ${result.status}: ${result.stderr}`);
  const parts = readFileSync(log, 'utf8').split('\0');
  const commands = [];
  for (let i = 0; i + 1 < parts.length;) {
    const count = Number(parts[i]);
    commands.push(parts.slice(i + 1, i + 2 + count));
    i += count + 2;
  }
  return commands;
}


/** Pieces the shell reads specially; a hostile string always has one. */
const SPECIAL = ["'", '"', '$(touch PWNED)', '`touch PWNED`', '\n', '\r', ';', '&&', '||', '|', '&', '>', '<', '\\', '$HOME', '${IFS}',
  '#', ' ', '\t', '*', '?', '~', '{', '}', '!', "'\\''", '\nrm -rf /\n', '\u2028', '\u007f', '\u0001'];
const PIECES = [...SPECIAL, '-e', '--', '%s', 'é', 'x', '9'];

/** @param {() => number} rnd */
function hostileString(rnd) {
  const piece = (list) => list[Math.floor(rnd() * list.length)];
  const rest = Array.from({ length: Math.floor(rnd() * 8) }, () => piece(PIECES));
  rest.splice(Math.floor(rnd() * (rest.length + 1)), 0, piece(SPECIAL));
  return rest.join('');
}

test('shellJoin: every hostile argument reaches the command as exactly one argument, unchanged', () => {
  const rnd = createRandom(8); // seeded, so a failure reproduces
  const argvs = Array.from({ length: 200 }, () => ['logargs', ...Array.from({ length: Math.floor(rnd() * 5) }, () => hostileString(rnd)), '']);
  // Comments with the same strings in between must stay comments.
  const script = argvs.flatMap((argv) => [shellComment(argv.join(' ')), shellJoin(argv)]).join('\n');
  for (const shell of SHELLS) assert.deepEqual(runUnderStubs(script, shell), argvs, shell);
});

/**
 * A valid link in the ranges of docs/scenario-format.md, every field given.
 * @param {() => number} rnd @param {{dummynet: boolean}} options  dummynet has no jitter or bursty loss
 */
function randomLink(rnd, { dummynet }) {
  const pick = (low, high, decimals = 3) => Number((low + rnd() * (high - low)).toFixed(decimals));
  const rateKbps = rnd() < 0.2 ? null : pick(8, 50_000);
  const oneWayDelayMs = rnd() < 0.3 ? 0 : pick(0, 60_000);
  const lossPct = rnd() < 0.3 ? 0 : pick(0, 50);
  return {
    rateKbps,
    ...(rnd() < 0.5 ? { queuePackets: 1 + Math.floor(rnd() * 100_000) } : { queueMs: pick(0.001, 60_000) }),
    oneWayDelayMs,
    jitterMs: dummynet ? 0 : pick(0, oneWayDelayMs),
    lossPct,
    lossBurst: dummynet || rnd() < 0.5 ? null : pick(1, 1000),
  };
}

/**
 * A random scenario network: links, steps on the uplinks, a rate ramp on the downlinks.
 * @param {() => number} rnd @param {{dummynet: boolean}} options
 */
function randomNetwork(rnd, options) {
  const durationS = 1 + Math.floor(rnd() * 600);
  const times = [...new Set(Array.from({ length: Math.floor(rnd() * 4) }, () => Math.round(rnd() * durationS * 1e6) / 1e6))];
  /** @type {object[]} */
  const schedule = times.map((at) => ({ at, links: 'uplinks', set: randomLink(rnd, options) }));
  const rampAt = Math.floor(rnd() * (durationS - 1));
  schedule.push({ at: rampAt, links: 'downlinks', ramp: { field: 'rateKbps', from: 8 + Math.floor(rnd() * 5000), to: 8 + Math.floor(rnd() * 5000), durationS: 1, everyS: 0.3 } });
  const peers = 2 + Math.floor(rnd() * 2);
  const network = { link: randomLink(rnd, options), bottleneck: randomLink(rnd, options), schedule };
  return { durationS, peers, compiled: compileNetwork({ file: 'fuzz.json', durationS, peers, network }) };
}

/** The same compiled network with every event's cause replaced. @param {any} compiled @param {(i: number) => string} cause */
const withCauses = (compiled, cause) => ({ ...compiled, events: compiled.events.map((event, i) => ({ ...event, cause: cause(i) })) });

const ADDRESSES = { p0: '10.0.0.1', p1: '10.0.0.2', p2: '10.0.0.3' };

test('seeded fuzz: hostile scenario names and causes with random in-range numbers never add or change a command', () => {
  const rnd = createRandom(9);
  /** @type {Array<[string, (compiled: CompiledNetwork, scenario: string, o: { durationS: number, peerNames: string[] }) => string]>} */
  const generators = [
    ['netem', (compiled, scenario, o) => netemScript(compiled, { scenario, durationS: o.durationS, peers: o.peerNames, netem: true })],
    ['netem without sch_netem', (compiled, scenario, o) => netemScript(withoutDelay(compiled), { scenario, durationS: o.durationS, peers: o.peerNames, netem: false })],
    ['dummynet freebsd', (compiled, scenario, o) => dummynetScript(compiled, { scenario, durationS: o.durationS, peers: o.peerNames, platform: 'freebsd', addresses: ADDRESSES })],
    ['dummynet macos', (compiled, scenario, o) => dummynetScript(compiled, { scenario, durationS: o.durationS, peers: o.peerNames, platform: 'macos', addresses: ADDRESSES })],
  ];
  for (let round = 0; round < 3; round++) {
    for (const [backend, generate] of generators) {
      const { durationS, peers, compiled } = randomNetwork(rnd, { dummynet: backend.startsWith('dummynet') });
      const options = { durationS, peerNames: Array.from({ length: peers }, (_, i) => `p${i}`) };
      const hostile = generate(withCauses(compiled, () => hostileString(rnd)), hostileString(rnd), options);
      const benign = generate(withCauses(compiled, (i) => `cause ${i}`), 'benign', options);
      const where = `${backend}, round ${round}`;
      assert.equal(spawnSync('sh', ['-n'], { input: hostile, cwd: stubDir }).status, 0, `${where}: sh -n`);
      for (const shell of SHELLS) {
        const ran = runUnderStubs(hostile, shell);
        assert.deepEqual(ran, runUnderStubs(benign, shell), `${where}, ${shell}: the hostile script ran other commands than the benign one`);
        assert.ok(ran.length > 10, `${where}: ran ${ran.length} commands`);
        for (const [name, ...args] of ran) {
          assert.ok(GENERATOR_COMMANDS.includes(name), `${where}: ran ${name}`);
          // numbers in range print as plain decimals
          for (const arg of args) assert.doesNotMatch(arg, /\de[+-]?\d|NaN|Infinity|PWNED/, `${where}: ${name} ${arg}`);
        }
      }
    }
  }
});

/** nftables cannot delay: the same network with delay and jitter removed. @param {any} compiled */
function withoutDelay(compiled) {
  const strip = (params) => ({ ...params, oneWayDelayMs: 0, jitterMs: 0, lossBurst: null });
  return {
    ...compiled,
    links: Object.fromEntries(Object.entries(compiled.links).map(([name, params]) => [name, strip(params)])),
    events: compiled.events.map((event) => ({ ...event, params: strip(event.params) })),
  };
}

test('seeded fuzz: hostile names, peer addresses and link selectors never get past validation', () => {
  const rnd = createRandom(10);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'wtb-fuzz-names-'));
  try {
    for (let i = 0; i < 100; i++) {
      const name = hostileString(rnd).replaceAll('/', '');
      const file = path.join(dir, `${name}.json`);
      writeFileSync(file, JSON.stringify({ name, description: 'fuzz' }));
      const valid = /^[A-Za-z0-9._-]+$/.test(name) && name !== '.' && name !== '..';
      if (valid) assert.equal(loadScenario(file).name, name);
      else assert.throws(() => loadScenario(file), InputError, JSON.stringify(name));
      rmSync(file, { force: true });

      const address = `10.0.0.1${hostileString(rnd)}`;
      assert.throws(() => planDummynet({ platform: 'macos', peers: ['p0'], links: [], routes: {}, addresses: { p0: address } }), InputError);
      const selector = [`p0.up${hostileString(rnd)}`];
      assert.throws(() => compileNetwork({ file: 'x.json', durationS: 10, network: { schedule: [{ at: 1, links: selector, set: { lossPct: 1 } }] } }), InputError);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

const CLI = new URL('../../orchestrator/bin/cli.js', import.meta.url).pathname;

test('export-script writes no script for a scenario file whose name carries shell lines, and refuses a hostile run id', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'wtb-evil-'));
  try {
    const evil = 'x\ntouch PWNED; $(id)';
    const file = path.join(dir, `${evil}.json`);
    writeFileSync(file, JSON.stringify({ name: evil, description: 'evil', network: { link: { rateKbps: 1000 } } }));
    const run = spawnSync(process.execPath, [CLI, 'export-script', file], { encoding: 'utf8' });
    assert.equal(run.status, 2);
    assert.equal(run.stdout, '');
    assert.match(run.stderr, /: name: a scenario's name is its file's base name, and "x\\ntouch PWNED; \$\(id\)" is not a valid one: rename the file/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const hostileId = spawnSync(process.execPath, [CLI, 'export-script', '--topology-only', '--run-id', 'a;id'], { encoding: 'utf8' });
  assert.equal(hostileId.status, 2);
  assert.match(hostileId.stderr, /--run-id "a;id": must be 1-8 characters of a-z and 0-9/);
});

test('export-script --out over a planted symlink replaces the link and neither writes nor chmods the file it points at', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'wtb-out-link-'));
  try {
    const outside = path.join(dir, 'outside');
    writeFileSync(outside, 'keep me\n', { mode: 0o600 });
    const out = path.join(dir, 'script.sh');
    symlinkSync(outside, out);
    const run = spawnSync(process.execPath, [CLI, 'export-script', 'latency-500', '--out', out], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.equal(readFileSync(outside, 'utf8'), 'keep me\n');
    assert.equal(statSync(outside).mode & 0o777, 0o600);
    assert.equal(lstatSync(out).isFile(), true, 'the link itself was replaced by the script');
    assert.equal(lstatSync(out).mode & 0o777, 0o755);
    assert.match(readFileSync(out, 'utf8'), /^#!\/bin\/sh/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
