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

const LIB_DIR = path.join(ROOT, 'orchestrator', 'lib');
/** lib/'s folders bottom first (docs/architecture.md): a module imports from its own folder or one listed before it. */
const LIB_LAYERS = ['system', 'input', 'grid', 'stats', 'media', 'network', 'devices', 'cross', 'viewer', 'result', 'scenario'];

/**
 * @typedef {{specifier: string, target: string, typeOnly: boolean}} RelativeImport  target: absolute;
 *   typeOnly: a JSDoc import('…') type
 * @param {string} file @returns {RelativeImport[]}
 */
const relativeImports = (file) => [...readFileSync(file, 'utf8').matchAll(/(\bfrom\s*|\bimport\(\s*)['"](\.[^'"]*)['"]/g)]
  .map(([, how, specifier]) => ({ specifier, target: path.resolve(path.dirname(file), specifier), typeOnly: how.startsWith('import') }));

/**
 * The imports of lib/ that break its layering: code from outside lib/ (types only from the page's and the signaling
 * server's shared modules, nothing of orchestrator/ above lib/), or from a lib/ folder listed after the importer's.
 * @param {Array<{file: string, imports: RelativeImport[]}>} modules  paths absolute
 * @returns {string[]}
 */
export function layeringViolations(modules) {
  const layerOf = (file) => LIB_LAYERS.indexOf(path.relative(LIB_DIR, file).split(path.sep)[0]);
  const upward = ({ target, typeOnly }, file) => (target.startsWith(LIB_DIR + path.sep)
    ? layerOf(target) > layerOf(file)
    : !typeOnly || target.startsWith(path.join(ROOT, 'orchestrator') + path.sep));
  return modules.flatMap(({ file, imports }) => imports.filter((entry) => upward(entry, file))
    .map(({ specifier }) => `${path.relative(ROOT, file)} -> ${specifier}`));
}

test('lib/ is the bottom layer and layered inside: nothing from above lib/, no folder imports one listed after it', () => {
  const modules = jsFiles(LIB_DIR).map((file) => ({ file, imports: relativeImports(file) }));
  assert.deepEqual(layeringViolations(modules), []);
});

test('lib/ folders are the listed layers, each in docs/architecture.md, and the check catches an upward import', () => {
  const folders = readdirSync(LIB_DIR, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
  assert.deepEqual(folders.sort(), [...LIB_LAYERS].sort(), 'lib/ folders are the layers listed in this test and docs/architecture.md');
  assert.deepEqual(jsFiles(LIB_DIR).filter((file) => path.dirname(file) === LIB_DIR), [], 'no module loose in lib/: put it in its folder');
  const architecture = readFileSync(path.join(ROOT, 'docs', 'architecture.md'), 'utf8');
  assert.deepEqual(LIB_LAYERS.filter((layer) => !architecture.includes(`lib/${layer}/`)), [], 'docs/architecture.md names each folder');
  const lib = (relative) => path.join(LIB_DIR, relative);
  const imported = (specifier, target, typeOnly = false) => ({ specifier, target, typeOnly });
  // The check itself: an import down or sideways passes, one up a layer or out of lib/ is caught.
  assert.deepEqual(layeringViolations([
    { file: lib('result/a.js'), imports: [imported('../stats/b.js', lib('stats/b.js')), imported('./c.js', lib('result/c.js'))] },
    { file: lib('stats/b.js'), imports: [imported('../scenario/d.js', lib('scenario/d.js'), true)] },
    { file: lib('system/e.js'), imports: [imported('../../run/run.js', path.join(ROOT, 'orchestrator/run/run.js'), true)] },
    { file: lib('media/f.js'), imports: [imported('<repo>/client-app/f.js', path.join(ROOT, 'client-app/f.js'), true)] },
    { file: lib('media/g.js'), imports: [imported('<repo>/client-app/g.js', path.join(ROOT, 'client-app/g.js'))] },
  ]), [
    'orchestrator/lib/stats/b.js -> ../scenario/d.js', 'orchestrator/lib/system/e.js -> ../../run/run.js',
    'orchestrator/lib/media/g.js -> <repo>/client-app/g.js',
  ]);
});

test('outside emulators/, the code reaches a backend only through the contract: no import of a backend folder', () => {
  const emulatorsDir = path.join(ROOT, 'orchestrator', 'emulators');
  const backendDirs = readdirSync(emulatorsDir, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
  assert.deepEqual(backendDirs.sort(), ['dummynet', 'netem', 'node-relay', 'relay'], 'every backend has its folder');
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

test('the JSDoc types check strictly (noImplicitAny, strictNullChecks): tsc --noEmit over orchestrator/, signaling/, client-app/, media/ and bench/ (jsconfig.json)', async () => {
  const { include, compilerOptions } = JSON.parse(readFileSync(path.join(ROOT, 'jsconfig.json'), 'utf8'));
  assert.equal(compilerOptions.noImplicitAny, true);
  assert.equal(compilerOptions.strictNullChecks, true);
  for (const dir of ['orchestrator', 'signaling', 'client-app', 'media', 'bench']) assert.ok(include.includes(`${dir}/**/*.js`), `jsconfig.json covers ${dir}/`);
  const { code, output } = await run(bin('tsc'), ['-p', 'jsconfig.json']);
  assert.equal(code, 0, output);
});

test('lint: no unused variables, no line over 140 characters, no product file over 400 lines or function over 80 (eslint.config.js)', async () => {
  const { code, output } = await run(bin('eslint'), ['.']);
  assert.equal(code, 0, output);
});

const TYPED_DIRS = ['orchestrator', 'signaling', 'client-app', 'media', 'bench'];

/**
 * The JSDoc types in a file's text (the braces after an @tag, across lines) and the lines of each `any` in them that
 * has no `any: <reason>` comment on its line or the line above.
 * @param {string} text @returns {{ types: number, unexplained: number[] }} unexplained: 1-based line numbers
 */
export function unexplainedAnys(text) {
  const lines = text.split('\n');
  const lineAt = (offset) => text.slice(0, offset).split('\n').length;
  const explained = (line) => [line, line - 1].some((n) => /\bany: \S/.test(lines[n - 1] ?? ''));
  let types = 0;
  const unexplained = [];
  for (const comment of text.matchAll(/\/\*\*[\s\S]*?\*\//g)) {
    for (const tag of comment[0].matchAll(/@\w+\s*\{/g)) {
      let depth = 0;
      let end = tag.index + tag[0].length - 1;
      for (; end < comment[0].length; end += 1) {
        depth += { '{': 1, '}': -1 }[comment[0][end]] ?? 0;
        if (depth === 0) break;
      }
      types += 1;
      const start = comment.index + tag.index;
      for (const any of comment[0].slice(tag.index, end + 1).matchAll(/\bany\b/g)) {
        const line = lineAt(start + any.index);
        if (!explained(line) && !unexplained.includes(line)) unexplained.push(line);
      }
    }
  }
  return { types, unexplained };
}

test('every `any` in a JSDoc type says why on its line or the line above (`any: <reason>`), and the check catches one that does not', () => {
  const files = TYPED_DIRS.flatMap((dir) => jsFiles(path.join(ROOT, dir)));
  let types = 0;
  const unexplained = [];
  for (const file of files) {
    const found = unexplainedAnys(readFileSync(file, 'utf8'));
    types += found.types;
    unexplained.push(...found.unexplained.map((line) => `${path.relative(ROOT, file)}:${line}`));
  }
  assert.ok(types > 1000, `only ${types} JSDoc types found in ${files.length} files: the scan lost its way`);
  assert.deepEqual(unexplained, [], 'replace each with a real type, or add `any: <why no type fits>` on its line or the line above');
  // The check itself: prose and explained `any` pass; a bare one, even inside a type spanning lines, is caught.
  assert.deepEqual(unexplainedAnys([
    '/** null: any keys @param {string} key */',
    '// any: an untyped global',
    'const g = /** @type {any} */ (window).x;',
    '/** @param {{ a: number,',
    ' *   b: Record<string, any> }} input */',
    '/** @type {any} */',
    'const h = /** @type {any} */ (y); // any: a parsed JSON file',
  ].join('\n')), { types: 5, unexplained: [5, 6] });
});
