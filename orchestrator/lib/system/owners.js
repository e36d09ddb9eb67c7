/**
 * Owner files: which orchestrator process built what a run leaves in the kernel (netem's namespaces, kernel flows,
 * device cgroups), so that `cleanup` removes a dead run's leftovers and leaves a live run's alone. One file per key
 * (a short run id, or `<kind>-<short run id>`): `{ pid, startTicks }` of the orchestrator.
 */
import { existsSync, lstatSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EnvironmentError } from './errors.js';

/**
 * /run is writable by root only and emptied at boot, like the namespaces and cgroups the files describe; the temp
 * directory where there is no /run.
 */
const PARENT_DIR = existsSync('/run') ? '/run' : os.tmpdir();
const OWNER_DIR = path.join(PARENT_DIR, 'webrtc-testbed');
/** The directory's name before it held more than netem's files: runs started before the rename are still seen alive. */
const OLD_OWNER_DIR = path.join(PARENT_DIR, 'webrtc-testbed-netem');

/**
 * A process's start time in clock ticks since boot (/proc/<pid>/stat field 22): tells a reused PID apart.
 * @param {number} pid @returns {number|null}  null: no such process
 */
export function startTicks(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
  } catch {
    return null;
  }
}

/** @param {string} key @returns {string} the owner file of `key` (a guardian removes it) */
export const ownerFile = (key) => path.join(OWNER_DIR, key);

/**
 * Records this process as the owner of `key` before anything of it is built. Root writes here: a directory someone
 * else could write to could hold a symlink that turns the write onto any file.
 * @param {string} key @param {number} [pid]
 */
export function recordOwner(key, pid = process.pid) {
  mkdirSync(OWNER_DIR, { recursive: true, mode: 0o700 });
  const dir = lstatSync(OWNER_DIR);
  if (!dir.isDirectory() || dir.uid !== process.getuid?.() || (dir.mode & 0o022) !== 0) {
    throw new EnvironmentError(`${OWNER_DIR} is not a directory only this user can write; remove it and retry`);
  }
  writeFileSync(ownerFile(key), JSON.stringify({ pid, startTicks: startTicks(pid) }), { mode: 0o600 });
}

/** @param {string} key */
export function releaseOwner(key) {
  rmSync(ownerFile(key), { force: true });
}

/** @param {string} key @returns {boolean} whether the orchestrator that owns `key` still runs (no owner file: it does not) */
export function ownerAlive(key) {
  for (const dir of [OWNER_DIR, OLD_OWNER_DIR]) {
    let owner;
    try {
      owner = JSON.parse(readFileSync(path.join(dir, key), 'utf8'));
    } catch {
      continue;
    }
    return Number.isInteger(owner?.pid) && startTicks(owner.pid) !== null && startTicks(owner.pid) === owner.startTicks;
  }
  return false;
}
