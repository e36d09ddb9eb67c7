#!/usr/bin/env node
// Benchmark: the error of a Grid node's clock offset as the run measures it (run/grid-observer.js measurePageClock:
// Runtime.evaluate of the page's performance.timeOrigin + performance.now(), the round trip with the smallest delay of
// CLOCK_SAMPLES, its midpoint). The browser here runs on this machine, so the true offset is 0: each repetition's
// |offset| is the measurement's error, set beside the error it states (± half the best round trip). Puppeteer attaches
// over a WebSocket, as it does to a Grid session's se:cdp (without the router's hop). Prints figures; asserts nothing.
//
// Usage: node bench/grid-clock.js [--repetitions 50] [--pause-ms 100]
// (it starts a browser: on a machine others share, run it under the machine's lock, e.g. one-at-a-time)
import { parseArgs } from 'node:util';
import puppeteer from 'puppeteer';
import { resolveBrowserPath } from '../orchestrator/run/browser-path.js';
import { CLOCK_SAMPLES, measurePageClock } from '../orchestrator/run/grid-observer.js';
import { percentile } from '../orchestrator/lib/stats/statistics.js';

const { values } = parseArgs({ options: { repetitions: { type: 'string', default: '50' }, 'pause-ms': { type: 'string', default: '100' } } });
const repetitions = Number(values.repetitions);
const pauseMs = Number(values['pause-ms']);
if (!(Number.isInteger(repetitions) && repetitions >= 1) || !(pauseMs >= 0)) {
  throw new Error('--repetitions must be an integer of at least 1 and --pause-ms 0 or more');
}
const browserPath = resolveBrowserPath({ puppeteerPath: () => puppeteer.executablePath() }).path;
const browser = await puppeteer.launch({
  executablePath: browserPath, headless: true, pipe: false, args: ['--disable-gpu', ...(process.getuid?.() === 0 ? ['--no-sandbox'] : [])],
});
try {
  const page = (await browser.pages())[0] ?? await browser.newPage();
  await page.goto('data:text/html,<title>clock</title>');
  const readings = [];
  for (let i = 0; i < repetitions; i += 1) {
    readings.push(await measurePageClock(page));
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
  /** @param {number[]} list one value per reading (never empty: at least one repetition) */
  const spread = (list) => {
    const sorted = [...list].sort((a, b) => a - b);
    /** @param {number | null | undefined} ms */
    const shown = (ms) => ms?.toFixed(3) ?? '-';
    return `median ${shown(percentile(sorted, 50))}  p95 ${shown(percentile(sorted, 95))}  max ${shown(sorted.at(-1))} ms`;
  };
  const offsets = readings.map((reading) => Math.abs(reading.offsetMs));
  const errors = readings.map((reading) => reading.errorMs);
  const within = readings.filter((reading) => Math.abs(reading.offsetMs) <= reading.errorMs).length;
  console.log(`clock offset of a page on this machine (true offset 0), ${repetitions} readings of ${CLOCK_SAMPLES} round trips each, ${pauseMs} ms apart`);
  console.log(`|offset| (the measurement's error):  ${spread(offsets)}`);
  console.log(`stated error (± best RTT / 2):        ${spread(errors)}`);
  console.log(`best round trip:                       ${spread(readings.map((reading) => reading.rttMs))}`);
  console.log(`|offset| within the stated error in ${within} of ${repetitions} readings`);
} finally {
  await browser.close();
}
