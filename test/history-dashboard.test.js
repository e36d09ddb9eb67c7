// The trend dashboard in a real browser: a seeded synthetic year (365 nights) is written into an embedded store,
// rendered by `history report` and served by `serve --store`; the test checks that the charts draw, and that the
// planted slow drift and the planted browser change are marked where they were planted (pixels of the canvas).
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import puppeteer from 'puppeteer';
import { resolveBrowserPath } from '../orchestrator/run/browser-path.js';
import { openStore } from '../orchestrator/history/store.js';
import { writeRecords } from '../orchestrator/history/import.js';
import { syntheticNights } from '../orchestrator/history/synthetic.js';
import { trendsFromStore } from '../orchestrator/history/query.js';
import { DASHBOARD_METRICS } from '../orchestrator/history/trends.js';
import { renderTrendsPage } from '../orchestrator/report/render-trends.js';
import { startServer } from '../orchestrator/commands/serve-server.js';
import { runCli, tempDir } from './helpers/cli.js';

const ARTIFACTS = fileURLToPath(new URL('../results/test-artifacts/', import.meta.url));
const SCENARIOS = ['bandwidth-750', 'latency-250', 'loss-5', 'unconstrained'];
const PLANTED = {
  drift: { scenario: 'latency-250', metric: 'video.recvKbps', lastNights: 14, pctPerNight: 2 },
  browserChange: { night: 300, from: 'chromium 156.0.8078.108', to: 'chromium 157.0.8123.4' },
  regression: { night: 200, scenario: 'latency-250', metric: 'rttMs' },
};
let dir;
let html;
let browser;
let server;

before(async () => {
  dir = tempDir('wtb-trends-');
  const file = path.join(dir, 'history.sqlite');
  const store = await openStore(file);
  for (const night of syntheticNights({ scenarios: SCENARIOS, nights: 365, runsPerNight: 3, ...PLANTED })) await writeRecords(store, night);
  await store.close();
  html = path.join(dir, 'trends.html');
  const run = await runCli(['history', 'report', '--store', file, '--out', html], { env: { GITHUB_ACTIONS: '' } });
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /drift: latency-250 video\.recvKbps: drifted -\d+\.\d % \(worse\)/);
  server = await startServer({ dir, port: 0, trendsStore: file });
  browser = await puppeteer.launch({
    executablePath: resolveBrowserPath({ puppeteerPath: () => puppeteer.executablePath() }).path,
    headless: true, timeout: 120_000, args: ['--no-sandbox', '--disable-gpu', '--no-first-run'],
  });
});

after(async () => {
  await browser?.close();
  await server?.close();
});

/** Counts pixels near a colour in a column or row of a chart's canvas (device pixels). */
const countColour = (page, metric, probe) => page.evaluate(({ metric, probe }) => {
  const entry = window['trendCharts'].find((e) => e.metric === metric);
  const { chart } = entry;
  const ratio = chart.currentDevicePixelRatio;
  const area = chart.chartArea;
  const ctx = chart.canvas.getContext('2d');
  const x = probe.night === undefined ? null : chart.scales.x.getPixelForValue(probe.night);
  let hits = 0;
  // A pixel's red, green and blue, each within the tolerance of the probe's colour.
  const near = (data, i) => [0, 1, 2].filter((k) => Math.abs(data[i + k] - probe.rgb[k]) <= probe.tolerance).length === 3;
  if (x !== null) {
    const height = Math.round((area.bottom - area.top) * ratio);
    const data = ctx.getImageData(Math.round(x * ratio), Math.round(area.top * ratio), 1, height).data;
    for (let i = 0; i < data.length; i += 4) if (near(data, i)) hits++;
  } else {
    const from = chart.scales.x.getPixelForValue(probe.fromNight) + 4;
    const width = Math.round((area.right - from - 4) * ratio);
    const y = area.top + (area.bottom - area.top) / 4; // above the drifted (lower) values, clear of the top grid line
    const data = ctx.getImageData(Math.round(from * ratio), Math.round(y * ratio), width, 1).data;
    for (let i = 0; i < data.length; i += 4) if (near(data, i)) hits++;
  }
  return hits;
}, { metric, probe });

