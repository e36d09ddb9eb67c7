import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { onCleanup, runCleanup } from '../../orchestrator/lib/system/shutdown.js';

const SHUTDOWN = new URL('../../orchestrator/lib/system/shutdown.js', import.meta.url).href;

test('a closer that hangs is given up after its time limit and the others still run, last registered first', async () => {
  const ran = [];
  onCleanup('first', () => { ran.push('first'); });
  onCleanup('hangs', () => new Promise(() => {}), { timeoutMs: 100 });
  onCleanup('throws', () => { ran.push('throws'); throw new Error('boom'); });
  const logged = [];
  const startedMs = Date.now();
  await runCleanup((line) => logged.push(line));
  assert.deepEqual(ran, ['throws', 'first']);
  assert.ok(Date.now() - startedMs < 2000);
  assert.deepEqual(logged, ['cleanup: throws: boom', 'cleanup: hangs: hangs: did not finish within 0.1 s; moved on']);
});

test('a release runs its closer once, with the time limit, and unregisters it', async () => {
  let runs = 0;
  const release = onCleanup('once', () => { runs += 1; });
  await release();
  await release();
  await runCleanup();
  assert.equal(runs, 1);
  await assert.rejects(onCleanup('hangs', () => new Promise(() => {}), { timeoutMs: 50 })(), /did not finish within 0\.05 s/);
});

/** A child process with the real handlers whose closer hangs; returns its output and exit code after `signals` SIGINTs. */
function interruptChild(signals) {
  const code = `
    import { installProcessHandlers, onCleanup, onInterrupt } from ${JSON.stringify(SHUTDOWN)};
    installProcessHandlers();
    onCleanup('hangs', () => new Promise(() => {}), { timeoutMs: 60_000, closeNow: () => console.log('closeNow ran') });
    onInterrupt(() => console.log('interrupted'));
    console.log('ready');
    setInterval(() => {}, 1000);
  `;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let sent = false;
    const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (out.includes('ready') && !sent) {
        sent = true;
        for (let i = 0; i < signals; i += 1) setTimeout(() => child.kill('SIGINT'), 100 * (i + 1));
      }
    });
    child.stderr.on('data', (chunk) => { out += chunk; });
    child.on('exit', (code, signal) => { clearTimeout(kill); resolve({ code, signal, out }); });
  });
}

test('a third Ctrl-C exits at once after the synchronous best-effort teardown, even while a closer hangs', async () => {
  const { code, out } = await interruptChild(3);
  assert.equal(code, 130, out);
  assert.match(out, /interrupted/);
  assert.match(out, /SIGINT again: cleaning up/);
  assert.match(out, /closeNow ran/);
});
