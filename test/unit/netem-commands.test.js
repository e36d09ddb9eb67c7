import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { unmetRequirements } from '../../orchestrator/emulators/netem/capabilities.js';
import {
  gilbertElliott, htbArgs, linkCommands, netemArgs, qdiscLayout, setupCommands, teardownCommands,
} from '../../orchestrator/emulators/netem/commands.js';
import { netemScript, netemTopologyScript } from '../../orchestrator/emulators/netem/script.js';
import { profileSetupCommands } from '../../orchestrator/emulators/netem/profiles.js';
import { loadScenario } from '../../orchestrator/lib/scenario/scenario-file.js';
import { shellJoin, shellQuote } from '../../orchestrator/emulators/script.js';
import { chooseAddressBlock, namespaceNodes, planTopology } from '../../orchestrator/emulators/netem/topology.js';
import { truthRow } from '../../orchestrator/emulators/netem/truth.js';
import { compileNetwork, withoutPeers } from '../../orchestrator/lib/network/schedule.js';
import { shortRunId } from '../../orchestrator/lib/system/run-id.js';
import { InputError } from '../../orchestrator/lib/system/errors.js';

/** @param {Partial<import('../../orchestrator/lib/network/link-model.js').LinkParams>} overrides */
const link = (overrides = {}) => ({
  rateKbps: null, queuePackets: 50, queueMs: null, oneWayDelayMs: 0, jitterMs: 0, lossPct: 0, lossBurst: null, trace: null, ...overrides,
});
const LINKS = ['p0.up', 'p0.down', 'p1.up', 'p1.down'];
const BOTTLENECK = ['bottleneck.fwd', 'bottleneck.back'];
const plan = planTopology({ runId: 'abc123', peers: ['p0', 'p1'], links: [...LINKS, ...BOTTLENECK], block: 7 });
/** Every link of plan, unconstrained. */
const unconstrained = () => Object.fromEntries([...LINKS, ...BOTTLENECK].map((name) => [name, link()]));
const stage = (name) => plan.stages.find((s) => s.link === name);
const CAPS = { netns: true, htb: true, netem: true, nftables: true, ifb: true, reasons: [] };
const NO_NETEM = { ...CAPS, netem: false, reasons: ['sch_netem kernel module missing'] };

test('shortRunId keeps short ids and hashes long ones to 8 distinct characters', () => {
  assert.equal(shortRunId('abc123'), 'abc123');
  assert.equal(shortRunId('AB-12'), 'ab12');
  const a = shortRunId('run-1a2b3c4d');
  assert.match(a, /^[a-z0-9]{8}$/);
  assert.equal(shortRunId('run-1a2b3c4d'), a);
  assert.notEqual(shortRunId('run-1a2b3c4e'), a);
});

test('chooseAddressBlock moves past blocks in use', () => {
  const first = chooseAddressBlock('abc123', new Set());
  assert.equal(chooseAddressBlock('abc123', new Set([first])), (first + 1) % 256);
  assert.throws(() => chooseAddressBlock('x', new Set(Array.from({ length: 256 }, (_, i) => i))), /cleanup/);
});

test('planTopology names carry the run id, fit IFNAMSIZ, and put peers in one /25, each side of the bottleneck in one /26', () => {
  assert.equal(plan.routerNetns, 'wtb-abc123-r');
  assert.deepEqual(plan.peers.map((p) => [p.netns, p.routerIf, p.side, p.address, p.routerAddress]), [
    ['wtb-abc123-p0', 'p0', 'left', '10.201.7.130', '10.201.7.129'],
    ['wtb-abc123-p1', 'p1', 'right', '10.201.7.194', '10.201.7.193'],
  ]);
  assert.deepEqual(plan.control, { rootIf: 'wtbabc123c', routerIf: 'ctl', rootAddress: '10.201.7.1', routerAddress: '10.201.7.2' });
  assert.equal(plan.peerRange, '10.201.7.128/25');
  assert.deepEqual(plan.sideRanges, { left: '10.201.7.128/26', right: '10.201.7.192/26' });
  const many = planTopology({ runId: 'x', peers: Array.from({ length: 32 }, (_, i) => `p${i}`), links: [], block: 7 });
  assert.deepEqual(many.peers.slice(0, 4).map((p) => p.address), ['10.201.7.130', '10.201.7.194', '10.201.7.134', '10.201.7.198']);
  assert.deepEqual(many.peers.slice(-2).map((p) => p.address), ['10.201.7.190', '10.201.7.254']);
  assert.throws(() => planTopology({ runId: 'x', peers: Array.from({ length: 17 }, (_, i) => `p${2 * i}`), links: [], block: 7 }), /netem: at most 16 nodes on the left of the bottleneck \(one \/26\), got 17: p0, p2, .*, p32; give the scenario fewer peers, or use --emulator relay$/);
  const longest = planTopology({ runId: 'run-1a2b3c4d', peers: ['p0'], links: [], block: 0 });
  assert.ok(longest.control.rootIf.length <= 15, longest.control.rootIf);
  assert.throws(() => planTopology({ runId: 'x', peers: ['p0'], links: ['p5.up'], block: 0 }), /p5\.up/);
});