test('the dashboard of a synthetic year draws every chart and marks the planted drift, browser change and regression', async () => {
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 900 });
  const errors = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`${server.url}trends.html#latency-250`, { waitUntil: 'load' });
  await page.waitForFunction(() => document.body.dataset.trendsDrawn === 'latency-250', { timeout: 30_000 });
  assert.deepEqual(errors, []);

  const charts = await page.evaluate(() => window['trendCharts'].map((e) => {
    const ctx = e.chart.canvas.getContext('2d');
    const { data } = ctx.getImageData(0, 0, e.chart.canvas.width, e.chart.canvas.height);
    let inked = 0;
    for (let i = 0; i < data.length; i += 4) if (data[i + 3] > 0 && data[i] + data[i + 1] + data[i + 2] < 600) inked++;
    const regression = e.chart.data.datasets.find((d) => d.label === 'regression (gate)');
    return { metric: e.metric, inked, drift: e.drift?.fromNight ?? null, regressions: regression?.data.map((p) => p.x) ?? [] };
  }));
  assert.deepEqual(charts.map((c) => c.metric), ['audio.recvKbps', 'video.recvKbps', 'rttMs', 'lossPct', 'video.recvFps', 'utilization', 'setupMs']);
  for (const chart of charts) assert.ok(chart.inked > 2000, `${chart.metric}: the chart drew (${chart.inked} inked pixels)`);
  assert.deepEqual(charts.filter((c) => c.drift !== null).map((c) => c.metric), ['video.recvKbps'], 'only the planted drift is flagged');
  assert.deepEqual(charts.find((c) => c.metric === 'rttMs').regressions, [PLANTED.regression.night]);

  const purple = { rgb: [142, 68, 173], tolerance: 40 };
  const lineAt = await countColour(page, 'video.recvKbps', { ...purple, night: PLANTED.browserChange.night });
  const lineBefore = await countColour(page, 'video.recvKbps', { ...purple, night: PLANTED.browserChange.night - 30 });
  assert.ok(lineAt > 50 && lineBefore < 5, `browser change drawn at night 300 (${lineAt} purple pixels there, ${lineBefore} a month earlier)`);
  // The canvas is transparent: the shade reads back as its own colour at a low alpha.
  const driftShade = { rgb: [255, 140, 0], tolerance: 12 };
  const drifted = charts.find((c) => c.metric === 'video.recvKbps').drift;
  assert.equal(drifted, 365 - 7, 'the drift window is the last 7 nights');
  const shaded = await countColour(page, 'video.recvKbps', { ...driftShade, fromNight: drifted });
  const unshaded = await countColour(page, 'rttMs', { ...driftShade, fromNight: drifted });
  assert.ok(shaded > 3 && unshaded === 0, `drift window shaded (${shaded} px) only on the drifted chart (${unshaded} px on rttMs)`);

  const overview = await page.$$eval('tr[data-scenario="latency-250"] .drift-worse', (els) => els.map((e) => e.textContent));
  assert.deepEqual(overview, ['video.recvKbps']);
  assert.equal(await page.$$eval('table.trend-overview svg.sparkline', (els) => els.length), SCENARIOS.length);
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, 'history-trends.png'), fullPage: true });
  assert.ok(readFileSync(html).length < 2_000_000, 'a year of 4 scenarios stays small');
  await page.close();
});

test('a javascript: report link in the page data (a store shared by every runner) is not followed by a click on a point', async () => {
  const store = await openStore(path.join(dir, 'history.sqlite'));
  let rendered;
  try {
    rendered = renderTrendsPage(await trendsFromStore(store, { metrics: DASHBOARD_METRICS }), { store: 'the results store' });
  } finally {
    await store.close();
  }
  // The server drops such links (test/unit/hostile-trends-link.test.js); this page's data gets them back, so the
  // page script's own check is what is attacked. The same page with a relative link shows the click does navigate.
  const withLink = (link) => rendered.replace(/"report":"[^"]*"/g, `"report":${JSON.stringify(link)}`);
  writeFileSync(path.join(dir, 'hostile-trends.html'), withLink('java\tscript:void(window.__pwned = 1)'));
  writeFileSync(path.join(dir, 'linked-trends.html'), withLink('clicked.html'));
  writeFileSync(path.join(dir, 'clicked.html'), '<!doctype html><title>clicked</title>');
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 900 });
  /** Clicks the rttMs chart near its newest night. */
  const clickNewest = async () => {
    await page.waitForFunction(() => document.body.dataset.trendsDrawn === 'latency-250', { timeout: 30_000 });
    const at = await page.evaluate(() => {
      const { chart } = window['trendCharts'].find((e) => e.metric === 'rttMs');
      chart.canvas.scrollIntoView();
      const box = chart.canvas.getBoundingClientRect();
      const point = chart.getDatasetMeta(chart.data.datasets.findIndex((d) => d.label.startsWith('median'))).data.at(-1);
      return { x: box.left + point.x, y: box.top + point.y };
    });
    await page.mouse.click(at.x, at.y);
  };
  await page.goto(`${server.url}linked-trends.html#latency-250`, { waitUntil: 'load' });
  await Promise.all([page.waitForNavigation({ timeout: 10_000 }), clickNewest()]);
  assert.equal(new URL(page.url()).pathname, '/clicked.html', 'a click on a point follows a relative report link');

  await page.goto(`${server.url}hostile-trends.html#latency-250`, { waitUntil: 'load' });
  await clickNewest();
  await new Promise((resolve) => setTimeout(resolve, 1000));
  assert.equal(await page.evaluate(() => window['__pwned'] ?? null), null, 'the javascript: link did not run');
  assert.equal(new URL(page.url()).pathname, '/hostile-trends.html');
  await page.close();
});
