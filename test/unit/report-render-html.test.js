import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderRunReport } from '../../orchestrator/report/render-run.js';
import { renderIndex, indexEntry, unreadableEntry } from '../../orchestrator/report/render-index.js';
import { renderCompareReport } from '../../orchestrator/report/render-compare.js';
import { normalizeResult } from '../../orchestrator/report/result-file.js';
import { InputError } from '../../orchestrator/lib/system/errors.js';
import { makeResult } from '../fixtures/results/make-result.js';

/** The JSON embedded for the dashboard script. @param {string} html */
const embedded = (html) => JSON.parse(/<script id="report-data" type="application\/json">(.*?)<\/script>/s.exec(html)[1]);

test('a run report is one self-contained page: Chart.js, styles, script and data inline', () => {
  const html = renderRunReport(makeResult('static'), { sourcePath: 'results/bandwidth-1500/x/result.json' });
  assert.match(html, /^<!doctype html>/);
  assert.match(html, /Chart\.js v4/);
  assert.doesNotMatch(html, /<script[^>]+src=|<link[^>]+href=|https?:\/\/(?!www\.chartjs\.org|github\.com)/);
  assert.match(html, /<a href="result\.json">results\/bandwidth-1500\/x\/result\.json<\/a>/);
  const data = embedded(html);
  assert.deepEqual(data.sections.map((s) => s.id), ['peer-p0', 'peer-p1']);
  for (const s of data.sections) for (const p of s.panels) assert.ok(html.includes(`id="chart-${p.id}"`), `a canvas for ${p.id}`);
});

test('text from the result is escaped, including inside the embedded data', () => {
  const r = makeResult('aborted');
  r.scenario.description = '<img src=x onerror=alert(1)>';
  r.errors[0].message = '</script><script>alert(2)</script>';
  const html = renderRunReport(r);
  assert.ok(!html.includes('<img src=x'));
  assert.ok(!html.includes('</script><script>alert(2)'));
  assert.ok(html.includes('&lt;/script&gt;&lt;script&gt;alert(2)'));
});

test('results with missing, null or wrongly typed sections still render', () => {
  const odd = [
    { schemaVersion: 1 },
    { schemaVersion: 1, status: 'failed', scenario: null, environment: { startedAt: 12, browser: 'chrome' }, network: { routes: { 'a->b': 'x' }, truth: [null, { t: 1 }] } },
    { schemaVersion: 1, timeline: [{ t: 1, peer: 'p0', remote: 'p1', video: null, audio: 'x', rttMs: 'slow' }], summary: { peers: { p0: { rttMs: null } }, overall: null, utilization: 'n/a' } },
    { schemaVersion: 1, events: [null, 3, { atS: 'x' }], errors: [null, { atS: 5 }], summary: { peers: { p0: {} }, setupMs: [1] } },
    { schemaVersion: 1, scenario: { name: 'r', reference: { metrics: { rttMs: 'fast', 'video.recvKbps': { mean: null } } } }, timeline: [{ t: 1, peer: 'p0' }] },
  ];
  for (const raw of odd) {
    const html = renderRunReport(raw);
    assert.match(html, /<\/html>\n$/);
    embedded(html);
  }
});

test('index rows: figures from the summary, recorded length for cut-short runs, unreadable files listed', () => {
  const aborted = indexEntry(normalizeResult(makeResult('aborted')), { href: 'loss-10/a', hasReport: true });
  assert.equal(aborted.status, 'aborted');
  assert.equal(aborted.recordedS, 100);
  assert.equal(aborted.browser, 'chromium 156');
  assert.equal(aborted.errors, 2);
  const bad = unreadableEntry('x.json is truncated', { href: 'broken/2026', hasReport: false });
  assert.equal(bad.scenario, 'broken');
  const html = renderIndex([aborted, bad], { root: 'results', generatedAt: 'now' });
  assert.match(html, /<option value="unreadable">unreadable<\/option>/);
  assert.match(html, /href="loss-10\/a\/report\.html"/);
  assert.match(html, /\(1:40 recorded\)/);
  assert.match(html, /no report/);
});

test('compare refuses runs of different scenarios, naming them', () => {
  assert.throws(
    () => renderCompareReport([{ result: makeResult('static'), sourcePath: 'a/result.json' }, { result: makeResult('aborted'), sourcePath: 'b/result.json' }]),
    (error) => error instanceof InputError && /bandwidth-1500, loss-10/.test(error.message) && error.message.includes('b/result.json'),
  );
});

