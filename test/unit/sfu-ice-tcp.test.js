// ICE over TCP to an SFU (issue 40 part 3), its pure parts: Janus's and LiveKit's ICE-TCP configuration, the load-time
// check against what each SFU declares (a test-only SFU without iceTcp is refused), peerNetwork in an SFU call, which
// TCP pairs a firewall allows, and the SFU call's networkPath check (every connection ends at the SFU, not at the peer
// it carries). The real calls are test/e2e-sfu-ice-tcp.test.js.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { forbiddenBy, udpBlockedPeers, validatePeerNetwork } from '../../orchestrator/lib/network/nat-profile.js';
import { pathsSection } from '../../orchestrator/lib/result/ice-paths.js';
import { loadScenario } from '../../orchestrator/lib/scenario/scenario-file.js';
import { InputError } from '../../orchestrator/lib/system/errors.js';
import { runScenario } from '../../orchestrator/run/run.js';
import { janusConfig } from '../../orchestrator/sfu/janus/janus-config.js';
import { livekitConfig } from '../../orchestrator/sfu/livekit/config.js';
import { SFUS, checkSfuSupport } from '../../orchestrator/sfu/index.js';

const JANUS = {
  configDir: '/runs/r1/janus', libDir: '/usr/lib/x86_64-linux-gnu/janus', logFile: '/runs/r1/janus/janus.log',
  adminSecret: 'abcdef0123456789abcdef', apiSecret: '0123456789abcdef0123', httpPort: 40001, adminPort: 40002,
  rtpPortRange: { minPort: 20000, maxPort: 20199 }, iceAddress: '192.0.2.2',
};
/** @param {import('../../orchestrator/sfu/janus/janus-config.js').JanusConfig} config */
const mainFile = (config) => config.files.find((f) => f.path === 'janus.jcfg')?.content ?? '';

test('Janus offers TCP candidates only when asked, and then in ICE-Lite mode, which its ICE-TCP needs', () => {
  const plain = mainFile(janusConfig(JANUS));
  assert.doesNotMatch(plain, /ice_tcp|ice_lite/);
  const nat = /nat: \{\n([^}]*)\}/.exec(mainFile(janusConfig({ ...JANUS, iceTcp: true })))?.[1] ?? '';
  for (const line of ['ice_lite = true', 'ice_tcp = true', 'ice_enforce_list = "192.0.2.2"']) assert.ok(nat.includes(`\t${line}\n`), `nat section lacks ${line}:\n${nat}`);
});

test('LiveKit listens for ICE-TCP only when asked: otherwise tcp_port 0, since left out it would open its default 7881', () => {
  const options = { address: '10.1.0.2', httpPort: 7880, iceAddress: '10.1.0.2', udpPort: 7882, apiKey: 'k', apiSecret: 's' };
  const asked = JSON.parse(livekitConfig({ ...options, tcpPort: 40003 })).rtc;
  assert.deepEqual([asked.udp_port, asked.tcp_port, asked.node_ip], [7882, 40003, '10.1.0.2'], 'its TCP candidate carries the address the emulator steers');
  assert.equal(JSON.parse(livekitConfig({ ...options, tcpPort: null })).rtc.tcp_port, 0);
});

/** @type {import('../../orchestrator/sfu/contract.js').SfuBackend} a test-only SFU: the first one's declarations, without ICE-TCP */
const withoutIceTcp = { ...SFUS[0], name: 'sfu-no-tcp', capabilities: { ...SFUS[0].capabilities, iceTcp: false } };

test('sfu-udp-blocked loads through an SFU exactly when it declares iceTcp; one without it stops the run before anything starts, naming the field', async () => {
  const scenario = loadScenario('sfu-udp-blocked');
  assert.equal(scenario.topology, 'sfu');
  assert.deepEqual(udpBlockedPeers(scenario.peerNetwork), ['p2']);
  assert.equal(scenario.turn, null);
  const takers = SFUS.filter((sfu) => sfu.capabilities.iceTcp);
  assert.ok(takers.length >= 1, 'at least one SFU offers ICE-TCP');
  SFUS.push(withoutIceTcp);
  try {
    for (const sfu of SFUS) {
      if (sfu.capabilities.iceTcp) {
        assert.doesNotThrow(() => checkSfuSupport(sfu.name, scenario), sfu.name);
        continue;
      }
      assert.throws(() => checkSfuSupport(sfu.name, scenario), (error) => error instanceof InputError
        && error.message === `${scenario.file}: peerNetwork.p2.firewall: udp-blocked leaves p2 only ICE over TCP, and --sfu ${sfu.name} offers none `
          + `(capabilities.iceTcp); use ${takers.map((taker) => `--sfu ${taker.name}`).join(' or ')} or remove the firewall`, sfu.name);
    }
    // Refused by runScenario itself, before an emulator, SFU or browser starts (nothing to stop: no closer ran).
    await assert.rejects(runScenario({ scenario, sfu: withoutIceTcp.name }), (error) => error instanceof InputError && /offers none \(capabilities\.iceTcp\)/.test(error.message));
    // A mesh call asks nothing of the SFU; a NAT alone asks nothing more of one: it learns the peer's address from its checks.
    assert.doesNotThrow(() => checkSfuSupport(withoutIceTcp.name, { ...scenario, topology: 'mesh' }));
    for (const sfu of SFUS) assert.doesNotThrow(() => checkSfuSupport(sfu.name, { topology: 'sfu', peerNetwork: { p0: { nat: 'symmetric', firewall: null } } }));
  } finally {
    SFUS.splice(SFUS.indexOf(withoutIceTcp), 1);
  }
});

