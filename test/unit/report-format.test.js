import assert from 'node:assert/strict';
import { test } from 'node:test';
import { escapeHtml, jsonForScript, formatClock, formatNumber, formatMeanSd, formatDifference, formatPercent } from '../../orchestrator/report/format.js';

test('escapeHtml escapes markup and quotes', () => {
  assert.equal(escapeHtml('<b a="1">&\'</b>'), '&lt;b a=&quot;1&quot;&gt;&amp;&#39;&lt;/b&gt;');
  assert.equal(escapeHtml(null), '');
});

test('jsonForScript cannot end the script block early and still parses back', () => {
  const value = { message: '</script><script>alert(1)</script>', s: '\u2028' };
  const text = jsonForScript(value);
  assert.doesNotMatch(text, /<\/script/i);
  assert.deepEqual(JSON.parse(text), value);
});

test('formatClock gives m:ss, h:mm:ss past an hour, and a dash for no value', () => {
  assert.equal(formatClock(0), '0:00');
  assert.equal(formatClock(61.4), '1:01');
  assert.equal(formatClock(3725), '1:02:05');
  assert.equal(formatClock(-3.2), '−0:03');
  assert.equal(formatClock(null), '—');
});

test('numbers get thesis-table precision by magnitude', () => {
  assert.equal(formatNumber(2456.2), '2456');
  assert.equal(formatNumber(69.04), '69.0');
  assert.equal(formatNumber(1.134), '1.13');
  assert.equal(formatNumber(-0.001), '0.00');
  assert.equal(formatNumber(NaN), '—');
  assert.equal(formatMeanSd({ mean: 2456.2, sd: 295.04 }), '2456 ± 295');
  assert.equal(formatMeanSd({ mean: 69.0, sd: 8.4 }), '69.0 ± 8.4');
  assert.equal(formatMeanSd({ mean: 1000.3, sd: null }), '1000');
  assert.equal(formatMeanSd(null), '—');
});

test('differences are signed with a percentage of the reference', () => {
  assert.equal(formatDifference(1194, 1150), '+44 (+3.8 %)');
  assert.equal(formatDifference(2.8, 23), '−20.2 (−87.8 %)');
  assert.equal(formatDifference(0.5, 0), '+0.50');
  assert.equal(formatDifference(null, 10), '—');
  assert.equal(formatPercent(0.7712), '77.1 %');
});
