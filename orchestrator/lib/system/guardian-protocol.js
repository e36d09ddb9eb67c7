/**
 * The protocol between the orchestrator and a guardian: a process of its own that cleans up what a run left in the
 * kernel when the orchestrator dies without doing it (SIGKILL included). The orchestrator keeps the guardian's stdin
 * open and writes lines: `pid <n> <start ticks>` for a process the guardian is to kill, `forget <n>` once that process
 * has exited, `done` once it has cleaned up itself. Stdin closing without `done` means the orchestrator is gone.
 * A pid is told with its start time (/proc/<pid>/stat): pids are reused (pid_max is often 32768), and a guardian kills
 * only a process that still has the start time it was told.
 *
 * Orchestrator side: `startGuardian(script, args)`; guardian side (the script): `guardOrchestrator(...)`, `killOwned(...)`.
 */
import { execFileSync, spawn } from 'node:child_process';
import { appendFileSync, rmSync } from 'node:fs';
import { startTicks } from './owners.js';
import { errorMessage, errorStack, errorProperty } from './errors.js';

/**
 * @typedef {object} Guardian
 * @property {(pid: number) => void} own  the guardian is to kill this live child if the orchestrator dies
 * @property {(pid: number) => void} forget  the child exited (reaped): its pid is no longer the run's
 * @property {() => void} finish  tells the guardian the run is cleaned up (`done`) and closes its stdin
 *
 * @typedef {{ pid: number, startTicks: number }} OwnedProcess
 */

/**
 * Starts `node <scriptPath> <args>` in a session of its own (the terminal's Ctrl-C is not its to handle); neither it
 * nor its stdin keeps this process alive.
 * @param {string} scriptPath @param {string[]} args
 * @returns {Guardian}
 */
export function startGuardian(scriptPath, args) {
  const child = spawn(process.execPath, [scriptPath, ...args], { stdio: ['pipe', 'ignore', 'ignore'], detached: true });
  const { stdin } = child;
  // A guardian that died has nothing left to hear.
  stdin.on('error', () => {});
  child.unref();
  // any: unref exists on a pipe's socket but not on the Writable type
  /** @type {any} */ (stdin).unref?.();
  const tell = (/** @type {string} */ line) => { if (stdin.writable) stdin.write(`${line}\n`); };
  return {
    own(pid) {
      // Read before the child can be reaped (Node reaps on a later turn of the loop); null: nothing left to kill.
      const ticks = startTicks(pid);
      if (ticks !== null) tell(`pid ${pid} ${ticks}`);
    },
    forget(pid) { tell(`forget ${pid}`); },
    finish() { if (stdin.writable) stdin.end('done\n'); },
  };
}

/**
 * What the orchestrator told, from the text it wrote: only whole lines count (a line cut off by its death does not).
 * @param {string} text
 * @returns {{ processes: OwnedProcess[], done: boolean }}  processes: told and not forgotten since, in the order told
 */
export function parseGuardianInput(text) {
  const lines = text.split('\n').slice(0, -1).map((line) => line.trim());
  /** @type {Map<number, number>} pid → start ticks */
  const owned = new Map();
  for (const line of lines) {
    const told = /^pid ([1-9]\d*) (\d+)$/.exec(line);
    const forgotten = /^forget ([1-9]\d*)$/.exec(line);
    if (told) owned.set(Number(told[1]), Number(told[2]));
    if (forgotten) owned.delete(Number(forgotten[1]));
  }
  return { processes: [...owned].map(([pid, ticks]) => ({ pid, startTicks: ticks })), done: lines.includes('done') };
}

/**
 * Kills the processes told that are still the ones told: a pid whose process has another start time now belongs to
 * someone else and is left alone. Every kill and every skip is logged.
 * @param {OwnedProcess[]} processes @param {(line: string) => void} log
 */
export function killOwned(processes, log) {
  for (const { pid, startTicks: told } of processes) {
    const now = startTicks(pid);
    if (now === null) continue;
    if (now !== told) {
      log(`skipped: kill -KILL ${pid}: pid ${pid} is another process now (started at tick ${now}, the run's at ${told})`);
      continue;
    }
    try {
      process.kill(pid, 'SIGKILL');
      log(`ok: kill -KILL ${pid}`);
    } catch (error) {
      log(`failed: kill -KILL ${pid}: ${errorMessage(error)}`);
    }
  }
}

/**
 * A guardian's log: one line per action, with its time.
 * @param {string} logFile @returns {(line: string) => void}
 */
export const guardianLog = (logFile) => (line) => {
  try { appendFileSync(logFile, `${new Date().toISOString()} ${line}\n`); } catch { /* the run folder is gone */ }
};

/**
 * A guardian's command runner: runs an argument list (no shell), time-limited, and logs it as `ok: <command>` or
 * `failed: <command>: <stderr>`; never throws.
 * @param {(line: string) => void} log
 * @returns {(argv: string[]) => { ok: boolean, stdout: string, stderr: string }}
 */
export const guardianRunner = (log) => (argv) => {
  try {
    const stdout = execFileSync(argv[0], argv.slice(1), { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 10_000 });
    log(`ok: ${argv.join(' ')}`);
    return { ok: true, stdout, stderr: '' };
  } catch (error) {
    const stderr = String(errorProperty(error, 'stderr') || errorMessage(error)).trim();
    log(`failed: ${argv.join(' ')}: ${stderr}`);
    return { ok: false, stdout: '', stderr };
  }
};

/**
 * The guardian's side: ignores the terminal's signals, reads the orchestrator's lines and, when its stdin closes
 * without `done`, runs `onOrphaned` with the processes told (and not forgotten), removes the run's owner file and exits 0.
 * @param {{ log: (line: string) => void, ownerFile: string,
 *   onOrphaned: (told: { processes: OwnedProcess[] }) => Promise<void>|void }} options
 *   ownerFile: removed after the clean-up, so that `cleanup` does not find the run stale (lib/system/owners.js)
 */
export function guardOrchestrator({ log, ownerFile, onOrphaned }) {
  // The terminal's Ctrl-C and hang-up are the orchestrator's to handle; a guardian only reacts to its stdin closing.
  for (const signal of ['SIGINT', 'SIGHUP', 'SIGTERM']) process.on(signal, () => {});
  let told = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk) => { told += chunk; });
  process.stdin.on('error', () => {});
  process.stdin.on('close', async () => {
    const { processes, done } = parseGuardianInput(told);
    if (done) process.exit(0);
    try {
      await onOrphaned({ processes });
    } catch (error) {
      log(`failed: ${errorStack(error)}`);
    }
    rmSync(ownerFile, { force: true });
    process.exit(0);
  });
}
