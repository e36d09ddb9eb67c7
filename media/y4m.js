// YUV4MPEG2 (.y4m) files: the header, frame offsets, one frame's luma, and stamping the frame code into every frame
// of a stream (client-app/frame-code.js). 4:2:0 only: what ffmpeg writes with -pix_fmt yuv420p and what Chromium's
// fake capture reads.
import { once } from 'node:events';
import { open, stat } from 'node:fs/promises';
import { CODE_BITS, CODE_MODULUS, codeStripHeight, readFrameCode, stampFrameCode } from '../client-app/frame-code.js';
import { InputError, errorCode } from '../orchestrator/lib/system/errors.js';

const FRAME_MARKER = Buffer.from('FRAME');
const MAX_HEADER_BYTES = 1024;
const NEUTRAL_CHROMA = 128;

/**
 * @typedef {{ width: number, height: number, fps: number, headerBytes: number, frameBytes: number }} Y4mLayout
 *   headerBytes: the stream header with its newline; frameBytes: one frame's planes (each frame is preceded by
 *   "FRAME\n"; frame parameters are not supported)
 */

/**
 * Parses a stream header line (without its newline). @param {string} line @param {string} name for errors
 * @returns {Omit<Y4mLayout, 'headerBytes'>}
 */
export function parseY4mHeader(line, name) {
  if (!line.startsWith('YUV4MPEG2 ')) throw new InputError(`${name}: not a YUV4MPEG2 (.y4m) file; convert it with ffmpeg -i in.mp4 -pix_fmt yuv420p -f yuv4mpegpipe out.y4m`);
  /** @param {string} letter */
  const field = (letter) => line.split(' ').find((part) => part.startsWith(letter))?.slice(1);
  const width = Number(field('W'));
  const height = Number(field('H'));
  const [num, den] = (field('F') ?? '30:1').split(':').map(Number);
  const colour = field('C') ?? '420';
  if (!(Number.isInteger(width) && width > 0 && Number.isInteger(height) && height > 0)) {
    throw new InputError(`${name}: the .y4m header gives no valid W and H (${JSON.stringify(line.slice(0, 80))})`);
  }
  if (!colour.startsWith('420')) {
    throw new InputError(`${name}: colour space C${colour} is not 4:2:0; convert it with ffmpeg -i ${name} -pix_fmt yuv420p -f yuv4mpegpipe out.y4m`);
  }
  const chroma = Math.ceil(width / 2) * Math.ceil(height / 2);
  return { width, height, fps: Number((num / den).toFixed(3)), frameBytes: width * height + 2 * chroma };
}

/**
 * The layout of a .y4m file and how many frames it holds.
 * @param {string} file @param {string} [name] how errors name it (a flag and its value)
 * @returns {Promise<Y4mLayout & { frames: number }>}
 */
export async function readY4mLayout(file, name = file) {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (error) {
    throw new InputError(`${name}: cannot open (${errorCode(error)}); give an existing .y4m file`);
  }
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(MAX_HEADER_BYTES), 0, MAX_HEADER_BYTES, 0);
    const text = buffer.subarray(0, bytesRead).toString('latin1');
    const end = text.indexOf('\n');
    const layout = parseY4mHeader(end < 0 ? text : text.slice(0, end), name);
    const headerBytes = end + 1;
    const { size } = await stat(file);
    return { ...layout, headerBytes, frames: Math.floor((size - headerBytes) / (FRAME_MARKER.length + 1 + layout.frameBytes)) };
  } finally {
    await handle.close();
  }
}

/**
 * The luma plane of frame `index` of a .y4m file (frame parameters unsupported: each frame header is "FRAME\n").
 * @param {import('node:fs/promises').FileHandle} handle @param {Y4mLayout} layout @param {number} index
 */
export async function readLuma(handle, layout, index) {
  const luma = Buffer.alloc(layout.width * layout.height);
  const offset = layout.headerBytes + index * (FRAME_MARKER.length + 1 + layout.frameBytes) + FRAME_MARKER.length + 1;
  const { bytesRead } = await handle.read(luma, 0, luma.length, offset);
  if (bytesRead !== luma.length) throw new RangeError(`frame ${index} is beyond the end of the file`);
  return luma;
}

