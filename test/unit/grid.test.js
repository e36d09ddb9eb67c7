import assert from 'node:assert/strict';
import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import {
  CAP, cdpEndpoint, gridNodes, nodeAddress, nodeMediaPath, nodeStereotype, placePeers, sessionRequest, validatePlacement,
} from '../../orchestrator/lib/grid/grid.js';
import { eventPorts, hubConfig, nodeConfig } from '../../orchestrator/lib/grid/grid-config.js';
import { driverMismatch, gridJarsDir, gridPom, SELENIUM_GRID_VERSION } from '../../orchestrator/grid/versions.js';
import { localSecretsFile, readSecrets, SECRET_ENV, writeLocalSecrets } from '../../orchestrator/grid/secrets.js';

/** A node without a relay: the fields placement reads. @param {string} label @param {number} [freeSlots] */
const node = (label, freeSlots = 2) => /** @type {import('../../orchestrator/lib/grid/grid.js').GridNode} */ ({ id: label, uri: `http://${label}:5555`, label, maxSessions: 2, freeSlots, binary: '/usr/bin/chromium', mediaDir: '/m', cores: 2, browserVersion: null });

test('--spread puts peers round-robin on the nodes; without it each node is filled first', () => {
  const nodes = [node('a'), node('b')];
  assert.deepEqual(placePeers(['p0', 'p1', 'p2'], nodes, { spread: true }), { p0: 'a', p1: 'b', p2: 'a' });
  assert.deepEqual(placePeers(['p0', 'p1', 'p2'], nodes, {}), { p0: 'a', p1: 'a', p2: 'b' });
});

test('a scenario\'s placement puts its peers on their labels first; the rest spread over what is left', () => {
  assert.deepEqual(placePeers(['p0', 'p1', 'p2'], [node('a', 1), node('b', 2)], { spread: true, placement: { p2: 'a' } }), { p2: 'a', p0: 'b', p1: 'b' });
});

test('a call that does not fit the free slots, or a label no node has, stops before any session exists', () => {
  assert.throws(() => placePeers(['p0', 'p1', 'p2'], [node('a', 1), node('b', 1)], { spread: true }), /too few free slots/);
  assert.throws(() => placePeers(['p0'], [node('a')], { placement: { p0: 'zz' } }), /placement\.p0: no grid-node labelled zz is up; labels up: a/);
  assert.throws(() => placePeers(['p0', 'p1'], [node('a', 1)], { placement: { p0: 'a', p1: 'a' } }), /placement\.p1: grid-node a has no free slot/);
  assert.throws(() => placePeers(['p0'], [], {}), /no grid-node of this project up/);
});

test('placement names only the scenario\'s peers and node labels', () => {
  assert.deepEqual(validatePlacement({ p1: 'node-2' }, 2, 'x.json'), { p1: 'node-2' });
  assert.deepEqual(validatePlacement(undefined, 2, 'x.json'), {});
  assert.throws(() => validatePlacement({ p5: 'a' }, 2, 'x.json'), /x\.json: placement: unknown field 'p5'/);
  assert.throws(() => validatePlacement({ p0: 'a b' }, 2, 'x.json'), /x\.json: placement\.p0: "a b" is not a node label/);
});

test('the Grid\'s /status gives this project\'s nodes that are up, with their label, free slots, binary, media and cores', () => {
  const slot = (session) => ({ session, stereotype: nodeStereotype({ label: 'n1', binary: '/usr/bin/chromium', mediaDir: '/srv/media', cores: 4, relay: '10.0.0.1:7000' }) });
  const status = {
    value: {
      ready: true,
      nodes: [
        { id: 'id1', uri: 'http://10.0.0.1:5555', availability: 'UP', maxSessions: 2, slots: [slot(null), slot({ sessionId: 's' })] },
        { id: 'id2', uri: 'http://10.0.0.2:5555', availability: 'DOWN', maxSessions: 2, slots: [slot(null)] },
        { id: 'id3', uri: 'http://10.0.0.3:5555', availability: 'UP', maxSessions: 1, slots: [{ session: null, stereotype: { browserName: 'chrome' } }] },
      ],
    },
  };
  assert.deepEqual(gridNodes(status), [{
    id: 'id1', uri: 'http://10.0.0.1:5555', label: 'n1', maxSessions: 2, freeSlots: 1, binary: '/usr/bin/chromium', mediaDir: '/srv/media', cores: 4, browserVersion: null,
    relay: '10.0.0.1:7000',
  }]);
  assert.throws(() => gridNodes({ value: {} }), /no value\.nodes list/);
});