test('each link direction is shaped at its own stage: up on the loop by source, down on the router port by destination', () => {
  assert.deepEqual(stage('p0.up'), {
    link: 'p0.up', device: 'hp0', classId: '1:1', netemHandle: '101:', fifoHandle: '201:',
    match: ['ip', 'src', '10.201.7.130/32', 'match', 'ip', 'dst', '10.201.7.128/25'],
    nftChain: 'p0_up', nftMatch: ['iifname', 'p0', 'ip', 'daddr', '10.201.7.128/25'],
  });
  assert.equal(stage('p1.down').device, 'p1');
  assert.deepEqual(stage('p1.down').match, ['ip', 'src', '10.201.7.128/25', 'match', 'ip', 'dst', '10.201.7.194/32']);
  // downlink and bottleneck loss act on the second pass, coming back from the loop
  assert.deepEqual(stage('p1.down').nftMatch, ['iifname', 'hp1', 'oifname', 'p1']);
  // the bottleneck's directions: two classes of one ifb, told apart by the sides of source and destination
  assert.deepEqual(stage('bottleneck.fwd'), {
    link: 'bottleneck.fwd', device: 'ifb-bn', classId: '1:5', netemHandle: '105:', fifoHandle: '205:',
    match: ['ip', 'src', '10.201.7.128/26', 'match', 'ip', 'dst', '10.201.7.192/26'],
    nftChain: 'bottleneck_fwd', nftMatch: ['iifname', 'hp1', 'ip', 'saddr', '10.201.7.128/26', 'ip', 'daddr', '10.201.7.192/26'],
  });
  assert.deepEqual(stage('bottleneck.back'), {
    link: 'bottleneck.back', device: 'ifb-bn', classId: '1:6', netemHandle: '106:', fifoHandle: '206:',
    match: ['ip', 'src', '10.201.7.192/26', 'match', 'ip', 'dst', '10.201.7.128/26'],
    nftChain: 'bottleneck_back', nftMatch: ['iifname', 'hp1', 'ip', 'saddr', '10.201.7.192/26', 'ip', 'daddr', '10.201.7.128/26'],
  });
  assert.throws(() => planTopology({ runId: 'x', peers: ['p0', 'p1'], links: ['bottleneck'], block: 0 }), /'bottleneck' is not <peer>\.up, <peer>\.down, bottleneck\.fwd or bottleneck\.back/);
});

