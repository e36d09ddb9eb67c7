// The bounded in-page copy every page drain goes through (orchestrator/run/page-copy.js), without a browser: the
// in-page function run here on a stand-in window (test/helpers/fake-page.js), its answer read back as the collectors
// read it. It copies within the bounds whatever the page did to its globals, refuses naming where, and a drain that
// never answers is reported once by name.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { copyInPage, drainPageCopy, readPageCopy } from '../../orchestrator/run/page-copy.js';
import { fakePage } from '../helpers/fake-page.js';

const LIMITS = { maxChars: 16, maxKeys: 4, maxItems: 5, maxDepth: 3, budgetChars: 1000 };

/**
 * The drain `answer` as the collector reads it after copyInPage ran on it.
 * @param {unknown} answer @param {Partial<typeof LIMITS>} [limits]
 */
async function copied(answer, limits = {}) {
  /** @type {import('../../orchestrator/run/page-copy.js').CopyRequest} */
  const request = { hook: 'audio', tell: null, limits: { ...LIMITS, ...limits } };
  const raw = await fakePage('audio', [answer]).evaluate(copyInPage, request);
  return { raw, read: readPageCopy(raw) };
}

test('a drain is copied as it was: lists, objects, strings, numbers; functions and objects past the depth as null', async () => {
  const drain = { a: [1, 'two', true, null, { b: [0.5] }], c: { d: { e: { f: { x: 1 } } } }, g: () => 1, h: undefined };
  const { raw, read } = await copied(drain);
  assert.deepEqual(read, { drained: { a: [1, 'two', true, null, { b: [0.5] }], c: { d: { e: { f: null } } }, g: null, h: null } });
  // any: the in-page answer as CDP would serialize it.
  const answer = /** @type {any} */ (raw);
  // No prototype anywhere: a `then` or setter the page put on Object.prototype or Array.prototype applies to none.
  for (const made of [answer, answer.copied, answer.copied.entries, answer.copied.entries.a, answer.copied.entries.a.items]) {
    assert.equal(Object.getPrototypeOf(made), null);
  }
  const proto = await copied(JSON.parse('{ "__proto__": { "polluted": 1 } }'));
  // any: the rebuilt drain.
  const rebuilt = /** @type {any} */ (proto.read).drained;
  assert.ok(Object.hasOwn(rebuilt, '__proto__') && Object.getPrototypeOf(rebuilt) === Object.prototype && rebuilt.polluted === undefined);
  assert.deepEqual((await copied('text')).read, { drained: 'text' });
});

test('over a bound the whole drain is refused in the page, naming the bound and where', async () => {
  const cases = [
    [{ a: 'x'.repeat(17) }, 'a string of 17 characters (at most 16) at a'],
    [{ ['k'.repeat(17)]: 1 }, 'a string of 17 characters (at most 16)'],
    [{ s: { a: 1, b: 2, c: 3, d: 4, e: 5 } }, 'an object of more than 4 keys at s'],
    [{ s: { p0: { list: [1, 2, 3, 4, 5, 6] } } }, 'a list of 6 items (at most 5) at s.p0.list'],
    [{ s: { length: 1e9 } }, 'a list of 1000000000 items (at most 5) at s'],
    [{ s: [[1], ['x'.repeat(20)]] }, 'a string of 20 characters (at most 16) at s[1][0]'],
    [{ a: 'x'.repeat(16), b: 'x'.repeat(16), c: 'x'.repeat(16) }, 'more than 60 characters in all at c', { budgetChars: 60 }],
    [{ get a() { throw { limit: 'y'.repeat(10_000) }; } }, 'it could not be copied'],
  ];
  for (const [drain, reason, limits] of cases) {
    assert.deepEqual((await copied(drain, /** @type {any} */ (limits))).read, { refused: `drain refused in the page: ${reason}` }, String(reason));
  }
  let reads = 0;
  await copied({ get a() { reads += 1; return 1; } });
  assert.equal(reads, 1, 'each value is read once');
});

