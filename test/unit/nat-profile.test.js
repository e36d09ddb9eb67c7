// Peer network profiles, their pure parts: the scenario's `peerNetwork` field (hostile input refused naming the field),
// the nftables rules in a peer's namespace, which selected pairs the profiles allow, the networkPath check and its report
// rows, the emulators' declared support, and the page's ICE servers.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { iceConfig } from '../../client-app/ice-config.js';
import { checkSupport } from '../../orchestrator/emulators/index.js';
import { requirementsOf } from '../../orchestrator/emulators/contract.js';
import { profileSetupCommands } from '../../orchestrator/emulators/netem/profiles.js';
import { planTopology } from '../../orchestrator/emulators/netem/topology.js';
import {
  FIREWALLS, NAT_TYPES, PRIVATE_ADDRESS, forbiddenBy, needsPort443, profileCommands, validatePeerNetwork,
} from '../../orchestrator/lib/network/nat-profile.js';
import { pathsSection } from '../../orchestrator/lib/result/ice-paths.js';
import { loadScenario } from '../../orchestrator/lib/scenario/scenario-file.js';
import { InputError } from '../../orchestrator/lib/system/errors.js';
import { renderIcePaths } from '../../orchestrator/report/render-paths.js';

const where = { file: 'x.json', peers: 2, topology: 'mesh', turn: { transport: 'tcp' } };

test('peerNetwork: a NAT type and/or a firewall per main-call peer; anything else is refused naming the field', () => {
  assert.deepEqual(validatePeerNetwork(undefined, where), {});
  for (const nat of NAT_TYPES) assert.deepEqual(validatePeerNetwork({ p1: { nat } }, where), { p1: { nat, firewall: null } });
  for (const firewall of FIREWALLS) assert.deepEqual(validatePeerNetwork({ p0: { firewall } }, where), { p0: { nat: null, firewall } });
  /** @type {Array<[unknown, typeof where, RegExp]>} */
  const refusals = [
    [{ p0: { nat: 'cone' } }, where, /x\.json: peerNetwork\.p0\.nat: "cone" is not a NAT type: use one of full-cone, port-restricted, symmetric/],
    [{ p0: { firewall: 'all' } }, where, /x\.json: peerNetwork\.p0\.firewall: "all" is not a firewall: use one of udp-blocked, tcp-443-only/],
    [{ p2: { nat: 'symmetric' } }, where, /x\.json: peerNetwork.*p2/],
    [{ p0: {} }, where, /x\.json: peerNetwork\.p0: give nat/],
    [{ p0: { nat: 'symmetric', mtu: 1200 } }, where, /x\.json: peerNetwork\.p0.*mtu/],
    [{ p0: 'symmetric' }, where, /x\.json: peerNetwork\.p0/],
    [['p0'], where, /x\.json: peerNetwork/],
    [{ p0: { firewall: 'tcp-443-only' } }, { ...where, topology: 'sfu', turn: null }, /x\.json: peerNetwork\.p0\.firewall: tcp-443-only leaves p0 no path to the SFU.*"udp-blocked"/],
    [{ p0: { firewall: 'udp-blocked' } }, { ...where, turn: null }, /x\.json: peerNetwork\.p0\.firewall: udp-blocked leaves p0 no UDP.*"turn": \{"transport": "tcp"\}/],
    [{ p0: { firewall: 'tcp-443-only' } }, { ...where, turn: { transport: 'udp' } }, /x\.json: peerNetwork\.p0\.firewall: tcp-443-only/],
  ];
  for (const [value, at, message] of refusals) {
    const refused = (/** @type {unknown} */ error) => error instanceof InputError && message.test(error.message);
    assert.throws(() => validatePeerNetwork(value, at), refused, JSON.stringify(value));
  }
});

test('the shipped profile scenarios load with their profiles; a scenario without one has none', () => {
  assert.deepEqual(loadScenario('udp-blocked').peerNetwork, { p0: { nat: null, firewall: 'udp-blocked' }, p1: { nat: null, firewall: 'udp-blocked' } });
  assert.deepEqual(loadScenario('symmetric-nat').peerNetwork.p1, { nat: 'symmetric', firewall: null });
  assert.equal(loadScenario('port-restricted-nat').turn, null);
  assert.equal(needsPort443(loadScenario('tcp-443-only').peerNetwork), true);
  assert.equal(needsPort443(loadScenario('udp-blocked').peerNetwork), false);
  assert.deepEqual(loadScenario('turn-udp').peerNetwork, {});
});

