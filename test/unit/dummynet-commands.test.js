import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  dummynetChange, dummynetSetup, dummynetTeardown, pipeConfigArgs, pipeParams, planDummynet,
} from '../../orchestrator/emulators/dummynet/commands.js';
import { createDummynetEmulator, dummynetCapabilities } from '../../orchestrator/emulators/dummynet/index.js';
import { dummynetScript, scheduleStates } from '../../orchestrator/emulators/dummynet/script.js';
import { EnvironmentError, InputError } from '../../orchestrator/lib/system/errors.js';
import { compileNetwork } from '../../orchestrator/lib/network/schedule.js';

const ADDRESSES = { p0: '10.0.0.1', p1: '10.0.0.2' };
const compile = (network, durationS = 300) => compileNetwork({ file: 'x.json', durationS, network });
/** @param {Partial<import('../../orchestrator/lib/network/link-model.js').LinkParams>} overrides */
const link = (overrides = {}) => ({
  rateKbps: null, queuePackets: 50, queueMs: null, oneWayDelayMs: 0, jitterMs: 0, lossPct: 0, lossBurst: null, trace: null, ...overrides,
});
const plan = (platform, compiled) => planDummynet({ platform, peers: ['p0', 'p1'], links: Object.keys(compiled.links), routes: compiled.routes, addresses: ADDRESSES });

test('pipeConfigArgs restates bw, delay, plr and queue the way J16 wrote them', () => {
  assert.deepEqual(pipeConfigArgs(link({ rateKbps: 1000, oneWayDelayMs: 100, lossPct: 20 }), 'p0.up'),
    ['bw', '1000Kbit/s', 'delay', '100', 'plr', '0.2', 'queue', '50']);
  assert.deepEqual(pipeConfigArgs(link(), 'p0.up'), ['bw', '0', 'delay', '0', 'plr', '0', 'queue', '50']);
  // 1000 kbps × 500 ms = 62500 bytes ≈ 61 KB
  assert.deepEqual(pipeConfigArgs(link({ rateKbps: 1000, queuePackets: null, queueMs: 500 }), 'p0.up').slice(-2), ['queue', '61Kbytes']);
  assert.throws(() => pipeConfigArgs(link({ jitterMs: 5 }), 'p0.up'), (error) => error instanceof InputError && /p0\.up: jitterMs 5: dummynet has no jitter.*--emulator netem/.test(error.message));
  assert.throws(() => pipeConfigArgs(link({ lossPct: 5, lossBurst: 3 }), 'p1.up'), /p1\.up: lossBurst 3/);
});

test('FreeBSD, static scenario: one pipe per link, rules in route order on out, chained by one_pass=0', () => {
  const compiled = compile({ link: { rateKbps: 750 } });
  const freebsd = plan('freebsd', compiled);
  assert.deepEqual(dummynetSetup(freebsd, compiled.links), [
    'kldload -n dummynet',
    'sysctl net.inet.ip.fw.one_pass=0',
    'ipfw pipe 1001 config bw 750Kbit/s delay 0 plr 0 queue 50',
    'ipfw pipe 1002 config bw 750Kbit/s delay 0 plr 0 queue 50',
    'ipfw pipe 1003 config bw 0 delay 0 plr 0 queue 50',
    'ipfw pipe 1004 config bw 0 delay 0 plr 0 queue 50',
    'ipfw -q add 10001 set 7 pipe 1001 ip from 10.0.0.1 to 10.0.0.1,10.0.0.2 out',
    'ipfw -q add 10002 set 7 pipe 1002 ip from 10.0.0.2 to 10.0.0.1,10.0.0.2 out',
    'ipfw -q add 10003 set 7 pipe 1003 ip from 10.0.0.1,10.0.0.2 to 10.0.0.1 out',
    'ipfw -q add 10004 set 7 pipe 1004 ip from 10.0.0.1,10.0.0.2 to 10.0.0.2 out',
  ]);
  assert.deepEqual(dummynetTeardown(freebsd), [
    'ipfw -q delete set 7', 'ipfw -q pipe 1001 delete', 'ipfw -q pipe 1002 delete', 'ipfw -q pipe 1003 delete', 'ipfw -q pipe 1004 delete',
    'sysctl net.inet.ip.fw.one_pass=1',
  ]);
  const withBottleneck = compile({ bottleneck: { rateKbps: 2000 } });
  assert.deepEqual(plan('freebsd', withBottleneck).pipes.map((pipe) => pipe.link), ['p0.up', 'p1.up', 'bottleneck.fwd', 'bottleneck.back', 'p0.down', 'p1.down']);
});

