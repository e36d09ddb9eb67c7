import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { chmod, lstat, mkdir, open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { EnvironmentError, errorCode } from './errors.js';

/**
 * Writes through a temporary file and a rename, so readers never see half a file. The data is fsynced before
 * the rename and the directory after it: a crash right after a run must not leave an empty result.json. The
 * temporary file has a random name and is created exclusively ('wx' never follows a symlink planted there), and the
 * rename replaces a symlink at `file` instead of writing through it, so nothing outside `file` is ever written.
 * @param {string} file @param {string|Uint8Array} content
 * @param {{ mode?: number }} [options]  the file's permissions (set on the open file, not through its path)
 */
export async function writeFileAtomic(file, content, { mode } = {}) {
  const dir = path.dirname(file);
  await mkdir(dir, { recursive: true });
  const tmp = path.join(dir, `.${path.basename(file)}.${randomBytes(8).toString('hex')}.tmp`);
  try {
    const handle = await open(tmp, 'wx');
    try {
      await handle.writeFile(content);
      if (mode !== undefined) await handle.chmod(mode);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, file);
  } catch (error) {
    await rm(tmp, { force: true });
    throw error;
  }
  const dirHandle = await open(dir, 'r').catch(() => null); // directories cannot be opened on every OS
  await dirHandle?.sync().catch(() => {});
  await dirHandle?.close();
}

/** @param {string} file @param {unknown} data */
export const writeJsonAtomic = (file, data) => writeFileAtomic(file, `${JSON.stringify(data, null, 1)}\n`);

/**
 * Makes `dir` (and any missing parent) a folder only this user can enter: 0700, a real directory (not a symbolic
 * link) owned by this user. A folder that holds secrets.
 * @param {string} dir
 */
export async function makePrivateDir(dir) {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const stats = await lstat(dir);
  const wrong = stats.isSymbolicLink() ? 'a symbolic link' : !stats.isDirectory() ? 'not a directory'
    : process.getuid && stats.uid !== process.getuid() ? `owned by uid ${stats.uid}` : null;
  if (wrong) throw new EnvironmentError(`${dir} is ${wrong}, so it cannot hold secrets; remove it and run again`);
  if ((stats.mode & 0o777) !== 0o700) await chmod(dir, 0o700);
}

/**
 * Writes a file that holds a secret: mode 0600 in a 0700 folder (made so), created new and never through a symbolic
 * link, so a file or link planted at the path cannot redirect the secret or widen who reads it.
 * @param {string} file @param {string} content
 */
export async function writeSecretFile(file, content) {
  await makePrivateDir(path.dirname(file));
  let handle;
  try {
    handle = await open(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  } catch (error) {
    if (errorCode(error) !== 'EEXIST') throw error;
    throw new EnvironmentError(`refusing to write a secret to ${file}: something (a file or a symbolic link) is already there; remove it and run again`);
  }
  try {
    await handle.writeFile(content);
  } finally {
    await handle.close();
  }
}
