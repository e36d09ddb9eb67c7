/**
 * The protocol between the orchestrator and a guardian: a process of its own that cleans up what a run left in the
 * kernel when the orchestrator dies without doing it (SIGKILL included). The orchestrator keeps the guardian's stdin
 * open and writes lines: `pid <n>` for a process the guardian is to kill, `done` once it has cleaned up itself. Stdin
 * closing without `done` means the orchestrator is gone.
 *
 * Orchestrator side: `startGuardian(script, args)`; guardian side (the script): `guardOrchestrator(...)`.
 */
import { spawn } from 'node:child_process';
import { appendFileSync, rmSync } from 'node:fs';

/**
 * @typedef {object} Guardian
 * @property {(line: string) => void} tell  writes a line to the guardian (nothing once its stdin is closed)
 * @property {() => void} finish  tells the guardian the run is cleaned up (`done`) and closes its stdin
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
  /** @type {any} */ (stdin).unref?.();
  return {
    tell(line) { if (stdin.writable) stdin.write(`${line}\n`); },
    finish() { if (stdin.writable) stdin.end('done\n'); },
  };
}

/**
 * What the orchestrator told, from the text it wrote: only whole lines count (a line cut off by its death does not).
 * @param {string} text
 * @returns {{ pids: number[], done: boolean }}
 */
export function parseGuardianInput(text) {
  const lines = text.split('\n').slice(0, -1).map((line) => line.trim());
  const pids = lines.map((line) => /^pid ([1-9]\d*)$/.exec(line)?.[1]).filter(Boolean).map(Number);
  return { pids: [...new Set(pids)], done: lines.includes('done') };
}

/**
 * A guardian's log: one line per action, with its time.
 * @param {string} logFile @returns {(line: string) => void}
 */
export const guardianLog = (logFile) => (line) => {
  try { appendFileSync(logFile, `${new Date().toISOString()} ${line}\n`); } catch { /* the run folder is gone */ }
};

/**
 * The guardian's side: ignores the terminal's signals, reads the orchestrator's lines and, when its stdin closes
 * without `done`, runs `onOrphaned` with the pids told, removes the run's owner file and exits 0.
 * @param {{ log: (line: string) => void, ownerFile: string, onOrphaned: (told: { pids: number[] }) => Promise<void>|void }} options
 *   ownerFile: removed after the clean-up, so that `cleanup` does not find the run stale (lib/owners.js)
 */
export function guardOrchestrator({ log, ownerFile, onOrphaned }) {
  // The terminal's Ctrl-C and hang-up are the orchestrator's to handle; a guardian only reacts to its stdin closing.
  for (const signal of ['SIGINT', 'SIGHUP', 'SIGTERM']) process.on(signal, () => {});
  let told = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk) => { told += chunk; });
  process.stdin.on('error', () => {});
  process.stdin.on('close', async () => {
    const { pids, done } = parseGuardianInput(told);
    if (done) process.exit(0);
    try {
      await onOrphaned({ pids });
    } catch (error) {
      log(`failed: ${error?.stack ?? error}`);
    }
    rmSync(ownerFile, { force: true });
    process.exit(0);
  });
}
