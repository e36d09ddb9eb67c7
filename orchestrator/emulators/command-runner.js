/**
 * The one place the kernel emulators' (netem, dummynet) system commands run. Each run is logged as
 * { atS, cmd, ok, stderr } for result.json `network.commands`.
 */
import { execFile } from 'node:child_process';
import { HarnessError } from '../lib/system/errors.js';
import { shellJoin } from './script.js';

/** A command that hangs (a wedged netlink socket) must not hang the run. */
const COMMAND_TIMEOUT_MS = 20_000;

/**
 * @typedef {{atS: number, cmd: string, ok: boolean, stderr?: string}} CommandRecord
 * @typedef {{ok: boolean, stdout: string, stderr: string}} CommandResult
 * @typedef {(argv: string[], options?: {allowFailure?: boolean, record?: boolean}) => Promise<CommandResult>} RunCommand
 * @typedef {(argv: string[]) => (ok: boolean, stderr?: string) => void} BeginCommand  logs a long-lived process another
 *   module spawned: call it at the start, and what it returns when the process ended
 */

/**
 * @param {{clock?: () => number, exec?: (argv: string[]) => Promise<CommandResult>}} [options]
 *   clock: seconds on the run's clock for atS (default: since the runner was made);
 *   exec: replaces process spawning (tests)
 * @returns {{run: RunCommand, begin: BeginCommand, commands: CommandRecord[]}}
 */
export function createCommandRunner({ clock, exec = execArgv } = {}) {
  const originMs = Date.now();
  const now = clock ?? (() => (Date.now() - originMs) / 1000);
  /** @type {CommandRecord[]} */
  const commands = [];
  /** @type {RunCommand} */
  async function run(argv, { allowFailure = false, record = true } = {}) {
    const atS = Number(now().toFixed(3));
    const result = await exec(argv);
    const stderr = result.stderr.trim();
    // Stats reads (record: false) run every second; logging them would swamp result.json.
    if (record) commands.push({ atS, cmd: shellJoin(argv), ok: result.ok, ...(stderr ? { stderr } : {}) });
    if (!result.ok && !allowFailure) {
      throw new HarnessError(`\`${shellJoin(argv)}\` failed: ${stderr || 'no error output'}`);
    }
    return result;
  }
  /** @type {BeginCommand} */
  function begin(argv) {
    const atS = Number(now().toFixed(3));
    return (ok, stderr = '') => { commands.push({ atS, cmd: shellJoin(argv), ok, ...(stderr ? { stderr } : {}) }); };
  }
  return { run, begin, commands };
}

/**
 * @param {string[]} argv
 * @returns {Promise<CommandResult>}
 */
function execArgv([file, ...args]) {
  return new Promise((resolve) => {
    const child = execFile(file, args, { timeout: COMMAND_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      running.delete(child);
      const spawnProblem = error && typeof error.code === 'string' ? `${file}: ${error.message}\n` : '';
      resolve({ ok: !error, stdout: String(stdout), stderr: spawnProblem + String(stderr) });
    });
    running.add(child);
  });
}

/** @type {Set<import('node:child_process').ChildProcess>} */
const running = new Set();

/**
 * Kills the commands still running (a forced exit): an `ip netns add` finishing after the teardown would
 * otherwise leave its namespace behind.
 */
export function killRunningCommands() {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
}