test('a 4-peer mesh with a bottleneck: only traffic from the other side is redirected to the ifb, each direction to its class', () => {
  const compiled = compileNetwork({ file: 'x.json', durationS: 10, peers: 4, network: { bottleneck: { rateKbps: 2000 }, bottleneckBack: { rateKbps: 500 } } });
  const four = planTopology({ runId: 'abc123', peers: ['p0', 'p1', 'p2', 'p3'], links: Object.keys(compiled.links), block: 7 });
  const commands = setupCommands(four, compiled.links, { netem: false });
  const lines = commands.map(shellJoin);
  const tc = 'tc -n wtb-abc123-r';
  assert.deepEqual(lines.filter((line) => line.includes('ifb-bn')), [
    'ip -n wtb-abc123-r link add name ifb-bn type ifb',
    'ip -n wtb-abc123-r link set dev ifb-bn up',
    `${tc} qdisc add dev ifb-bn root handle 1: stab overhead -14 htb default 0`,
    // p0 and p2 (left) take what comes from the right, p1 and p3 (right) what comes from the left
    `${tc} filter add dev p0 egress protocol ip prio 1 u32 match ip src 10.201.7.192/26 match ip dst 10.201.7.128/26 action mirred egress redirect dev ifb-bn`,
    `${tc} filter add dev p1 egress protocol ip prio 1 u32 match ip src 10.201.7.128/26 match ip dst 10.201.7.192/26 action mirred egress redirect dev ifb-bn`,
    `${tc} filter add dev p2 egress protocol ip prio 1 u32 match ip src 10.201.7.192/26 match ip dst 10.201.7.128/26 action mirred egress redirect dev ifb-bn`,
    `${tc} filter add dev p3 egress protocol ip prio 1 u32 match ip src 10.201.7.128/26 match ip dst 10.201.7.192/26 action mirred egress redirect dev ifb-bn`,
    `${tc} class add dev ifb-bn parent 1: classid 1:9 htb rate 2000000bit ceil 2000000bit burst 1600 cburst 1600 quantum 1600`,
    `${tc} qdisc add dev ifb-bn parent 1:9 handle 209: bfifo limit 75000`,
    `${tc} filter add dev ifb-bn parent 1: protocol ip prio 1 u32 match ip src 10.201.7.128/26 match ip dst 10.201.7.192/26 flowid 1:9`,
    `${tc} class add dev ifb-bn parent 1: classid 1:a htb rate 500000bit ceil 500000bit burst 1600 cburst 1600 quantum 1600`,
    `${tc} qdisc add dev ifb-bn parent 1:a handle 20a: bfifo limit 75000`,
    `${tc} filter add dev ifb-bn parent 1: protocol ip prio 1 u32 match ip src 10.201.7.192/26 match ip dst 10.201.7.128/26 flowid 1:a`,
  ]);
  assert.ok(lines.includes('ip netns exec wtb-abc123-r nft add rule inet wtb_abc123 forward iifname hp1 ip saddr 10.201.7.192/26 ip daddr 10.201.7.128/26 jump bottleneck_back'));
  assert.deepEqual(qdiscLayout(commands)['ifb-bn'], ['bfifo 209: parent 1:9 limit 75000', 'bfifo 20a: parent 1:a limit 75000', 'htb 1: root']);
});

/** Whether an IPv4 address lies in a CIDR. @param {string} address @param {string} cidr */
const inCidr = (address, cidr) => {
  const [base, bits] = cidr.split('/');
  const toInt = (ip) => ip.split('.').reduce((value, octet) => value * 256 + Number(octet), 0);
  const size = 2 ** (32 - Number(bits));
  return Math.floor(toInt(address) / size) === Math.floor(toInt(base) / size);
};

test('an SFU call\'s network gives the SFU node a namespace right of the bottleneck; each route crosses exactly its links\' stages', () => {
  const compiled = compileNetwork({ file: 'x.json', durationS: 10, peers: 3, topology: 'sfu', network: { bottleneck: { rateKbps: 2000 } } });
  assert.deepEqual(Object.keys(compiled.routes).filter((route) => route.includes('sfu')).length, 6, 'compileNetwork built SFU routes');
  const nodes = namespaceNodes(['p0', 'p1', 'p2'], compiled.routes);
  assert.deepEqual(nodes, ['p0', 'p1', 'p2', 'sfu']);
  assert.deepEqual(namespaceNodes(['p0', 'p1'], compileNetwork({ file: 'x.json', durationS: 10, peers: 2, network: {} }).routes), ['p0', 'p1']);
  const sfuPlan = planTopology({ runId: 'abc123', peers: nodes, links: Object.keys(compiled.links), block: 7 });
  const sfu = sfuPlan.peers.find((peer) => peer.name === 'sfu');
  assert.deepEqual([sfu.netns, sfu.routerIf, sfu.side, sfu.address], ['wtb-abc123-sfu', 'sfu', 'right', '10.201.7.198']);
  const addressOf = (name) => sfuPlan.peers.find((peer) => peer.name === name).address;
  // A packet is classified by every stage whose u32 selector takes its source and destination; the bottleneck's
  // stages see only what the destination's router port redirects to the ifb (traffic from the other side).
  for (const [route, links] of Object.entries(compiled.routes)) {
    const [from, to] = route.split('->').map(addressOf);
    const crossed = sfuPlan.stages.filter((stage) => inCidr(from, stage.match[2]) && inCidr(to, stage.match[6])).map((stage) => stage.link);
    assert.deepEqual(crossed.sort(), [...links].sort(), route);
  }
  const lines = setupCommands(sfuPlan, compiled.links, { netem: false }).map(shellJoin);
  for (const line of [
    'ip netns add wtb-abc123-sfu',
    'ip -n wtb-abc123-r neigh replace 10.201.7.198 lladdr 02:77:74:62:00:02 dev hp0 nud permanent',
    'ip -n wtb-abc123-r rule add iif sfu to 10.201.7.128/25 lookup 100 priority 100',
    'tc -n wtb-abc123-r filter add dev sfu egress protocol ip prio 1 u32 match ip src 10.201.7.128/26 match ip dst 10.201.7.192/26 action mirred egress redirect dev ifb-bn',
  ]) assert.ok(lines.includes(line), `missing: ${line}`);
  // The SFU node has no links: nothing shapes its own port.
  assert.equal(qdiscLayout(setupCommands(sfuPlan, compiled.links, { netem: false })).sfu.join(), 'clsact ffff: parent ffff:fff1');
});

