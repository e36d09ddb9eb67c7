import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseResult, normalizeResult } from '../../orchestrator/report/result-file.js';
import { InputError } from '../../orchestrator/lib/system/errors.js';

const FILE = 'results/x/2026/result.json';

/** @param {string} text @param {RegExp} message */
function rejects(text, message) {
  assert.throws(() => parseResult(text, FILE), (error) => {
    assert.ok(error instanceof InputError, `${error} is an InputError`);
    assert.equal(error.exitCode, 2);
    assert.ok(error.message.includes(FILE), `names the file: ${error.message}`);
    assert.match(error.message, message);
    return true;
  });
}

test('a truncated result.json is reported as truncated, naming the file', () => {
  const whole = JSON.stringify({ schemaVersion: 1, status: 'passed', timeline: [{ t: 1, peer: 'p0', remote: 'p1', rttMs: 3 }] });
  for (const cut of [10, 40, whole.length - 1]) rejects(whole.slice(0, cut), /truncated/);
});

test('malformed JSON, an empty file, an array and a wrong or missing schemaVersion are clear errors', () => {
  rejects('{"schemaVersion": 1} trailing', /not valid JSON/);
  // A file that is not a result at all (a path given by mistake, or planted) is never quoted.
  assert.throws(() => parseResult('root:$6$saltsalt$hash:20000:0:99999:7:::', 'x/result.json'), (/** @type {Error & { exitCode?: number }} */ error) => !/root|saltsalt/.test(error.message));
  rejects('   \n', /empty/);
  rejects('[1, 2]', /array/);
  rejects('{"schemaVersion": 2}', /schemaVersion 2.*reads schemaVersion 1/);
  rejects('{"status": "passed"}', /no schemaVersion/);
  rejects('{"schemaVersion": 1, "timeline": {"t": 1}}', /"timeline" must be an array/);
});

test('a result with only a schemaVersion normalizes to empty sections the renderers can read', () => {
  const r = parseResult('{"schemaVersion": 1}', FILE);
  assert.equal(r.status, 'unknown');
  assert.deepEqual(r.errors, []);
  assert.deepEqual(r.timeline, []);
  assert.equal(r.scenario.name, 'unnamed');
  assert.equal(r.scenario.reference, null);
  assert.deepEqual(r.network.routes, {});
  assert.equal(r.network.truth, null);
  assert.equal(r.summary, null);
  assert.deepEqual(r.environment.browser, {});
});

test('normalizing drops timeline entries without time or peer and turns string errors into objects', () => {
  const r = normalizeResult({ schemaVersion: 1, errors: ['boom'], timeline: [null, { t: 1 }, { t: 'x', peer: 'p0' }, { t: 2, peer: 'p0', remote: 'p1' }] });
  assert.deepEqual(r.errors, [{ message: 'boom' }]);
  assert.deepEqual(r.timeline.map((e) => e.t), [2]);
});