test('a node\'s relay address and its own address are checked at the edge, naming the node and the field', () => {
  const statusWithRelay = (relay) => ({ value: { nodes: [{ id: 'i', uri: 'http://10.0.0.1:5555', availability: 'UP', maxSessions: 1, slots: [{ session: null, stereotype: { [CAP.label]: 'n1', [CAP.relay]: relay } }] }] } });
  assert.equal(gridNodes(statusWithRelay(undefined))[0].relay, null, 'a node without a relay');
  for (const bad of ['10.0.0.1', 'host:7000', '10.0.0.1:0', '10.0.0.1:70000', 7000, `10.0.0.1:7000${'0'.repeat(40)}`]) {
    assert.throws(() => gridNodes(statusWithRelay(bad)), /grid-node n1's stereotype field wtb:relay is not IPv4:port/, JSON.stringify(bad));
  }
  assert.equal(nodeAddress(node('10.0.0.7')), '10.0.0.7');
  assert.throws(() => nodeAddress(node('box')), /grid-node box's uri "http:\/\/box:5555" has no IPv4 address.*--host <its IPv4 address>/);
});

test('a session request matches the node by our label and gives Chromium the node\'s binary and the peer\'s flags', () => {
  const request = sessionRequest({ label: 'n1', binary: '/usr/bin/chromium', args: ['--x'] });
  assert.deepEqual(request.capabilities.alwaysMatch, { browserName: 'chrome', [CAP.label]: 'n1', 'goog:chromeOptions': { binary: '/usr/bin/chromium', args: ['--x'] } });
  assert.equal(nodeMediaPath('/home/u/media/cache/360p30-abc.y4m', '/srv/media/'), '/srv/media/360p30-abc.y4m');
});

test('se:cdp advertised on a wrong host is rewritten to the Grid\'s address as given, path kept', () => {
  assert.equal(cdpEndpoint('ws://172.17.0.5:4444/session/abc/se/cdp', 'http://10.1.2.3:4444'), 'ws://10.1.2.3:4444/session/abc/se/cdp');
  assert.equal(cdpEndpoint('ws://localhost:4444/session/abc/se/cdp', 'https://grid.example:443/'), 'wss://grid.example/session/abc/se/cdp');
  assert.throws(() => cdpEndpoint('http://x/session/abc', 'http://y:4444'), /not a WebSocket URL/);
});

test('the hub\'s and node\'s config files carry the secrets, event ports below the hub\'s, and the node\'s short session timeout', () => {
  const secrets = { registrationSecret: 'reg"x', username: 'wtb', password: 'pw' };
  const hub = hubConfig({ host: '127.0.0.1', port: 4444, secrets });
  assert.deepEqual(eventPorts(4444), { publish: 4442, subscribe: 4443 });
  assert.match(hub, /registration-secret = "reg\\"x"/);
  assert.match(hub, /\[router\]\nusername = "wtb"\npassword = "pw"/);
  assert.match(hub, /publish = "tcp:\/\/127\.0\.0\.1:4442"/);
  assert.match(hub, /\[distributor\]\nhealthcheck-interval = 5\n/, 'a dead node leaves the hub within seconds');
  const stereotype = nodeStereotype({ label: 'n1', binary: '/usr/bin/chromium', mediaDir: '/m', cores: 2 });
  const nodeToml = nodeConfig({
    hubUrl: 'http://10.0.0.1:5000', host: '10.0.0.2', port: 5555, registrationSecret: 'r', maxSessions: 3, sessionTimeoutS: 30,
    driverPath: '/usr/bin/chromedriver', stereotype, label: 'n1',
  });
  assert.match(nodeToml, /subscribe = "tcp:\/\/10\.0\.0\.1:4999"/);
  assert.match(nodeToml, /session-timeout = 30/);
  assert.match(nodeToml, /detect-drivers = false/);
  const line = nodeToml.split('\n').find((l) => l.startsWith('stereotype = '));
  assert.deepEqual(JSON.parse(JSON.parse(line.slice('stereotype = '.length))), stereotype);
});

test('a chromedriver of another major version than Chromium is an error naming both', () => {
  assert.equal(driverMismatch('Chromium 156.0.8078.108 built on Debian', 'ChromeDriver 156.0.8078.108 (730482a9)'), null);
  assert.match(driverMismatch('Chromium 156.0.8078.108 built on Debian', 'ChromeDriver 150.0.7871.100 (x)'),
    /chromedriver 150\.0\.7871\.100 does not match Chromium 156\.0\.8078\.108/);
  assert.match(driverMismatch('', 'x'), /cannot read the versions/);
  assert.match(gridPom(), new RegExp(`<version>${SELENIUM_GRID_VERSION}</version>`));
  assert.equal(gridJarsDir({ XDG_CACHE_HOME: '/c' }), `/c/webrtc-testbed/selenium-grid-${SELENIUM_GRID_VERSION}`);
});

test('the Grid\'s secrets: a 0600 file for this machine, else --grid-secrets, else the environment; a missing field names the file', async () => {
  const config = mkdtempSync(path.join(os.tmpdir(), 'wtb-grid-secrets-'));
  const env = { XDG_CONFIG_HOME: config };
  const previous = process.env.XDG_CONFIG_HOME;
  process.env.XDG_CONFIG_HOME = config;
  try {
    const written = await writeLocalSecrets({ registrationSecret: 'r', username: 'u', password: 'p', hubUrl: 'http://h:1' });
    assert.equal(written.file, localSecretsFile(env));
    assert.equal(statSync(written.file).mode & 0o777, 0o600);
    assert.deepEqual(readSecrets(undefined, env), { registrationSecret: 'r', username: 'u', password: 'p' });
    const fromEnv = { ...env, [SECRET_ENV.registrationSecret]: 'R', [SECRET_ENV.username]: 'U', [SECRET_ENV.password]: 'P' };
    assert.deepEqual(readSecrets(undefined, fromEnv), { registrationSecret: 'R', username: 'U', password: 'P' });
    const partial = path.join(config, 'partial.json');
    writeFileSync(partial, JSON.stringify({ registrationSecret: 'r', username: 'u' }), { mode: 0o600 });
    assert.throws(() => readSecrets(partial, env), /partial\.json: field password is missing/);
    written.remove();
    assert.throws(() => readSecrets(undefined, env), /grid-secrets\.json: cannot read the Grid's secrets file \(no such file\); on the hub's machine `grid-hub` writes it/);
  } finally {
    if (previous === undefined) delete process.env.XDG_CONFIG_HOME; else process.env.XDG_CONFIG_HOME = previous;
  }
});

test('--grid-secrets naming a file that is not one (a shadow-like text, a device) is refused without quoting a byte of it', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'wtb-grid-secrets-'));
  const shadow = path.join(dir, 'shadow');
  writeFileSync(shadow, 'root:$6$saltsalt$hashhashhash:20000:0:99999:7:::\n');
  assert.throws(() => readSecrets(shadow, {}), (/** @type {Error & { exitCode?: number }} */ error) => {
    assert.match(error.message, /shadow:\d+:\d+: invalid JSON in the Grid's secrets file/);
    assert.doesNotMatch(error.message, /root|saltsalt|hashhash/);
    return true;
  });
  assert.throws(() => readSecrets('/dev/zero', {}), /\/dev\/zero: the Grid's secrets file is not a regular file/);
});