test('an SFU room\'s load participants get namespaces beside the SFU\'s; their routes cross their own links only', () => {
  const compiled = compileNetwork({
    file: 'x.json', durationS: 10, peers: 2, topology: 'sfu', loadPeers: ['load0', 'load1'],
    network: { link: { rateKbps: 1500 }, bottleneck: { rateKbps: 2000 } },
  });
  const nodes = namespaceNodes(['p0', 'p1'], compiled.routes);
  assert.deepEqual(nodes, ['p0', 'p1', 'sfu', 'load0', 'load1']);
  const plan = planTopology({ runId: 'abc123', peers: nodes, links: Object.keys(compiled.links), block: 7 });
  const load1 = plan.peers.find((peer) => peer.name === 'load1');
  assert.deepEqual([load1?.netns, load1?.routerIf, load1?.side], ['wtb-abc123-load1', 'load1', 'right']);
  const addressOf = (name) => plan.peers.find((peer) => peer.name === name)?.address;
  for (const [route, links] of Object.entries(compiled.routes)) {
    const [from, to] = route.split('->').map(addressOf);
    const crossed = plan.stages.filter((stage) => inCidr(from, stage.match[2]) && inCidr(to, stage.match[6])).map((stage) => stage.link);
    assert.deepEqual(crossed.sort(), [...links].sort(), route);
  }
  assert.deepEqual(compiled.routes['load1->sfu'], ['load1.up'], 'no bottleneck between a load participant and the SFU');
  // The right side's /26 holds 16 nodes: the SFU, p1 and 14 load participants at most; more is refused, naming the way out.
  const loadPeers = Array.from({ length: 15 }, (_, i) => `load${i}`);
  const crowded = compileNetwork({ file: 'x.json', durationS: 10, peers: 2, topology: 'sfu', loadPeers, network: {} });
  const crowdedNodes = namespaceNodes(['p0', 'p1'], crowded.routes);
  assert.throws(() => planTopology({ runId: 'abc123', peers: crowdedNodes, links: Object.keys(crowded.links), block: 7 }), (error) => error instanceof InputError
    && /^netem: at most 16 nodes on the right of the bottleneck \(one \/26\), got 17: p1, sfu, load0, .*load14 .*or use --emulator relay$/.test(error.message));
  // Without their routes (their links left out of the run: withoutPeers), no namespace of theirs.
  assert.deepEqual(namespaceNodes(['p0', 'p1'], withoutPeers(compiled, ['load0', 'load1']).routes), ['p0', 'p1', 'sfu']);
});

test('htbArgs: rate and ceil in bit/s, burst at least one frame, unlimited as 10 Gbit/s', () => {
  assert.deepEqual(htbArgs(250), ['htb', 'rate', '250000bit', 'ceil', '250000bit', 'burst', '1600', 'cburst', '1600', 'quantum', '1600']);
  assert.deepEqual(htbArgs(20_000).slice(5, 9), ['burst', '2500', 'cburst', '2500']);
  assert.equal(htbArgs(null)[2], '10000000000bit');
  assert.equal(htbArgs(1500.5)[2], '1500500bit');
});

