/**
 * Scheduling priority for timing-critical processes (the relay, the calibration probe). On a 2-core machine
 * shared with browsers, nice -10 still lets the relay's timers slip by 100 ms under load; SCHED_FIFO keeps
 * them within about 1 ms. The relay uses ~10 % of a core and never spins, so real-time priority starves
 * nobody, and the kernel's RT throttling (95 %) caps it anyway.
 * Only the main thread (tid = pid) is raised, with reset-on-fork: a Node process whose threads are all
 * real-time (as a child forked from a real-time thread would be) spins in its own waits, and two such
 * processes stalled each other for ~50 s in a trial. Children and new threads start at normal priority.
 */
import { execFile } from 'node:child_process';
import os from 'node:os';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);
const FIFO_PRIORITY = '10';
const FALLBACK_NICE = -10;

/** The command that raises pid's main thread, as run (and logged into the run's network.commands). @param {number} pid */
export const priorityCommand = (pid) => ['chrt', '--reset-on-fork', '--fifo', '--pid', FIFO_PRIORITY, String(pid)];

/**
 * Best effort: SCHED_FIFO (reset on fork) for the main thread of pid (chrt, needs CAP_SYS_NICE), else nice -10,
 * else unchanged.
 * @param {number} pid
 * @returns {Promise<'realtime'|'nice'|'normal'>}  what was achieved
 */
export async function raisePriority(pid) {
  try {
    const [file, ...args] = priorityCommand(pid);
    await execFileAsync(file, args);
    return 'realtime';
  } catch {
    // No chrt or not permitted: try nice.
  }
  try {
    os.setPriority(pid, FALLBACK_NICE);
    return 'nice';
  } catch {
    return 'normal';
  }
}
