import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import path from 'node:path';

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
