// `serve` as an attacker would try it: symlinks out of the results directory, a foreign Host header (DNS
// rebinding), broken URL encoding. Real server, real HTTP.
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startServer } from '../orchestrator/commands/serve-server.js';
import { writeResult } from './fixtures/results/make-result.js';
import { tempDir } from './helpers/cli.js';

let root;
let server;
let port;
before(async () => {
  root = tempDir('wtb-serve-');
  const runDir = path.join(root, 'latency-500', 'run-a');
  mkdirSync(runDir, { recursive: true });
  await writeResult('static', runDir);
  const outside = tempDir('wtb-outside-');
  writeFileSync(path.join(outside, 'secret.txt'), 'do not serve me');
  symlinkSync(outside, path.join(root, 'etc'));
  symlinkSync(path.join(outside, 'secret.txt'), path.join(runDir, 'secret.txt'));
  // A run outside the results directory, reached through a symlinked run directory and a symlinked result.json.
  const outsideRun = path.join(outside, 'outside-scenario', 'run-x');
  mkdirSync(outsideRun, { recursive: true });
  await writeResult('scheduled', outsideRun);
  symlinkSync(path.join(outside, 'outside-scenario'), path.join(root, 'linked-scenario'));
  mkdirSync(path.join(root, 'linked-result', 'run-y'), { recursive: true });
  symlinkSync(path.join(outsideRun, 'result.json'), path.join(root, 'linked-result', 'run-y', 'result.json'));
  const broken = path.join(root, 'broken', 'run-b');
  mkdirSync(broken, { recursive: true });
  writeFileSync(path.join(broken, 'result.json'), '{"schemaVersion": 1,');
  server = await startServer({ dir: root, port: 0 });
  port = Number(new URL(server.url).port);
});
after(() => server?.close());

/** A raw GET: fetch() would normalise the path and set Host itself. */
function get(rawPath, host = `127.0.0.1:${port}`) {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: rawPath, headers: { host } }, (res) => {
      let body = '';
      res.on('data', (chunk) => { body += chunk; });
      res.on('end', () => resolve({ status: res.statusCode, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('serve: the index and a run report are served (rendered on the fly when the run has none)', async () => {
  const index = await get('/');
  assert.equal(index.status, 200);
  assert.match(index.body, /latency-500/);
  const report = await get('/latency-500/run-a/report.html');
  assert.equal(report.status, 200);
  assert.match(report.body, /<html/);
  assert.equal((await get('/latency-500/run-a/result.json', `localhost:${port}`)).status, 200);
});

test('serve: no run outside the results directory is listed or rendered, through a symlinked run directory or result.json', async () => {
  const index = await get('/');
  assert.doesNotMatch(index.body, /outside-scenario|changing-bandwidth|linked-/);
  for (const rawPath of ['/linked-scenario/run-x/report.html', '/linked-result/run-y/report.html', '/linked-result/run-y/result.json']) {
    assert.equal((await get(rawPath)).status, 404, rawPath);
  }
});

test('serve: an unreadable result names its file relative to the results directory, never by an absolute path', async () => {
  const page = await get('/broken/run-b/report.html');
  assert.equal(page.status, 422);
  assert.match(page.body, /broken\/run-b\/result\.json/);
  const index = await get('/');
  assert.match(index.body, /broken\/run-b\/result\.json is truncated/);
  for (const { body } of [page, index]) {
    assert.ok(!body.includes(root), 'no absolute path of the results directory');
    assert.doesNotMatch(body, /\/tmp\/|\/work\//);
  }
});

test('serve: no file outside the results directory, through a symlinked directory or file', async () => {
  for (const rawPath of ['/etc/secret.txt', '/latency-500/run-a/secret.txt', '/../../../../etc/passwd', '/%2e%2e/%2e%2e/etc/passwd']) {
    const { status, body } = await get(rawPath);
    assert.equal(status, 404, rawPath);
    assert.doesNotMatch(body, /do not serve me|root:/, rawPath);
  }
});

test('serve: a foreign Host header (DNS rebinding) is refused', async () => {
  for (const host of ['evil.example', `evil.example:${port}`, '127.0.0.1:1', `10.0.0.1:${port}`, `[::1]:${port}`, '127.0.0.1', `127.0.0.1.evil.example:${port}`]) {
    assert.equal((await get('/', host)).status, 403, host);
  }
  // HTTP/1.0 needs no Host header: a request without one is refused too.
  const reply = await new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end('GET / HTTP/1.0\r\n\r\n'));
    let text = '';
    socket.on('data', (chunk) => { text += chunk; });
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
  });
  assert.match(reply, /^HTTP\/1\.\d 403/);
});

test('serve: bad URL encoding gets a 400 with no stack trace or absolute path', async () => {
  for (const rawPath of ['/%E0%A4%A', '/latency-500/%zz/report.html', '/a%00b']) {
    const { status, body } = await get(rawPath);
    assert.equal(status, 400, rawPath);
    assert.doesNotMatch(body, /at |\/work\/|\/tmp\//, rawPath);
  }
});
