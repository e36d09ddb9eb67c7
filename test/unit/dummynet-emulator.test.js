// The dummynet backend's run-time plumbing on a stand-in macOS/FreeBSD host: which commands it would run, in which
// order, which candidates it lets through, and what a failed or interrupted set-up leaves.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createEmulator } from '../../orchestrator/emulators/index.js';
import { compileNetwork } from '../../orchestrator/lib/network/schedule.js';

const compiled = compileNetwork({ file: 'x.json', durationS: 60, network: { link: { rateKbps: 750, oneWayDelayMs: 50 } } });
const withBottleneck = compileNetwork({ file: 'x.json', durationS: 60, network: { link: { rateKbps: 750 }, bottleneck: { rateKbps: 1000 } } });
const candidate = (address, port = 50000, transport = 'udp', type = 'host') => ({
  candidate: `candidate:1 1 ${transport} 2122260223 ${address} ${port} typ ${type} generation 0`, sdpMid: '0',
});

/**
 * A stand-in host: records every command line (`sh -c` lines as the line); `failOn` makes matching lines fail,
 * `onLine` sees each line before it "runs".
 * @param {'macos'|'freebsd'} platform
 * @param {{failOn?: RegExp, onLine?: (line: string) => void, network?: any}} [options]
 */
function fakeHost(platform, { failOn, onLine, network = compiled } = {}) {
  const lines = [];
  /** @type {Array<{name: string, linesBefore: number, close: () => Promise<unknown>}>} */
  const closers = [];
  return {
    lines,
    closers,
    options: {
      compiled: network, peers: ['p0', 'p1'], runId: 'run-dn',
      capabilities: { platform, available: true, reasons: [] },
      exec: async (/** @type {string[]} */ argv) => {
        const line = argv[0] === 'sh' ? argv[2] : argv.join(' ');
        lines.push(line);
        onLine?.(line);
        await new Promise((resolve) => setImmediate(resolve));
        const failed = Boolean(failOn?.test(line));
        return { ok: !failed, stdout: '', stderr: failed ? 'refused' : line === 'pfctl -E' ? 'pf enabled\nToken : 4242\n' : '' };
      },
      registerCleanup: (/** @type {string} */ name, /** @type {() => Promise<unknown>} */ close) => {
        closers.push({ name, linesBefore: lines.length, close });
        return async () => { await close(); };
      },
    },
  };
}

test('dummynet on macOS: pipes at set-up, pf rules per peer socket as its candidate passes, all removed at close', async () => {
  const host = fakeHost('macos');
  // dummynet's own addition to the contract: the address each peer's media leaves from.
  const emulator = /** @type {import('../../orchestrator/emulators/contract.js').Emulator & { addressOf: (peer: string) => string }} */ (
    await createEmulator('dummynet', host.options));
  assert.deepEqual(host.closers.map(({ name, linesBefore }) => [name, linesBefore]), [['dummynet emulator', 0]], 'closer registered before any command');
  const setUpLines = host.lines.splice(0);
  assert.deepEqual(setUpLines.slice(0, 3), ['pfctl -q -a com.apple/wtb -F all', 'dnctl pipe 1001 delete', 'dnctl pipe 1002 delete'],
    'a crashed run\'s rules and pipes go first');
  assert.match(setUpLines[3], /^dnctl pipe 1001 config bw 750Kbit\/s delay 50 /, 'route p0->p1 at its end-to-end conditions');
  assert.equal(setUpLines.at(-1), 'pfctl -E');
  assert.ok(!setUpLines.some((line) => /dummynet out|ifconfig|\/etc\/pf\.conf/.test(line)), 'no rule before a candidate, no alias, main ruleset untouched');

  assert.equal(emulator.addressOf('p1'), '127.0.0.1');
  assert.throws(() => emulator.addressOf('p7'), /unknown peer 'p7'/);
  const own = candidate('127.0.0.1', 50000);
  assert.equal(await emulator.rewriteCandidate({ from: 'p0', to: 'p1', candidate: own }), own);
  assert.equal(host.lines.length, 1);
  assert.match(host.lines[0], /'dummynet out quick inet proto udp from 127\.0\.0\.1 port 50000 to 127\.0\.0\.1 pipe 1001'/);
  assert.match(host.lines[0], /'block drop quick inet proto udp from ! 127\.0\.0\.1 to 127\.0\.0\.1 port 50000'/);
  assert.match(host.lines[0], /\| pfctl -q -a com\.apple\/wtb -f -$/);

  await emulator.rewriteCandidate({ from: 'p1', to: 'p0', candidate: candidate('127.0.0.1', 50002) });
  assert.equal(host.lines.length, 2);
  assert.match(host.lines[1], /port 50000 to 127\.0\.0\.1 pipe 1001'.*port 50002 to 127\.0\.0\.1 pipe 1002'/, 'the anchor is reloaded with every socket');
  await emulator.rewriteCandidate({ from: 'p0', to: 'p1', candidate: own });
  assert.equal(host.lines.length, 2, 'a candidate sent again adds nothing');
  for (const other of [candidate('192.168.1.5'), candidate('127.0.0.1', 50004, 'tcp'), candidate('127.0.0.1', 50006, 'udp', 'srflx'), candidate('::1')]) {
    assert.equal(await emulator.rewriteCandidate({ from: 'p0', to: 'p1', candidate: other }), null, other.candidate);
  }
  assert.equal(host.lines.length, 2);
  assert.ok(emulator.commands.some((record) => record.cmd.includes('dummynet out quick')), 'rule commands are logged');

  await emulator.close();
  assert.deepEqual(host.lines.slice(2), ['pfctl -q -a com.apple/wtb -F all', 'dnctl pipe 1001 delete', 'dnctl pipe 1002 delete', 'pfctl -X 4242']);
  await emulator.close();
  assert.equal(host.lines.length, 6, 'closing twice runs nothing more');
  await assert.rejects(emulator.rewriteCandidate({ from: 'p0', to: 'p1', candidate: candidate('127.0.0.1', 50008) }), /closed/);
});

