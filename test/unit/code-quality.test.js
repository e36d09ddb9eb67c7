// The house rules that keep the code base readable as it grows, checked on every `npm test`.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { BACKENDS } from '../../orchestrator/emulators/index.js';

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
const LIB_LAYERS = ['system', 'input', 'grid', 'stats', 'media', 'network', 'devices', 'cross', 'viewer', 'audio', 'result', 'scenario'];

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

const ORCHESTRATOR_DIR = path.join(ROOT, 'orchestrator');
/**
 * orchestrator/'s top-level folders bottom first (docs/architecture.md "Layers"): a module imports, types included, only
 * from its own folder or one listed before it. setup.js (`npm run setup`) is an entry point, like bin/.
 */
const ORCHESTRATOR_LAYERS = ['lib', 'emulators', 'cross', 'grid', 'sfu', 'report', 'history', 'run', 'suite', 'commands', 'bin', 'setup.js'];

/**
 * The imports between orchestrator's top-level folders that go up ORCHESTRATOR_LAYERS, JSDoc types included.
 * @param {Array<{file: string, imports: RelativeImport[]}>} modules  paths absolute
 * @returns {string[]}
 */
export function folderLayeringViolations(modules) {
  const layerOf = (file) => ORCHESTRATOR_LAYERS.indexOf(path.relative(ORCHESTRATOR_DIR, file).split(path.sep)[0]);
  return modules.flatMap(({ file, imports }) => imports
    .filter(({ target }) => target.startsWith(ORCHESTRATOR_DIR + path.sep) && layerOf(target) > layerOf(file))
    .map(({ specifier }) => `${path.relative(ROOT, file)} -> ${specifier}`));
}

test('orchestrator/\'s folders are layered: no import, types included, from a folder listed after the importer\'s', () => {
  const modules = jsFiles(ORCHESTRATOR_DIR).map((file) => ({ file, imports: relativeImports(file) }));
  const tops = [...new Set(modules.map(({ file }) => path.relative(ORCHESTRATOR_DIR, file).split(path.sep)[0]))];
  assert.deepEqual(tops.filter((top) => !ORCHESTRATOR_LAYERS.includes(top)), [], 'a new folder of code goes into ORCHESTRATOR_LAYERS and docs/architecture.md');
  assert.deepEqual(folderLayeringViolations(modules), [], 'move the code down to a folder the importer may use, or the importer up');
});

