// Janus as the run's managed process, for real: start, API and Admin API, a VideoRoom room, the failures a user
// can meet (with Janus's own log in the error), and no Janus left behind after close(), SIGINT or SIGKILL of the
// orchestrator. Run it alone on the machine (it starts Janus).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, lstat, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { EnvironmentError } from '../orchestrator/lib/system/errors.js';
import { onCleanup, runCleanup } from '../orchestrator/lib/system/shutdown.js';
import { janusPost, createVideoRoom } from '../orchestrator/sfu/janus/janus-api.js';
import { listHandles, listSessions } from '../orchestrator/sfu/janus/janus-admin.js';
import { startJanus } from '../orchestrator/sfu/janus/janus.js';
import { assertGoneAfterInterruptAndKill, assertGoneWithin } from './helpers/server-process.js';

const CHILD = fileURLToPath(new URL('./fixtures/janus/start-janus.js', import.meta.url));
let root;
before(async () => { root = await mkdtemp(path.join(os.tmpdir(), 'wtb-janus-')); });
after(async () => { await rm(root, { recursive: true, force: true }); });

test('Janus starts on free loopback ports, answers info and the Admin API, creates a VideoRoom room only with the run\'s API secret, and is gone after close()',
  async () => {
    const commands = [];
    const runDir = path.join(root, 'run');
    const janus = await startJanus({ runDir, registerCleanup: onCleanup, logCommand: (record) => commands.push(record) });
    try {
      assert.match(janus.apiUrl, /^http:\/\/127\.0\.0\.1:\d+\/janus$/);
      const info = await (await fetch(`${janus.apiUrl}/info`)).json();
      assert.equal(info.janus, 'server_info');
      assert.deepEqual(Object.keys(info.plugins), ['janus.plugin.videoroom']);
      assert.deepEqual(Object.keys(info.transports), ['janus.transport.http']);
      assert.equal(info['log-path'], path.join(runDir, 'janus', 'janus.log'));
      assert.equal(info['local-ip'], janus.iceAddress);
      assert.equal(info.ipv6, false);
      assert.equal(commands.length, 1);
      assert.equal(commands[0].ok, true);
      assert.match(commands[0].cmd, /janus -C \S+\/run\/janus\/janus\.jcfg -F \S+\/run\/janus$/);

      // The Admin API takes the generated secret and refuses a wrong one.
      await assert.rejects(janusPost(janus.adminUrl, { janus: 'list_sessions', admin_secret: 'wrong' }), /refused list_sessions/);
      // Another local process, without the run's API secret, cannot open a session (Janus error 403).
      await assert.rejects(janusPost(janus.apiUrl, { janus: 'create' }), /refused create: Unauthorized request .*\(code 403\)/);
      await assert.rejects(janusPost(janus.apiUrl, { janus: 'create' }, 'wrong0123456789abcdef'), /code 403/);
      assert.equal(await createVideoRoom(janus, { room: 4321, publishers: 4 }), 4321);
      const session = (await janusPost(janus.apiUrl, { janus: 'create' }, janus.apiSecret)).data.id;
      const handle = (await janusPost(`${janus.apiUrl}/${session}`, { janus: 'attach', plugin: 'janus.plugin.videoroom' }, janus.apiSecret)).data.id;
      const admin = { adminUrl: janus.adminUrl, adminSecret: janus.adminSecret };
      assert.ok((await listSessions(admin)).includes(session));
      assert.deepEqual(await listHandles(admin, session), [handle]);
    } finally {
      await janus.close();
    }
    await assertGoneWithin(janus.pid, 1_000, 'Janus');
    await runCleanup();
  });

/** Runs argv as the unprivileged user nobody (uid/gid 65534, no supplementary groups). @param {string[]} argv */
const asNobody = (argv) => spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', ...argv], { encoding: 'utf8' });

