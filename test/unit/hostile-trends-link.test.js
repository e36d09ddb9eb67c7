// A shared results store is written by every CI runner: a report link in it is untrusted. The trend dashboard must
// not turn one into a `javascript:` (or data:, vbscript:, file:) href or navigation target, however it is spelled.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTrends } from '../../orchestrator/history/trends.js';
import { renderTrendsPage, safeLink } from '../../orchestrator/report/render-trends.js';

const HOSTILE = [
  'javascript:alert(1)', 'JaVaScRiPt:alert(1)', ' javascript:alert(1)', 'java\tscript:alert(1)', 'java\nscript:alert(1)',
  '\u0001javascript:alert(1)', 'javascript&colon;alert(1)'.replace('&colon;', ':'), 'data:text/html,<script>alert(1)</script>',
  'vbscript:msgbox(1)', 'file:///etc/passwd',
];
const SAFE = ['https://ci.example/nightly/42/report.html', 'http://ci.example/r.html', 'nights/2026-11-25/report.html',
  '../suites/nightly/report.html', '/srv/results/suites/nightly/report.html', 'report.html#top'];

/** A dashboard of one scenario over as many nights as links, the newest night's link last. @param {string[]} links */
function trendsWith(links) {
  const nights = links.map((report, i) => ({
    id: `nightly@n${i}`, started_at: `2026-11-${String(i + 1).padStart(2, '0')}T01:00:00.000Z`, outcome: 'passed',
    browser: 'chromium 156', commit_sha: null, report,
  }));
  const aggregates = nights.map((night) => ({ night_id: night.id, scenario: 'unconstrained', metric: 'video.recvKbps', median: 1700, q1: 1690, q3: 1710, n: 3, reference: null, browser_version: null, regression: 0 }));
  const statuses = nights.map((night) => ({ night_id: night.id, scenario: 'unconstrained', status: 'passed', runs: 3 }));
  return buildTrends({ nights, aggregates, statuses, metrics: ['video.recvKbps'] });
}

/** The page's hrefs and the report links of its embedded data. @param {string} html */
function linksOf(html) {
  const data = JSON.parse(/<script id="report-data" type="application\/json">([^]*?)<\/script>/.exec(html)?.[1] ?? 'null');
  const hrefs = [...html.matchAll(/href="([^"]*)"/g)].map((m) => m[1].replaceAll('&amp;', '&').replaceAll('&#39;', "'"));
  return { hrefs, reports: data.nights.map((/** @type {{ report: string|null }} */ night) => night.report) };
}

test('safeLink() passes http(s) and relative links and refuses javascript:, data:, vbscript: and file: however spelled', () => {
  for (const link of HOSTILE) assert.equal(safeLink(link), null, JSON.stringify(link));
  for (const link of SAFE) assert.equal(safeLink(link), link);
  for (const link of [null, undefined, '', 42]) assert.equal(safeLink(link), null);
});

test('a javascript: report link from a shared store is neither an href of the dashboard nor in its page data', () => {
  for (const hostile of HOSTILE) {
    const html = renderTrendsPage(trendsWith(['https://ci.example/1/report.html', hostile]), { store: 'the results store' });
    const { hrefs, reports } = linksOf(html);
    assert.deepEqual(reports, ['https://ci.example/1/report.html', null], JSON.stringify(hostile));
    assert.ok(hrefs.length > 0);
    assert.deepEqual(hrefs.filter((href) => safeLink(href) === null || href === hostile), [], JSON.stringify(hostile));
  }
  for (const safe of SAFE) {
    const { hrefs, reports } = linksOf(renderTrendsPage(trendsWith([safe, safe]), { store: 'the results store' }));
    assert.deepEqual(reports, [safe, safe]);
    assert.ok(hrefs.includes(safe), `${safe} is the newest night's report link`);
  }
});
