import { execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const CLI = fileURLToPath(new URL('../../orchestrator/bin/cli.js', import.meta.url));

export const tempDir = (prefix = 'wtb-test-') => mkdtempSync(path.join(os.tmpdir(), prefix));

/**
 * Runs the CLI as a user would. `onOutput(text, child)` sees stdout+stderr as they arrive (e.g. to send SIGINT); `wrap`
 * is a command that execs the CLI (`ip netns exec <ns>`: the child's pid is then the CLI's).
 * @param {string[]} args
 * @param {{ onOutput?: (text: string, child: import('node:child_process').ChildProcess) => void, timeoutMs?: number,
 *   env?: Record<string, string>, wrap?: string[] }} [options]
 * @returns {Promise<{ code: number|null, signal: string|null, stdout: string, stderr: string }>}
 */
export function runCli(args, { onOutput, timeoutMs = 240_000, env = {}, wrap = [] } = {}) {
  return new Promise((resolve, reject) => {
    const argv = [...wrap, process.execPath, CLI, ...args];
    const child = spawn(argv[0], argv.slice(1), { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`CLI ${args.join(' ')} ran over ${timeoutMs} ms\n${stderr}`)); }, timeoutMs);
    child.stdout.on('data', (chunk) => { stdout += chunk; onOutput?.(stdout + stderr, child); });
    child.stderr.on('data', (chunk) => { stderr += chunk; onOutput?.(stdout + stderr, child); });
    child.on('exit', (code, signal) => { clearTimeout(timer); resolve({ code, signal, stdout, stderr }); });
  });
}

/**
 * Runs a scenario into a fresh directory with the small video preset (unless extraArgs give --video); returns result.json.
 * @param {string} name @param {string[]} [extraArgs] @param {Record<string, string>} [env]  added to the CLI's environment
 */
export async function runScenarioCli(name, extraArgs = [], env = {}) {
  const out = tempDir(`wtb-${path.basename(name, ".json")}-`);
  const video = extraArgs.includes('--video') ? [] : ['--video', '360p30'];
  const run = await runCli(['scenario', name, ...video, '--out', out, ...extraArgs], { env });
  let result = null;
  try {
    result = JSON.parse(readFileSync(path.join(out, 'result.json'), 'utf8'));
  } catch {
    // left null: the assertion on the exit code below reports the CLI's output
  }
  return { ...run, out, result };
}

/** A unique environment variable for a CLI run: every descendant (browsers, renderers, relay) inherits it. */
export function runTag() {
  const name = 'WTB_TEST_RUN';
  const value = randomUUID();
  return { env: { [name]: value }, tag: `${name}=${value}` };
}

/** Live processes whose environment carries the tag of runTag(). Linux (/proc). */
export const processesTagged = (tag) => pidsWhose('environ', tag);

/** Live processes whose command line mentions `text` (an SFU's names its run folder's configuration). @param {string} text */
export const pidsMentioning = (text) => pidsWhose('cmdline', text);

/** @param {'environ'|'cmdline'} file @param {string} text */
const pidsWhose = (file, text) => readdirSync('/proc').filter((pid) => /^\d+$/.test(pid)).filter((pid) => {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'latin1').includes(text);
  } catch {
    return false; // exited meanwhile, or not ours to read
  }
});

/** The harness's network namespaces alive now (netem's, named wtb-…). */
export const harnessNamespaces = () => execFileSync('ip', ['netns', 'list'], { encoding: 'utf8' }).split('\n').filter((line) => line.startsWith('wtb-'));

/** Live turnserver processes started for a run folder (their command line names its configuration). @param {string} out */
export const turnserversOf = (out) => pidsMentioning(out).filter((pid) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').some((arg) => arg.endsWith('turnserver'));
  } catch {
    return false; // exited meanwhile
  }
});
