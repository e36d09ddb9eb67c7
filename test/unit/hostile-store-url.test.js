// The results store's PostgreSQL password as an attacker reading the harness's output would look for it: in
// `--help`, usage errors, error messages and the summary.json the nightly uploads as an artifact (no browser: the
// store is unreachable, loopback port 9, and the suite is a synthetic one).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { redact } from '../../orchestrator/history/store-postgres.js';
import { runCli, tempDir } from '../helpers/cli.js';
import { fakeResult, writeFakeSuiteDir } from '../fixtures/suites/make-suite-result.js';

// Every piece of the password is distinctive, so a leak of any part of it (raw or percent-decoded) shows.
const PIECES = ['Wv3q', 'Tn5q', 'Ry8q', 'Hb2q'];
const PASSWORDS = [
  'Wv3q/Tn5q', // a slash: the authority is not cut at the first "/"
  'Wv3q@Tn5q:Ry8q/Hb2q', // "@", ":" and "/" unencoded: the user info ends at the last "@"
  'Wv3q%2FTn5q%40Ry8q%3AHb2q', // the same percent-encoded, as pg expects it
  'Wv3q:Tn5q?Ry8q#Hb2q', // "?" and "#" unencoded
];
const URLS = PASSWORDS.map((password) => `postgres://wtb:${password}@127.0.0.1:9/nights`);

/** @param {string} text */
const leaked = (text) => PIECES.filter((piece) => text.includes(piece));

test('redact() hides a password with "/", "@", ":", "?" or "#", raw or percent-encoded, and a password= parameter', () => {
  for (const url of URLS) assert.equal(redact(url), 'postgres://wtb:***@127.0.0.1:9/nights', url);
  assert.equal(redact('postgresql://wtb:Wv3q/Tn5q@db.example:5432/nights?sslmode=require'), 'postgresql://wtb:***@db.example:5432/nights?sslmode=require');
  assert.equal(redact('postgres://wtb@127.0.0.1/nights?password=Wv3q/Tn5q&sslmode=require'), 'postgres://wtb@127.0.0.1/nights?password=***&sslmode=require');
  assert.equal(redact('postgres://wtb@127.0.0.1/nights?application_name=a&sslpassword=Wv3q'), 'postgres://wtb@127.0.0.1/nights?application_name=a&sslpassword=***');
  // Without a password there is nothing to hide: the URL is shown as given.
  assert.equal(redact('postgres://wtb@127.0.0.1:5432/nights'), 'postgres://wtb@127.0.0.1:5432/nights');
  assert.equal(redact('postgres://127.0.0.1/nights'), 'postgres://127.0.0.1/nights');
  for (const url of URLS) assert.deepEqual(leaked(redact(url)), [], url);
});

test('$HISTORY_STORE\'s password is not in --help nor in a usage error of any command with a store', async () => {
  const runs = [
    ['history', 'report', '--help'], ['history', 'import', '--help'], ['history', 'export', '--help'], ['history', 'drift', '--help'],
    ['history', 'baseline', '--help'], ['serve', '--help'], ['suite', '--help'], ['merge', '--help'],
    ['history', 'report', '--no-such-flag'], ['history', 'import'], ['history', 'baseline'],
  ];
  // The password with every special character: a default would be printed whole, whatever it holds.
  const url = URLS[1];
  await Promise.all(runs.map(async (args) => {
    const run = await runCli(args, { env: { HISTORY_STORE: url } });
    assert.ok(run.stdout.length + run.stderr.length > 100, `${args.join(' ')} printed its usage`);
    assert.deepEqual(leaked(run.stdout + run.stderr), [], `${args.join(' ')} with HISTORY_STORE=${url}:\n${run.stdout}${run.stderr}`);
  }));
});

/** Every file under dir, as text. @param {string} dir */
const filesUnder = (dir) => readdirSync(dir, { recursive: true, withFileTypes: true })
  .filter((entry) => entry.isFile()).map((entry) => readFileSync(path.join(entry.parentPath, entry.name), 'utf8'));

test('a store URL\'s password reaches no message and no file a merge or suite writes (summary.json is uploaded by the nightly)', async () => {
  const shard = path.join(tempDir('wtb-store-url-'), 'shard-1');
  await writeFakeSuiteDir(shard, { runs: [1, 2].map((seed) => ({ scenario: 'unconstrained', result: fakeResult({ seed }) })) });
  for (const url of URLS) {
    const env = { HISTORY_STORE: url, GITHUB_STEP_SUMMARY: '', GITHUB_ACTIONS: '' };
    // The nightly's way: --history without a value takes the store from $HISTORY_STORE, never from argv.
    const out = path.join(tempDir('wtb-store-url-'), 'merged');
    const merge = await runCli(['merge', shard, '--out', out, '--history'], { env });
    assert.equal(merge.code, 0, `${merge.stdout}${merge.stderr}`);
    const summary = JSON.parse(readFileSync(path.join(out, 'summary.json'), 'utf8'));
    assert.match(summary.warnings.join('\n'), /results store postgres:\/\/wtb:\*\*\*@127\.0\.0\.1:9\/nights: this suite was not stored/);
    assert.deepEqual(leaked([merge.stdout, merge.stderr, ...filesUnder(out)].join('\n')), [], url);
    // Given on argv (a local run), the password is hidden just the same.
    const argvOut = path.join(tempDir('wtb-store-url-'), 'merged');
    const onArgv = await runCli(['merge', shard, '--out', argvOut, '--history', url], { env: { GITHUB_STEP_SUMMARY: '' } });
    assert.equal(onArgv.code, 0, `${onArgv.stdout}${onArgv.stderr}`);
    assert.deepEqual(leaked([onArgv.stdout, onArgv.stderr, ...filesUnder(argvOut)].join('\n')), [], url);

    for (const args of [['suite', 'smoke', '--history'], ['history', 'report', '--out', path.join(out, 'trends.html')], ['serve', '--port', '0', '--store']]) {
      const run = await runCli(args, { env, timeoutMs: 30_000 });
      assert.equal(run.code, 3, `${args.join(' ')}: the store cannot be opened\n${run.stdout}${run.stderr}`);
      assert.match(run.stderr, /postgres:\/\/wtb:\*\*\*@127\.0\.0\.1:9\/nights/);
      assert.deepEqual(leaked(run.stdout + run.stderr), [], `${args.join(' ')} with HISTORY_STORE=${url}`);
    }
  }
});