test('dummynet on FreeBSD: per socket, a drop rule and one pipe rule per link of its route, numbered in route order', async () => {
  const host = fakeHost('freebsd', { network: withBottleneck });
  const emulator = await createEmulator('dummynet', host.options);
  const setUpLines = host.lines.splice(0);
  assert.equal(setUpLines[0], 'ipfw -q delete set 7');
  assert.ok(setUpLines.includes('kldload -n dummynet') && setUpLines.includes('sysctl net.inet.ip.fw.one_pass=0'));
  assert.ok(!setUpLines.some((line) => line.startsWith('ipfw -q add')), 'no rule before a candidate');
  // Pipes in route order: uplinks 1001-1002, bottleneck.fwd 1003 and .back 1004, downlinks 1005-1006.
  await emulator.rewriteCandidate({ from: 'p1', to: 'p0', candidate: candidate('127.0.0.1', 40000) });
  assert.deepEqual(host.lines.splice(0), [
    'ipfw -q add 9001 set 7 deny udp from not 127.0.0.1 to 127.0.0.1 40000',
    'ipfw -q add 10001 set 7 pipe 1002 udp from 127.0.0.1 40000 to 127.0.0.1 out',
    'ipfw -q add 11001 set 7 pipe 1004 udp from 127.0.0.1 40000 to 127.0.0.1 out',
    'ipfw -q add 12001 set 7 pipe 1005 udp from 127.0.0.1 40000 to 127.0.0.1 out',
  ]);
  await emulator.rewriteCandidate({ from: 'p0', to: 'p1', candidate: candidate('127.0.0.1', 40002) });
  assert.deepEqual(host.lines.splice(0).slice(1), [
    'ipfw -q add 10002 set 7 pipe 1001 udp from 127.0.0.1 40002 to 127.0.0.1 out',
    'ipfw -q add 11002 set 7 pipe 1003 udp from 127.0.0.1 40002 to 127.0.0.1 out',
    'ipfw -q add 12002 set 7 pipe 1006 udp from 127.0.0.1 40002 to 127.0.0.1 out',
  ]);
  await emulator.close();
  assert.deepEqual(host.lines, ['ipfw -q delete set 7', ...[1001, 1002, 1003, 1004, 1005, 1006].map((n) => `ipfw -q pipe ${n} delete`), 'sysctl net.inet.ip.fw.one_pass=1']);
});

test('a dummynet set-up that fails half way removes what it made', async () => {
  const host = fakeHost('macos', { failOn: /^dnctl pipe 1002 config/ });
  await assert.rejects(createEmulator('dummynet', host.options), /dnctl pipe 1002 config .* failed: refused/);
  assert.deepEqual(host.lines.slice(-3), ['pfctl -q -a com.apple/wtb -F all', 'dnctl pipe 1001 delete', 'dnctl pipe 1002 delete']);
  assert.ok(!host.lines.includes('pfctl -E'));
});

test('a dummynet set-up interrupted half way (the run\'s closer runs) stops and removes what it made', async () => {
  /** @type {Promise<unknown>|null} */
  let closing = null;
  const host = fakeHost('freebsd', {
    onLine: (line) => {
      if (!closing && line.startsWith('ipfw pipe 1001 config')) closing = host.closers[0].close();
    },
  });
  await assert.rejects(createEmulator('dummynet', host.options), /set-up interrupted/);
  await closing;
  const teardownAt = host.lines.lastIndexOf('ipfw -q delete set 7');
  assert.ok(teardownAt > host.lines.indexOf('ipfw pipe 1001 config bw 750Kbit/s delay 50 plr 0 queue 50'), host.lines.join('\n'));
  assert.ok(!host.lines.slice(teardownAt).some((line) => /config/.test(line)), 'nothing is configured after the teardown');
});