test('netemArgs restates delay, jitter and loss, with the order-keeping rate', () => {
  assert.deepEqual(netemArgs(link({ oneWayDelayMs: 100, jitterMs: 10, lossPct: 5 }), 'p0.up'),
    ['netem', 'limit', '100000', 'delay', '100ms', '10ms', 'rate', '1gbit', 'loss', 'random', '5%']);
  assert.deepEqual(netemArgs(link(), 'p0.up').slice(3), ['delay', '0ms', '0ms', 'rate', '1gbit', 'loss', 'random', '0%']);
  // 10 % loss in bursts of 4: r = 1/4, p = 0.1 * 0.25 / 0.9
  assert.deepEqual(netemArgs(link({ lossPct: 10, lossBurst: 4 }), 'p0.up').slice(-5), ['gemodel', '2.7778%', '25%', '100%', '0%']);
});

test('gilbertElliott rejects a loss rate its chain cannot reach', () => {
  assert.deepEqual(gilbertElliott(50, 1, 'x'), { pPct: 100, rPct: 100 });
  assert.throws(() => gilbertElliott(60, 1, 'network.link'), /network\.link: lossPct 60 with lossBurst 1.*at least 1\.5/);
});

test('linkCommands without netem: htb class, bfifo in bytes recomputed at the new rate, one nft transaction for loss', () => {
  const commands = linkCommands(plan, stage('p0.up'), link({ rateKbps: 2000, queueMs: 100, lossPct: 2.5 }), { netem: false, verb: 'change' }).map(shellJoin);
  assert.deepEqual(commands, [
    'tc -n wtb-abc123-r class change dev hp0 parent 1: classid 1:1 htb rate 2000000bit ceil 2000000bit burst 1600 cburst 1600 quantum 1600',
    'tc -n wtb-abc123-r qdisc change dev hp0 parent 1:1 handle 201: bfifo limit 25000',
    "ip netns exec wtb-abc123-r nft flush chain inet wtb_abc123 p0_up ';' add rule inet wtb_abc123 p0_up numgen random mod 10000 '<' 250 counter name p0_up drop",
  ]);
  const slower = linkCommands(plan, stage('p0.up'), link({ rateKbps: 500, queueMs: 100 }), { netem: false, verb: 'change' });
  assert.deepEqual(slower[1].slice(-2), ['limit', '6250']);
  const unlimited = linkCommands(plan, stage('p0.up'), link(), { netem: false, verb: 'add' });
  assert.deepEqual(unlimited[1].slice(-2), ['limit', '4000000']);
});

test('linkCommands with netem: netem leaf carries delay/loss, bfifo hangs below it', () => {
  const commands = linkCommands(plan, stage('p1.down'), link({ rateKbps: 1000, oneWayDelayMs: 50 }), { netem: true, verb: 'add' }).map(shellJoin);
  assert.equal(commands.length, 3);
  assert.equal(commands[1], 'tc -n wtb-abc123-r qdisc add dev p1 parent 1:4 handle 104: netem limit 100000 delay 50ms 0ms rate 1gbit loss random 0%');
  assert.equal(commands[2], 'tc -n wtb-abc123-r qdisc add dev p1 parent 104:1 handle 204: bfifo limit 75000');
});

