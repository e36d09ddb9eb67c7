// Rules for the tests themselves: an assertion that every item of a list passes must not pass on an empty list.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const TEST_DIR = fileURLToPath(new URL('../', import.meta.url));

/**
 * The `.every(` calls of one test file whose list is not checked for items first. The list must be a name or a member
 * chain (`rows`, `result.timeline`) whose `.length` the file checks earlier in the same test or earlier on the line;
 * anything else (a call, a filter) must be named first. Line-based, as the files keep one statement's head on a line.
 * @param {string} source @param {string} file shown in the findings
 * @returns {string[]} "file:line: receiver"
 */
export function unguardedEvery(source, file) {
  const lines = source.split('\n');
  const found = [];
  let testStart = 0;
  for (const [index, line] of lines.entries()) {
    if (/^\s*(test|it)\(/.test(line)) testStart = index;
    for (const m of line.matchAll(/\.every\(/g)) {
      const receiver = /([\w$]+(?:(?:\.[\w$]+)|(?:\[\d+\]))*)$/.exec(line.slice(0, m.index))?.[1];
      const before = [...lines.slice(testStart, index), line.slice(0, m.index)].join('\n');
      const guarded = receiver !== undefined && line[m.index - 1] !== ')' && line[m.index - 1] !== ']'
        && before.includes(`${receiver}.length`);
      if (!guarded) found.push(`${file}:${index + 1}: ${receiver && line[m.index - 1] !== ')' ? receiver : line.slice(0, m.index).trim().slice(-40)}`);
    }
  }
  return found;
}

test('no test asserts .every() on a list it has not checked for items (an empty list passes every .every())', () => {
  const files = readdirSync(TEST_DIR, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.js') && !file.startsWith('fixtures') && file !== path.join('unit', 'test-hygiene.test.js'));
  assert.ok(files.length > 50, `${files.length} test files`);
  const findings = files.flatMap((file) => unguardedEvery(readFileSync(path.join(TEST_DIR, file), 'utf8'), `test/${file}`));
  assert.deepEqual(findings, [], 'check the list first, e.g. assert.ok(rows.length > 0) before assert.ok(rows.every(...))');
});

test('the .every() check sees a missing length check, a check in another test, and an unnamed list', () => {
  const ok = "test('a', () => {\n  assert.ok(rows.length > 0);\n  assert.ok(rows.every((r) => r.ok));\n});";
  assert.deepEqual(unguardedEvery(ok, 'x'), []);
  assert.deepEqual(unguardedEvery('  assert.ok(rows.length >= 25 && rows.every((r) => r.ok));', 'x'), []);
  assert.deepEqual(unguardedEvery("test('a', () => {\n  assert.ok(result.timeline.every((e) => e.t < 30));\n});", 'x'), ['x:2: result.timeline']);
  const other = "test('a', () => {\n  assert.ok(rows.length > 0);\n});\ntest('b', () => {\n  assert.ok(rows.every((r) => r.ok));\n});";
  assert.deepEqual(unguardedEvery(other, 'x'), ['x:5: rows']);
  assert.equal(unguardedEvery("  assert.ok(rows.filter((r) => r.t > 5).every((r) => r.ok));", 'x').length, 1);
});
