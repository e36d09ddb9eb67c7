#!/usr/bin/env node
// Benchmark: where the frames of an open two-party link go between the camera and the viewer's screen (README "What
// the viewer saw", issue "Frames as seen"). Two Chromium browsers, as in a call: the sender's marked fake camera,
// one RTCPeerConnection over loopback (no emulator: an open link), the receiver's <video>. Per preset and reader
// mode, each second of a phase counts the sender's camera frames (media-source), frames encoded and sent, the
// receiver's frames received, decoded and dropped, the frames the <video> handed to the compositor
// (requestVideoFrameCallback's presentedFrames), the callbacks the page got, and (with the reader) the distinct
// frame codes shown. Modes: `off` (callbacks counted, nothing read), `codes` (client-app/frame-reader.js reads
// every frame's code, no captures), `captures` (and captures one frame a second, as a run does).
// Prints figures; asserts nothing.
//
// Usage: node bench/frames-as-seen.js [--presets 360p30,720p30] [--modes off,codes,captures] [--seconds 15] [--headful]
// (it starts browsers: on a machine others share, run it under the machine's lock, e.g. one-at-a-time; --headful
// needs a display, e.g. xvfb-run -a node bench/frames-as-seen.js --headful)
import { parseArgs } from 'node:util';
import puppeteer from 'puppeteer';
import { ensureMedia } from '../media/generate.js';
import { resolveBrowserPath } from '../orchestrator/run/browser-path.js';
import { chromiumArgs } from '../orchestrator/run/browsers.js';
import { startSignalingServer } from '../signaling/server.js';

/** @typedef {import('puppeteer').Page} Page */

const { values } = parseArgs({ options: {
  presets: { type: 'string', default: '360p30,720p30' }, modes: { type: 'string', default: 'off,codes,captures' },
  seconds: { type: 'string', default: '15' }, headful: { type: 'boolean', default: false } } });
const seconds = Number(values.seconds);
if (!(seconds > 0)) throw new Error(`--seconds ${values.seconds}: give a positive number of seconds`);
const modes = values.modes.split(',');
const unknown = modes.filter((mode) => !['off', 'codes', 'captures'].includes(mode));
if (unknown.length) throw new Error(`--modes: unknown ${unknown.join(', ')}; give off, codes or captures`);
const browserPath = resolveBrowserPath({ puppeteerPath: () => puppeteer.executablePath() }).path;
const signaling = await startSignalingServer();
/** @param {number} ms */
const wait = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });

/**
 * A page of the server's origin (the reader is imported from it, as the peer page does) in a browser of its own.
 * @param {import('../media/generate.js').Media} media
 */
async function openPeer(media) {
  const browser = await puppeteer.launch({
    executablePath: browserPath, headless: !values.headful, pipe: true, args: chromiumArgs(media, new URL(signaling.httpUrl).origin),
  });
  const page = (await browser.pages())[0];
  await page.goto(`${signaling.httpUrl}frame-code.js`);
  return { browser, page };
}

/**
 * Offer/answer between the pages, each waiting for its ICE gathering: no signaling server needed on one host.
 * @param {Page} sender @param {Page} receiver
 */
async function connect(sender, receiver) {
  const offer = await sender.evaluate(async () => {
    const stream = await navigator.mediaDevices.getUserMedia({ video: true });
    const pc = new RTCPeerConnection();
    pc.addTrack(stream.getVideoTracks()[0], stream);
    const gathered = new Promise((resolve) => { pc.onicegatheringstatechange = () => pc.iceGatheringState === 'complete' && resolve(undefined); });
    await pc.setLocalDescription(await pc.createOffer());
    await gathered;
    // any: the bench's own page global, unknown to the DOM types
    /** @type {any} */ (window).bench = { pc, track: stream.getVideoTracks()[0] };
    if (!pc.localDescription) throw new Error('no local description after setLocalDescription: see the browser log');
    return pc.localDescription.toJSON();
  });
  const answer = await receiver.evaluate(async (/** @type {RTCSessionDescriptionInit} */ remoteOffer) => {
    const pc = new RTCPeerConnection();
    const video = Object.assign(document.body.appendChild(document.createElement('video')), { muted: true, autoplay: true });
    pc.ontrack = ({ streams }) => { video.srcObject = streams[0]; };
    await pc.setRemoteDescription(remoteOffer);
    const gathered = new Promise((resolve) => { pc.onicegatheringstatechange = () => pc.iceGatheringState === 'complete' && resolve(undefined); });
    await pc.setLocalDescription(await pc.createAnswer());
    await gathered;
    // any: the bench's own page global, unknown to the DOM types
    /** @type {any} */ (window).bench = { pc, video };
    if (!pc.localDescription) throw new Error('no local description after setLocalDescription: see the browser log');
    return pc.localDescription.toJSON();
  }, offer);
  // any: the bench's own page global, unknown to the DOM types
  await sender.evaluate((/** @type {RTCSessionDescriptionInit} */ remoteAnswer) => /** @type {any} */ (window).bench.pc
    .setRemoteDescription(remoteAnswer), answer);
}

/**
 * getStats counters of the page's one video stream, summed over its reports of `type`.
 * @param {Page} page @param {string} type @param {string[]} fields
 */