test('setupCommands builds namespaces before links, routes peer traffic through the loop and the root to the peers', () => {
  const lines = setupCommands(plan, unconstrained(), { netem: false }).map(shellJoin);
  const index = (line) => {
    const i = lines.indexOf(line);
    assert.ok(i >= 0, `missing: ${line}`);
    return i;
  };
  assert.equal(lines[0], 'ip netns add wtb-abc123-r');
  assert.ok(index('ip netns add wtb-abc123-p1') < index('ip link add name eth0 netns wtb-abc123-p1 type veth peer name p1 netns wtb-abc123-r'));
  index('ip netns exec wtb-abc123-r ethtool -K p0 tso off gso off gro off');
  index('ip route add 10.201.7.128/25 via 10.201.7.2 dev wtbabc123c');
  index('ip -n wtb-abc123-p0 route add default via 10.201.7.129');
  index('tc -n wtb-abc123-r qdisc add dev ifb-bn root handle 1: stab overhead -14 htb default 0');
  index('ip -n wtb-abc123-r link add name hp0 address 02:77:74:62:00:01 type veth peer name hp1 address 02:77:74:62:00:02');
  index('ip -n wtb-abc123-r route add 10.201.7.128/25 dev hp0 table 100');
  index('ip -n wtb-abc123-r neigh replace 10.201.7.194 lladdr 02:77:74:62:00:02 dev hp0 nud permanent');
  index('ip -n wtb-abc123-r rule add iif p1 to 10.201.7.128/25 lookup 100 priority 100');
  index('ip netns exec wtb-abc123-r nft add rule inet wtb_abc123 forward iifname p0 ip daddr 10.201.7.128/25 jump p0_up');
  index('tc -n wtb-abc123-r filter add dev p1 egress protocol ip prio 1 u32 match ip src 10.201.7.128/26 match ip dst 10.201.7.192/26 action mirred egress redirect dev ifb-bn');
  assert.ok(index('ip netns exec wtb-abc123-r nft add chain inet wtb_abc123 p1_down')
    < index("ip netns exec wtb-abc123-r nft flush chain inet wtb_abc123 p1_down ';' add rule inet wtb_abc123 p1_down numgen random mod 10000 '<' 0 counter name p1_down drop"));
  index('tc -n wtb-abc123-r filter add dev p1 parent 1: protocol ip prio 1 u32 match ip src 10.201.7.128/25 match ip dst 10.201.7.194/32 flowid 1:4');
  // Interface names are limited to 15 characters (IFNAMSIZ).
  for (const line of lines) for (const [, name] of line.matchAll(/\b(?:name|dev) (\S+)/g)) assert.ok(name.length <= 15, name);

  const withNetem = setupCommands(plan, unconstrained(), { netem: true }).map(shellJoin);
  assert.ok(withNetem.length > 0, 'withNetem: nothing to check');
  assert.ok(withNetem.every((line) => !line.includes(' nft ')), 'no nftables when netem does the loss');
  const noBottleneck = planTopology({ runId: 'abc123', peers: ['p0', 'p1'], links: LINKS, block: 7 });
  const plain = setupCommands(noBottleneck, Object.fromEntries(LINKS.map((name) => [name, link()])), { netem: true }).map(shellJoin);
  assert.ok(plain.length > 0, 'plain: nothing to check');
  assert.ok(plain.every((line) => !line.includes('ifb') && !line.includes('clsact')));
});

test('qdiscLayout: the qdiscs each capability set builds, as the emulator passes it (netem: caps.netem)', () => {
  const links = { ...unconstrained(), 'p0.up': link({ rateKbps: 1000 }) };
  const unlimited = 'limit 4000000';
  // With sch_netem: htb class → netem (delay, loss) → bfifo (the queue), on every stage.
  assert.deepEqual(qdiscLayout(setupCommands(plan, links, { netem: CAPS.netem })), {
    hp0: ['bfifo 201: parent 101:1 limit 75000', `bfifo 203: parent 103:1 ${unlimited}`, 'htb 1: root', 'netem 101: parent 1:1', 'netem 103: parent 1:3'],
    p0: [`bfifo 202: parent 102:1 ${unlimited}`, 'clsact ffff: parent ffff:fff1', 'htb 1: root', 'netem 102: parent 1:2'],
    p1: [`bfifo 204: parent 104:1 ${unlimited}`, 'clsact ffff: parent ffff:fff1', 'htb 1: root', 'netem 104: parent 1:4'],
    'ifb-bn': [`bfifo 205: parent 105:1 ${unlimited}`, `bfifo 206: parent 106:1 ${unlimited}`, 'htb 1: root', 'netem 105: parent 1:5', 'netem 106: parent 1:6'],
  });
  // Without it: the bfifo hangs straight off the htb class; nftables drops instead (no qdisc).
  const withoutNetem = {
    hp0: ['bfifo 201: parent 1:1 limit 75000', `bfifo 203: parent 1:3 ${unlimited}`, 'htb 1: root'],
    p0: [`bfifo 202: parent 1:2 ${unlimited}`, 'clsact ffff: parent ffff:fff1', 'htb 1: root'],
    p1: [`bfifo 204: parent 1:4 ${unlimited}`, 'clsact ffff: parent ffff:fff1', 'htb 1: root'],
    'ifb-bn': [`bfifo 205: parent 1:5 ${unlimited}`, `bfifo 206: parent 1:6 ${unlimited}`, 'htb 1: root'],
  };
  const setup = setupCommands(plan, links, { netem: NO_NETEM.netem });
  assert.deepEqual(qdiscLayout(setup), withoutNetem);
  // A change restates the queue; its new limit replaces the old line.
  const changed = linkCommands(plan, stage('p0.up'), link({ rateKbps: 2000, queueMs: 100 }), { netem: false, verb: 'change' });
  assert.deepEqual(qdiscLayout([...setup, ...changed]).hp0, ['bfifo 201: parent 1:1 limit 25000', `bfifo 203: parent 1:3 ${unlimited}`, 'htb 1: root']);
  // No bottleneck: no ifb, no clsact redirect.
  const plain = planTopology({ runId: 'abc123', peers: ['p0', 'p1'], links: LINKS, block: 7 });
  assert.deepEqual(qdiscLayout(setupCommands(plain, Object.fromEntries(LINKS.map((name) => [name, link()])), { netem: true })).p0,
    [`bfifo 202: parent 102:1 ${unlimited}`, 'htb 1: root', 'netem 102: parent 1:2']);
});

