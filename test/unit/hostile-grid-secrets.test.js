// The Grid's secrets against another local user and a second hub: a secrets file others can read is refused, a
// second grid-hub neither replaces nor deletes a live hub's file, and no child process (the browsers puppeteer
// launches, Janus, the Grid's java) inherits WTB_GRID_*. Janus and java are stand-in scripts that write their
// environment down; nothing real is started.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { startGridProcess } from '../../orchestrator/grid/process.js';
import { localSecretsFile, readSecrets, SECRET_ENV, writeLocalSecrets } from '../../orchestrator/grid/secrets.js';
import { gridJarsDir } from '../../orchestrator/grid/versions.js';
import { launchOptions } from '../../orchestrator/run/browsers.js';
import { startJanus } from '../../orchestrator/sfu/janus/janus.js';
import { VIDEOROOM_PLUGIN } from '../../orchestrator/sfu/janus/janus-config.js';
import { InputError } from '../../orchestrator/lib/system/errors.js';

const SECRETS = { registrationSecret: 'r'.repeat(48), username: 'wtb', password: 'p'.repeat(48) };
const GRID_ENV = { [SECRET_ENV.registrationSecret]: 'env-registration', [SECRET_ENV.username]: 'env-user', [SECRET_ENV.password]: 'env-password' };

/** Runs body with these variables set in process.env, then puts back what was there. @param {Record<string, string>} vars */
async function withEnv(vars, body) {
  const previous = Object.fromEntries(Object.keys(vars).map((name) => [name, process.env[name]]));
  Object.assign(process.env, vars);
  try {
    return await body();
  } finally {
    for (const [name, value] of Object.entries(previous)) {
      if (value === undefined) delete process.env[name]; else process.env[name] = value;
    }
  }
}

/** A fresh $XDG_CONFIG_HOME (and cache) for grid-hub's file. */
const freshHome = () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'wtb-hostile-grid-'));
  return { dir, env: { XDG_CONFIG_HOME: path.join(dir, 'config'), XDG_CACHE_HOME: path.join(dir, 'cache') } };
};

/** @param {string} text */
const gridVariablesIn = (text) => text.split('\n').filter((line) => line.startsWith('WTB_GRID_'));

