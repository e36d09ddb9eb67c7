#!/usr/bin/env node
// Benchmark: where the frames of an open two-party link go between the camera and the viewer's screen (README "What
// the viewer saw", docs/reproductions.md "Frames as seen"). Two Chromium browsers, as in a call: the sender's fake
// camera, one RTCPeerConnection, the receiver's muted autoplay <video>. A setup is `one-way` (p0 sends, p1 receives,
// over loopback) or a `+`-joined list of what a run's call adds: `two-way` (p1 sends too; both directions measured),
// `preview` (each sender shows its own camera), `audio` (the microphone in the same stream, so A/V sync applies),
// `styled` (the run's page style: videos scaled to 45 % of the page), `relay` (the media through the relay emulator,
// created as a run creates it, with the `unconstrained` scenario's links: no shaping); or `app`: the run's own page
// through the signaling server and the relay (bench/frames-as-seen-app.js), with `+drain` the orchestrator's
// frame-reader drains too (modes off and arrivals only: the page reads codes itself).
// Per preset, setup and mode, each second of a phase counts the sender's camera frames, frames encoded and sent, the
// receiver's frames received, decoded and dropped (getStats), the frames the <video> got and dropped before the
// compositor showed them (getVideoPlaybackQuality), the frames it handed to the compositor (requestVideoFrameCallback's
// presentedFrames), the callbacks the page got and (with the reader) the distinct frame codes shown. Modes: `off`
// (callbacks counted, nothing read), `codes` (client-app/frame-reader.js reads every frame's code and the sender's
// camera), `captures` (and captures one frame a second, as a run does), `arrivals` (a track reader on a clone of the
// remote track times every decoded frame's arrival: the gaps between them, how many are closer than a 60 Hz refresh,
// and the frames such bunching would cost if only the last of each refresh is shown). Prints figures; asserts nothing.
//
// Usage: node bench/frames-as-seen.js [--presets 360p30,720p30] [--setups one-way,two-way+preview+audio+styled+relay]
//   [--modes off,codes,captures,arrivals] [--seconds 12] [--headful]
// (it starts browsers: on a machine others share, run it under the machine's lock, e.g. one-at-a-time; --headful
// needs a display, e.g. xvfb-run -a node bench/frames-as-seen.js --headful)
import os from 'node:os';
import { parseArgs } from 'node:util';
import puppeteer from 'puppeteer';
import { ensureMedia } from '../media/generate.js';
import { createEmulator } from '../orchestrator/emulators/index.js';
import { loadScenario } from '../orchestrator/lib/scenario/scenario-file.js';
import { describe } from '../orchestrator/lib/stats/statistics.js';
import { resolveBrowserPath } from '../orchestrator/run/browser-path.js';
import { chromiumArgs } from '../orchestrator/run/browsers.js';
import { startSignalingServer } from '../signaling/server.js';
import { openAppCall } from './frames-as-seen-app.js';
import { acceptAnswer, describeLocal, preparePeer, startCameraReader, startWatching, videoCounters } from './frames-as-seen-page.js';

/** @typedef {import('puppeteer').Page} Page */
/** @typedef {import('./frames-as-seen-page.js').Seen} Seen */
/** @typedef {{ name: string, browser: import('puppeteer').Browser, page: Page, sends: boolean }} Peer */

const FEATURES = ['two-way', 'preview', 'audio', 'styled', 'relay', 'app', 'drain'];
const MODES = ['off', 'codes', 'captures', 'arrivals'];
/** Headless Chromium's begin-frame interval: of two frames decoded within one, the compositor shows the last. */
const REFRESH_MS = 1000 / 60;

const { values } = parseArgs({ options: {
  presets: { type: 'string', default: '360p30,720p30' }, setups: { type: 'string', default: 'one-way' },
  modes: { type: 'string', default: 'off,codes,captures' }, seconds: { type: 'string', default: '12' },
  headful: { type: 'boolean', default: false } } });
const seconds = Number(values.seconds);
if (!(seconds > 0)) throw new Error(`--seconds ${values.seconds}: give a positive number of seconds`);
const modes = values.modes.split(',');
const unknownModes = modes.filter((mode) => !MODES.includes(mode));
if (unknownModes.length) throw new Error(`--modes: unknown ${unknownModes.join(', ')}; give some of ${MODES.join(', ')}`);
const setups = values.setups.split(',').map((setup) => {
  const features = setup === 'one-way' ? [] : setup.split('+');
  const unknown = features.filter((feature) => !FEATURES.includes(feature));
  if (unknown.length) throw new Error(`--setups ${setup}: unknown ${unknown.join(', ')}; give one-way or a +-joined list of ${FEATURES.join(', ')}`);
  const app = features.includes('app');
  if (app ? features.some((feature) => !['app', 'drain'].includes(feature)) : features.includes('drain')) {
    throw new Error(`--setups ${setup}: app is the run's whole page, give it alone or as app+drain`);
  }
  if (app && modes.some((mode) => mode === 'codes' || mode === 'captures')) {
    throw new Error(`--setups ${setup}: the run's page reads the codes itself; give it --modes off,arrivals`);
  }
  return { name: setup, has: (/** @type {string} */ feature) => features.includes(feature) };
});
const browserPath = resolveBrowserPath({ puppeteerPath: () => puppeteer.executablePath() }).path;
const signaling = await startSignalingServer();
const wait = (/** @type {number} */ ms) => new Promise((resolve) => { setTimeout(resolve, ms); });

