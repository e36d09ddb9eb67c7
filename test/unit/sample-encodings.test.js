// A publisher's per-encoding stats in a sample (signaling/encodings.js) are checked at the edge like the rest of a
// page's message: bounded in count, fields and sizes, each field null or of its kind.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_ENCODINGS, checkEncodings } from '../../signaling/encodings.js';
import { validateSample } from '../../signaling/messages.js';

const ENCODING = { rid: 'f', widthPx: 640, heightPx: 360, fps: 29.7, kbps: 612.5, active: true, qualityLimitationReason: 'none', scalabilityMode: 'L1T3' };
const sample = (encodings) => ({ t: 3, peer: 'p0', remote: 'sfu', video: { sendKbps: 700 }, encodings });

test('a sample\'s encodings pass the edge whole, absent fields as null', () => {
  const checked = validateSample(sample([ENCODING, { rid: 'q', active: false }]), 'p0');
  assert.equal(checked.ok, true);
  assert.deepEqual(checked.ok && checked.value.encodings, [ENCODING, {
    rid: 'q', widthPx: null, heightPx: null, fps: null, kbps: null, active: false, qualityLimitationReason: null, scalabilityMode: null,
  }]);
  assert.equal(validateSample({ t: 3, peer: 'p0', remote: 'p1', video: {} }, 'p0').ok, true, 'a sample without encodings is as before');
});

test('hostile encodings are refused with the field that is wrong', () => {
  /** @type {Array<[unknown, RegExp]>} */
  const cases = [
    [Array(MAX_ENCODINGS + 1).fill(ENCODING), /^sample\.encodings must be an array of at most 4 encodings/],
    [{ 0: ENCODING }, /^sample\.encodings must be an array/],
    [[null], /^sample\.encodings\[0\] must be an object, got null$/],
    [[{ ...ENCODING, ssrc: 1 }], /^sample\.encodings\[0\] has an unexpected field "ssrc"/],
    [[{ ...ENCODING, __proto__: { x: 1 }, rid: 'x'.repeat(17) }], /^sample\.encodings\[0\]\.rid must be a string of at most 16 characters/],
    [[{ ...ENCODING, kbps: -1 }], /^sample\.encodings\[0\]\.kbps must be a number from 0 to 1000000000000, got -1$/],
    [[{ ...ENCODING, fps: Number.NaN }], /\.fps must be a number/],
    [[{ ...ENCODING, widthPx: '640' }], /\.widthPx must be a number/],
    [[{ ...ENCODING, active: 'yes' }], /\.active must be true or false, got "yes"$/],
  ];
  for (const [encodings, reason] of cases) {
    const checked = validateSample(sample(encodings), 'p0');
    assert.equal(checked.ok, false, JSON.stringify(encodings).slice(0, 80));
    assert.match(checked.ok ? '' : checked.reason, reason);
  }
  assert.equal(checkEncodings('x').ok, false);
});
