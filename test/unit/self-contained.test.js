// The repository stands on its own: no tracked file sends the reader (or a program) to a path outside it, such as the
// shared folder beside the checkout that the scenario catalogue once lived in. Papers are cited by name instead.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT } from '../../orchestrator/lib/system/paths.js';

const ROOT = path.resolve(REPO_ROOT);
// Spelled in two parts so that this file does not match itself.
const SHARED = ['..', 'shared'].join('/');
// The development machine's absolute path to that folder, likewise.
const SHARED_ABSOLUTE = ['', 'work', 'shared'].join('/');

/** @returns {{ file: string, text: string }[]} every tracked text file */
function trackedTextFiles() {
  const files = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
  return files.map((file) => ({ file, abs: path.join(ROOT, file) }))
    .filter(({ abs }) => existsSync(abs))
    .map(({ file, abs }) => ({ file, text: readFileSync(abs, 'utf8') }))
    .filter(({ text }) => !text.includes('\0'));
}

const inside = (abs) => abs === ROOT || abs.startsWith(`${ROOT}${path.sep}`);
const lineOf = (text, index) => text.slice(0, index).split('\n').length;

/**
 * What in one file leaves the repository: the shared folder by name, a relative path (`../x`) that resolves outside
 * the root from the file's folder, and in markdown a relative link to a file that is not in the checkout.
 * @param {string} file repo-relative @param {string} text
 * @returns {string[]} "file:line: what"
 */
function outsideReferences(file, text) {
  const dir = path.dirname(path.join(ROOT, file));
  const found = [];
  for (let at = text.indexOf(SHARED); at >= 0; at = text.indexOf(SHARED, at + 1)) found.push(`${file}:${lineOf(text, at)}: ${SHARED}`);
  for (let at = text.indexOf(SHARED_ABSOLUTE); at >= 0; at = text.indexOf(SHARED_ABSOLUTE, at + 1)) found.push(`${file}:${lineOf(text, at)}: ${SHARED_ABSOLUTE}`);
  for (const m of text.matchAll(/(?<![\w./-])((?:\.\.\/)+)([\w.-]*)/g)) {
    if (!inside(path.resolve(dir, m[0]))) found.push(`${file}:${lineOf(text, m.index)}: ${m[0]} leaves the repository`);
  }
  if (file.endsWith('.md')) {
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1];
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#')) continue;
      const abs = path.resolve(dir, target.split('#')[0]);
      if (!inside(abs) || !existsSync(abs)) found.push(`${file}:${lineOf(text, m.index)}: link ${target} is not a file of the repository`);
    }
  }
  return found;
}

test('no tracked file points outside the repository (cite the paper, or link docs/catalog.md)', () => {
  const files = trackedTextFiles();
  assert.ok(files.length > 50, `git ls-files found ${files.length} files`);
  assert.ok(files.some(({ file }) => file === 'docs/catalog.md'), 'the catalog is tracked');
  assert.deepEqual(files.flatMap(({ file, text }) => outsideReferences(file, text)), []);
});

test('the scan finds the shared folder, a relative path out of the root and a broken markdown link', () => {
  assert.deepEqual(outsideReferences('README.md', `see \`${SHARED}/SCENARIOS.md\``), [`README.md:1: ${SHARED}`, `README.md:1: ${SHARED} leaves the repository`]);
  assert.deepEqual(outsideReferences('docs/a.md', 'x\n[seeds](../../seeds/j16.txt)'), [
    'docs/a.md:2: ../../seeds leaves the repository', 'docs/a.md:2: link ../../seeds/j16.txt is not a file of the repository',
  ]);
  assert.deepEqual(outsideReferences('docs/a.md', '[format](scenario-format.md#names) [up](../README.md) [web](https://example.org/x)'), []);
  assert.deepEqual(outsideReferences('docs/a.md', '[gone](no-such-file.md)'), ['docs/a.md:1: link no-such-file.md is not a file of the repository']);
  assert.deepEqual(outsideReferences('orchestrator/commands/x.js', "import '../lib/system/errors.js';"), []);
  assert.deepEqual(outsideReferences('test/x.js', `// run through ${SHARED_ABSOLUTE}/tools/x`), [`test/x.js:1: ${SHARED_ABSOLUTE}`]);
});