/**
 * A browser of its own, its pages allowed media on `pageOrigin`.
 * @param {import('../media/generate.js').Media} media @param {string} pageOrigin
 */
async function launch(media, pageOrigin) {
  const args = chromiumArgs(media, pageOrigin);
  const browser = await puppeteer.launch({ executablePath: browserPath, headless: !values.headful, pipe: true, args });
  return { browser, page: (await browser.pages())[0] };
}

/**
 * A page of the server's origin (the reader is imported from it, as the peer page does) in a browser of its own.
 * @param {import('puppeteer').Browser} browser @param {Page} page @param {string} name
 * @param {import('./frames-as-seen-page.js').PeerOptions} options
 * @returns {Promise<Peer>}
 */
async function openPeer(browser, page, name, options) {
  await page.goto(`${signaling.httpUrl}frame-code.js`);
  await page.evaluate(preparePeer, options);
  return { name, browser, page, sends: options.send };
}

/**
 * The description as its remote sees it: through the relay, each candidate rewritten as the signaling server has the
 * emulator rewrite it in a run (a candidate it would not relay is dropped).
 * @param {RTCSessionDescriptionInit} description @param {string} from @param {string} to
 * @param {import('../orchestrator/emulators/contract.js').Emulator|null} emulator
 */
async function asSeenBy(description, from, to, emulator) {
  if (!emulator || !description.sdp) return description;
  const lines = [];
  for (const line of description.sdp.split('\r\n')) {
    const rewritten = line.startsWith('a=candidate:') ? await emulator.rewriteCandidate({ from, to, candidate: { candidate: line } }) : { candidate: line };
    if (rewritten) lines.push(rewritten.candidate);
  }
  return { ...description, sdp: lines.join('\r\n') };
}

/**
 * Offer/answer between the pages, each with all its candidates: no signaling server needed on one host.
 * @param {Peer} offerer @param {Peer} answerer @param {import('../orchestrator/emulators/contract.js').Emulator|null} emulator
 */
async function connect(offerer, answerer, emulator) {
  const offer = await asSeenBy(await offerer.page.evaluate(describeLocal, null), offerer.name, answerer.name, emulator);
  const answer = await asSeenBy(await answerer.page.evaluate(describeLocal, offer), answerer.name, offerer.name, emulator);
  await offerer.page.evaluate(acceptAnswer, answer);
}

/**
 * The figures of one direction over a phase, per second.
 * @param {Record<string, number>} delta  getStats counters' increase @param {Seen} seen @param {number} elapsedS @param {string} mode
 */
function formatDirection(delta, seen, elapsedS, mode) {
  const rate = (/** @type {number} */ value) => (value / elapsedS).toFixed(1).padStart(6);
  const counters = ['frames', 'framesEncoded', 'framesSent', 'framesReceived', 'framesDecoded', 'framesDropped'].map((name) => rate(delta[name]));
  const gapsMs = seen.arrivalsMs.slice(1).map((atMs, index) => atMs - seen.arrivalsMs[index]);
  const { p5, median, p95 } = describe(gapsMs);
  const ms = (/** @type {number|null} */ value) => (value === null ? '–' : value.toFixed(1)).padStart(6);
  // A frame followed within a refresh by the next is shown with the probability the two straddle a refresh's edge.
  const costly = gapsMs.reduce((sum, gapMs) => sum + Math.max(0, 1 - gapMs / REFRESH_MS), 0);
  const arrivals = mode === 'arrivals'
    ? `${rate(seen.arrivalsMs.length)} ${ms(p5)} ${ms(median)} ${ms(p95)} ${(100 * gapsMs.filter((gapMs) => gapMs < REFRESH_MS).length / Math.max(1, gapsMs.length)).toFixed(1).padStart(5)}% ${rate(costly)}`
    : '';
  return `${counters.join(' ')} ${rate(seen.total)} ${rate(seen.dropped)} ${rate(seen.presented)} ${rate(seen.callbacks)} `
    + `${mode === 'codes' || mode === 'captures' ? rate(seen.codes) : '     -'} ${String(seen.captures).padStart(3)} ${arrivals}`;
}

/**
 * One phase: every receiving direction's counters before and after.
 * @param {Peer[]} peers @param {string} mode
 */
