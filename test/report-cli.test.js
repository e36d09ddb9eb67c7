// The report, compare and serve commands as a user runs them.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { runCli } from './helpers/cli.js';
import { writeResult } from './fixtures/results/make-result.js';

let root;
const run = (scenario, stamp) => path.join(root, scenario, stamp);

before(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'wtb-report-cli-'));
  await writeResult('static', run('bandwidth-1500', 'a'));
  await writeResult('static', run('bandwidth-1500', 'b'), { seed: 9 });
  await writeResult('aborted', run('loss-10', 'a'));
  await mkdir(run('broken', 'a'), { recursive: true });
  await writeFile(path.join(run('broken', 'a'), 'result.json'), '{"schemaVersion": 1, "timeline": [{"t": 1, "peer"');
  await mkdir(run('broken', 'b'), { recursive: true });
  await writeFile(path.join(run('broken', 'b'), 'result.json'), '{"schemaVersion": 7}');
});

after(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

test('report <run-dir> writes report.html next to result.json and prints its path', async () => {
  const { code, stdout, stderr } = await runCli(['report', run('loss-10', 'a')]);
  assert.equal(code, 0, stderr);
  const file = path.join(run('loss-10', 'a'), 'report.html');
  assert.equal(stdout.trim(), file);
  const html = readFileSync(file, 'utf8');
  assert.match(html, /<h1>loss-10 <span class="status status-aborted">aborted<\/span><\/h1>/);
  assert.match(html, /Chart\.js v4/, 'Chart.js is inlined');
  assert.doesNotMatch(html, /<script[^>]+src=|<link[^>]+href=/, 'nothing is loaded from elsewhere');
});

test('report exits 2 naming the file for a truncated result.json, and for a missing directory', async () => {
  const broken = await runCli(['report', run('broken', 'a')]);
  assert.equal(broken.code, 2);
  assert.ok(broken.stderr.includes(path.join(run('broken', 'a'), 'result.json')), broken.stderr);
  assert.match(broken.stderr, /truncated/);
  const missing = await runCli(['report', path.join(root, 'nope')]);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /nope does not exist/);
});

test('compare writes the overlay to --out and refuses runs of different scenarios', async () => {
  const out = path.join(root, 'cmp.html');
  const ok = await runCli(['compare', run('bandwidth-1500', 'a'), run('bandwidth-1500', 'b'), '--out', out]);
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(ok.stdout.trim(), out);
  assert.match(readFileSync(out, 'utf8'), /2 runs/);
  const mixed = await runCli(['compare', run('bandwidth-1500', 'a'), run('loss-10', 'a')]);
  assert.equal(mixed.code, 2);
  assert.match(mixed.stderr, /bandwidth-1500, loss-10/);
  const one = await runCli(['compare', run('bandwidth-1500', 'a')]);
  assert.equal(one.code, 2);
  assert.match(one.stderr, /at least two/);
});

test('serve browses the results on 127.0.0.1 and stops cleanly on SIGINT', { timeout: 60_000 }, async () => {
  let checks;
  const result = await runCli(['serve', '--dir', root, '--port', '0'], {
    timeoutMs: 50_000,
    onOutput: (text, child) => {
      const url = /Serving .* at (http:\/\/127\.0\.0\.1:\d+\/)/.exec(text)?.[1];
      if (!url || checks) return;
      checks = (async () => {
        try {
          const index = await fetch(url);
          assert.equal(index.status, 200);
          const html = await index.text();
          for (const name of ['bandwidth-1500', 'loss-10', 'unreadable']) assert.ok(html.includes(name), name);
          // No report.html on disk for this run: rendered on request.
          assert.ok(!existsSync(path.join(run('bandwidth-1500', 'b'), 'report.html')));
          const report = await fetch(`${url}bandwidth-1500/b/report.html`);
          assert.equal(report.status, 200);
          assert.match(await report.text(), /<h1>bandwidth-1500/);
          const broken = await fetch(`${url}broken/b/report.html`);
          assert.equal(broken.status, 422);
          assert.match(await broken.text(), /schemaVersion 7/);
          const json = await fetch(`${url}loss-10/a/result.json`);
          assert.equal((await json.json()).scenario.name, 'loss-10');
          assert.equal((await fetch(`${url}..%2F..%2Fetc%2Fpasswd`)).status, 404);
        } finally {
          child.kill('SIGINT');
        }
      })();
    },
  });
  assert.ok(checks, `serve printed its URL: ${result.stdout}${result.stderr}`);
  await checks;
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.signal, null);
});

test('serve exits 2 for a results directory that does not exist', async () => {
  const { code, stderr } = await runCli(['serve', '--dir', path.join(root, 'missing'), '--port', '0']);
  assert.equal(code, 2);
  assert.match(stderr, /--dir .*missing is not a directory/);
});
