// Report rendering benchmark: prints figures, asserts nothing.
// A synthetic 12-minute, 4-peer result (full mesh, each peer with 3 remotes, network truth on 8
// links) is rendered to report.html, then opened from disk in headless Chromium several times.
// Figures: node render time, page size, and in the browser the time from navigation start to all
// charts drawn (window.__reportReady, set one frame after the last chart). Target: < 2000 ms.
// Usage: node bench/report-render.js [--runs 5]
import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import puppeteer from 'puppeteer';
import { resolveBrowserPath } from '../orchestrator/run/browser-path.js';
import { writeResult } from '../test/fixtures/results/make-result.js';
import { writeRunReport } from '../orchestrator/report/write.js';
import { describe } from '../orchestrator/lib/stats/statistics.js';

const TARGET_MS = 2000;
const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' } } });
const runs = Number(values.runs);

const dir = await mkdtemp(path.join(os.tmpdir(), 'wtb-bench-report-'));
const browser = await puppeteer.launch({
  executablePath: resolveBrowserPath({ puppeteerPath: () => puppeteer.executablePath() }).path,
  headless: true,
  timeout: 120_000, // the machine is shared with other browsers: launching can be slow
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
});
try {
  await writeResult('large', dir);
  const resultBytes = (await stat(path.join(dir, 'result.json'))).size;
  const t0 = performance.now();
  const file = await writeRunReport(dir);
  const renderMs = performance.now() - t0;
  const htmlBytes = (await stat(file)).size;

  const readyMs = [];
  const startMs = [];
  const scriptMs = [];
  const layoutMs = [];
  let charts = 0;
  let points = 0;
  for (let i = 0; i < runs; i += 1) {
    const page = await browser.newPage();
    await page.setViewport({ width: 1400, height: 900 });
    const cdp = await page.createCDPSession();
    await cdp.send('Performance.enable');
    await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
    // The report page sets __reportReady and Chart (orchestrator/report/assets): globals the DOM types do not know.
    // any: the report page's globals, unknown to the DOM types
    await page.waitForFunction(() => /** @type {any} */ (window).__reportReady, { timeout: 60_000 });
    const { metrics } = await cdp.send('Performance.getMetrics');
    /** @param {string} name */
    const metric = (name) => metrics.find((m) => m.name === name)?.value ?? 0;
    scriptMs.push(metric('ScriptDuration') * 1000);
    layoutMs.push((metric('LayoutDuration') + metric('RecalcStyleDuration')) * 1000);
    const ready = await page.evaluate(() => {
      // any: the report page's globals, unknown to the DOM types
      const view = /** @type {any} */ (window);
      return {
        ...view.__reportReady,
        // Chart.js's types are not loaded here: the fields read are typed by hand.
        points: Object.values(view.Chart.instances).reduce((/** @type {number} */ n,
          /** @type {{ data: { datasets: Array<{ data: unknown[] }> } }} */ c) => n
          + c.data.datasets.reduce((/** @type {number} */ m, d) => m + d.data.length, 0), 0),
      };
    });
    readyMs.push(ready.atMs);
    startMs.push(ready.chartsStartedAtMs);
    charts = ready.charts;
    points = ready.points;
    await page.close();
  }
  const s = describe(readyMs);
  /** A median in whole ms ('–' for no loads). @param {number[]} list */
  const medianMs = (list) => describe(list).median?.toFixed(0) ?? '–';
  console.log(`result.json                 ${(resultBytes / 1e6).toFixed(1)} MB (12 min, 4 peers x 3 remotes)`);
  console.log(`node render (writeRunReport) ${renderMs.toFixed(0)} ms, report.html ${(htmlBytes / 1e6).toFixed(2)} MB`);
  console.log(`charts ${charts}, points ${points}`);
  console.log(`navigation start -> all charts drawn: median ${medianMs(readyMs)} ms, min ${Math.min(...readyMs).toFixed(0)}, max ${Math.max(...readyMs).toFixed(0)} (${runs} loads)`);
  console.log(`  of which before the chart script starts (HTML, Chart.js, data parsed): median ${medianMs(startMs)} ms`);
  console.log(`  renderer busy: script median ${medianMs(scriptMs)} ms, style+layout median ${medianMs(layoutMs)} ms`);
  console.log(`target < ${TARGET_MS} ms: ${s.median !== null && s.median < TARGET_MS ? 'met' : 'NOT met'}; load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} CPUs`);
} finally {
  await browser.close();
  await rm(dir, { recursive: true, force: true });
}
