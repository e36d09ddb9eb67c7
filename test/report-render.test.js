// Opens generated reports in real headless Chromium from disk (file://) and checks what a reader
// would see: no console errors, no network, every chart drawn with data, the reference filled,
// gaps and errors shown. Screenshots go to results/test-artifacts/.
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, rm, writeFile, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import puppeteer from 'puppeteer';
import { resolveBrowserPath } from '../orchestrator/run/browser-path.js';
import { writeResult } from './fixtures/results/make-result.js';
import { writeRunReport, writeIndex, writeCompareReport } from '../orchestrator/report/write.js';
import { InputError } from '../orchestrator/lib/system/errors.js';

// any (the casts of `window` below): the report page's own globals, Chart.js's UMD build and the __reportReady flag,
// which the page functions read untyped.

const ARTIFACTS = fileURLToPath(new URL('../results/test-artifacts/', import.meta.url));
const LAUNCH = {
  executablePath: resolveBrowserPath({ puppeteerPath: () => puppeteer.executablePath() }).path,
  headless: true,
  timeout: 120_000, // the machine is shared with other browsers: launching can be slow
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
};

let root;
let browser;
/** @type {Record<string, string>} run directory per fixture kind */
const runs = {};

before(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'wtb-report-'));
  await mkdir(ARTIFACTS, { recursive: true });
  for (const [kind, scenario] of [['static', 'bandwidth-1500'], ['scheduled', 'changing-bandwidth'], ['aborted', 'loss-10'], ['flows', 'cross-traffic']]) {
    runs[kind] = path.join(root, scenario, '2026-11-21T11-20-00Z');
    await writeResult(kind, runs[kind]);
    await writeRunReport(runs[kind]);
  }
  runs.static2 = path.join(root, 'bandwidth-1500', '2026-11-21T12-00-00Z');
  await writeResult('static', runs.static2, { seed: 8 });
  await writeRunReport(runs.static2);
  browser = await puppeteer.launch(LAUNCH);
});