const peer = { netns: 'wtb-ab-p0', peerIf: 'eth0', address: '10.201.7.130', routerAddress: '10.201.7.129', controlAddress: '10.201.7.1' };
/** @param {string[][]} commands */
const lines = (commands) => commands.map((argv) => argv.join(' '));

test('NAT rules: the browser on the private address, translated to the namespace\'s; the public address dead otherwise', () => {
  const restricted = lines(profileCommands({ nat: 'port-restricted', firewall: null }, peer));
  for (const line of [
    'ip netns exec wtb-ab-p0 nft add table ip wtb_profile',
    `ip -n wtb-ab-p0 addr add ${PRIVATE_ADDRESS}/32 dev lan0`,
    `ip -n wtb-ab-p0 route replace default via 10.201.7.129 dev eth0 src ${PRIVATE_ADDRESS}`,
    `ip netns exec wtb-ab-p0 nft add rule ip wtb_profile postrouting oifname eth0 ip saddr ${PRIVATE_ADDRESS} snat to 10.201.7.130`,
    'ip netns exec wtb-ab-p0 nft add rule ip wtb_profile output ip saddr 10.201.7.130 drop',
    'ip netns exec wtb-ab-p0 nft add rule ip wtb_profile input ip daddr 10.201.7.130 drop',
  ]) assert.ok(restricted.includes(line), line);
  assert.ok(!restricted.some((line) => /prerouting|fully-random/.test(line)), 'no static mapping, ports kept');
  const symmetric = lines(profileCommands({ nat: 'symmetric', firewall: null }, peer));
  assert.ok(symmetric.some((line) => line.endsWith('snat to 10.201.7.130 fully-random')));
  const fullCone = lines(profileCommands({ nat: 'full-cone', firewall: null }, peer));
  assert.ok(fullCone.includes(`ip netns exec wtb-ab-p0 nft add rule ip wtb_profile prerouting iifname eth0 ip daddr 10.201.7.130 dnat to ${PRIVATE_ADDRESS}`));
  // The translation's chains are made before their rules; every rule is in the peer's namespace.
  const chainAt = (name) => fullCone.findIndex((line) => line.includes(`add chain ip wtb_profile ${name} `));
  for (const name of ['output', 'input', 'postrouting', 'prerouting']) {
    assert.ok(chainAt(name) >= 0 && chainAt(name) < fullCone.findIndex((line) => line.includes(`add rule ip wtb_profile ${name} `)), name);
  }
  assert.ok(fullCone.length > 0);
  assert.ok(fullCone.every((line) => line.startsWith('ip netns exec wtb-ab-p0 ') || line.startsWith('ip -n wtb-ab-p0 ')));
});

test('firewall rules: udp-blocked drops UDP both ways; tcp-443-only drops all but TCP to 443, its replies and the harness', () => {
  const open = lines(profileCommands({ nat: null, firewall: 'udp-blocked' }, peer));
  assert.ok(open.includes('ip netns exec wtb-ab-p0 nft add rule ip wtb_profile output meta l4proto udp drop'));
  assert.ok(open.includes('ip netns exec wtb-ab-p0 nft add rule ip wtb_profile input meta l4proto udp drop'));
  assert.ok(!open.some((line) => /lan0|snat/.test(line)), 'no NAT without one');
  assert.ok(open.some((line) => line.includes('chain ip wtb_profile output { type filter hook output priority 0 ; policy accept ; }')));
  const closed = lines(profileCommands({ nat: null, firewall: 'tcp-443-only' }, peer));
  for (const line of [
    'ip netns exec wtb-ab-p0 nft add chain ip wtb_profile output { type filter hook output priority 0 ; policy drop ; }',
    'ip netns exec wtb-ab-p0 nft add chain ip wtb_profile input { type filter hook input priority 0 ; policy drop ; }',
    'ip netns exec wtb-ab-p0 nft add rule ip wtb_profile output tcp dport 443 accept',
    'ip netns exec wtb-ab-p0 nft add rule ip wtb_profile output ip daddr 10.201.7.1 meta l4proto tcp accept',
    'ip netns exec wtb-ab-p0 nft add rule ip wtb_profile input ct state established,related accept',
  ]) assert.ok(closed.includes(line), line);
});