test('teardownCommands removes only what exists, namespaces last', () => {
  const everything = { netns: new Set(['wtb-abc123-r', 'wtb-abc123-p0', 'wtb-abc123-p1', 'wtb-other-r']), rootLinks: new Set(['lo', 'wtbabc123c']), nftTables: new Set(['wtb_abc123']) };
  assert.deepEqual(teardownCommands(plan, everything).map(shellJoin), [
    'ip netns exec wtb-abc123-r nft delete table inet wtb_abc123',
    'ip link del dev wtbabc123c',
    'ip netns del wtb-abc123-p0',
    'ip netns del wtb-abc123-p1',
    'ip netns del wtb-abc123-r',
  ]);
  assert.deepEqual(teardownCommands(plan, { netns: new Set(['wtb-abc123-p1']), rootLinks: new Set(), nftTables: new Set() }).map(shellJoin), ['ip netns del wtb-abc123-p1']);
});

test('unmetRequirements: delay needs sch_netem, loss alone runs on nftables', () => {
  const scenario = (network) => compileNetwork({ file: 'x.json', durationS: 100, network });
  assert.deepEqual(unmetRequirements(scenario({ link: { lossPct: 5, rateKbps: 1000 } }), NO_NETEM), []);
  const [delay] = unmetRequirements(scenario({ schedule: [{ at: 10, set: { oneWayDelayMs: 100 } }] }), NO_NETEM);
  assert.match(delay, /delay\/jitter on p0\.up, p1\.up needs the sch_netem kernel module.*modprobe sch_netem.*--emulator relay/);
  assert.match(unmetRequirements(scenario({ link: { lossPct: 5, lossBurst: 3 } }), NO_NETEM)[0], /lossBurst.*Gilbert-Elliott/);
  assert.deepEqual(unmetRequirements(scenario({ link: { oneWayDelayMs: 100, lossBurst: 3, lossPct: 5 } }), CAPS), []);
  assert.match(unmetRequirements(scenario({}), { ...NO_NETEM, nftables: false })[0], /nftables/);
  assert.match(unmetRequirements(scenario({}), { ...CAPS, netns: false, reasons: ['needs root'] })[0], /network namespaces: needs root/);
  // ifb is only for the bottleneck stage
  assert.deepEqual(unmetRequirements(scenario({}), { ...CAPS, ifb: false }), []);
  assert.match(unmetRequirements(scenario({ bottleneck: { rateKbps: 2000 } }), { ...CAPS, ifb: false, reasons: ['no ifb'] })[0], /ifb\/clsact: no ifb/);
});

test('truthRow: loss and queue drops entered the link, backlog changes count on the way in', () => {
  const zero = { packetsOut: 0, bytesOut: 0, dropsQueue: 0, dropsLoss: 0, lossBytes: 0, backlogPackets: 0, backlogBytes: 0 };
  const now = {
    packetsOut: 100, bytesOut: 100_000, dropsQueue: 5, dropsLoss: 10, lossBytes: 10_000, backlogPackets: 3, backlogBytes: 3000,
  };
  const row = truthRow(zero, now);
  assert.deepEqual(
    [row.packetsIn, row.packetsOut, row.bytesIn, row.bytesOut, row.dropsQueue, row.dropsLoss],
    [118, 100, 118_000, 100_000, 5, 10],
  );
  const later = truthRow(now, { ...now, packetsOut: 150, bytesOut: 150_000, backlogPackets: 0, backlogBytes: 0 });
  assert.deepEqual([later.packetsIn, later.packetsOut, later.bytesIn, later.dropsLoss], [47, 50, 47_000, 0]);
  assert.equal(row.queueDelayMsP50, null);
});

