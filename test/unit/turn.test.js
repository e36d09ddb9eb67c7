// A run's TURN server, its pure parts: the scenario's `turn` field, coturn's configuration, the page's URL and fragment,
// the emulators' declared support, the selected candidate pair from getStats and the turnPath check on it.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { snapshotFromStats, intervalMetrics } from '../../client-app/stats.js';
import { checkSupport } from '../../orchestrator/emulators/index.js';
import { InputError } from '../../orchestrator/lib/system/errors.js';
import { requirementsOf } from '../../orchestrator/emulators/contract.js';
import { namespaceNodes } from '../../orchestrator/emulators/netem/topology.js';
import { pathsSection } from '../../orchestrator/lib/result/ice-paths.js';
import { loadScenario } from '../../orchestrator/lib/scenario/scenario-file.js';
import { TURN_TRANSPORTS, coturnConfig, turnUrl, validateTurn } from '../../orchestrator/lib/network/turn.js';
import { pageUrl } from '../../orchestrator/lib/system/peer-secrets.js';
import { renderIcePaths } from '../../orchestrator/report/render-paths.js';

const where = { file: 'x.json', topology: 'mesh' };

test('turn: a transport of udp, tcp or tls in a mesh call; anything else is refused naming the field', () => {
  assert.equal(validateTurn(undefined, where), null);
  for (const transport of TURN_TRANSPORTS) assert.deepEqual(validateTurn({ transport }, where), { transport });
  assert.throws(() => validateTurn({ transport: 'dtls' }, where), /x\.json: turn\.transport: "dtls" is not a TURN transport: use one of udp, tcp, tls/);
  assert.throws(() => validateTurn({ transport: 'udp', port: 3478 }, where), /x\.json: turn.*port/);
  assert.throws(() => validateTurn('udp', where), /x\.json: turn/);
  assert.throws(() => validateTurn({ transport: 'udp' }, { file: 'x.json', topology: 'sfu' }), /x\.json: turn: a TURN server needs topology mesh/);
});

test('the shipped turn scenarios load with their transport', () => {
  for (const transport of TURN_TRANSPORTS) assert.deepEqual(loadScenario(`turn-${transport}`).turn, { transport });
  assert.equal(loadScenario('latency-500').turn, null);
});

test('coturn\'s configuration: one address, long-term credentials, the run\'s certificate, no CLI; the page\'s URL per transport', () => {
  const password = randomBytes(24).toString('hex');
  const config = coturnConfig({
    address: '10.201.7.198', port: 40000, tlsPort: 40001, minRelayPort: 49160, maxRelayPort: 49400, username: 'wtbabc', password,
    realm: 'r', certFile: '/run/turn/cert.pem', keyFile: '/run/turn/key.pem', pidFile: '/run/turn/pid', dbFile: '/run/turn/db',
  }).split('\n');
  for (const line of ['listening-ip=10.201.7.198', 'relay-ip=10.201.7.198', 'listening-port=40000', 'tls-listening-port=40001',
    'lt-cred-mech', `user=wtbabc:${password}`, 'cert=/run/turn/cert.pem', 'pkey=/run/turn/key.pem', 'userdb=/run/turn/db', 'no-cli']) {
    assert.ok(config.includes(line), line);
  }
  const listeners = { address: '10.201.7.198', port: 40000, tlsPort: 40001 };
  assert.equal(turnUrl('udp', listeners), 'turn:10.201.7.198:40000?transport=udp');
  assert.equal(turnUrl('tcp', listeners), 'turn:10.201.7.198:40000?transport=tcp');
  assert.equal(turnUrl('tls', listeners), 'turns:10.201.7.198:40001?transport=tcp');
});

test('the TURN credential travels third in the fragment, never in the query; without an SFU token its place stays empty', () => {
  const url = new URL(pageUrl('http://10.0.0.1:5000/', { peer: 'p0', turn: 'turns:10.0.0.2:5349?transport=tcp' }, 'S3cr3t', undefined, 'wtbabc.p4ss'));
  assert.equal(url.hash, '#S3cr3t~~wtbabc.p4ss');
  assert.ok(!url.search.includes('p4ss'));
  assert.deepEqual(url.hash.slice(1).split('~'), ['S3cr3t', '', 'wtbabc.p4ss'], 'what client-app/app.js reads');
  assert.equal(new URL(pageUrl('http://10.0.0.1:5000/', {}, 'S3cr3t', 'tok')).hash, '#S3cr3t~tok');
  assert.equal(new URL(pageUrl('http://10.0.0.1:5000/', {}, 'S3cr3t')).hash, '#S3cr3t');
});

test('only netem carries a TURN server: the others refuse it with exit 2 naming netem; netem gives it a middle namespace', () => {
  const requirements = requirementsOf({ name: 'turn-udp', turn: { transport: 'udp' } }, { p0: 'chromium', p1: 'chromium' }, []);
  assert.equal(requirements.turn, 'udp');
  assert.throws(() => checkSupport('relay', requirements), (error) => error instanceof InputError && error.exitCode === 2
    && /--emulator relay: scenario turn-udp has turn \(a TURN server over udp\), which carries only .* bypass its links, unshaped; use --emulator netem$/.test(error.message));
  assert.doesNotThrow(() => checkSupport('netem', requirements));
  // `auto` carries it by netem's declaration; chooseBackend then takes netem where it runs.
  assert.doesNotThrow(() => checkSupport('auto', requirements));
  assert.equal(requirementsOf({ name: 'x' }, {}, []).turn, null);
  assert.deepEqual(namespaceNodes(['p0', 'p1'], { 'p0->p1': [] }, true), ['p0', 'p1', 'sfu']);
  assert.deepEqual(namespaceNodes(['p0', 'p1'], { 'p0->p1': [] }), ['p0', 'p1']);
});