test('netem builds each profiled peer\'s rules in that peer\'s namespace, and refuses a peer it has none for', () => {
  const plan = planTopology({ runId: 'run-abc', peers: ['p0', 'p1', 'sfu'], links: ['p0.up', 'p1.up'], block: 7 });
  const commands = lines(profileSetupCommands(plan, { p1: { nat: 'symmetric', firewall: null } }));
  const p1 = plan.peers.find((p) => p.name === 'p1');
  assert.ok(commands.length > 0 && commands.every((line) => line.includes(` ${p1?.netns} `)));
  assert.ok(commands.some((line) => line.endsWith(`snat to ${p1?.address} fully-random`)));
  assert.deepEqual(profileSetupCommands(plan, {}), []);
  assert.throws(() => profileSetupCommands(plan, { p5: { nat: 'symmetric', firewall: null } }), /peerNetwork names p5/);
});

const types = (localType, relayProtocol, remoteType) => ({ localType, localProtocol: 'udp', relayProtocol, remoteType });
/** @typedef {import('../../orchestrator/lib/network/nat-profile.js').PeerNetwork} PeerNetwork */
/** @type {PeerNetwork} */
const udpBlocked = { nat: null, firewall: 'udp-blocked' };
/** @type {PeerNetwork} */
const symmetric = { nat: 'symmetric', firewall: null };
/** @type {PeerNetwork} */
const restricted = { nat: 'port-restricted', firewall: null };