test('docs/architecture.md\'s "Layers" names orchestrator\'s folders in the tested order, and the check catches an upward import', () => {
  const architecture = readFileSync(path.join(ROOT, 'docs', 'architecture.md'), 'utf8');
  const layers = architecture.slice(architecture.indexOf('Layers, bottom up:')).split('\n\n')[0];
  const named = [...layers.matchAll(/`([\w.-]+)\/?[^`]*`/g)].map(([, name]) => name).filter((name) => ORCHESTRATOR_LAYERS.includes(name));
  assert.deepEqual([...new Set(named)], ORCHESTRATOR_LAYERS);
  const at = (relative) => path.join(ORCHESTRATOR_DIR, relative);
  const imported = (specifier, target, typeOnly = false) => ({ specifier, target, typeOnly });
  // The check itself: down, sideways, into lib/ and out of orchestrator/ pass; up a layer, as a type too, is caught.
  assert.deepEqual(folderLayeringViolations([
    { file: at('suite/a.js'), imports: [imported('../history/b.js', at('history/b.js')), imported('./c.js', at('suite/c.js'))] },
    { file: at('history/b.js'), imports: [imported('../lib/result/d.js', at('lib/result/d.js')), imported('../suite/a.js', at('suite/a.js'))] },
    { file: at('report/e.js'), imports: [imported('../history/b.js', at('history/b.js'), true), imported('../../signaling/f.js', path.join(ROOT, 'signaling/f.js'))] },
    { file: at('setup.js'), imports: [imported('./run/g.js', at('run/g.js'))] },
  ]), ['orchestrator/history/b.js -> ../suite/a.js', 'orchestrator/report/e.js -> ../history/b.js']);
});

const EMULATORS_DIR = path.join(ROOT, 'orchestrator', 'emulators');
/** The backends' folders under emulators/, each named as its backend. */
const backendDirs = () => readdirSync(EMULATORS_DIR, { withFileTypes: true })
  .filter((entry) => entry.isDirectory()).map((entry) => entry.name);

test('outside emulators/, the code reaches a backend only through the contract: no import of a backend folder', () => {
  const dirs = backendDirs();
  assert.deepEqual([...dirs].sort(), BACKENDS.map((backend) => backend.name).sort(), 'each registered backend, and only it, has a folder named as it');
  const reaching = [];
  for (const file of jsFiles(path.join(ROOT, 'orchestrator')).filter((f) => !f.startsWith(EMULATORS_DIR + path.sep))) {
    const text = readFileSync(file, 'utf8');
    for (const [, specifier] of text.matchAll(/(?:\bfrom\s*|\bimport\(\s*)['"]([^'"]+)['"]/g)) {
      if (!specifier.startsWith('.')) continue;
      const target = path.relative(EMULATORS_DIR, path.resolve(path.dirname(file), specifier));
      if (dirs.some((dir) => target.startsWith(dir + path.sep))) reaching.push(`${path.relative(ROOT, file)} -> ${specifier}`);
    }
  }
  assert.deepEqual(reaching, []);
});

/**
 * Where a module's code (its comments left out) branches on a backend's name written as a string literal: the name
 * compared (== or !=), a case label, in a list, passed to a call (`includes('relay')`, `backendNamed('relay')`) or picked
 * by `?:`. A default (`default: 'relay'`, `= 'relay'`, `?? 'relay'`) and a value in data (`emulator: 'relay'`) are none.
 * @param {string} text @param {string[]} names
 * @returns {string[]} `<line>: <code>` of each
 */
export function backendNameBranches(text, names) {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, (comment) => comment.replace(/[^\n]/g, ' ')).replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
  const literal = `(['"\`])(?:${names.map((name) => name.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&')).join('|')})\\1`;
  const contexts = [`[=!]==?\\s*${literal}`, `${literal}\\s*[=!]==?`, `\\bcase\\s+${literal}\\s*:`, `[[,]\\s*${literal}\\s*(?=[,\\]])`,
    `\\w\\s*\\(\\s*${literal}`, `\\?\\s*${literal}\\s*:`];
  const lines = new Set(contexts.flatMap((context) => [...code.matchAll(new RegExp(context, 'g'))]
    .map((match) => code.slice(0, match.index).split('\n').length)));
  return [...lines].sort((a, b) => a - b).map((line) => `${line}: ${text.split('\n')[line - 1].trim()}`);
}

test('outside a backend\'s folder no code branches on a backend\'s name (it reads what the backend declares), and the check catches a branch', () => {
  const names = BACKENDS.map((backend) => backend.name);
  const inBackend = (file) => backendDirs().some((dir) => file.startsWith(path.join(EMULATORS_DIR, dir) + path.sep));
  const branches = jsFiles(path.join(ROOT, 'orchestrator')).filter((file) => !inBackend(file))
    .flatMap((file) => backendNameBranches(readFileSync(file, 'utf8'), names).map((found) => `${path.relative(ROOT, file)}:${found}`));
  assert.deepEqual(branches, [], 'declare it in the backend (emulators/contract.js) and read that');
  // The check itself: each kind of branch is caught, defaults, data, comments and other words are not.
  const sample = [
    "if (call.emulatorName === 'node-relay') x();",
    "const backend = backendNamed(name === 'auto' ? 'relay' : name);",
    'switch (name) { case "netem": break; }',
    "const KERNEL = ['netem', 'dummynet'];",
    "await openProbeSession('relay');",
    "if ('relay' !== argv.emulator || [`dummynet`].includes(x)) y();",
    ".option('emulator', { choices: runEmulators(), default: 'relay' })",
    "const emulator = raw.emulator ?? 'relay'; function run({ emulator: chosen = 'relay' }) { rows.push({ emulator: 'relay' }); }",
    "// if (name === 'relay') in a comment",
    "/** @type {TunnelHost['relay']} */ const relays = name === 'relays' || log('the relay');",
  ].join('\n');
  assert.deepEqual(backendNameBranches(sample, ['relay', 'netem', 'dummynet', 'node-relay']).map((found) => Number(found.split(':')[0])), [1, 2, 3, 4, 5, 6]);
});

test('the JSDoc types check: strictly over orchestrator/, signaling/, client-app/, media/ and bench/ (jsconfig.json); over test/ '
  + 'with implicit any, unchecked null and untyped catch variables allowed (test/jsconfig.json)', async () => {
  const { include, compilerOptions } = JSON.parse(readFileSync(path.join(ROOT, 'jsconfig.json'), 'utf8'));
  assert.equal(compilerOptions.noImplicitAny, true);
  assert.equal(compilerOptions.strictNullChecks, true);
  for (const dir of ['orchestrator', 'signaling', 'client-app', 'media', 'bench']) assert.ok(include.includes(`${dir}/**/*.js`), `jsconfig.json covers ${dir}/`);
  const product = await run(bin('tsc'), ['-p', 'jsconfig.json']);
  assert.equal(product.code, 0, product.output);
  // Tests build partial fixtures and read what they just asserted, so implicit any, null and catch variables are
  // theirs to use; maxNodeModuleJsDepth is repeated because a jsconfig.json's own default (2) beats the extended one.
  // Each file in exclude still has type errors to fix (issue 37).
  const tests = JSON.parse(readFileSync(path.join(ROOT, 'test', 'jsconfig.json'), 'utf8'));
  assert.equal(tests.extends, '../jsconfig.json');
  assert.deepEqual(tests.include, ['./**/*.js']);
  assert.deepEqual(tests.compilerOptions,
    { maxNodeModuleJsDepth: 0, noImplicitAny: false, strictNullChecks: false, useUnknownInCatchVariables: false });
  assert.deepEqual(tests.exclude.filter((file) => !existsSync(path.join(ROOT, 'test', file))), [], 'drop a removed file from exclude');
  const { output } = await run(bin('tsc'), ['-p', 'test/jsconfig.json']);
  // The product's files come along through the tests' imports, checked with the tests' relaxations: the strict run
  // above is their verdict.
  const errors = output.split('\n').filter((line) => line.startsWith('test/') || line.startsWith('error'));
  assert.deepEqual(errors, [], output);
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
