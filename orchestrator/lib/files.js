import { mkdir, open, rename, rm } from 'node:fs/promises';
import path from 'node:path';

/**
 * Writes through a temporary file and a rename, so readers never see half a file. The data is fsynced before
 * the rename and the directory after it: a crash right after a run must not leave an empty result.json.
 * @param {string} file @param {string|Uint8Array} content
 */
export async function writeFileAtomic(file, content) {
  const dir = path.dirname(file);
  await mkdir(dir, { recursive: true });
  const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.${Date.now()}.tmp`);
  try {
    const handle = await open(tmp, 'w');
    try {
      await handle.writeFile(content);
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