test('FreeBSD, a 4-peer mesh with a bottleneck: bottleneck.fwd matches left to right addresses, .back right to left', () => {
  const compiled = compileNetwork({ file: 'x.json', durationS: 300, peers: 4, network: { bottleneck: { rateKbps: 2000 }, bottleneckBack: { rateKbps: 500 } } });
  const addresses = { p0: '10.0.0.1', p1: '10.0.0.2', p2: '10.0.0.3', p3: '10.0.0.4' };
  const freebsd = planDummynet({ platform: 'freebsd', peers: Object.keys(addresses), links: Object.keys(compiled.links), routes: compiled.routes, addresses });
  const lines = dummynetSetup(freebsd, compiled.links);
  assert.deepEqual(lines.filter((line) => /pipe 100[56] /.test(line)), [
    'ipfw pipe 1005 config bw 2000Kbit/s delay 0 plr 0 queue 50',
    'ipfw pipe 1006 config bw 500Kbit/s delay 0 plr 0 queue 50',
    'ipfw -q add 10005 set 7 pipe 1005 ip from 10.0.0.1,10.0.0.3 to 10.0.0.2,10.0.0.4 out',
    'ipfw -q add 10006 set 7 pipe 1006 ip from 10.0.0.2,10.0.0.4 to 10.0.0.1,10.0.0.3 out',
  ]);
  // uplinks before, downlinks after: every rule in route order
  assert.ok(lines.includes('ipfw -q add 10004 set 7 pipe 1004 ip from 10.0.0.4 to 10.0.0.1,10.0.0.2,10.0.0.3,10.0.0.4 out'));
  assert.ok(lines.includes('ipfw -q add 10007 set 7 pipe 1007 ip from 10.0.0.1,10.0.0.2,10.0.0.3,10.0.0.4 to 10.0.0.1 out'));
  // A change of the back direction reconfigures its pipe only.
  assert.deepEqual(dummynetChange(freebsd, { ...compiled.links, 'bottleneck.back': link({ rateKbps: 300 }) }, ['bottleneck.back']),
    ['ipfw pipe 1006 config bw 300Kbit/s delay 0 plr 0 queue 50']);
  // macOS: one pipe per route; p0 -> p1 takes the forward direction's cap, p1 -> p0 the back's, p0 -> p2 neither.
  const macos = planDummynet({ platform: 'macos', peers: Object.keys(addresses), links: Object.keys(compiled.links), routes: compiled.routes, addresses });
  const rateOf = (from, to) => pipeParams(macos, macos.pipes.find((p) => p.from === from && p.to === to), compiled.links).rateKbps;
  assert.deepEqual([rateOf('p0', 'p1'), rateOf('p1', 'p0'), rateOf('p0', 'p2'), rateOf('p3', 'p2')], [2000, 500, null, 500]);
});

test('macOS, static scenario: one dnctl pipe per route with its end-to-end conditions, pf anchor rules', () => {
  const compiled = compile({
    link: { rateKbps: 1000, oneWayDelayMs: 100, lossPct: 5 },
    peers: { p1: { downlink: { oneWayDelayMs: 20, lossPct: 5 } } },
  });
  const macos = plan('macos', compiled);
  const lines = dummynetSetup(macos, compiled.links);
  assert.deepEqual(lines.slice(0, 2), [
    // p0 -> p1 crosses p0.up and p1.down: delays add, losses compound
    'dnctl pipe 1001 config bw 1000Kbit/s delay 120 plr 0.0975 queue 50',
    'dnctl pipe 1002 config bw 1000Kbit/s delay 100 plr 0.05 queue 50',
  ]);
  assert.equal(lines[2], `(cat /etc/pf.conf; printf '%s\\n' 'dummynet-anchor "wtb"' 'anchor "wtb"') | pfctl -q -f -`);
  assert.equal(lines[3], "printf '%s\\n' 'dummynet out quick inet from 10.0.0.1 to 10.0.0.2 pipe 1001' 'dummynet out quick inet from 10.0.0.2 to 10.0.0.1 pipe 1002' | pfctl -q -a wtb -f -");
  assert.deepEqual(dummynetTeardown(macos), ['pfctl -q -a wtb -F all', 'pfctl -q -f /etc/pf.conf', 'dnctl pipe 1001 delete', 'dnctl pipe 1002 delete']);
});