test('shellQuote leaves plain words and quotes the rest', () => {
  assert.equal(shellQuote('10.201.7.128/25'), '10.201.7.128/25');
  assert.equal(shellQuote('<'), "'<'");
  assert.equal(shellQuote("it's"), "'it'\\''s'");
  assert.equal(shellJoin(['nft', 'add', 'chain', 'inet', 't', 'c', '{', 'type', 'filter', ';', '}']), "nft add chain inet t c '{' type filter ';' '}'");
});

test('netem-scripts/setup-namespaces.sh runs export-script --topology-only: exactly the emulator\'s set-up commands', () => {
  const script = fileURLToPath(new URL('../../netem-scripts/setup-namespaces.sh', import.meta.url));
  for (const [peers, netem, bottleneck] of /** @type {Array<[number, boolean, boolean]>} */ ([[2, false, true], [3, true, false]])) {
    const compiled = compileNetwork({ file: 'x.json', durationS: 10, peers, network: bottleneck ? { bottleneck: {} } : {} });
    const names = Array.from({ length: peers }, (_, i) => `p${i}`);
    const expected = setupCommands(planTopology({ runId: 'abc123', peers: names, links: Object.keys(compiled.links), block: 7 }), compiled.links, { netem }).map(shellJoin);
    const printed = execFileSync('sh', [script, 'abc123', String(peers), '7'], {
      env: { ...process.env, DRY_RUN: '1', NETEM: netem ? '1' : '0', BOTTLENECK: bottleneck ? '1' : '0', NODE: process.execPath },
    }).toString();
    assert.equal(printed, netemTopologyScript({ runId: 'abc123', peers, block: 7, bottleneck, netem }), `${peers} peers, netem ${netem}, bottleneck ${bottleneck}`);
    const lines = printed.split('\n');
    assert.deepEqual(lines.slice(lines.indexOf('set -eu') + 2, lines.findIndex((line) => line.startsWith('echo ')) - 1), expected);
  }
});

test('export-script of a profiled scenario carries the run\'s NAT and firewall rules after the topology, with the middle namespace', () => {
  const scenario = loadScenario('tcp-443-only', { warmupS: 0 });
  const peers = ['p0', 'p1'];
  const nodes = namespaceNodes(peers, scenario.compiled.routes, true);
  const plan = planTopology({ runId: 'abc123', peers: nodes, links: Object.keys(scenario.compiled.links), block: 7 });
  // What the emulator runs at set-up (emulators/netem/index.js), in the same order.
  const expected = [...setupCommands(plan, scenario.compiled.links, { netem: true }), ...profileSetupCommands(plan, scenario.peerNetwork)]
    .map(shellJoin);
  const script = netemScript(scenario.compiled, {
    scenario: scenario.name, durationS: 10, peers, runId: 'abc123', block: 7, peerNetwork: scenario.peerNetwork, middleNode: true,
  });
  const lines = script.split('\n');
  const start = lines.indexOf(expected[0]);
  assert.ok(start > 0, script);
  assert.deepEqual(lines.slice(start, start + expected.length), expected);
  assert.ok(expected.some((line) => / nft add chain ip wtb_profile output .* policy drop /.test(line)), 'the firewall\'s drop policy is among them');
  assert.ok(lines.includes(`  ip netns del ${plan.peers.find((p) => p.name === 'sfu')?.netns} 2>/dev/null || true`), 'the middle namespace torn down');
  assert.match(script, /# Network profiles .*: p0 port-restricted NAT \+ tcp-443-only\./);
  assert.match(script, /# No TURN server is started: .*ip netns exec wtb-abc123-sfu turnserver/);
  // Without profiles the script is as before: no middle namespace, no rules.
  assert.doesNotMatch(netemScript(loadScenario('loss-5', { warmupS: 0 }).compiled, { scenario: 'loss-5', durationS: 10, peers, runId: 'abc123', block: 7 }), /wtb_profile|-sfu/);
});

test('export-script refuses a profiled scenario on a backend without network profiles, naming the field and the backend to use', () => {
  const cli = fileURLToPath(new URL('../../orchestrator/bin/cli.js', import.meta.url));
  const run = spawnSync(process.execPath, [cli, 'export-script', 'symmetric-nat', '--emulator', 'dummynet'], { encoding: 'utf8' });
  assert.equal(run.status, 2, run.stderr);
  assert.match(run.stderr, /export-script symmetric-nat --emulator dummynet: the scenario's peerNetwork \(NAT and firewall rules\) needs --emulator netem/);
  assert.equal(run.stdout, '');
});
