// Which browser each peer runs (lib/scenario/peer-browsers.js, the scenario's `browsers`), where Firefox is found
// (run/browser-path.js), how it is launched (run/browsers.js launchOptions) and what a Firefox peer is refused (devices).
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { peerBrowsers, validatePeerBrowsers } from '../../orchestrator/lib/scenario/peer-browsers.js';
import { EnvironmentError, InputError } from '../../orchestrator/lib/system/errors.js';
import { loadScenario } from '../../orchestrator/lib/scenario/scenario-file.js';
import { resolveFirefoxPath } from '../../orchestrator/run/browser-path.js';
import { FIREFOX_EXEC_SCRIPT, firefoxPrefs, launchOptions, launchPeer } from '../../orchestrator/run/browsers.js';
import { runScenario } from '../../orchestrator/run/run.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'wtb-browsers-'));
const scenarioFile = (name, fields) => {
  const file = path.join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify({ name, description: 'test', durationS: 30, network: {}, ...fields }));
  return file;
};

test('a scenario names browsers per peer; every other peer runs --browser (default chromium)', () => {
  assert.deepEqual(loadScenario('cross-browser-firefox').browsers, { p1: 'firefox' });
  assert.deepEqual(loadScenario('unconstrained').browsers, {});
  assert.deepEqual(peerBrowsers(['p0', 'p1'], { p1: 'firefox' }), { p0: 'chromium', p1: 'firefox' });
  assert.deepEqual(peerBrowsers(['p0', 'p1'], {}, 'firefox'), { p0: 'firefox', p1: 'firefox' });
  assert.deepEqual(peerBrowsers(['p0', 'p1'], { p0: 'chromium' }, 'firefox'), { p0: 'chromium', p1: 'firefox' });
  assert.throws(() => peerBrowsers(['p0'], {}, 'safari'), (error) => error instanceof InputError && /--browser safari: use one of chromium, firefox/.test(error.message));
});

test('a bad `browsers` field names the file, the peer and the choices', () => {
  assert.throws(() => loadScenario(scenarioFile('bad-kind', { browsers: { p1: 'edge' } })),
    (error) => error instanceof InputError && /bad-kind\.json: browsers\.p1: "edge" is not a browser; use one of chromium, firefox/.test(error.message));
  assert.throws(() => loadScenario(scenarioFile('bad-peer', { browsers: { p7: 'firefox' } })),
    (error) => error instanceof InputError && /bad-peer\.json: browsers/.test(error.message) && /p7/.test(error.message));
  assert.throws(() => validatePeerBrowsers(['firefox'], 2, 'f.json'), InputError);
});

test('a missing Firefox is an EnvironmentError that says how to install it', () => {
  const nowhere = path.join(dir, 'no-firefox-here');
  for (const attempt of [
    () => resolveFirefoxPath({ firefoxPath: nowhere }),
    () => resolveFirefoxPath({ env: { FIREFOX_PATH: nowhere } }),
    () => resolveFirefoxPath({ env: {}, candidates: [nowhere] }),
  ]) {
    assert.throws(attempt, (error) => error instanceof EnvironmentError && error.exitCode === 3
      && /npm run setup/.test(error.message) && /apt-get install firefox-esr/.test(error.message) && /--firefox-path/.test(error.message));
  }
  assert.throws(() => resolveFirefoxPath({ firefoxPath: nowhere }), new RegExp(`--firefox-path ${nowhere}: no executable browser there`));
  const fake = path.join(dir, 'firefox');
  writeFileSync(fake, '#!/bin/sh\n', { mode: 0o755 });
  assert.deepEqual(resolveFirefoxPath({ firefoxPath: fake }), { path: fake, source: '--firefox-path' });
  assert.deepEqual(resolveFirefoxPath({ env: { FIREFOX_PATH: fake } }), { path: fake, source: '$FIREFOX_PATH' });
  assert.deepEqual(resolveFirefoxPath({ env: {}, candidates: [nowhere, fake] }), { path: fake, source: 'well-known path' });
});

test('Firefox launches with the test-bed prefs and its own profile; Chromium keeps its flags and pipe', () => {
  const common = { media: { video: '/m.y4m', audio: '/m.wav' }, url: 'http://127.0.0.1:9/?peer=p1', headful: false, launchSpec: {} };
  const firefox = /** @type {any} */ (launchOptions({ kind: 'firefox', executablePath: '/usr/bin/firefox-esr', profileDir: '/tmp/p', ...common }));
  assert.equal(firefox.browser, 'firefox');
  assert.equal(firefox.userDataDir, '/tmp/p');
  assert.deepEqual(firefox.extraPrefsFirefox, firefoxPrefs());
  assert.equal(firefox.extraPrefsFirefox['media.peerconnection.ice.obfuscate_host_addresses'], false);
  assert.equal(firefox.extraPrefsFirefox['media.navigator.permission.disabled'], true);
  assert.equal(firefox.extraPrefsFirefox['media.peerconnection.ice.loopback'], true);
  assert.equal(firefox.extraPrefsFirefox['media.autoplay.default'], 0);
  // Tied to the orchestrator's life through setpriv where this host has it (Linux).
  if (firefox.executablePath === FIREFOX_EXEC_SCRIPT) assert.equal(firefox.env.WTB_BROWSER, '/usr/bin/firefox-esr');
  else assert.equal(firefox.executablePath, '/usr/bin/firefox-esr');
  assert.equal(firefox.pipe, undefined);
  // An emulator's launchSpec (netem) decides how Firefox starts: its wrapper, BiDi port and namespace.
  const launchSpec = { executablePath: '/x/netns-firefox.sh', args: ['--remote-debugging-port=40123'], env: { WTB_NETNS: 'wtb-a-p1', WTB_BROWSER: '/ff' } };
  const inNamespace = /** @type {any} */ (launchOptions({ kind: 'firefox', executablePath: '/ff', profileDir: '/tmp/p', ...common, launchSpec }));
  assert.equal(inNamespace.executablePath, '/x/netns-firefox.sh');
  assert.deepEqual(inNamespace.args, ['--remote-debugging-port=40123']);
  assert.equal(inNamespace.env.WTB_NETNS, 'wtb-a-p1');
  assert.deepEqual(inNamespace.extraPrefsFirefox, firefoxPrefs());
  const chromium = /** @type {any} */ (launchOptions({ kind: 'chromium', executablePath: '/usr/bin/chromium', ...common }));
  assert.equal(chromium.pipe, true);
  assert.ok(chromium.args.includes('--use-file-for-fake-video-capture=/m.y4m'));
  assert.equal(chromium.browser, undefined);
});

test('a constrained device is refused for a Firefox peer before anything starts (its constraints and throttling are Chromium\'s)', async () => {
  const scenario = loadScenario(scenarioFile('firefox-device', { browsers: { p1: 'firefox' }, devices: { p1: { cpuThrottlingRate: 4 } } }));
  await assert.rejects(runScenario({ scenario, emulator: 'relay' }), (error) => error instanceof InputError && /devices\.p1: .*runs Firefox/.test(error.message));
  // launchPeer refuses CPU throttling for Firefox (no DevTools protocol) before it launches anything.
  await assert.rejects(launchPeer({ kind: 'firefox', executablePath: '/nonexistent/firefox', media: { video: '', audio: '' }, url: 'http://127.0.0.1:9/', cpuThrottlingRate: 4 }),
    (error) => error instanceof InputError && /CPU throttling/.test(error.message));
});