test('macOS routes take the queue of their slowest link', () => {
  const compiled = compile({ link: { rateKbps: 3000, queueMs: 100 }, bottleneck: { rateKbps: 1000, queuePackets: 20 } });
  const macos = plan('macos', compiled);
  const params = pipeParams(macos, macos.pipes[0], compiled.links);
  assert.deepEqual([params.rateKbps, params.queuePackets, params.queueMs], [1000, 20, null]);
});

test('scheduled scenario: each change reconfigures only the pipes it touches, at its time', () => {
  const compiled = compile({
    link: { rateKbps: 1000 },
    schedule: [{ at: 60, set: { rateKbps: 3000 } }, { at: 120, links: ['p1.down'], set: { oneWayDelayMs: 50 } }],
  });
  const states = scheduleStates(compiled);
  assert.deepEqual(states.map((s) => s.atS), [60, 120]);
  const freebsd = plan('freebsd', compiled);
  assert.deepEqual(dummynetChange(freebsd, states[0].state, states[0].events.map((e) => e.link)), [
    'ipfw pipe 1001 config bw 3000Kbit/s delay 0 plr 0 queue 50',
    'ipfw pipe 1002 config bw 3000Kbit/s delay 0 plr 0 queue 50',
  ]);
  assert.deepEqual(dummynetChange(freebsd, states[1].state, ['p1.down']), ['ipfw pipe 1004 config bw 0 delay 50 plr 0 queue 50']);
  // on macOS p1.down is part of route p0->p1 only
  assert.deepEqual(dummynetChange(plan('macos', compiled), states[1].state, ['p1.down']), ['dnctl pipe 1001 config bw 3000Kbit/s delay 50 plr 0 queue 50']);

  const script = dummynetScript(compiled, { scenario: 'x', durationS: 300, peers: ['p0', 'p1'], platform: 'freebsd', addresses: ADDRESSES }).split('\n');
  const at = (line) => script.indexOf(line);
  assert.ok(at('trap teardown EXIT') < at('kldload -n dummynet'));
  assert.ok(at('sleep 60') < at('ipfw pipe 1001 config bw 3000Kbit/s delay 0 plr 0 queue 50'));
  assert.equal(script[at('ipfw pipe 1004 config bw 0 delay 50 plr 0 queue 50') - 1], 'sleep 60');
  assert.equal(script.filter(Boolean).at(-1), 'sleep 180');
  assert.ok(script.includes('  ipfw -q delete set 7 2>/dev/null || true'));
});

test('queues beyond dummynet\'s default limits raise them first', () => {
  // queue-size: 5000 kbps with a 10 s queue = 6.25 MB, beyond the 1 MB default
  const compiled = compile({ link: { rateKbps: 5000, queueMs: 10_000 }, schedule: [{ at: 10, set: { queuePackets: 200 } }] });
  const lines = dummynetSetup(plan('freebsd', compiled), compiled.links, scheduleStates(compiled).map((s) => s.state));
  assert.deepEqual(lines.slice(0, 2), ['sysctl net.inet.ip.dummynet.pipe_slot_limit=200', 'sysctl net.inet.ip.dummynet.pipe_byte_limit=6250496']);
});

test('planDummynet names the flag at fault', () => {
  const compiled = compile({});
  assert.throws(() => planDummynet({ platform: 'windows', peers: ['p0'], links: [], routes: {}, addresses: {} }), /--platform windows/);
  assert.throws(() => planDummynet({ platform: 'macos', peers: ['p0', 'p1'], links: Object.keys(compiled.links), routes: compiled.routes, addresses: { p0: '10.0.0.1' } }), /--address p1=/);
});

test('on Linux the dummynet backend stops with an EnvironmentError before running anything', { skip: process.platform !== 'linux' && 'Linux only' }, async () => {
  const caps = await dummynetCapabilities({ platform: 'linux' });
  assert.equal(caps.available, false);
  assert.match(caps.reasons[0], /macOS.*FreeBSD.*--emulator netem/);
  const emulator = createDummynetEmulator({ peers: ['p0', 'p1'], compiled: compile({}) });
  await assert.rejects(emulator.setup(), EnvironmentError);
  assert.deepEqual(emulator.commands, []);
});
