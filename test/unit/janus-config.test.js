import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InputError } from '../../orchestrator/lib/system/errors.js';
import { janusConfig, jcfg } from '../../orchestrator/sfu/janus/janus-config.js';

const BASE = {
  configDir: '/runs/r1/janus',
  libDir: '/usr/lib/x86_64-linux-gnu/janus',
  logFile: '/runs/r1/janus/janus.log',
  adminSecret: 'abcdef0123456789abcdef',
  apiSecret: '0123456789abcdef0123',
  httpPort: 40001,
  adminPort: 40002,
  rtpPortRange: { minPort: 20000, maxPort: 20199 },
  iceAddress: '192.0.2.2',
};
const file = (config, name) => config.files.find((f) => f.path === name)?.content;

test('jcfg renders libconfig sections: strings quoted and escaped, numbers and booleans bare', () => {
  assert.equal(jcfg({ general: { a: 'x "y"', b: 3, c: false }, empty: {} }), 'general: {\n\ta = "x \\"y\\""\n\tb = 3\n\tc = false\n}\nempty: {\n}\n');
});

test('the configuration loads only VideoRoom and HTTP, binds both APIs to loopback, ICE to one IPv4 address, logs to the file, no STUN', () => {
  const config = janusConfig(BASE);
  assert.equal(config.configFile, '/runs/r1/janus/janus.jcfg');
  assert.deepEqual(config.files.map((f) => f.path), ['janus.jcfg', 'janus.transport.http.jcfg', 'janus.plugin.videoroom.jcfg']);
  assert.deepEqual(config.links, [
    { path: 'plugins/libjanus_videoroom.so', target: '/usr/lib/x86_64-linux-gnu/janus/plugins/libjanus_videoroom.so' },
    { path: 'transports/libjanus_http.so', target: '/usr/lib/x86_64-linux-gnu/janus/transports/libjanus_http.so' },
  ]);
  assert.deepEqual(config.dirs, ['plugins', 'transports', 'none']);
  const main = file(config, 'janus.jcfg');
  for (const line of [
    'plugins_folder = "/runs/r1/janus/plugins"', 'transports_folder = "/runs/r1/janus/transports"',
    'events_folder = "/runs/r1/janus/none"', 'loggers_folder = "/runs/r1/janus/none"',
    'log_to_file = "/runs/r1/janus/janus.log"', 'log_to_stdout = false', 'admin_secret = "abcdef0123456789abcdef"', 'api_secret = "0123456789abcdef0123"',
    'rtp_port_range = "20000-20199"', 'ipv6 = false', 'ice_enforce_list = "192.0.2.2"', 'interface = "192.0.2.2"', 'debug_level = 4',
  ]) assert.ok(main.includes(`\t${line}\n`), `janus.jcfg lacks ${line}:\n${main}`);
  assert.doesNotMatch(main, /stun|turn_server/);
  const http = file(config, 'janus.transport.http.jcfg');
  for (const line of ['port = 40001', 'ip = "127.0.0.1"', 'admin_http = true', 'admin_port = 40002', 'admin_ip = "127.0.0.1"', 'https = false']) {
    assert.ok(http.includes(`\t${line}\n`), `http transport lacks ${line}:\n${http}`);
  }
  assert.equal(file(config, 'janus.plugin.videoroom.jcfg'), 'general: {\n}\n');
});

test('a WebSocket port adds the WebSocket transport on that port; another API address and debug level are used throughout', () => {
  const config = janusConfig({ ...BASE, wsPort: 40003, address: '10.0.0.9', debugLevel: 5 });
  assert.deepEqual(config.links.map((link) => link.path), ['plugins/libjanus_videoroom.so', 'transports/libjanus_http.so', 'transports/libjanus_websockets.so']);
  const ws = file(config, 'janus.transport.websockets.jcfg');
  assert.match(ws, /\tws_port = 40003\n/);
  assert.match(ws, /\tws_ip = "10\.0\.0\.9"\n/);
  assert.match(ws, /\tadmin_ws = false\n/);
  assert.match(file(config, 'janus.transport.http.jcfg'), /\tip = "10\.0\.0\.9"\n/);
  assert.match(file(config, 'janus.jcfg'), /\tdebug_level = 5\n/);
});

test('every input is checked, naming the field', () => {
  /** @type {Array<[object, RegExp]>} */
  const cases = [
    [{ configDir: 'relative/janus' }, /configDir must be an absolute path/],
    [{ logFile: '/x/"quoted".log' }, /logFile must be an absolute path without quotes/],
    [{ libDir: undefined }, /libDir must be an absolute path/],
    [{ adminSecret: 'short' }, /adminSecret must be at least 16 letters and digits/],
    [{ adminSecret: 'has a space in it 1234' }, /adminSecret/],
    [{ apiSecret: undefined }, /apiSecret must be at least 16 letters and digits/],
    [{ apiSecret: 'short' }, /apiSecret must be at least 16 letters and digits/],
    [{ httpPort: 0 }, /httpPort must be a port number 1-65535, not 0/],
    [{ adminPort: 70000 }, /adminPort must be a port number/],
    [{ wsPort: 1.5 }, /wsPort must be a port number/],
    [{ adminPort: 40001 }, /adminPort and httpPort are both 40001/],
    [{ rtpPortRange: undefined }, /rtpPortRange\.minPort must be a port number/],
    [{ rtpPortRange: { minPort: 20000, maxPort: 20010 } }, /rtpPortRange 20000-20010 is too small/],
    [{ httpPort: 20050 }, /httpPort 20050 lies in rtpPortRange 20000-20199/],
    [{ address: 'localhost' }, /address "localhost" is not an IPv4 address/],
    [{ address: '127.0.0.300' }, /not an IPv4 address/],
    [{ iceAddress: undefined }, /iceAddress undefined is not an IPv4 address/],
    [{ iceAddress: '127.0.0.1' }, /iceAddress 127\.0\.0\.1 is loopback/],
    [{ debugLevel: 8 }, /debugLevel must be an integer 0-7/],
  ];
  for (const [change, message] of cases) {
    assert.throws(() => janusConfig({ ...BASE, ...change }), (error) => error instanceof InputError && message.test(error.message),
      `${JSON.stringify(change)} should fail with ${message}`);
  }
});