test('a --grid-secrets file other users can read is refused, naming the file and chmod 600; a 0600 one is read', () => {
  const { dir } = freshHome();
  const file = path.join(dir, 'copied-secrets.json');
  writeFileSync(file, JSON.stringify(SECRETS), { mode: 0o644 });
  chmodSync(file, 0o644);
  assert.throws(() => readSecrets(file, {}), (error) => {
    assert.ok(error instanceof InputError, String(error));
    assert.ok(error.message.includes(file), error.message);
    assert.match(error.message, /other users may read or change/);
    assert.match(error.message, new RegExp(`chmod 600 ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    assert.ok(!error.message.includes(SECRETS.password), 'no secret in the message');
    return true;
  });
  chmodSync(file, 0o640);
  assert.throws(() => readSecrets(file, {}), /chmod 600/, 'readable by the group');
  chmodSync(file, 0o600);
  assert.deepEqual(readSecrets(file, {}), SECRETS);
});

test('a second grid-hub neither replaces nor deletes a live hub\'s secrets file; a hub deletes only the file it wrote', async () => {
  const { env } = freshHome();
  await withEnv(env, async () => {
    const first = await writeLocalSecrets({ ...SECRETS, hubUrl: 'http://127.0.0.1:4444' });
    await assert.rejects(writeLocalSecrets({ ...SECRETS, password: 'x'.repeat(48), hubUrl: 'http://127.0.0.1:5444' }), (/** @type {Error & { exitCode?: number }} */ error) => {
      assert.ok(error.message.includes(first.file), error.message);
      assert.match(error.message, new RegExp(`grid-hub \\(pid ${process.pid}, http://127\\.0\\.0\\.1:4444\\) is running`));
      return true;
    });
    assert.deepEqual(readSecrets(undefined, env), SECRETS, 'the first hub\'s secrets are still there');
    // Someone removed the first hub's file and a second hub wrote its own: the first, stopping, leaves it alone.
    rmSync(first.file);
    const second = await writeLocalSecrets({ ...SECRETS, password: 'x'.repeat(48), hubUrl: 'http://127.0.0.1:5444' });
    first.remove();
    assert.equal(readSecrets(undefined, env).password, 'x'.repeat(48), 'the first hub deleted the second\'s file');
    second.remove();
    assert.ok(!existsSync(second.file));
  });
});

test('the secrets file of a hub that died is replaced by the next grid-hub', async () => {
  const { env } = freshHome();
  await withEnv(env, async () => {
    const dead = spawnSync(process.execPath, ['-e', '']).pid;
    const file = localSecretsFile(env);
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    writeFileSync(file, JSON.stringify({ ...SECRETS, hubUrl: 'http://127.0.0.1:4444', hubPid: dead }), { mode: 0o600 });
    const written = await writeLocalSecrets({ ...SECRETS, password: 'y'.repeat(48), hubUrl: 'http://127.0.0.1:4444' });
    assert.equal(readSecrets(undefined, env).password, 'y'.repeat(48));
    written.remove();
  });
});

test('WTB_GRID_* reach no browser puppeteer launches (Chromium or Firefox), whatever the launch spec adds', async () => {
  await withEnv(GRID_ENV, async () => {
    const common = { executablePath: '/usr/bin/true', media: { video: '/v.y4m', audio: '/a.wav' }, url: 'http://127.0.0.1:1/#s', headful: false };
    for (const kind of /** @type {const} */ (['chromium', 'firefox'])) {
      const options = launchOptions({ ...common, kind, launchSpec: { env: { NETNS: 'x' } } });
      assert.deepEqual(Object.keys(options.env ?? {}).filter((name) => name.startsWith('WTB_GRID_')), [], kind);
      assert.equal(options.env?.NETNS, 'x', `${kind}: the launch spec's own variables stay`);
      assert.equal(options.env?.PATH, process.env.PATH, `${kind}: the rest of the environment stays`);
    }
  });
});

test('WTB_GRID_* do not reach Janus', { timeout: 30_000 }, async () => {
  const { dir } = freshHome();
  const envFile = path.join(dir, 'janus-env.txt');
  mkdirSync(path.join(dir, 'prefix', 'bin'), { recursive: true });
  mkdirSync(path.join(dir, 'prefix', 'lib', 'janus', 'plugins'), { recursive: true });
  writeFileSync(path.join(dir, 'prefix', 'lib', 'janus', 'plugins', VIDEOROOM_PLUGIN), '');
  writeFileSync(path.join(dir, 'prefix', 'bin', 'janus'), `#!/bin/sh\nenv > '${envFile}'\n`, { mode: 0o755 });
  await withEnv(GRID_ENV, async () => {
    await assert.rejects(startJanus({ runDir: path.join(dir, 'run'), searchPath: path.join(dir, 'prefix', 'bin'), readyTimeoutMs: 5000 }),
      /Janus did not start/);
  });
  const written = readFileSync(envFile, 'utf8');
  assert.match(written, /^PATH=/m, 'the stand-in wrote its environment');
  assert.deepEqual(gridVariablesIn(written), []);
});

test('WTB_GRID_* do not reach the Grid\'s java (nor the chromedriver and browsers it starts)', { timeout: 30_000 }, async () => {
  const { dir, env } = freshHome();
  const envFile = path.join(dir, 'java-env.txt');
  const bin = path.join(dir, 'bin');
  mkdirSync(bin);
  writeFileSync(path.join(bin, 'java'), `#!/bin/sh\nenv > '${envFile}.tmp' && mv '${envFile}.tmp' '${envFile}'\nexec sleep 30\n`, { mode: 0o755 });
  await withEnv({ ...GRID_ENV, ...env, PATH: `${bin}:${process.env.PATH}` }, async () => {
    mkdirSync(gridJarsDir(), { recursive: true });
    const grid = await startGridProcess({
      role: 'hub', name: 'hostile-env', host: '127.0.0.1', ports: [], config: '# none\n', log: () => {}, isReady: async () => existsSync(envFile),
    });
    await grid.stop();
  });
  const written = readFileSync(envFile, 'utf8');
  assert.match(written, /^PATH=/m, 'the stand-in wrote its environment');
  assert.deepEqual(gridVariablesIn(written), []);
});