test('another local user cannot read Janus\'s configuration, secrets or logs: its folder is 0700, every file in it 0600, and Janus starts from it',
  { skip: process.getuid?.() !== 0 && 'needs root to act as nobody' }, async () => {
    // results/<scenario>/<ts>/ is open to every local user (0755), unlike mkdtemp's 0700 folder, which would hide
    // everything in it and let this test pass on a harness that writes the secrets world-readable.
    await chmod(root, 0o755);
    const runDir = path.join(root, 'readable-run');
    await mkdir(runDir, { mode: 0o755 });
    await writeFile(path.join(runDir, 'public.txt'), 'anyone may read this', { mode: 0o644 });
    const control = asNobody(['cat', path.join(runDir, 'public.txt')]);
    assert.equal(control.stdout, 'anyone may read this', `nobody cannot read even a public file of the run: ${control.stderr}`);

    const janus = await startJanus({ runDir, registerCleanup: onCleanup });
    try {
      const configDir = path.join(runDir, 'janus');
      const files = ['janus.jcfg', 'janus.transport.http.jcfg', 'janus.plugin.videoroom.jcfg', 'janus.log', 'console.log'];
      assert.match(await readFile(path.join(configDir, 'janus.jcfg'), 'utf8'), new RegExp(`api_secret = "${janus.apiSecret}"`));
      for (const file of files) {
        const attempt = asNobody(['cat', path.join(configDir, file)]);
        assert.notEqual(attempt.status, 0, `nobody read ${file}: ${attempt.stdout.slice(0, 200)}`);
        assert.match(attempt.stderr, /Permission denied/, file);
      }
      assert.match(asNobody(['ls', configDir]).stderr, /Permission denied/);

      // The folder and everything Janus was given or writes: 0700 folders, 0600 files; links only to installed modules.
      assert.equal((await lstat(configDir)).mode & 0o777, 0o700);
      const entries = await readdir(configDir, { recursive: true });
      assert.deepEqual(files.filter((file) => !entries.includes(file)), []);
      for (const entry of entries) {
        const stats = await lstat(path.join(configDir, entry));
        if (stats.isSymbolicLink()) continue;
        assert.equal(stats.mode & 0o777, stats.isDirectory() ? 0o700 : 0o600, `${entry} has mode ${(stats.mode & 0o777).toString(8)}`);
      }
      // Janus runs from that folder: it took the secrets from it.
      const session = (await janusPost(janus.apiUrl, { janus: 'create' }, janus.apiSecret)).data.id;
      assert.ok((await listSessions({ adminUrl: janus.adminUrl, adminSecret: janus.adminSecret })).includes(session));
    } finally {
      await janus.close();
    }
    await runCleanup();
  });

test('a port in use, a missing binary and a configuration Janus rejects each give an EnvironmentError with the cause', async () => {
  const server = net.createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const { port } = /** @type {net.AddressInfo} */ (server.address());
  try {
    await assert.rejects(startJanus({ runDir: path.join(root, 'taken'), ports: { httpPort: port } }), (error) => {
      assert.ok(error instanceof EnvironmentError);
      assert.equal(error.exitCode, 3);
      assert.match(error.message, new RegExp(`Janus did not start: it exited with code \\d+[^]*Couldn't start webserver on port ${port}`));
      return true;
    });
  } finally {
    server.close();
  }

  await assert.rejects(startJanus({ runDir: path.join(root, 'nobinary'), searchPath: '/nonexistent' }), (error) => {
    assert.ok(error instanceof EnvironmentError);
    assert.match(error.message, /no `janus` executable on PATH \(\/nonexistent\)[^]*npm run setup/);
    return true;
  });

  // The installed Janus, behind a wrapper that breaks the configuration file it is given, with the module folder
  // where startJanus looks for it (<prefix>/lib/janus beside <prefix>/bin/janus).
  const prefix = path.join(root, 'prefix');
  await mkdir(path.join(prefix, 'bin'), { recursive: true });
  await mkdir(path.join(prefix, 'lib'), { recursive: true });
  const installed = (await readdir('/usr/lib')).map((dir) => path.join('/usr/lib', dir, 'janus')).find((dir) => existsSync(dir));
  await symlink(installed, path.join(prefix, 'lib', 'janus'));
  await writeFile(path.join(prefix, 'bin', 'janus'), '#!/bin/sh\necho "media: { rtp_port_range = }" >> "$2"\nexec /usr/bin/janus "$@"\n');
  await chmod(path.join(prefix, 'bin', 'janus'), 0o755);
  await assert.rejects(startJanus({ runDir: path.join(root, 'badconfig'), searchPath: `${prefix}/bin:/usr/bin:/bin` }), (error) => {
    assert.ok(error instanceof EnvironmentError);
    assert.match(error.message, /Janus did not start: it exited with code \d+[^]*janus\.jcfg/);
    return true;
  });
});

test('Janus is gone after SIGINT of the orchestrator (its closer runs) and after SIGKILL (the kernel kills it)', async () => {
  await assertGoneAfterInterruptAndKill(CHILD, (name) => path.join(root, name), 'Janus', 3_000);
});