const counters = (page, type, fields) => page.evaluate(async (/** @type {string} */ wanted, /** @type {string[]} */ names) => {
  /** @type {Record<string, number>} */
  const totals = Object.fromEntries(names.map((name) => [name, 0]));
  // any: the bench's own page global, unknown to the DOM types
  const { pc } = /** @type {{ pc: RTCPeerConnection }} */ (/** @type {any} */ (window).bench);
  (await pc.getStats()).forEach((report) => {
    if (report.type === wanted && (report.kind ?? 'video') === 'video') for (const name of names) totals[name] += report[name] ?? 0;
  });
  return totals;
}, type, fields);

/**
 * Starts the phase's watchers in the receiver (and the sender's camera reader, as a run has).
 * @param {Page} sender @param {Page} receiver @param {string} mode
 */
async function startPhase(sender, receiver, mode) {
  if (mode !== 'off') {
    await sender.evaluate(async () => {
      const { createFrameReader } = await import(/** @type {string} */ ('/frame-reader.js'));
      // any: the bench's own page global, unknown to the DOM types
      const bench = /** @type {any} */ (window).bench;
      bench.reader = createFrameReader();
      bench.stop = bench.reader.watchCamera(bench.track, document.createElement('video'));
    });
  }
  await receiver.evaluate(async (/** @type {string} */ readerMode) => {
    // any: the bench's own page global, unknown to the DOM types
    const bench = /** @type {any} */ (window).bench;
    const { video } = bench;
    // codes: changes of the code read (distinct pictures; the source loops, so a set of codes would saturate).
    bench.count = { callbacks: 0, presented: 0, codes: 0, lastCode: -1, captures: 0 };
    /** @type {number | null} */
    let last = null;
    let watching = true;
    /** @param {DOMHighResTimeStamp} _now @param {VideoFrameCallbackMetadata} frame */
    const onFrame = (_now, frame) => {
      if (!watching) return;
      bench.count.callbacks += 1;
      if (last !== null) bench.count.presented += frame.presentedFrames - last;
      last = frame.presentedFrames;
      video.requestVideoFrameCallback(onFrame);
    };
    video.requestVideoFrameCallback(onFrame);
    const stops = [() => { watching = false; }];
    if (readerMode !== 'off') {
      const { createFrameReader } = await import(/** @type {string} */ ('/frame-reader.js'));
      const reader = createFrameReader();
      reader.setCaptureEvery(readerMode === 'captures' ? 30 : 1e9);
      stops.push(reader.watch(video, 'remote'));
      // Drained once a second, as the orchestrator does.
      const timer = setInterval(() => {
        const { frames, captures } = reader.drain();
        for (const code of frames.remote?.codes ?? []) {
          if (code >= 0 && code !== bench.count.lastCode) bench.count.codes += 1;
          if (code >= 0) bench.count.lastCode = code;
        }
        bench.count.captures += captures.length;
      }, 1000);
      stops.push(() => clearInterval(timer));
    }
    bench.stopPhase = () => {
      for (const stop of stops) stop();
      const { callbacks, presented, codes, captures } = bench.count;
      return { callbacks, presented, codes, captures };
    };
  }, mode);
}

/**
 * One phase: counters before and after, per second.
 * @param {Page} sender @param {Page} receiver @param {string} mode
 */
async function phase(sender, receiver, mode) {
  const sent = ['frames', 'framesEncoded', 'framesSent'];
  const received = ['framesReceived', 'framesDecoded', 'framesDropped'];
  const read = async () => ({ ...(await counters(sender, 'media-source', ['frames'])), ...(await counters(sender, 'outbound-rtp', sent.slice(1))),
    ...(await counters(receiver, 'inbound-rtp', received)) });
  const before = await read();
  await startPhase(sender, receiver, mode);
  const fromMs = Date.now();
  await wait(seconds * 1000);
  // any: the bench's own page global, unknown to the DOM types
  const seen = await receiver.evaluate(() => /** @type {any} */ (window).bench.stopPhase());
  const elapsedS = (Date.now() - fromMs) / 1000;
  const after = await read();
  // any: the bench's own page global, unknown to the DOM types
  if (mode !== 'off') await sender.evaluate(() => /** @type {any} */ (window).bench.stop());
  // any: the bench's own page global, unknown to the DOM types
  const size = await receiver.evaluate(() => `${/** @type {any} */ (window).bench.video.videoWidth}x${/** @type {any} */ (window).bench.video.videoHeight}`);
  /** @param {number} value */
  const rate = (value) => (value / elapsedS).toFixed(1).padStart(6);
  /** @param {string} name */
  const delta = (name) => rate(after[name] - before[name]);
  return `${mode.padEnd(9)}${size.padStart(10)} ${delta('frames')} ${delta('framesEncoded')} ${delta('framesSent')} ${delta('framesReceived')} `
    + `${delta('framesDecoded')} ${delta('framesDropped')} ${rate(seen.presented)} ${rate(seen.callbacks)} ${mode === 'off' ? '     -' : rate(seen.codes)} ${seen.captures}`;
}

console.log(`frames per second, ${seconds} s per phase, ${values.headful ? 'headful' : 'headless'}, open loopback link, two browsers`);
console.log('preset   mode         size camera  enc   sent   recv   dec   drop  presented rVFC codes captures');
for (const preset of values.presets.split(',')) {
  const media = await ensureMedia(preset);
  const peers = [await openPeer(media), await openPeer(media)];
  try {
    await connect(peers[0].page, peers[1].page);
    // Warm-up: the encoder ramps up its rate and resolution over the first seconds.
    await wait(10_000);
    for (const mode of modes) console.log(`${preset.padEnd(9)}${await phase(peers[0].page, peers[1].page, mode)}`);
  } finally {
    await Promise.all(peers.map(({ browser }) => browser.close()));
  }
}
await signaling.close();
