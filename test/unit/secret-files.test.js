// lib/system/files.js's writeSecretFile and makePrivateDir: a secret lands only in a new 0600 file in a 0700 folder of this
// user; whatever someone planted at the path (a link to another file, a file, a linked folder) is refused untouched.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lstat, mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { EnvironmentError } from '../../orchestrator/lib/system/errors.js';
import { makePrivateDir, writeSecretFile } from '../../orchestrator/lib/system/files.js';

const withTempDir = async (use) => {
  const root = await mkdtemp(path.join(os.tmpdir(), 'wtb-secret-'));
  try {
    await use(root);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
};
const modeOf = async (file) => (await lstat(file)).mode & 0o777;

test('a symbolic link planted at a secret file\'s path is refused and the file it points to stays untouched', () => withTempDir(async (root) => {
  const victim = path.join(root, 'victim.txt');
  await writeFile(victim, 'original', { mode: 0o644 });
  const dir = path.join(root, 'janus');
  await mkdir(dir);
  await symlink(victim, path.join(dir, 'janus.jcfg'));
  await assert.rejects(writeSecretFile(path.join(dir, 'janus.jcfg'), 'admin_secret = "x"'), (error) => {
    assert.ok(error instanceof EnvironmentError);
    assert.match(error.message, /refusing to write a secret to \S+janus\.jcfg: something \(a file or a symbolic link\) is already there; remove it/);
    return true;
  });
  assert.equal(await readFile(victim, 'utf8'), 'original');
  assert.equal(await modeOf(victim), 0o644);
  // A dangling link (to where the secret would be created) is refused as well.
  await symlink(path.join(root, 'would-be-created'), path.join(dir, 'janus.log'));
  await assert.rejects(writeSecretFile(path.join(dir, 'janus.log'), ''), /already there/);
  await assert.rejects(stat(path.join(root, 'would-be-created')), { code: 'ENOENT' });
}));

test('a file already at a secret file\'s path is refused, not overwritten', () => withTempDir(async (root) => {
  const file = path.join(root, 'secret');
  await writeFile(file, 'planted', { mode: 0o666 });
  await assert.rejects(writeSecretFile(file, 'secret'), /already there/);
  assert.equal(await readFile(file, 'utf8'), 'planted');
}));

test('a secret file is 0600 in a folder made 0700, also when the folder existed open to everyone', () => withTempDir(async (root) => {
  const fresh = path.join(root, 'run', 'janus', 'janus.jcfg');
  await writeSecretFile(fresh, 'api_secret = "abc"');
  assert.equal(await readFile(fresh, 'utf8'), 'api_secret = "abc"');
  assert.equal(await modeOf(fresh), 0o600);
  assert.equal(await modeOf(path.dirname(fresh)), 0o700);

  const open = path.join(root, 'open');
  await mkdir(open, { mode: 0o777 });
  await writeSecretFile(path.join(open, 'secret'), 's');
  assert.equal(await modeOf(open), 0o700);
  assert.equal(await modeOf(path.join(open, 'secret')), 0o600);
}));

test('a symbolic link planted as the secrets\' folder is refused and the folder it points to keeps its mode', () => withTempDir(async (root) => {
  const elsewhere = path.join(root, 'elsewhere');
  await mkdir(elsewhere, { mode: 0o755 });
  await symlink(elsewhere, path.join(root, 'janus'));
  await assert.rejects(makePrivateDir(path.join(root, 'janus')), /janus is a symbolic link, so it cannot hold secrets; remove it/);
  await assert.rejects(writeSecretFile(path.join(root, 'janus', 'janus.jcfg'), 'x'), /janus is a symbolic link/);
  assert.equal(await modeOf(elsewhere), 0o755);
  await assert.rejects(stat(path.join(elsewhere, 'janus.jcfg')), { code: 'ENOENT' });
}));
