// Handovers (issue 40 part 4): the schedule entry checked at load, the emulators' declared support, netem's commands
// for a move, and what result.json measures of it (lib/result/handover.js).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { checkSupport } from '../../orchestrator/emulators/index.js';
import { requirementsOf } from '../../orchestrator/emulators/contract.js';
import { freeSlot, handoverCommands, handoverTable } from '../../orchestrator/emulators/netem/handover.js';
import { planTopology } from '../../orchestrator/emulators/netem/topology.js';
import { compileNetwork } from '../../orchestrator/lib/network/schedule.js';
import { handoverSection, handoverSummary } from '../../orchestrator/lib/result/handover.js';
import { loadScenario } from '../../orchestrator/lib/scenario/scenario-file.js';
import { InputError } from '../../orchestrator/lib/system/errors.js';
import { renderHandovers } from '../../orchestrator/report/render-handovers.js';

/** @param {unknown[]} schedule @param {object} [scenario] */
const compile = (schedule, scenario = {}) => compileNetwork({ file: 'x.json', durationS: 120, peers: 2, network: { schedule }, ...scenario }, { timeScale: 0.5 });

test('a handover entry is checked at load, naming the file and field; its time scales like a step', () => {
  const compiled = compile([{ at: 60, handover: 'p0' }, { at: 60, links: ['p0.up'], set: { rateKbps: 2500 } }]);
  assert.deepEqual(compiled.handovers, [{ atS: 30, peer: 'p0', cause: 'network.schedule[0] handover', field: 'network.schedule[0].handover' }]);
  assert.equal(compiled.events.length, 1, 'the link step beside it is compiled as ever');
  assert.equal(compile([{ at: 60, links: ['p0.up'], set: { rateKbps: 2500 } }]).handovers, undefined, 'no handovers: no field');
  /** @type {Array<[unknown[], object, RegExp]>} */
  const refused = [
    [[{ at: 60, handover: 'p2' }], {}, /^x\.json: network\.schedule\[0\]\.handover: must name the peer that changes network, one of p0, p1, got "p2"$/],
    [[{ at: 60, handover: 7 }], {}, /\.handover: must name the peer .*, got 7$/],
    [[{ at: 0, handover: 'p0' }], {}, /^x\.json: network\.schedule\[0\]\.at: must be a number > 0, got 0$/],
    [[{ at: 121, handover: 'p0' }], {}, /network\.schedule\[0\]\.at: 121 s is beyond the scenario's durationS \(120 s\)/],
    [[{ at: 60, handover: 'p0', set: { lossPct: 1 } }], {}, /^x\.json: network\.schedule\[0\]: unknown field 'set'/],
    [[{ at: 60, handover: 'p0' }], { topology: 'sfu' }, /\.handover: a handover needs topology mesh .*, got sfu/],
  ];
  for (const [schedule, scenario, pattern] of refused) {
    assert.throws(() => compile(schedule, scenario), (error) => error instanceof InputError && pattern.test(error.message), `${pattern}`);
  }
});

test('the shipped scenario loads; a handover of a peer behind a NAT profile is refused at load', () => {
  const scenario = loadScenario('handover-wifi-to-cellular', { timeScale: 0.25 });
  assert.deepEqual(scenario.compiled.handovers, [{ atS: 15, peer: 'p0', cause: 'network.schedule[0] handover', field: 'network.schedule[0].handover' }]);
  const dir = mkdtempSync(path.join(tmpdir(), 'wtb-handover-'));
  try {
    const file = path.join(dir, 'moved.json');
    writeFileSync(file, JSON.stringify({
      name: 'moved', description: 'a moved peer behind a NAT', reference: null, durationS: 60, peerNetwork: { p0: { nat: 'symmetric' } }, network: { schedule: [{ at: 30, handover: 'p0' }] },
    }));
    assert.throws(() => loadScenario(file), (error) => error instanceof InputError
      && /moved\.json: network\.schedule\[0\]\.handover: p0 has a peerNetwork profile/.test(error.message));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('only netem moves a peer to a new network: the others refuse the scenario with exit 2, naming netem', () => {
  const scenario = loadScenario('handover-wifi-to-cellular');
  const requirements = requirementsOf(scenario, { p0: 'chromium', p1: 'chromium' }, []);
  assert.deepEqual(requirements.handover, ['p0']);
  for (const name of ['relay', 'node-relay', 'dummynet']) {
    assert.throws(() => checkSupport(name, requirements), (error) => error instanceof InputError && error.exitCode === 2
      && new RegExp(`--emulator ${name}: scenario handover-wifi-to-cellular moves p0 to a new network \\(a schedule handover\\), which .*; use --emulator netem$`).test(error.message), name);
  }
  assert.doesNotThrow(() => checkSupport('netem', requirements));
  assert.deepEqual(requirementsOf({ name: 'x' }, {}, []).handover, []);
});

test('netem: the new address is a free /30 of the peer\'s side; the new path comes up before the old one dies', () => {
  const plan = planTopology({ runId: 'run-abc', peers: ['p0', 'p1'], links: ['p0.up', 'p0.down', 'p1.up', 'p1.down'], block: 7 });
  const p0 = plan.peers[0];
  const taken = new Set(plan.peers.flatMap((p) => [p.address, p.routerAddress]));
  const next = freeSlot(plan, p0, taken);
  assert.deepEqual(next, { address: '10.201.7.190', routerAddress: '10.201.7.189' }, 'the top /30 of the left /26');
  assert.deepEqual(freeSlot(plan, p0, new Set([...taken, next.address])), { address: '10.201.7.186', routerAddress: '10.201.7.185' });
  const commands = handoverCommands(plan, p0, next).map((argv) => argv.join(' '));
  const R = plan.routerNetns;
  assert.deepEqual(commands.slice(0, 6), [
    `ip -n ${R} addr add 10.201.7.189/30 dev p0`,
    `ip -n ${R} neigh replace 10.201.7.190 lladdr ${plan.hairpin.inMac} dev hp0 nud permanent`,
    `tc -n ${R} filter add dev hp0 parent 1: protocol ip prio 1 u32 match ip src 10.201.7.190/32 match ip dst ${plan.peerRange} flowid 1:1`,
    `tc -n ${R} filter add dev p0 parent 1: protocol ip prio 1 u32 match ip src ${plan.peerRange} match ip dst 10.201.7.190/32 flowid 1:2`,
    `ip -n ${p0.netns} addr add 10.201.7.190/30 dev eth0`,
    `ip -n ${p0.netns} route replace default via 10.201.7.189 src 10.201.7.190`,
  ]);
  const kill = commands[6];
  assert.ok(kill.startsWith(`ip netns exec ${R} nft add table inet ${handoverTable(plan)} ;`), kill);
  assert.match(kill, new RegExp(`ip saddr ${p0.address} ip daddr ${plan.peerRange.replace('.', '\\.')} drop ; .* ip saddr ${plan.peerRange.replace('.', '\\.')} ip daddr ${p0.address} drop$`));
  const full = new Set(Array.from({ length: 64 }, (_, i) => `10.201.7.${128 + i}`));
  assert.throws(() => freeSlot(plan, p0, full), /no free address left on the left of the bottleneck for p0's handover/);
});

/** p1 sees p0's video freeze from 30.4 to 34.1 s; p0 sees p1's from 30.2 to 33.0 s; both pairs move to p0's new address. */
function run() {
  const pair = (local, remote) => ({ localType: 'host', localProtocol: 'udp', relayProtocol: null, remoteType: 'host', remoteProtocol: 'udp', localAddress: local, remoteAddress: remote });
  const [old, moved, other] = ['10.201.7.130', '10.201.7.190', '10.201.7.194'];
  const timeline = [];
  for (let t = 1; t <= 60; t += 1) {
    const after = t > 34;
    timeline.push({ t, peer: 'p0', remote: 'p1', video: { recvKbps: 1000, framesShown: after || t <= 30 ? 30 : 0 }, selectedPair: t <= 30 ? pair(old, other) : after ? pair(moved, other) : null });
    timeline.push({ t, peer: 'p1', remote: 'p0', video: { recvKbps: after ? 900 : 1000, framesShown: after || t <= 30 ? 30 : 0 }, selectedPair: t <= 30 ? pair(other, old) : after ? pair(other, moved) : null });
  }
  const freezes = [
    { peer: 'p1', remote: 'p0', atS: 30.4, durationMs: 3700 }, { peer: 'p0', remote: 'p1', atS: 30.2, durationMs: 2800 },
    { peer: 'p0', remote: 'p1', atS: 10, durationMs: 400 }, { peer: 'p0', remote: 'p1', atS: 50, durationMs: 900 },
  ];
  const start = 1_790_000_000_000;
  const events = [
    { type: 'handover', peer: 'p0', fromAddress: old, toAddress: moved, scheduledAtS: 30, epochMs: start + 30_050 },
    { type: 'ice-restart', peer: 'p1', remote: 'p0', state: 'disconnected', epochMs: start + 32_900 },
    { type: 'ice-restart', peer: 'p1', remote: 'p0', state: 'failed', epochMs: start + 5_000 },
  ];
  const atS = (/** @type {number} */ epochMs) => (epochMs - start) / 1000;
  return { compiled: { handovers: [{ atS: 30, peer: 'p0', cause: 'network.schedule[0] handover', field: 'network.schedule[0].handover' }] }, events, atS, freezes, timeline, durationS: 60 };
}

test('result: the outage as seen, the pairs before and after, the ICE restarts and the time back to a steady rate', () => {
  const [handover] = handoverSection(run()) ?? [];
  assert.equal(handover.atS, 30.05);
  assert.deepEqual([handover.fromAddress, handover.toAddress], ['10.201.7.130', '10.201.7.190']);
  assert.deepEqual(handover.streams.map((s) => [s.peer, s.remote, s.lastFrameAtS, s.firstFrameAtS, s.outageMs]), [
    ['p0', 'p1', 30.2, 33, 2800], ['p1', 'p0', 30.4, 34.1, 3700],
  ], 'the freezes across the move only, not the ones at 10 s and 50 s');
  assert.equal(handover.outageMs, 3700);
  assert.equal(handover.recovered, true);
  assert.equal(handover.iceRestarts, 1, 'the restart at 5 s was before the move');
  assert.deepEqual(handover.pairs.map((p) => [p.peer, p.before?.localAddress, p.after?.localAddress, p.changed]), [
    ['p0', '10.201.7.130', '10.201.7.190', true], ['p1', '10.201.7.194', '10.201.7.194', true],
  ]);
  assert.ok(Number.isFinite(handover.timeToSteadyS), 'a steady rate after the move');
  assert.deepEqual(handoverSummary([handover]), {
    handovers: 1, outageMs: 3700, recovered: true, newPairShare: 1, iceRestarts: 1, timeToSteadyS: handover.timeToSteadyS,
  });
  assert.equal(handoverSection({ ...run(), compiled: {} }), null, 'no handover, no section');
  assert.equal(handoverSummary(null), null);
});

test('result: a stream that never came back has no outage, and the run none; a kept pair is no new pair', () => {
  const input = run();
  input.freezes = input.freezes.filter((f) => f.peer !== 'p1');
  for (const entry of input.timeline) {
    if (entry.peer === 'p1' && entry.t > 30) Object.assign(entry, { video: { recvKbps: 0, framesShown: 0 }, selectedPair: null });
  }
  const [handover] = handoverSection(input) ?? [];
  assert.deepEqual(handover.streams.find((s) => s.peer === 'p1'), {
    peer: 'p1', remote: 'p0', lastFrameAtS: null, firstFrameAtS: null, outageMs: null, recovered: false,
  });
  assert.equal(handover.outageMs, null);
  assert.equal(handover.recovered, false);
  assert.equal(handover.pairs.find((p) => p.peer === 'p1')?.changed, false);
  const summary = handoverSummary([handover]);
  assert.equal(summary?.outageMs, null);
  assert.equal(summary?.newPairShare, 0.5);
  // Frames that never stopped are no outage: 0, recovered.
  const seamless = run();
  seamless.freezes = [];
  const [kept] = handoverSection(seamless) ?? [];
  assert.deepEqual(kept.streams.map((s) => s.outageMs), [0, 0]);
});

test('the report shows each handover, escaped; nothing without one', () => {
  const handovers = handoverSection(run());
  const html = renderHandovers({ handovers });
  assert.match(html, /<h3 id="handovers">Handovers<\/h3>/);
  assert.match(html, /p0 at 30\.05 s: 10\.201\.7\.130 → 10\.201\.7\.190/);
  assert.match(html, /3700 ms/);
  assert.match(html, /<td>host\/udp → host\/udp<br>10\.201\.7\.130 → 10\.201\.7\.194<\/td>/);
  assert.equal(renderHandovers({ handovers: null }), '');
  const hostile = handoverSection(run())?.map((h) => ({ ...h, peer: '<script>' })) ?? null;
  assert.doesNotMatch(renderHandovers({ handovers: hostile }), /<script>/);
});