after(async () => {
  await browser?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

/**
 * Opens a page from disk and waits for the dashboard to report every chart drawn.
 * @param {string} file
 */
async function open(file, { waitForCharts = true } = {}) {
  const page = await browser.newPage();
  await page.setViewport({ width: 1400, height: 900 });
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warn') problems.push(`console ${m.type()}: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('request', (r) => { if (!/^(file|data|about):/.test(r.url())) problems.push(`network request: ${r.url()}`); });
  await page.goto(pathToFileURL(file).href, { waitUntil: 'load', timeout: 60_000 });
  if (waitForCharts) await page.waitForFunction(() => /** @type {any} */ (window).__reportReady, { timeout: 60_000 });
  return { page, problems };
}

/** Every Chart.js instance of the page: its canvas, number of datasets and non-null points, gap settings. */
function charts(page) {
  return page.evaluate(() => Object.values(/** @type {any} */ (window).Chart.instances).map((c) => ({
    id: c.canvas.id,
    datasets: c.data.datasets.map((d) => ({
      label: d.label,
      points: d.data.filter((p) => p.y !== null).length,
      nulls: d.data.filter((p) => p.y === null).length,
      spanGaps: d.spanGaps,
      ys: d.data.map((p) => p.y),
    })),
    xMin: c.scales.x.min,
    xMax: c.scales.x.max,
  })));
}

async function screenshot(page, name) {
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
}

/** @param {Array<{id: string, datasets: Array<{points: number}>}>} list @param {import('puppeteer').Page} page */
async function assertEveryChartHasData(list, page) {
  const canvases = await page.$$eval('canvas', (cs) => cs.map((c) => c.id));
  assert.ok(list.length > 0, 'the page has charts');
  assert.deepEqual(list.map((c) => c.id).sort(), canvases.sort(), 'every canvas holds a chart');
  for (const c of list) assert.ok(c.datasets.reduce((n, d) => n + d.points, 0) > 0, `${c.id} has data points`);
}

test('a static-condition report opens from disk without errors, every chart has data, the reference column is filled', { timeout: 180_000 }, async () => {
  const { page, problems } = await open(path.join(runs.static, 'report.html'));
  try {
    const list = await charts(page);
    await assertEveryChartHasData(list, page);
    assert.equal(list.length, 18); // 9 panels per peer, the loss-recovery one included
    const video = list.find((c) => c.id === 'chart-p0-video-rate');
    assert.deepEqual(video.datasets.map((d) => d.label), ['receive ← p1', 'send → p1', 'configured capacity']);
    assert.deepEqual(video.datasets[2].ys, [1500, 1500]);
    const ref = await page.$eval('tr[data-metric="video.recvKbps"]', (tr) => [tr.querySelector('td.ref').textContent, tr.querySelector('td.diff').textContent]);
    assert.deepEqual(ref[0], '1150 ± 129');
    assert.match(ref[1], /^[+−]\d+ \([+−]\d+\.\d %\)$/);
    const resolution = await page.$eval('tr[data-metric="resolution"] td.ref', (td) => td.textContent);
    assert.equal(resolution, '1020 × 574');
    const utilisationRef = await page.$eval('tr[data-metric="utilization"] td.ref', (td) => td.textContent);
    assert.equal(utilisationRef, '80.0', "bandwidth-1500's published utilisation, in %");
    await screenshot(page, 'report-static');
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test('a scheduled run shows the capacity schedule as steps, time to steady, network truth, and zoom applies to every chart', { timeout: 180_000 }, async () => {
  const { page, problems } = await open(path.join(runs.scheduled, 'report.html'));
  try {
    const list = await charts(page);
    await assertEveryChartHasData(list, page);
    const capacity = list.find((c) => c.id === 'chart-p1-video-rate').datasets.find((d) => d.label === 'configured capacity');
    assert.deepEqual(capacity.ys, [1000, 3000, 500, 1500, 1000, 1000]);
    for (const id of ['chart-net-queue-delay', 'chart-net-drops', 'chart-net-throughput']) assert.ok(list.some((c) => c.id === id), id);
    const steadyRows = await page.$$eval('table.steady tbody tr', (rows) => rows.map((r) => r.cells[0].textContent));
    assert.deepEqual(steadyRows, ['0:00', '1:00', '2:00', '3:00', '4:00']);
    assert.equal(await page.$eval('tr[data-metric="timeToSteadyS"] td.ref', (td) => td.textContent), '17.0');
    const steadyRefs = await page.$$eval('table.steady tbody tr td.ref', (cells) => cells.map((c) => c.textContent));
    assert.deepEqual(steadyRefs, ['—', '16 s', '—', '18 s', '—'], "J16's settling times at 1:00 and 3:00");

    // Drag across the first chart's plot area: every chart, once scrolled into view, shows that range.
    const box = await page.$eval('#chart-p0-video-rate', (c) => {
      c.scrollIntoView({ block: 'center' });
      const chart = /** @type {any} */ (window).Chart.getChart(c);
      const r = c.getBoundingClientRect();
      return {
        x0: r.left + chart.scales.x.getPixelForValue(60),
        x1: r.left + chart.scales.x.getPixelForValue(120),
        y: r.top + chart.chartArea.top + 20,
      };
    });
    await page.mouse.move(box.x0, box.y);
    await page.mouse.down();
    await page.mouse.move(box.x1, box.y, { steps: 5 });
    await page.mouse.up();
    assert.match(await page.$eval('#zoom-range', (e) => e.textContent), /^1:00–2:00$/);
    // The intersection observer's callback is a task of its own: on a loaded host it comes frames after the scroll.
    const rangesOnceShown = (/** @type {number[]} */ want) => page.evaluate(async (want) => {
      const out = [];
      for (const canvas of document.querySelectorAll('canvas')) {
        canvas.scrollIntoView();
        const c = /** @type {any} */ (window).Chart.getChart(canvas);
        const range = () => [Math.round(c.scales.x.min), Math.round(c.scales.x.max)];
        for (let frames = 0; frames < 120 && range().join() !== want.join(); frames++) {
          await new Promise((r) => requestAnimationFrame(r));
        }
        out.push(range());
      }
      return out;
    }, want);
    const ranges = await rangesOnceShown([60, 120]);
    assert.ok(ranges.length > 0);
    for (const r of ranges) assert.deepEqual(r, [60, 120]);
    await page.click('#zoom-reset');
    const reset = await rangesOnceShown([0, 300]);
    for (const r of reset) assert.deepEqual(r, [0, 300]);
    await page.evaluate(() => window.scrollTo(0, 0));
    await screenshot(page, 'report-scheduled');
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test('an aborted run renders its errors and leaves gaps unbridged', { timeout: 180_000 }, async () => {
  const { page, problems } = await open(path.join(runs.aborted, 'report.html'));
  try {
    const list = await charts(page);
    await assertEveryChartHasData(list, page);
    const problemsText = await page.$eval('section.problems', (s) => s.textContent);
    assert.match(problemsText, /Run aborted/);
    assert.match(problemsText, /page crashed/);
    assert.match(problemsText, /no summary/);
    const recv = list.find((c) => c.id === 'chart-p0-video-rate').datasets.find((d) => d.label === 'receive ← p1');
    assert.ok(recv.nulls > 0, 'the missing seconds are null points');
    assert.equal(recv.spanGaps, false);
    assert.equal(await page.$eval('tr[data-metric="lossPct"] td.ref', (td) => td.textContent), '10.18');
    await screenshot(page, 'report-aborted');
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test('a run with cross traffic: flows stacked under the capacity, flow changes marked and labelled on every chart, one fairness table', { timeout: 180_000 }, async () => {
  const { page, problems } = await open(path.join(runs.flows, 'report.html'));
  try {
    const list = await charts(page);
    await assertEveryChartHasData(list, page);
    const stacked = list.find((c) => c.id === 'chart-flows-bottleneck_fwd-stacked');
    assert.deepEqual(stacked.datasets.map((d) => d.label), ['call:fwd', 'call-2:fwd', 'call-3:fwd', 'tcp', 'configured capacity']);
    // Chart.js stacks the flows (each area's top is the sum of the flows up to it) and leaves the capacity line alone.
    const stack = await page.$eval('#chart-flows-bottleneck_fwd-stacked', (canvas) => {
      canvas.scrollIntoView();
      const chart = /** @type {any} */ (window).Chart.getChart(canvas);
      const top = (dataset, t) => {
        const i = chart.data.datasets[dataset].data.findIndex((p) => p.x === t);
        return Math.round(chart.scales.y.getValueForPixel(chart.getDatasetMeta(dataset).data[i].y));
      };
      const raw = (dataset, t) => chart.data.datasets[dataset].data.find((p) => p.x === t).y;
      return { stacked: chart.options.scales.y.stacked, fill: chart.data.datasets.map((d) => d.fill),
        top: top(3, 210), sum: Math.round([0, 1, 2, 3].reduce((s, d) => s + raw(d, 210), 0)), capacity: top(4, 0) };
    });
    assert.deepEqual(stack, { stacked: true, fill: ['origin', '-1', '-1', '-1', false], top: stack.sum, sum: stack.sum, capacity: 2000 });
    assert.ok(stack.sum > 1500 && stack.sum < 2000, `the flows fill the 2000 kbps bottleneck (${stack.sum})`);
    // The marker of call-2 joining at 1:00, and its label, on a chart of another section: purple pixels in its column.
    const marked = await page.$eval('#chart-p0-rtt', (canvas) => {
      canvas.scrollIntoView();
      const chart = /** @type {any} */ (window).Chart.getChart(canvas);
      const ratio = chart.currentDevicePixelRatio;
      const area = chart.chartArea;
      // One readback (several make Chromium warn on the console).
      const image = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
      const purple = (x0, x1, y0, y1) => {
        let n = 0;
        for (let y = Math.round(y0 * ratio); y < Math.round(y1 * ratio); y += 1) {
          for (let x = Math.round(x0 * ratio); x < Math.round(x1 * ratio); x += 1) {
            const i = (y * canvas.width + x) * 4;
            if (image.data[i + 2] - image.data[i + 1] > 50 && image.data[i] < 160 && image.data[i] > 60) n += 1;
          }
        }
        return n;
      };
      const x = Math.round(chart.scales.x.getPixelForValue(60));
      return {
        line: purple(x - 1, x + 2, area.top + 40, area.bottom), label: purple(x + 3, x + 60, area.top, area.top + 14),
        before: purple(x - 40, x - 5, area.top + 40, area.bottom),
      };
    });
    assert.ok(marked.line > 20, `a dashed line at 1:00 (${marked.line} px)`);
    assert.ok(marked.label > 20, `its label (${marked.label} px)`);
    assert.equal(marked.before, 0, 'nothing purple elsewhere');
    assert.equal(await page.$$eval('table.fairness-run', (t) => t.length), 1);
    const phases = await page.$$eval('table.phases[data-link="bottleneck.fwd"] tbody tr', (rows) => rows.map((r) => r.cells[1].textContent));
    assert.deepEqual(phases, ['start', 'call-2:fwd joins', 'call-3:fwd joins', 'call-3:fwd leaves', 'call-3:fwd joins', 'tcp joins', 'call-3:fwd leaves', 'tcp leaves']);
    await screenshot(page, 'report-flows');
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test('a truncated result.json gives an error naming the file and a page that says so, not a blank page', { timeout: 180_000 }, async () => {
  const dir = path.join(root, 'broken', '2026-11-21T13-00-00Z');
  await mkdir(dir, { recursive: true });
  const whole = await readFile(path.join(runs.static, 'result.json'), 'utf8');
  await writeFile(path.join(dir, 'result.json'), whole.slice(0, 5000));
  await assert.rejects(writeRunReport(dir), (error) => {
    assert.ok(error instanceof InputError);
    assert.ok(error.message.includes(path.join(dir, 'result.json')), error.message);
    assert.match(error.message, /truncated/);
    return true;
  });
  const { page, problems } = await open(path.join(dir, 'report.html'), { waitForCharts: false });
  try {
    const text = await page.$eval('#load-error', (e) => e.textContent);
    assert.ok(text.includes(path.join(dir, 'result.json')));
    assert.match(text, /truncated/);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test('the results index lists every run, readable or not, and filters by status', { timeout: 180_000 }, async () => {
  await writeIndex(root);
  const { page, problems } = await open(path.join(root, 'index.html'), { waitForCharts: false });
  try {
    const rows = await page.$$eval('table.runs tbody tr', (trs) => trs.map((tr) => tr.dataset.status));
    assert.equal(rows.length, 6);
    assert.deepEqual([...new Set(rows)].sort(), ['aborted', 'passed', 'unreadable']);
    await page.select('select[data-filter="status"]', 'aborted');
    const visible = await page.$$eval('table.runs tbody tr', (trs) => trs.filter((tr) => !tr.hidden).map((tr) => tr.dataset.scenario));
    assert.deepEqual(visible, ['loss-10']);
    assert.match(await page.$eval('#run-count', (e) => e.textContent), /^1 of 6 runs$/);
    const href = await page.$eval('tr[data-scenario="loss-10"] a', (a) => a.href);
    assert.equal(href, pathToFileURL(path.join(runs.aborted, 'report.html')).href);
    await screenshot(page, 'report-index');
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test('compare overlays two runs of one scenario, one line per run', { timeout: 180_000 }, async () => {
  const out = await writeCompareReport([runs.static, runs.static2], { out: path.join(root, 'compare.html') });
  const { page, problems } = await open(out);
  try {
    const list = await charts(page);
    await assertEveryChartHasData(list, page);
    const video = list.find((c) => c.id === 'chart-cmp-p0-video_recvKbps');
    assert.deepEqual(video.datasets.map((d) => d.label).slice(0, 2), ['run 1 · 2026-11-21 11:27', 'run 2 · 2026-11-21 11:28']);
    assert.equal(video.datasets.at(-1).label, 'configured (run 1)');
    const refCells = await page.$$eval('table.summary td.ref', (tds) => tds.map((td) => td.textContent).filter((t) => t !== '—'));
    assert.ok(refCells.includes('1150'), refCells.join(', '));
    await screenshot(page, 'report-compare');
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});
