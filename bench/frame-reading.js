#!/usr/bin/env node
// Benchmark: what reading the frame code of every presented frame (client-app/frame-reader.js) costs one peer.
// Per preset, one Chromium with the preset's marked fake camera shows its local video and, through a loopback
// RTCPeerConnection in the same page, the decoded remote video: what a peer of a two-party call shows. The browser's
// whole process tree is sampled from /proc without the reader, with it watching both videos (plus the one capture per
// second a receiver makes for picture quality), and without it again: the call's own CPU drifts as the encoder ramps
// up, so the reader's cost is the with-phase against the mean of the phases around it. Prints per preset: frames read
// per second, the reader's main-thread time per frame and per second (% of one core), and the browser's CPU.
// Prints figures; asserts nothing.
//
// Usage: node bench/frame-reading.js [--presets 360p30,720p30] [--seconds 10]
// (it starts browsers: on a machine others share, run it under the machine's lock, e.g. one-at-a-time)
import { parseArgs } from 'node:util';
import puppeteer from 'puppeteer';
import { ensureMedia } from '../media/generate.js';
import { resolveBrowserPath } from '../orchestrator/run/browser-path.js';
import { chromiumArgs } from '../orchestrator/run/browsers.js';
import { startProcessSampler } from '../orchestrator/run/process-sampler.js';
import { startSignalingServer } from '../signaling/server.js';

const { values } = parseArgs({ options: { presets: { type: 'string', default: '360p30,720p30' }, seconds: { type: 'string', default: '10' } } });
const seconds = Number(values.seconds);
const browserPath = resolveBrowserPath({ puppeteerPath: () => puppeteer.executablePath() }).path;
const signaling = await startSignalingServer();

/**
 * Mean CPU % (of one core) of the browser's tree over the rows after `sinceMs`.
 * @param {import('../orchestrator/run/process-sampler.js').ProcessRow[]} rows @param {number} sinceMs @param {number} untilMs
 */
const meanCpu = (rows, sinceMs, untilMs) => {
  const mine = rows.filter((row) => row.epochMs > sinceMs && row.epochMs <= untilMs);
  return mine.length ? mine.reduce((sum, row) => sum + row.cpuPct, 0) / mine.length : NaN;
};

console.log(`frame-code reading, ${seconds} s per phase, one peer showing its local and one remote video`);
console.log('preset   frames/s  ms/frame  reader %core  browser %core: without / with reader (captures)');
for (const preset of values.presets.split(',')) {
  const media = await ensureMedia(preset);
  const browser = await puppeteer.launch({
    executablePath: browserPath, headless: true, pipe: true, args: chromiumArgs(media, new URL(signaling.httpUrl).origin),
  });
  const pid = browser.process()?.pid;
  if (pid === undefined) throw new Error('the browser has no process id: puppeteer launched it without a child process');
  const sampler = startProcessSampler();
  sampler.track('browser', pid);
  try {
    const page = (await browser.pages())[0];
    // Any page of the server's origin: the reader is imported from it as the peer page imports it.
    await page.goto(`${signaling.httpUrl}frame-code.js`);
    await page.evaluate(async () => {
      // A URL of the page's origin, which the type check cannot resolve: hence a variable.
      const readerUrl = '/frame-reader.js';
      const { createFrameReader } = await import(readerUrl);
      const stream = await navigator.mediaDevices.getUserMedia({ video: true });
      const [sender, receiver] = [new RTCPeerConnection(), new RTCPeerConnection()];
      sender.onicecandidate = ({ candidate }) => candidate && receiver.addIceCandidate(candidate);
      receiver.onicecandidate = ({ candidate }) => candidate && sender.addIceCandidate(candidate);
      /** @param {MediaStream} srcObject */
      const video = (srcObject) => Object.assign(document.body.appendChild(document.createElement('video')), { muted: true, autoplay: true, srcObject });
      const local = video(stream);
      const remote = await new Promise((resolve) => {
        receiver.ontrack = ({ streams }) => resolve(video(streams[0]));
        sender.addTrack(stream.getVideoTracks()[0], stream);
        sender.createOffer().then(async (offer) => {
          await sender.setLocalDescription(offer);
          await receiver.setRemoteDescription(offer);
          const answer = await receiver.createAnswer();
          await receiver.setLocalDescription(answer);
          await sender.setRemoteDescription(answer);
        });
      });
      // any: the bench's own page global, unknown to the DOM types
      /** @type {any} */ (window).bench = { createFrameReader, local, remote };
    });
    /** @param {number} ms @returns {Promise<void>} */
    const wait = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });
    // Warm-up: the encoder ramps up its rate and resolution over the first seconds.
    await wait(10_000);
    const phaseMs = seconds * 1000;
    const offFrom = Date.now();
    await wait(phaseMs);
    const onFrom = Date.now();
    const totals = await page.evaluate(async (ms) => {
      // any: the bench's own page global, unknown to the DOM types
      const { createFrameReader, local, remote } = /** @type {any} */ (window).bench;
      const reader = createFrameReader();
      const stops = [reader.watchCamera(local.srcObject.getVideoTracks()[0], local), reader.watch(remote, 'remote')];
      const sums = { frames: 0, readMs: 0, captures: 0 };
      // Drained once a second, as the orchestrator does.
      const end = performance.now() + ms;
      while (performance.now() < end) {
        await new Promise((resolve) => { setTimeout(resolve, 1000); });
        const { frames, captures } = reader.drain();
        for (const log of Object.values(frames)) {
          sums.frames += log.codes.length;
          sums.readMs += log.readMs;
        }
        sums.captures += captures.length;
      }
      for (const stop of stops) stop();
      return sums;
    }, phaseMs);
    const onUntil = Date.now();
    await wait(phaseMs);
    await sampler.stop();
    const { rows } = sampler;
    const elapsedS = (onUntil - onFrom) / 1000;
    const without = (meanCpu(rows, offFrom + 1000, onFrom) + meanCpu(rows, onUntil + 1000, Date.now())) / 2;
    const withReader = meanCpu(rows, onFrom + 1000, onUntil);
    console.log(`${preset.padEnd(8)} ${(totals.frames / elapsedS).toFixed(1).padStart(8)}  ${(totals.readMs / totals.frames).toFixed(3).padStart(8)}  `
      + `${((100 * totals.readMs) / (elapsedS * 1000)).toFixed(2).padStart(12)}  ${without.toFixed(1)} / ${withReader.toFixed(1)} `
      + `(${totals.captures})`);
  } finally {
    await sampler.stop();
    await browser.close();
  }
}
await signaling.close();