test('which pairs the profiles allow: a firewalled end relays over TCP or TLS, a NATed end is never host, two symmetric NATs need a relay', () => {
  assert.equal(forbiddenBy(types('relay', 'tcp', 'relay'), udpBlocked, udpBlocked), null);
  assert.equal(forbiddenBy(types('relay', 'tls', 'host'), udpBlocked, undefined), null);
  assert.match(String(forbiddenBy(types('relay', 'udp', 'relay'), udpBlocked, udpBlocked)), /firewall \(udp-blocked\)/);
  assert.match(String(forbiddenBy(types('host', null, 'host'), udpBlocked, undefined)), /firewall/);
  assert.match(String(forbiddenBy(types('host', null, 'host'), undefined, udpBlocked)), /^the remote end's firewall/);
  assert.equal(forbiddenBy(types('host', null, 'relay'), undefined, { nat: null, firewall: 'tcp-443-only' }), null);
  assert.match(String(forbiddenBy(types('host', null, 'srflx'), restricted, restricted)), /this end is behind a port-restricted NAT/);
  assert.match(String(forbiddenBy(types('srflx', null, 'host'), restricted, restricted)), /remote end is behind/);
  assert.equal(forbiddenBy(types('srflx', null, 'prflx'), restricted, restricted), null);
  assert.match(String(forbiddenBy(types('srflx', null, 'prflx'), symmetric, symmetric)), /symmetric NATs: only a relay/);
  assert.equal(forbiddenBy(types('prflx', null, 'relay'), symmetric, symmetric), null);
  assert.equal(forbiddenBy(types('srflx', null, 'prflx'), symmetric, restricted), null);
  assert.equal(forbiddenBy(types('host', null, 'host'), undefined, undefined), null);
});

/** @param {Array<[number, string, string, object|null]>} rows */
const timelineOf = (rows) => rows.map(([t, peer, remote, selectedPair]) => ({ t, peer, remote, selectedPair }));
const relayOver = (relayProtocol) => ({ localType: 'relay', localProtocol: 'udp', relayProtocol, remoteType: 'relay', remoteProtocol: 'udp' });

test('networkPath replaces turnPath with profiles: passes only when every second is allowed; nothing sampled fails', () => {
  const profiles = { p0: udpBlocked, p1: udpBlocked };
  const good = timelineOf([[1, 'p0', 'p1', relayOver('tcp')], [2, 'p0', 'p1', relayOver('tcp')], [1, 'p1', 'p0', relayOver('tcp')]]);
  const section = pathsSection(good, { transport: 'tcp' }, profiles);
  assert.deepEqual(section.profiles, profiles);
  assert.deepEqual(section.checks.map((c) => [c.check, c.peer, c.remote, c.passed]), [['networkPath', 'p0', 'p1', true], ['networkPath', 'p1', 'p0', true]]);
  assert.match(section.checks[0].detail, /^2 of 2 s on a path the profiles allow: relay\/udp over TCP → relay\/udp$/);
  // A udp-blocked call that ran over UDP for a second fails.
  const leaked = pathsSection([...good, ...timelineOf([[3, 'p0', 'p1', relayOver('udp')]])], { transport: 'tcp' }, profiles);
  assert.equal(leaked.checks[0].passed, false);
  assert.match(leaked.checks[0].detail, /^1 of 3 s on a path the profiles forbid: relay\/udp over UDP → relay\/udp \(this end's firewall/);
  const silent = pathsSection(timelineOf([[1, 'p0', 'p1', null], [1, 'p1', 'p0', relayOver('tcp')]]), null, profiles);
  assert.deepEqual(silent.checks.map((c) => [c.peer, c.passed, c.detail.startsWith('no second')]), [['p0', false, true], ['p1', true, false]]);
  assert.equal(pathsSection(good, { transport: 'tcp' }).profiles, undefined, 'no profiles without peerNetwork');
  assert.equal(pathsSection(good, { transport: 'tcp' }).checks[0].check, 'turnPath');
});

test('the report\'s Network path section lists each peer\'s profile, escaped', () => {
  const result = { paths: { connections: [], checks: [], profiles: { p0: { nat: 'symmetric', firewall: null }, p1: { nat: '<b>', firewall: 'udp-blocked' }, p2: 'x' } } };
  const html = renderIcePaths(result);
  assert.match(html, /<h3>Peer networks<\/h3>/);
  assert.match(html, /<tr data-peer="p0"><th scope="row">p0<\/th><td>symmetric<\/td><td>—<\/td><\/tr>/);
  assert.match(html, /<td>&lt;b&gt;<\/td><td>udp-blocked<\/td>/);
  assert.doesNotMatch(html, /data-peer="p2"/);
  assert.doesNotMatch(renderIcePaths({ paths: { connections: [], checks: [] } }), /Peer networks/);
});

test('only netem puts peers behind NATs and firewalls: the others refuse it with exit 2 naming the field and netem', () => {
  const requirements = requirementsOf({ name: 'symmetric-nat', peerNetwork: { p0: symmetric, p1: symmetric } }, { p0: 'chromium', p1: 'chromium' }, []);
  assert.deepEqual(requirements.peerNetwork, ['p0', 'p1']);
  for (const name of ['relay', 'node-relay', 'dummynet']) {
    assert.throws(() => checkSupport(name, requirements), (error) => error instanceof InputError && error.exitCode === 2
      && new RegExp(`--emulator ${name}: scenario symmetric-nat has peerNetwork \\(a NAT or firewall for p0, p1\\), which .*; use --emulator netem$`).test(error.message), name);
  }
  assert.doesNotThrow(() => checkSupport('netem', requirements));
  assert.doesNotThrow(() => checkSupport('auto', requirements));
  assert.deepEqual(requirementsOf({ name: 'x' }, {}, []).peerNetwork, []);
});

test('the page: a STUN server lets ICE take any path (policy all) beside the TURN server; without it TURN means relay only', () => {
  const both = iceConfig(new URLSearchParams({ turn: 'turn:10.0.0.2:3478?transport=tcp', stun: 'stun:10.0.0.2:3478' }), 'u.p');
  assert.deepEqual(both, { iceServers: [{ urls: 'stun:10.0.0.2:3478' }, { urls: 'turn:10.0.0.2:3478?transport=tcp', username: 'u', credential: 'p' }], iceTransportPolicy: 'all' });
  assert.deepEqual(iceConfig(new URLSearchParams({ stun: 'stun:10.0.0.2:3478' }), undefined), { iceServers: [{ urls: 'stun:10.0.0.2:3478' }] });
  assert.equal(iceConfig(new URLSearchParams({ turn: 'turn:10.0.0.2:3478' }), 'u.p').iceTransportPolicy, 'relay');
});
