// coturn's load once a second (lib/devices/turn-load.js): its process's /proc stat and status, and through
// /proc/<pid>/net its namespace's interface counters and UDP sockets. Each file is read bounded; a failed reading is a
// gap in the rows, not a failed run (the pages' view is the measurement).
import { open } from 'node:fs/promises';
import path from 'node:path';
import { parseStat, parseStatusRssKb } from '../lib/devices/proc-stat.js';
import { parseNetDev, relaySocketCount, turnLoadRow } from '../lib/devices/turn-load.js';
import { readEvery } from './interval-reader.js';
import { clockTicksPerSecond } from './process-sampler.js';

/** More than any of these files holds for one process in a namespace of its own. */
const MAX_PROC_FILE_BYTES = 256 * 1024;

/**
 * @typedef {object} TurnLoadSampler
 * @property {import('../lib/devices/turn-load.js').TurnLoadRow[]} rows
 * @property {string|null} unavailable  why there are no rows, else null
 * @property {() => Promise<void>} stop  stops the timer after any reading in progress
 */

/**
 * @param {object} options
 * @param {number} options.pid  turnserver's (in its namespace)
 * @param {{ minPort: number, maxPort: number, exclude: number[] }} options.relayPorts  its relay range; exclude: its listeners
 * @param {string} [options.procDir]
 * @param {number} [options.intervalMs]
 * @returns {TurnLoadSampler}
 */
export function startTurnLoadSampler({ pid, relayPorts, procDir = '/proc', intervalMs = 1_000 }) {
  /** @type {import('../lib/devices/turn-load.js').TurnLoadRow[]} */
  const rows = [];
  const ticksPerS = clockTicksPerSecond();
  /** @type {import('../lib/devices/turn-load.js').TurnReading|null} */
  let previous = null;
  /** @type {string|null} */
  let lastFailure = null;
  const dir = path.join(procDir, String(pid));

  const reader = readEvery(() => readTurn(dir, pid, relayPorts).then((reading) => {
    const row = previous && turnLoadRow(previous, reading, ticksPerS);
    if (row) rows.push(row);
    previous = reading;
  }, (error) => {
    lastFailure = error.message;
  }), intervalMs);
  return {
    rows,
    get unavailable() {
      if (rows.length) return null;
      return lastFailure ? `reading coturn's /proc files failed: ${lastFailure}` : 'no second of coturn was read';
    },
    stop: reader.stop,
  };
}

/**
 * @param {string} dir  /proc/<pid> @param {number} pid @param {{ minPort: number, maxPort: number, exclude: number[] }} relayPorts
 * @returns {Promise<import('../lib/devices/turn-load.js').TurnReading>}
 */
async function readTurn(dir, pid, relayPorts) {
  const [stat, status, dev, udp] = await Promise.all(['stat', 'status', 'net/dev', 'net/udp'].map((name) => readHead(path.join(dir, name))));
  const parsed = parseStat(stat);
  if (parsed.pid !== pid) throw new Error(`${dir}/stat names pid ${parsed.pid}`);
  return {
    epochMs: Date.now(),
    proc: { atMs: Date.now(), processes: new Map([[pid, { ...parsed, rssKb: parseStatusRssKb(status) }]]) },
    link: parseNetDev(dev),
    allocations: relaySocketCount(udp, relayPorts),
  };
}

/** The first MAX_PROC_FILE_BYTES of a file (/proc files have no size to check first). @param {string} file */
async function readHead(file) {
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.alloc(MAX_PROC_FILE_BYTES);
    let length = 0;
    // A seq_file may hand over a page per read.
    for (let bytesRead = -1; bytesRead !== 0 && length < buffer.length;) {
      ({ bytesRead } = await handle.read(buffer, length, buffer.length - length, null));
      length += bytesRead;
    }
    return buffer.subarray(0, length).toString('latin1');
  } finally {
    await handle.close();
  }
}
