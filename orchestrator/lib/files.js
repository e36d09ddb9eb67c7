import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** Writes through a temporary file and a rename, so readers never see half a file. */
export async function writeFileAtomic(file, content) {
  await mkdir(path.dirname(file), { recursive: true });
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${Date.now()}.tmp`);
  try {
    await writeFile(tmp, content);
    await rename(tmp, file);
  } catch (error) {
    await rm(tmp, { force: true });
    throw error;
  }
}

/** @param {string} file @param {unknown} data */
export const writeJsonAtomic = (file, data) => writeFileAtomic(file, `${JSON.stringify(data, null, 1)}\n`);
