// docs/architecture.md stays true to the tree: every file or folder it names exists, and every folder of the
// orchestrator, every lib/ folder, every emulator backend and every CLI command is named in it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT } from '../../orchestrator/lib/system/paths.js';

const doc = readFileSync(path.join(REPO_ROOT, 'docs', 'architecture.md'), 'utf8');
const tracked = execFileSync('git', ['ls-files'], { cwd: REPO_ROOT, encoding: 'utf8' }).split('\n').filter(Boolean);
const trackedDirs = new Set(tracked.flatMap((file) => file.split('/').slice(0, -1).map((_, i, parts) => parts.slice(0, i + 1).join('/'))));
/** The places a path in the doc is written relative to. */
const BASES = ['', 'orchestrator/', 'orchestrator/lib/', 'orchestrator/emulators/', 'test/'];

/** @param {string} name a path as the doc writes it */
function exists(name) {
  const clean = name.replace(/\/$/, '');
  if (!clean.includes('/')) return tracked.some((file) => path.basename(file) === clean) || [...trackedDirs].some((d) => path.basename(d) === clean);
  return BASES.some((base) => tracked.includes(base + clean) || trackedDirs.has(base + clean));
}

test('every file and folder docs/architecture.md names in code spans exists', () => {
  const named = [...doc.matchAll(/`([\w./<>*-]+)`/g)].map((m) => m[1])
    .filter((token) => /\.(js|json|md|c)$|\/$/.test(token) && !/[<>*]/.test(token) && !token.startsWith('results/'));
  assert.ok(named.length > 50, `the doc names files (found ${named.length})`);
  const missing = named.filter((name) => !exists(name));
  assert.deepEqual(missing, [], 'named in docs/architecture.md but not in the tree: fix the doc');
});

test('every orchestrator folder, lib folder, emulator backend and command is in docs/architecture.md', () => {
  const dirs = (/** @type {string} */ dir) => readdirSync(path.join(REPO_ROOT, dir), { withFileTypes: true })
    .filter((e) => e.isDirectory() && trackedDirs.has(`${dir}/${e.name}`)).map((e) => e.name);
  const folders = [
    ...dirs('orchestrator').map((d) => `${d}/`), ...dirs('orchestrator/lib').map((d) => `lib/${d}/`),
    ...dirs('orchestrator/emulators').map((d) => `${d}/`),
  ];
  const commands = readdirSync(path.join(REPO_ROOT, 'orchestrator', 'commands'))
    .filter((f) => f.endsWith('.js') && f !== 'index.js')
    .map((f) => readFileSync(path.join(REPO_ROOT, 'orchestrator', 'commands', f), 'utf8'))
    .map((text) => /export const command = '([\w-]+)/.exec(text)?.[1]).filter((c) => c !== undefined);
  assert.ok(folders.length > 20 && commands.length > 10, `found ${folders.length} folders and ${commands.length} commands`);
  assert.deepEqual(folders.filter((f) => !doc.includes(`\`${f}`) && !doc.includes(`/${f}\``)), [], 'folders the doc does not describe');
  assert.deepEqual(commands.filter((c) => !doc.includes(`\`${c}\``)), [], 'commands the doc does not list');
});