/** A getStats report whose selected pair has these candidates. @param {object} local @param {object} remote @param {number} ts */
const statsWith = (local, remote, ts) => [
  { id: 'T', type: 'transport', timestamp: ts, selectedCandidatePairId: 'CP' },
  { id: 'CP', type: 'candidate-pair', timestamp: ts, localCandidateId: 'L', remoteCandidateId: 'R', nominated: true, state: 'succeeded' },
  { id: 'CP2', type: 'candidate-pair', timestamp: ts, localCandidateId: 'L2', remoteCandidateId: 'R', nominated: false, state: 'failed' },
  { id: 'L', type: 'local-candidate', timestamp: ts, ...local },
  { id: 'L2', type: 'local-candidate', timestamp: ts, candidateType: 'host', protocol: 'udp' },
  { id: 'R', type: 'remote-candidate', timestamp: ts, ...remote },
];

test('the page reports the transport\'s selected pair: both candidate types and protocols, and the relay protocol of a relay', () => {
  const relayTls = { candidateType: 'relay', protocol: 'udp', relayProtocol: 'tls', address: '10.201.7.2' };
  const peerRelay = { candidateType: 'relay', protocol: 'udp', ip: '10.201.7.194' };
  const [before, now] = [1000, 2000].map((ts) => snapshotFromStats(statsWith(relayTls, peerRelay, ts)));
  const metrics = intervalMetrics(before, now);
  assert.deepEqual(metrics.selectedPair, {
    localType: 'relay', localProtocol: 'udp', relayProtocol: 'tls', remoteType: 'relay', remoteProtocol: 'udp', localAddress: '10.201.7.2', remoteAddress: '10.201.7.194',
  });
  const host = snapshotFromStats(statsWith({ candidateType: 'host', protocol: 'udp' }, { candidateType: 'host', protocol: 'udp' }, 1000));
  assert.deepEqual(host.selectedPair, {
    localType: 'host', localProtocol: 'udp', relayProtocol: null, remoteType: 'host', remoteProtocol: 'udp', localAddress: null, remoteAddress: null,
  });
  assert.equal(snapshotFromStats([]).selectedPair, null, 'no pair before ICE connects');
});

const pair = (localType, relayProtocol) => ({ localType, localProtocol: 'udp', relayProtocol, remoteType: localType, remoteProtocol: 'udp' });
/** @param {Array<[number, string, string, object|null]>} rows t, peer, remote, selectedPair */
const timelineOf = (rows) => rows.map(([t, peer, remote, selectedPair]) => ({ t, peer, remote, selectedPair }));

test('paths: each connection\'s pairs with their seconds; turnPath passes only when every second was relayed over the transport', () => {
  const relayed = timelineOf([[1, 'p0', 'p1', null], [2, 'p0', 'p1', pair('relay', 'tls')], [3, 'p0', 'p1', pair('relay', 'tls')],
    [2, 'p1', 'p0', pair('relay', 'tls')], [3, 'p1', 'p0', pair('relay', 'tls')]]);
  const ok = pathsSection(relayed, { transport: 'tls' });
  assert.deepEqual(ok.connections[0], { peer: 'p0', remote: 'p1', paths: [{ ...pair('relay', 'tls'), label: 'relay/udp over TLS → relay/udp', seconds: 2, firstT: 2, lastT: 3 }] });
  assert.deepEqual(ok.checks.map((c) => [c.peer, c.passed, c.detail]), [['p0', true, '2 of 2 s relayed over tls'], ['p1', true, '2 of 2 s relayed over tls']]);
  assert.deepEqual(pathsSection(relayed, null).checks, [], 'no check without turn');

  // A TURN/TLS call that fell back to TURN/UDP, or to a direct path, fails.
  const fellBack = timelineOf([[2, 'p0', 'p1', pair('relay', 'tls')], [3, 'p0', 'p1', pair('relay', 'udp')], [2, 'p1', 'p0', pair('host', null)]]);
  const failed = pathsSection(fellBack, { transport: 'tls' }).checks;
  assert.deepEqual(failed.map((c) => c.passed), [false, false]);
  assert.match(failed[0].detail, /^1 of 2 s not relayed over tls: relay\/udp over UDP → relay\/udp$/);
  assert.match(failed[1].detail, /host\/udp → host\/udp/);
  // A connection that never reported a pair fails: nothing checked is not a pass.
  assert.deepEqual(pathsSection(timelineOf([[1, 'p0', 'p1', null]]), { transport: 'udp' }).checks.map((c) => [c.passed, c.detail]),
    [[false, 'no second with a selected candidate pair']]);
});

test('the report\'s Network path section shows each path and check, escaped; nothing for a result without paths', () => {
  const section = pathsSection(timelineOf([[2, 'p0', 'p1', pair('relay', 'tcp')]]), { transport: 'tls' });
  const html = renderIcePaths({ paths: section });
  assert.match(html, /<h2>Network path<\/h2>/);
  assert.match(html, /<td>relay\/udp<\/td><td>tcp<\/td><td>relay\/udp<\/td><td>1<\/td>/);
  assert.match(html, /status-failed/);
  assert.equal(renderIcePaths({}), '');
  const hostile = renderIcePaths({ paths: { connections: [{ peer: '<script>', remote: 'p1', paths: [{ localType: '<b>' }] }], checks: 'x' } });
  assert.ok(!hostile.includes('<script>') && !hostile.includes('<b>'));
});
