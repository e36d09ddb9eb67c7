// The dummynet backend's run-time plumbing on a stand-in macOS/FreeBSD host: which commands it would run, with
// which addresses, in which order, and which candidates it lets through.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createEmulator } from '../../orchestrator/emulators/index.js';
import { compileNetwork } from '../../orchestrator/lib/schedule.js';

const compiled = compileNetwork({ file: 'x.json', durationS: 60, network: { link: { rateKbps: 750, oneWayDelayMs: 50 } } });
const candidate = (address, port = 50000) => ({ candidate: `candidate:1 1 udp 2122260223 ${address} ${port} typ host generation 0`, sdpMid: '0' });

/** A stand-in host: records every command line; `failOn` makes matching lines fail. */
function fakeHost(platform, failOn = null) {
  const lines = [];
  const closers = [];
  return {
    lines,
    closers,
    options: {
      compiled, peers: ['p0', 'p1'], runId: 'run-dn',
      capabilities: { platform, available: true, reasons: [] },
      exec: async (argv) => {
        const line = argv[0] === 'sh' ? argv[2] : argv.join(' ');
        lines.push(line);
        return { ok: !(failOn && failOn.test(line)), stdout: '', stderr: failOn?.test(line) ? 'refused' : '' };
      },
      registerCleanup: (name, close) => {
        closers.push(name);
        return async () => { await close(); };
      },
    },
  };
}

test('dummynet on macOS: a loopback alias per peer, pf rules on those addresses, aliases removed at close', async () => {
  const host = fakeHost('macos');
  const emulator = await createEmulator('dummynet', host.options);
  assert.deepEqual(host.closers, ['dummynet emulator'], 'its closer was registered before set-up');
  const setUpLines = host.lines.splice(0);
  const firstAdd = setUpLines.indexOf('ifconfig lo0 alias 127.0.0.2 netmask 255.255.255.255');
  assert.ok(firstAdd > 0, setUpLines.join('\n'));
  assert.ok(setUpLines.indexOf('ifconfig lo0 -alias 127.0.0.2') < firstAdd, 'a crashed run\'s aliases and rules are removed first');
  assert.ok(setUpLines.includes('ifconfig lo0 alias 127.0.0.3 netmask 255.255.255.255'));
  const rules = setUpLines.find((line) => line.includes('dummynet out quick'));
  // pf cannot chain pipes: one pipe per route, matched on the two peers' aliases.
  assert.match(rules, /from 127\.0\.0\.2 to 127\.0\.0\.3 pipe 1001/);
  assert.match(rules, /from 127\.0\.0\.3 to 127\.0\.0\.2 pipe 1002/);
  assert.ok(setUpLines.indexOf(setUpLines.find((line) => /^dnctl pipe \d+ config/.test(line))) > firstAdd, 'pipes after the aliases');

  assert.equal(emulator.addressOf('p1'), '127.0.0.3');
  assert.ok(await emulator.rewriteCandidate({ from: 'p0', to: 'p1', candidate: candidate('127.0.0.2') }));
  assert.equal(await emulator.rewriteCandidate({ from: 'p0', to: 'p1', candidate: candidate('127.0.0.1') }), null, 'the shared loopback address would bypass the pipes');
  assert.equal(await emulator.rewriteCandidate({ from: 'p0', to: 'p1', candidate: candidate('127.0.0.3') }), null, 'another peer\'s alias');

  await emulator.close();
  assert.deepEqual(host.lines.slice(-2), ['ifconfig lo0 -alias 127.0.0.2', 'ifconfig lo0 -alias 127.0.0.3']);
  assert.ok(host.lines.includes('pfctl -q -f /etc/pf.conf'));
});

test('dummynet on FreeBSD: ipfw rules on the peers\' aliases', async () => {
  const host = fakeHost('freebsd');
  await createEmulator('dummynet', host.options);
  assert.ok(host.lines.includes('ipfw -q add 10001 set 7 pipe 1001 ip from 127.0.0.2 to 127.0.0.2,127.0.0.3 out'), host.lines.join('\n'));
  assert.ok(host.lines.includes('ifconfig lo0 alias 127.0.0.3 netmask 255.255.255.255'));
});

test('a dummynet set-up that fails half way removes what it made', async () => {
  const host = fakeHost('macos', /^dnctl pipe 1002/);
  await assert.rejects(createEmulator('dummynet', host.options), /dnctl pipe 1002 .* failed: refused/);
  assert.deepEqual(host.lines.slice(-2), ['ifconfig lo0 -alias 127.0.0.2', 'ifconfig lo0 -alias 127.0.0.3']);
});
