import assert from 'node:assert/strict';
import { lstatSync, mkdtempSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { EnvironmentError, InputError } from '../../orchestrator/lib/system/errors.js';
import { defaultRunDir, prepareRunDir, writeResultFile } from '../../orchestrator/run/output.js';

const temp = () => mkdtempSync(path.join(os.tmpdir(), 'wtb-output-'));

test('an --out that cannot be a directory fails before anything runs, naming the flag (exit code 2)', async () => {
  const file = path.join(temp(), 'a-file');
  writeFileSync(file, 'x');
  await assert.rejects(prepareRunDir({ outDir: path.join(file, 'run'), scenarioName: 'x' }), (error) => {
    assert.ok(error instanceof InputError);
    assert.match(error.message, /--out .*a-file\/run: cannot create the directory \(ENOTDIR\)/);
    return true;
  });
});

test('an --out that already holds a result is refused unless --force', async () => {
  const dir = temp();
  writeFileSync(path.join(dir, 'result.json'), '{}');
  await assert.rejects(prepareRunDir({ outDir: dir, scenarioName: 'x' }), /already holds a result\.json: pass --force/);
  assert.equal(await prepareRunDir({ outDir: dir, scenarioName: 'x', force: true }), dir);
  assert.equal(readFileSync(path.join(dir, 'result.json'), 'utf8'), '{}', 'nothing is removed before the run writes');
});

test('two default runs of one scenario in the same second get different directories', async () => {
  const resultsRoot = temp();
  const now = new Date('2026-11-23T08:00:00.123Z');
  const first = await prepareRunDir({ scenarioName: 'latency-500', now, resultsRoot });
  const second = await prepareRunDir({ scenarioName: 'latency-500', now, resultsRoot });
  assert.equal(first, defaultRunDir('latency-500', now, resultsRoot));
  assert.equal(path.basename(first), '2026-11-23T08-00-00Z');
  assert.equal(second, `${first}-2`);
  assert.deepEqual(readdirSync(path.join(resultsRoot, 'latency-500')).sort(), ['2026-11-23T08-00-00Z', '2026-11-23T08-00-00Z-2']);
});

test('a result that cannot be written goes to the temp dir, and the error names that file', async () => {
  const dir = path.join(temp(), 'gone');
  mkdirSync(dir);
  writeFileSync(path.join(dir, 'result.json'), '');
  const blocked = path.join(dir, 'result.json', 'sub'); // a file where the run directory should be
  await assert.rejects(writeResultFile(blocked, /** @type {Parameters<typeof writeResultFile>[1]} */ ({ scenario: { name: 'x' }, status: 'passed' })), (error) => {
    assert.ok(error instanceof EnvironmentError);
    const saved = /saved to (\S+?\.json)/.exec(error.message)?.[1];
    assert.ok(saved, error.message);
    assert.equal(JSON.parse(readFileSync(saved, 'utf8')).status, 'passed');
    return true;
  });
});

test('the temp-dir fallback writes through no symlink planted at the names it could use, and leaves their target untouched', async (t) => {
  const tmp = temp();
  const outside = path.join(temp(), 'precious');
  writeFileSync(outside, 'keep me\n', { mode: 0o600 });
  const nowMs = 1_790_000_000_000;
  t.mock.method(Date, 'now', () => nowMs);
  const previousTmpdir = process.env.TMPDIR;
  process.env.TMPDIR = tmp;
  t.after(() => { process.env.TMPDIR = previousTmpdir; });
  // Every name a fallback built from the pid and the clock would open: the file and the atomic write's temp file.
  const predictable = `webrtc-testbed-x-${process.pid}-${nowMs}.json`;
  for (const name of [predictable, `.${predictable}.${process.pid}.${nowMs}.tmp`]) symlinkSync(outside, path.join(tmp, name));
  const blocked = path.join(outside, 'run'); // a file where the run directory should be
  await assert.rejects(writeResultFile(blocked, /** @type {Parameters<typeof writeResultFile>[1]} */ ({ scenario: { name: 'x' }, status: 'passed' })), (/** @type {Error & { exitCode?: number }} */ error) => {
    const saved = /saved to (\S+?\.json)/.exec(error.message)?.[1];
    assert.ok(saved, error.message);
    assert.equal(lstatSync(saved).isFile(), true);
    assert.equal(lstatSync(path.dirname(saved)).mode & 0o777, 0o700, 'the fallback directory is private');
    assert.equal(JSON.parse(readFileSync(saved, 'utf8')).status, 'passed');
    return true;
  });
  assert.equal(readFileSync(outside, 'utf8'), 'keep me\n');
  assert.equal(statSync(outside).mode & 0o777, 0o600);
});
