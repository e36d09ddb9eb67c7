// Reading one input file the harness was pointed at (scenario, suite, trace, …): only a regular file, only up to a
// size limit, so /dev/zero, a FIFO or a huge file is refused before it is read. Errors name the file, never its content.
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import path from 'node:path';
import { InputError } from '../system/errors.js';

/**
 * @typedef {object} InputFileOptions
 * @property {string} shown  the file as the user sees it
 * @property {string} what  "scenario", "trace file" … named in the message
 * @property {number} maxBytes
 * @property {string} nextStep  what to do when it is missing
 * @property {string} [limitsDoc]  where the size limit is documented
 */

/**
 * The text of a regular file of at most maxBytes (see readInputBytes).
 * @param {string} file  the path to open @param {InputFileOptions} options @returns {string}
 */
export const readInputText = (file, options) => readInputBytes(file, options).toString('utf8');

/**
 * The bytes of a regular file of at most maxBytes. Opened non-blocking (a FIFO would wait for a writer) and checked
 * with fstat after the open, so what is checked is what is read.
 * @param {string} file  the path to open @param {InputFileOptions} options @returns {Buffer}
 */
export function readInputBytes(file, { shown, what, maxBytes, nextStep, limitsDoc = 'docs/scenario-format.md "Limits"' }) {
  let fd;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const code = /** @type {NodeJS.ErrnoException} */ (error).code;
    const reason = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : code ?? 'unreadable';
    throw new InputError(`${shown}: cannot read the ${what} (${reason}); ${nextStep}`, { cause: error });
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) {
      throw new InputError(`${shown}: the ${what} is ${stat.isDirectory() ? 'a directory' : 'not a regular file (a device, FIFO or socket)'}; give a regular file`);
    }
    const tooLarge = () => new InputError(`${shown}: the ${what} is larger than ${formatBytes(maxBytes)}, the limit (${limitsDoc}); use a smaller file`);
    if (stat.size > maxBytes) throw tooLarge();
    // One byte more than the limit tells a file that grew since fstat.
    const buffer = Buffer.alloc(Math.min(stat.size, maxBytes) + 1);
    let length = 0;
    for (let read; length < buffer.length && (read = readSync(fd, buffer, length, buffer.length - length, null)) > 0;) length += read;
    if (length > maxBytes) throw tooLarge();
    return buffer.subarray(0, length);
  } finally {
    closeSync(fd);
  }
}

/**
 * Whether file is dir or inside it, by their paths (resolve symbolic links first to check real paths).
 * @param {string} dir @param {string} file
 */
export function isInside(dir, file) {
  const relative = path.relative(dir, file);
  return relative === '' || (!relative.startsWith(`..${path.sep}`) && relative !== '..' && !path.isAbsolute(relative));
}

/** "16 MiB", "512 KiB", "100 bytes". @param {number} bytes */
export function formatBytes(bytes) {
  if (bytes >= 1024 * 1024) return `${Math.round(bytes / 1024 / 1024)} MiB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KiB`;
  return `${bytes} bytes`;
}