async function phase(peers, mode) {
  const receivers = peers.filter((peer) => peer !== peers[0] || peers[1].sends);
  const directions = receivers.map((receiver) => ({ receiver, sender: peers.find((peer) => peer !== receiver) }));
  const senders = peers.filter(({ sends }) => sends);
  const reading = mode === 'codes' || mode === 'captures';
  const read = async () => Promise.all(directions.map(async ({ sender, receiver }) => ({
    ...(await sender?.page.evaluate(videoCounters, 'media-source', ['frames'])),
    ...(await sender?.page.evaluate(videoCounters, 'outbound-rtp', ['framesEncoded', 'framesSent'])),
    ...(await receiver.page.evaluate(videoCounters, 'inbound-rtp', ['framesReceived', 'framesDecoded', 'framesDropped'])),
  })));
  const before = await read();
  if (reading) for (const peer of senders) await peer.page.evaluate(startCameraReader);
  for (const { receiver } of directions) await receiver.page.evaluate(startWatching, mode);
  const fromMs = Date.now();
  await wait(seconds * 1000);
  // any: the bench's own page global, unknown to the DOM types
  const stopWatching = () => /** @type {any} */ (window).bench.stopWatching();
  const seen = await Promise.all(directions.map(({ receiver }) => receiver.page.evaluate(stopWatching)));
  const elapsedS = (Date.now() - fromMs) / 1000;
  const after = await read();
  // any: the bench's own page global, unknown to the DOM types
  if (reading) for (const peer of senders) await peer.page.evaluate(() => /** @type {any} */ (window).bench.stopCamera());
  return Promise.all(directions.map(async ({ sender, receiver }, index) => {
    // any: the bench's own page global, unknown to the DOM types
    const size = await receiver.page.evaluate(() => { const { video } = /** @type {any} */ (window).bench; return `${video.videoWidth}x${video.videoHeight}`; });
    const delta = Object.fromEntries(Object.keys(after[index]).map((name) => [name, after[index][name] - before[index][name]]));
    return `${`${sender?.name}→${receiver.name}`.padEnd(6)}${size.padStart(8)} ${formatDirection(delta, seen[index], elapsedS, mode)}`;
  }));
}

/**
 * The bench's own two pages, as the setup asks.
 * @param {import('../media/generate.js').Media} media @param {typeof setups[number]} setup @param {Array<() => Promise<unknown>>} closers
 */
async function openPeers(media, setup, closers) {
  const options = { audio: setup.has('audio'), preview: setup.has('preview'), styled: setup.has('styled') };
  const peers = [];
  for (const [name, send] of /** @type {const} */ ([['p0', true], ['p1', setup.has('two-way')]])) {
    const { browser, page } = await launch(media, new URL(signaling.httpUrl).origin);
    closers.push(() => browser.close());
    peers.push(await openPeer(browser, page, name, { ...options, send }));
  }
  return peers;
}

/**
 * One setup at one preset: its browsers (and relay), connected, warmed up, then a phase per mode.
 * @param {string} preset @param {typeof setups[number]} setup
 */
async function runSetup(preset, setup) {
  const media = await ensureMedia(preset);
  /** @type {Array<() => Promise<unknown>>} */
  const closers = [];
  try {
    const emulator = setup.has('relay') || setup.has('app')
      ? await createEmulator('relay', { compiled: loadScenario('unconstrained').compiled, peers: ['p0', 'p1'], runId: 'bench-frames-as-seen', browserPath })
      : null;
    if (emulator) closers.push(() => emulator.close());
    const peers = setup.has('app') && emulator
      ? await openAppCall({ launch: (origin) => launch(media, origin), emulator, drain: setup.has('drain'), closers })
      : await openPeers(media, setup, closers);
    if (!setup.has('app')) await connect(peers[0], peers[1], emulator);
    // Warm-up: the encoder ramps up its rate and resolution over the first seconds.
    await wait(10_000);
    for (const mode of modes) for (const row of await phase(peers, mode)) console.log(`${preset.padEnd(7)} ${setup.name.padEnd(34)} ${mode.padEnd(8)} ${row}`);
  } finally {
    for (const close of closers.reverse()) await close().catch(() => {});
  }
}

console.log(`frames per second, ${seconds} s per phase, ${values.headful ? 'headful' : 'headless'}, two browsers; `
  + `${new Date().toISOString()}, load average ${os.loadavg().map((load) => load.toFixed(2)).join(' ')}`);
console.log(`${'preset'.padEnd(7)} ${'setup'.padEnd(34)} ${'mode'.padEnd(8)} dir       size camera    enc   sent   recv    dec   drop`
  + '  total vdrop presnt   rVFC  codes cap  |arrivals/s gap p5  p50    p95  <refresh costly/s');
try {
  for (const preset of values.presets.split(',')) for (const setup of setups) await runSetup(preset, setup);
} finally {
  await signaling.close();
}
console.log(`load average at the end ${os.loadavg().map((load) => load.toFixed(2)).join(' ')}`);