/**
 * Whether a .y4m file's first frame carries a readable frame code.
 * @param {string} file
 */
export async function hasFrameCode(file) {
  const layout = await readY4mLayout(file);
  if (layout.frames < 1 || layout.width < CODE_BITS) return false;
  const handle = await open(file, 'r');
  try {
    return readFrameCode(await readLuma(handle, layout, 0), layout.width, codeStripHeight(layout.height)) !== null;
  } finally {
    await handle.close();
  }
}

/**
 * Copies a .y4m stream, stamping each frame's index (from 0) as its frame code and greying the code strip's chroma,
 * so the strip is the same grey in every colour conversion.
 * @param {AsyncIterable<Buffer>} source @param {import('node:stream').Writable} sink @param {string} name for errors
 * @returns {Promise<{ width: number, height: number, fps: number, frames: number }>}
 */
export async function markY4mStream(source, sink, name) {
  /** @type {Buffer[]} */
  let pending = [];
  let pendingBytes = 0;
  /** Takes `bytes` bytes off the front of what arrived, or null if fewer arrived so far. @param {number} bytes */
  const take = (bytes) => {
    if (pendingBytes < bytes) return null;
    const all = pending.length === 1 ? pending[0] : Buffer.concat(pending, pendingBytes);
    const rest = all.subarray(bytes);
    pending = rest.length ? [rest] : [];
    pendingBytes = rest.length;
    return all.subarray(0, bytes);
  };
  /** @param {Buffer} buffer */
  const write = async (buffer) => {
    if (!sink.write(buffer)) await once(sink, 'drain');
  };
  /** @type {ReturnType<typeof parseY4mHeader> | null} */
  let layout = null;
  let frames = 0;
  for await (const chunk of source) {
    pending.push(chunk);
    pendingBytes += chunk.length;
    if (!layout) {
      const all = Buffer.concat(pending, pendingBytes);
      const end = all.indexOf(0x0a);
      if (end < 0) {
        if (pendingBytes > MAX_HEADER_BYTES) throw new InputError(`${name}: no .y4m header line in the first ${MAX_HEADER_BYTES} bytes`);
        continue;
      }
      layout = parseY4mHeader(all.subarray(0, end).toString('latin1'), name);
      take(end + 1);
      await write(all.subarray(0, end + 1));
    }
    const { width, height, frameBytes } = layout;
    for (;;) {
      const frame = take(FRAME_MARKER.length + 1 + frameBytes);
      if (!frame) break;
      if (!frame.subarray(0, FRAME_MARKER.length).equals(FRAME_MARKER) || frame[FRAME_MARKER.length] !== 0x0a) {
        throw new InputError(`${name}: frame ${frames} does not start with "FRAME\\n" (frame parameters are not supported); rewrite it with ffmpeg -i ${name} -pix_fmt yuv420p -f yuv4mpegpipe out.y4m`);
      }
      // Codes must not repeat within the loop: a frame's code is its index.
      if (frames === CODE_MODULUS) throw new InputError(`${name}: over ${CODE_MODULUS} frames, more than the frame code can number; cut it shorter`);
      const planes = frame.subarray(FRAME_MARKER.length + 1);
      stampFrameCode(planes, width, height, frames);
      const chromaWidth = Math.ceil(width / 2);
      const chromaRows = codeStripHeight(height) / 2;
      const chromaPlane = chromaWidth * Math.ceil(height / 2);
      planes.fill(NEUTRAL_CHROMA, width * height, width * height + chromaRows * chromaWidth);
      planes.fill(NEUTRAL_CHROMA, width * height + chromaPlane, width * height + chromaPlane + chromaRows * chromaWidth);
      await write(frame);
      frames += 1;
    }
  }
  if (!layout) throw new InputError(`${name}: empty, or not a .y4m file`);
  if (pendingBytes) throw new InputError(`${name}: ends inside frame ${frames} (${pendingBytes} bytes left over); the file is truncated`);
  return { width: layout.width, height: layout.height, fps: layout.fps, frames };
}
