// The house rules that keep the code base readable as it grows, checked on every `npm test`.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const bin = (name) => path.join(ROOT, 'node_modules', '.bin', name);
const run = (file, args) => new Promise((resolve) => {
  execFile(file, args, { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
    resolve({ code: error ? error.code ?? 1 : 0, output: stdout + stderr });
  });
});

/** @param {string} dir @returns {string[]} .js files below dir */
const jsFiles = (dir) => readdirSync(dir, { withFileTypes: true, recursive: true })
  .filter((entry) => entry.isFile() && entry.name.endsWith('.js'))
  .map((entry) => path.join(entry.parentPath, entry.name));

test('lib/ is the bottom layer: it imports nothing from run/, emulators/, report/ or suite/', () => {
  const libDir = path.join(ROOT, 'orchestrator', 'lib');
  const upward = [];
  for (const file of jsFiles(libDir)) {
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(/^\s*(?:import|export)\s[^;'"]*?\bfrom\s*['"]([^'"]+)['"]/gm)) {
      if (!specifier.startsWith('.')) continue;
      const target = path.resolve(path.dirname(file), specifier);
      if (!target.startsWith(libDir + path.sep)) upward.push(`${path.relative(ROOT, file)} -> ${specifier}`);
    }
  }
  assert.deepEqual(upward, []);
});

test('outside emulators/, the code reaches a backend only through the contract: no import of a backend folder', () => {
  const emulatorsDir = path.join(ROOT, 'orchestrator', 'emulators');
  const backendDirs = readdirSync(emulatorsDir, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
  assert.deepEqual(backendDirs.sort(), ['dummynet', 'netem', 'relay'], 'every backend has its folder');
  const reaching = [];
  for (const file of jsFiles(path.join(ROOT, 'orchestrator')).filter((f) => !f.startsWith(emulatorsDir + path.sep))) {
    const text = readFileSync(file, 'utf8');
    for (const [, specifier] of text.matchAll(/(?:\bfrom\s*|\bimport\(\s*)['"]([^'"]+)['"]/g)) {
      if (!specifier.startsWith('.')) continue;
      const target = path.relative(emulatorsDir, path.resolve(path.dirname(file), specifier));
      if (backendDirs.some((dir) => target.startsWith(dir + path.sep))) reaching.push(`${path.relative(ROOT, file)} -> ${specifier}`);
    }
  }
  assert.deepEqual(reaching, []);
});

test('the JSDoc types check: tsc --noEmit over orchestrator/, signaling/, client-app/, media/ and bench/ (jsconfig.json)', async () => {
  const { include } = JSON.parse(readFileSync(path.join(ROOT, 'jsconfig.json'), 'utf8'));
  for (const dir of ['orchestrator', 'signaling', 'client-app', 'media', 'bench']) assert.ok(include.includes(`${dir}/**/*.js`), `jsconfig.json covers ${dir}/`);
  const { code, output } = await run(bin('tsc'), ['-p', 'jsconfig.json']);
  assert.equal(code, 0, output);
});

test('lint: no unused variables, no line over 140 characters (eslint.config.js)', async () => {
  const { code, output } = await run(bin('eslint'), ['.']);
  assert.equal(code, 0, output);
});