test('the page\'s replaced globals and prototypes neither change nor unbound the copy', async () => {
  const drain = { sources: { p0: { onsetsEpochMs: [1, 2, 3], droppedOnsets: 0 } } };
  const hostile = {
    [Symbol.iterator]: () => { throw new Error('iterated'); },
    keys: () => ['p0', 'p1', 'p2', 'p3', 'p4', 'p5'], isArray: () => false, from: () => new Array(1e7).fill('x'),
  };
  /** @type {Array<[object, string|symbol]>} */
  const replaced = [[Object, 'keys'], [Object, 'entries'], [Object, 'defineProperty'], [Array, 'from'], [Array, 'isArray'],
    [Array.prototype, 'slice'], [Array.prototype, 'map'], [Array.prototype, 'push'], [Array.prototype, Symbol.iterator],
    [Object.prototype, 'hasOwnProperty'], [JSON, 'stringify'], [String.prototype, 'slice']];
  const saved = replaced.map(([owner, key]) => Object.getOwnPropertyDescriptor(owner, key));
  const define = Object.defineProperty;
  const answer = await fakePage('lipSync', [() => {
    // A setter for every list's first item, which would stretch a list built by assignment to a billion items.
    define(Array.prototype, '0', { configurable: true, set() { this.length = 1e9; } });
    // The page's drain replaces the rest just before the copy runs (its own app would break were they replaced for
    // good); indexed, since destructuring iterates.
    for (let i = 0; i < replaced.length; i += 1) {
      const owner = replaced[i][0];
      const key = replaced[i][1];
      // any: the globals, replaced as a hostile page would.
      /** @type {any} */ (owner)[key] = /** @type {any} */ (hostile)[key] ?? (() => { throw new Error(`${String(key)} called`); });
    }
    return drain;
  }]).evaluate(copyInPage, /** @type {const} */ ({ hook: 'lipSync', tell: null, limits: LIMITS })).finally(() => {
    delete (/** @type {any} */ (Array.prototype))[0];
    for (let i = 0; i < replaced.length; i += 1) define(replaced[i][0], replaced[i][1], /** @type {PropertyDescriptor} */ (saved[i]));
  });
  assert.deepEqual(readPageCopy(answer), { drained: drain });
});

test('an answer not made by the copy is malformed, never trusted', () => {
  const malformed = { refused: 'drain refused: the page\'s copy is malformed' };
  let deep = /** @type {unknown} */ (1);
  for (let i = 0; i < 20; i += 1) deep = { entries: { a: deep } };
  for (const answer of [null, 'x', [], {}, { copied: { items: { 0: 1 }, n: 2 } }, { copied: { items: { 0: 1, x: 2 }, n: 2 } },
    { copied: { items: {}, n: -1 } }, { copied: { other: 1 } }, { copied: deep }]) {
    assert.deepEqual(readPageCopy(answer), malformed, JSON.stringify(answer));
  }
  assert.deepEqual(readPageCopy({ refused: 'z'.repeat(2000) }), { refused: 'drain refused in the page: a reason too long to tell' });
  assert.deepEqual(readPageCopy({ none: true }), { none: true });
  assert.deepEqual(readPageCopy({ threw: true }), { threw: true });
});

test('a drain that throws or never answers is reported by name, once; a closing page and a missing hook are not', async () => {
  /** @type {string[]} */
  const reasons = [];
  const report = { label: 'listener of p1', onRejected: (/** @type {string} */ reason) => reasons.push(reason), timeoutMs: 100 };
  const request = /** @type {const} */ ({ hook: 'lipSync', tell: null, limits: LIMITS });
  const page = fakePage('lipSync', [() => { throw new Error('tampered'); }, { s: 'x'.repeat(99) }, () => new Promise(() => {})]);
  assert.deepEqual(await drainPageCopy(page, request, report), { reported: true });
  assert.deepEqual(await drainPageCopy(page, request, report), { reported: true });
  const hanging = drainPageCopy(page, request, report);
  await sleep(350);
  assert.deepEqual(reasons, ['listener of p1: the drain threw',
    'listener of p1: drain refused in the page: a string of 99 characters (at most 16) at s', 'listener of p1: the drain has not answered for 0.1 s']);
  assert.equal(await drainPageCopy(page, request, report), undefined, 'no listener');
  // any: a page closing under the drain.
  const closing = /** @type {any} */ ({ evaluate: async () => { throw new Error('Target closed'); } });
  assert.equal(await drainPageCopy(closing, request, report), undefined);
  assert.equal(reasons.length, 3);
  void hanging;
});