test('the set-up breakdown (result.setup) is a table of milestones per peer; a result without one has none', () => {
  const r = makeResult('static');
  const setup = {
    milestones: ['browserLaunched', 'mediaReady', 'firstFrame'],
    peers: { p0: { launchEpochMs: 1, sinceLaunchMs: { browserLaunched: 372, mediaReady: 1384.4, firstFrame: 1620 } },
      p1: { launchEpochMs: 2, sinceLaunchMs: { browserLaunched: 346, mediaReady: null, firstFrame: 1599 } } },
  };
  const html = renderRunReport({ ...r, setup });
  const table = /<table class="summary setup">(.*?)<\/table>/s.exec(html)?.[1];
  assert.ok(table, 'a set-up table');
  assert.match(table, /<tr data-milestone="mediaReady"><th scope="row">getUserMedia resolved<\/th><td>1384<\/td><td>—<\/td><\/tr>/);
  assert.match(table, /First decoded frame<\/th><td>1620<\/td><td>1599<\/td>/);
  assert.doesNotMatch(renderRunReport(r), /class="summary setup"/);
});

test("a run on a shared link shows both Jain's indices, named, and compares the J16 one with the reference", () => {
  // Two calls' flows a0->a1 and b0->b1 through one bottleneck, RTP-like 1408 kbps against TCP-like 451 kbps, swinging each second.
  const timeline = [];
  for (let t = 1; t <= 120; t += 1) {
    const swing = t % 2 ? 400 : -400;
    timeline.push({ t, peer: 'a1', remote: 'a0', video: { recvKbps: 1368 + swing }, audio: { recvKbps: 40 } });
    timeline.push({ t, peer: 'b1', remote: 'b0', video: { recvKbps: 411 - swing }, audio: { recvKbps: 40 } });
  }
  const routes = { 'a0->a1': ['a0.up', 'bottleneck', 'a1.down'], 'b0->b1': ['b0.up', 'bottleneck', 'b1.down'] };
  const html = renderRunReport({
    schemaVersion: 1, status: 'passed', timeline,
    scenario: { name: 'tcp-like', durationS: 120, warmupS: 0, reference: { source: 'J16 §8-4', metrics: { jainIndex: { mean: 0.79 } } } },
    network: { routes, links: {}, configured: [], scheduleEvents: [] },
  });
  const row = (path) => new RegExp(`<tr data-metric="${path}">(.*?)</tr>`, 's').exec(html)?.[1] ?? '';
  assert.match(row('jainIndex'), /Jain&#39;s index \(J16: per-flow mean rates per phase\).*<td class="avg">0\.791<\/td><td class="ref">0\.790<\/td><td class="diff">\+0\.001/s);
  assert.match(row('jainIndexPerSecond'), /Jain&#39;s index \(mean of per-second values\).*<td class="avg">0\.761<\/td><td class="ref">—<\/td>/s);
  // The one fairness table: the link's figures and the run's beside the reference, then its phases.
  const fairness = /<table class="summary fairness-run">(.*?)<\/table>/s.exec(html)?.[1] ?? '';
  assert.match(fairness, /<tr data-link="bottleneck"><th scope="row">bottleneck <span class="note">\(a0-&gt;a1, b0-&gt;b1\)<\/span><\/th><td>0\.791<\/td><td>0\.761<\/td><\/tr>/);
  assert.match(fairness, /<tr class="ref">.*<td class="ref">0\.790<\/td><td class="ref">—<\/td><\/tr><tr class="diff">.*<td class="diff">\+0\.001/s);
  assert.match(html, /<table class="summary phases" data-link="bottleneck">.*<tr><td>0:01–2:00<\/td><td>1408<\/td><td>451<\/td><td class="avg">0\.791<\/td><\/tr>/s);
  assert.equal(html.match(/class="summary fairness-run"/g).length, 1, 'one fairness table');
});

test('a run whose devices had CPU limits names them in the header; one without has no such line', () => {
  const r = makeResult('static');
  const cgroups = { version: 1, peers: { p1: { name: 'wtb-ab-p1', paths: [], cpuQuotaCores: 0.3, quotaUs: 30000, periodUs: 100000, cpuCount: 1, cpus: '0' } } };
  assert.match(renderRunReport({ ...r, environment: { ...r.environment, cgroups } }), /<dt>CPU limits<\/dt><dd>p1: quota 0\.3 cores, cores 0<\/dd>/);
  assert.doesNotMatch(renderRunReport(r), /CPU limits/);
});