test('peerNetwork in an SFU call: NATs and udp-blocked without a TURN server; tcp-443-only refused naming the field', () => {
  const where = { file: 'x.json', peers: 3, topology: 'sfu', turn: null };
  assert.deepEqual(validatePeerNetwork({ p2: { firewall: 'udp-blocked' }, p0: { nat: 'symmetric' } }, where),
    { p2: { nat: null, firewall: 'udp-blocked' }, p0: { nat: 'symmetric', firewall: null } });
  assert.throws(() => validatePeerNetwork({ p1: { firewall: 'tcp-443-only' } }, where),
    (error) => error instanceof InputError && /^x\.json: peerNetwork\.p1\.firewall: tcp-443-only leaves p1 no path to the SFU/.test(error.message));
  // A mesh call still needs its TURN server over TCP or TLS.
  assert.throws(() => validatePeerNetwork({ p0: { firewall: 'udp-blocked' } }, { ...where, topology: 'mesh' }), /"turn": \{"transport": "tcp"\}/);
});

/** @param {string} localType @param {string} protocol @param {string|null} relayProtocol @param {string} remoteType */
const pair = (localType, protocol, relayProtocol, remoteType) => ({
  localType, localProtocol: protocol, relayProtocol, remoteType, remoteProtocol: protocol,
});
const udpBlocked = { nat: null, firewall: /** @type {const} */ ('udp-blocked') };
const closed = { nat: null, firewall: /** @type {const} */ ('tcp-443-only') };

test('a UDP-blocked end may run straight over TCP (ICE-TCP); only TCP 443 open, it may not; UDP stays forbidden', () => {
  for (const localType of ['host', 'prflx', 'srflx']) assert.equal(forbiddenBy(pair(localType, 'tcp', null, 'host'), udpBlocked, undefined), null, localType);
  assert.equal(forbiddenBy(pair('host', 'tcp', null, 'prflx'), undefined, udpBlocked), null, 'the far end without UDP, over TCP');
  assert.match(String(forbiddenBy(pair('host', 'udp', null, 'host'), udpBlocked, undefined)), /firewall \(udp-blocked\) leaves only TCP \(ICE-TCP\) or a relay/);
  assert.match(String(forbiddenBy(pair('prflx', 'udp', null, 'host'), undefined, udpBlocked)), /remote end's firewall \(udp-blocked\)/);
  assert.match(String(forbiddenBy(pair('host', 'tcp', null, 'host'), closed, undefined)), /firewall \(tcp-443-only\) leaves only a relay/);
  // A relay's own candidate speaks UDP to the far end: that is no TCP path for the far end's firewall.
  assert.match(String(forbiddenBy(pair('relay', 'tcp', 'tcp', 'host'), undefined, udpBlocked)), /remote end's firewall/);
});

test('in an SFU call every connection ends at the SFU: a subscription to a firewalled peer\'s stream is checked against the subscriber only', () => {
  const tcp = pair('prflx', 'tcp', null, 'host');
  const udp = pair('host', 'udp', null, 'host');
  const timeline = [[1, 'p2', 'sfu', tcp], [1, 'p2', 'p0', tcp], [1, 'p0', 'sfu', udp], [1, 'p0', 'p2', udp], [2, 'p0', 'p2', udp]]
    .map(([t, peer, remote, selectedPair]) => ({ t, peer, remote, selectedPair }));
  const profiles = { p2: udpBlocked };
  const sfu = pathsSection(timeline, null, profiles, { sfu: true });
  assert.deepEqual(sfu.checks.map((c) => [c.peer, c.remote, c.passed]), [['p2', 'sfu', true], ['p2', 'p0', true], ['p0', 'sfu', true], ['p0', 'p2', true]]);
  assert.match(sfu.checks[1].detail, /^1 of 1 s on a path the profiles allow: prflx\/tcp → host\/tcp$/);
  // Read as a mesh call, p0's UDP to "p2" would break p2's firewall.
  assert.equal(pathsSection(timeline, null, profiles).checks.find((c) => c.peer === 'p0' && c.remote === 'p2')?.passed, false);
  // p2 on UDP for a second fails in an SFU call too.
  const leaked = pathsSection([...timeline, { t: 2, peer: 'p2', remote: 'sfu', selectedPair: udp }], null, profiles, { sfu: true });
  assert.equal(leaked.checks.find((c) => c.peer === 'p2' && c.remote === 'sfu')?.passed, false);
});
