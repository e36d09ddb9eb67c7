#!/usr/bin/env node
// Diagnostic: why a 720p30 call on an open link sends less than 1280×720 (issue 16, "Resolution on an open link").
// Runs one two-party call through the userspace relay with the `unconstrained` scenario's network (no constraint),
// and prints, once per sample, the sender's (p0 → p1) outbound video as libwebrtc sees it: frame size, encoder
// target vs bytes actually sent vs the candidate pair's availableOutgoingBitrate, QP per frame (the quality
// scaler's input), encode time per frame, quality-limitation reason and resolution changes, the fake capture's
// delivered frame size and rate, the size p1 receives, and the CPU share of each browser and of the machine. Then a
// summary per peer: time at each resolution, qualityLimitationDurations, encoder, sender parameters.
// Prints figures; asserts nothing.
//
// Usage: node bench/resolution.js [options]         (on a shared machine, under its lock, e.g. one-at-a-time)
//   --video <preset|file.y4m>    media, as the CLI's --video (default 720p30)
//   --noise <alls>               instead of the preset's cached file, generate the preset with this ffmpeg noise
//                                strength (the presets use 18; 0 = none) into the temp dir, e.g. --video 1080p50 --noise 18
//   --duration <s>               seconds sampled after both peers connected (default 40)
//   --scenario <name|file>       take the network from this scenario instead of `unconstrained` (its links as at
//                                the start; a schedule is not applied), e.g. bandwidth-750 to see what a tweak does
//                                under a cap
//   --interval-ms <ms>           sampling period (default 1000)
//   --max-bitrate-kbps <kbps>    sender.setParameters: encodings[0].maxBitrate (both peers, right after negotiation)
//   --scale-down-by <f>          sender.setParameters: encodings[0].scaleResolutionDownBy
//   --degradation <pref>         sender.setParameters: degradationPreference (maintain-resolution, maintain-framerate, balanced)
//   --content-hint <hint>        the camera track's contentHint (motion, detailed, text) before it is sent
//   --codec <VP8|VP9|H264|AV1>   setCodecPreferences on the video transceivers before every offer/answer
//   --start-bitrate-kbps <kbps>  x-google-start-bitrate on the video codecs of every remote description (SDP munging)
//   --sdp-max-bitrate-kbps <k>   x-google-max-bitrate likewise
//   --chromium-flag <flag>       an extra Chromium flag (repeatable), e.g. --chromium-flag=--force-fieldtrials=...
//   --label <text>               a name for this run in the printout
// Examples:
//   node bench/resolution.js                                        # the finding: 720p30 sends 960×540
//   node bench/resolution.js --video 360p30 --duration 20           # 360p30 stays at 640×360
//   node bench/resolution.js --degradation maintain-resolution      # no quality scaler downscale
//   node bench/resolution.js --max-bitrate-kbps 4000                # lift the 960×540 cap of 2000 kbps
import os from 'node:os';
import { parseArgs } from 'node:util';
import puppeteer from 'puppeteer';
import { createEmulator } from '../orchestrator/emulators/index.js';
import { loadScenario } from '../orchestrator/lib/scenario/scenario-file.js';
import { resolveBrowserPath } from '../orchestrator/run/browser-path.js';
import { chromiumArgs } from '../orchestrator/run/browsers.js';
import { startSignalingServer } from '../signaling/server.js';
import { createPeerSecrets, pageUrl } from '../orchestrator/lib/system/peer-secrets.js';
import { machineTicks, probeY4m, resolveMedia, treeCpuTicks } from './resolution/host.js';
import { PAGE_TWEAKS, pageSample } from './resolution/page.js';

const { values } = parseArgs({
  options: {
    video: { type: 'string', default: '720p30' },
    noise: { type: 'string' },
    duration: { type: 'string', default: '40' },
    scenario: { type: 'string', default: 'unconstrained' },
    'interval-ms': { type: 'string', default: '1000' },
    'max-bitrate-kbps': { type: 'string' },
    'scale-down-by': { type: 'string' },
    degradation: { type: 'string' },
    'content-hint': { type: 'string' },
    codec: { type: 'string' },
    'start-bitrate-kbps': { type: 'string' },
    'sdp-max-bitrate-kbps': { type: 'string' },
    'chromium-flag': { type: 'string', multiple: true, default: [] },
    label: { type: 'string' },
    'browser-path': { type: 'string' },
  },
});
const durationS = Number(values.duration);
const intervalMs = Number(values['interval-ms']);
const PEERS = ['p0', 'p1'];
const CONNECT_TIMEOUT_MS = 45_000;
const CLOCK_TICKS_PER_S = 100;

/** @type {import('./resolution/page.js').PageTweaks} */
const tweaks = {
  maxBitrateBps: values['max-bitrate-kbps'] ? Number(values['max-bitrate-kbps']) * 1000 : undefined,
  scaleResolutionDownBy: values['scale-down-by'] ? Number(values['scale-down-by']) : undefined,
  degradationPreference: values.degradation,
  contentHint: values['content-hint'],
  codec: values.codec,
  startBitrateKbps: values['start-bitrate-kbps'] ? Number(values['start-bitrate-kbps']) : undefined,
  sdpMaxBitrateKbps: values['sdp-max-bitrate-kbps'] ? Number(values['sdp-max-bitrate-kbps']) : undefined,
};

/** @param {number} ms @returns {Promise<void>} */
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
/** @param {number|null|undefined} value @param {number} width @param {number} [digits] */
const num = (value, width, digits = 0) => (value === null || value === undefined || Number.isNaN(value) ? '–' : value.toFixed(digits)).padStart(width);
/** @param {Array<number|null|undefined>} list @returns {number|null} */
const median = (list) => {
  const sorted = list.flatMap((value) => (typeof value === 'number' && !Number.isNaN(value) ? [value] : [])).sort((a, b) => a - b);
  return sorted.length ? sorted[Math.floor((sorted.length - 1) / 2)] : null;
};

/**
 * What the page and /proc said at one sampling tick.
 * @typedef {{ tS: number, wallMs: number, byPeer: Record<string, import('./resolution/page.js').PageSample>,
 *   cpuTicks: Array<number|null>, host: { busy: number, total: number } }} Snapshot
 */

/**
 * One sender's figures over the interval between two ticks.
 * @param {Snapshot} previous @param {Snapshot} now @param {string} peer @param {number} index the peer's in PEERS
 */
function intervalRow(previous, now, peer, index) {
  const seconds = (now.wallMs - previous.wallMs) / 1000;
  const a = previous.byPeer[peer];
  const b = now.byPeer[peer];
  const frames = (b.outbound?.framesEncoded ?? 0) - (a.outbound?.framesEncoded ?? 0);
  const statsSeconds = ((b.outbound?.timestamp ?? 0) - (a.outbound?.timestamp ?? 0)) / 1000 || seconds;
  const [ticksBefore, ticksNow] = [previous.cpuTicks[index], now.cpuTicks[index]];
  return {
    width: b.outbound?.frameWidth ?? null,
    height: b.outbound?.frameHeight ?? null,
    fps: b.outbound?.framesPerSecond ?? null,
    targetKbps: b.outbound?.targetBitrate ? b.outbound.targetBitrate / 1000 : null,
    sentKbps: (8 * ((b.outbound?.bytesSent ?? 0) - (a.outbound?.bytesSent ?? 0))) / statsSeconds / 1000,
    availKbps: b.pair?.availableOutgoingBitrate ? b.pair.availableOutgoingBitrate / 1000 : null,
    qpPerFrame: frames > 0 ? ((b.outbound?.qpSum ?? 0) - (a.outbound?.qpSum ?? 0)) / frames : null,
    encodeMsPerFrame: frames > 0 ? (1000 * ((b.outbound?.totalEncodeTime ?? 0) - (a.outbound?.totalEncodeTime ?? 0))) / frames : null,
    reason: b.outbound?.qualityLimitationReason ?? null,
    resolutionChanges: b.outbound?.qualityLimitationResolutionChanges ?? null,
    capture: b.source ? `${b.source.width}×${b.source.height}@${b.source.framesPerSecond ?? '–'}` : '–',
    trackFps: b.trackFrames && a.trackFrames ? (b.trackFrames.deliveredFrames - a.trackFrames.deliveredFrames) / seconds : null,
    // ticksBefore is null exactly when ticksNow is: the browser's pid is fixed for the run.
    cpuPct: ticksNow === null || ticksBefore === null ? null : (100 * (ticksNow - ticksBefore)) / CLOCK_TICKS_PER_S / seconds,
  };
}

/** @typedef {{ tS: number, byPeer: Record<string, ReturnType<typeof intervalRow>> }} Sample */

/**
 * A sender's summary: time at each resolution, qualityLimitationDurations, encoder, sender parameters.
 * @param {string} peer @param {import('./resolution/page.js').PageSample} last its last page sample @param {Sample[]} samples
 */
function printSenderSummary(peer, last, samples) {
  const rows = samples.map((sample) => sample.byPeer[peer]);
  const late = samples.filter((sample) => sample.tS > 10).map((sample) => sample.byPeer[peer]);
  /** @type {Record<string, number>} */
  const timeAt = {};
  for (const row of rows) timeAt[`${row.width}×${row.height}`] = (timeAt[`${row.width}×${row.height}`] ?? 0) + 1;
  /** @type {Record<string, number>} */
  const reasons = {};
  for (const row of rows) reasons[row.reason] = (reasons[row.reason] ?? 0) + 1;
  const durations = last.outbound?.qualityLimitationDurations ?? {};
  const totalS = Object.values(durations).reduce((sum, value) => sum + Number(value), 0);
  console.log(`${peer} → ${last.remote}: ${last.codec} by ${last.outbound?.encoderImplementation}${last.outbound?.scalabilityMode ? ` (${last.outbound.scalabilityMode})` : ''}; capture settings `
    + `${last.settings?.width}×${last.settings?.height}@${last.settings?.frameRate} (${last.settings?.deviceId?.slice(0, 8) ?? ''}), contentHint '${last.contentHint}'`);
  console.log(`  samples at each sent size: ${Object.entries(timeAt).map(([size, count]) => `${size} ${count}`).join(', ')}; reason per sample: ${Object.entries(reasons).map(([reason, count]) => `${reason} ${count}`).join(', ')}`);
  console.log(`  qualityLimitationDurations: ${Object.entries(durations).map(([reason, s]) => `${reason} ${Number(s).toFixed(1)} s (${totalS ? ((100 * Number(s)) / totalS).toFixed(0) : '–'} %)`).join(', ')}; resolution changes ${last.outbound?.qualityLimitationResolutionChanges}`);
  console.log(`  target ${num(median(late.map((row) => row.targetKbps)), 0)} kbps, sent ${num(median(late.map((row) => row.sentKbps)), 0)} kbps, available ${num(median(late.map((row) => row.availKbps)), 0)} kbps, `
    + `QP/frame ${num(median(late.map((row) => row.qpPerFrame)), 0, 1)}, encode ${num(median(late.map((row) => row.encodeMsPerFrame)), 0, 1)} ms/frame, `
    + `sent fps ${num(median(late.map((row) => row.fps)), 0)}, capture delivered ${num(median(late.map((row) => row.trackFps)), 0, 1)} fps, browser CPU ${num(median(late.map((row) => row.cpuPct)), 0)} % of one core`);
  console.log(`  track frames ${JSON.stringify(last.trackFrames)}; keyframes ${last.outbound?.keyFramesEncoded}; sender parameters ${JSON.stringify(last.parameters)}`);
}

const scenario = loadScenario(values.scenario, { durationS: Math.max(durationS + 5, 15), warmupS: 0 });
const media = await resolveMedia(values.video, values.noise);
const browserPath = resolveBrowserPath({ browserPath: values['browser-path'], puppeteerPath: () => puppeteer.executablePath() }).path;
console.log(`# bench/resolution.js ${values.label ? `— ${values.label}` : ''}`);
console.log(`media      ${media.video}: header ${media.width}×${media.height}@${media.fps}; ffprobe: ${await probeY4m(media.video)}`);
console.log(`tweaks     ${JSON.stringify(Object.fromEntries(Object.entries(tweaks).filter(([, value]) => value !== undefined)))}; extra flags ${JSON.stringify(values['chromium-flag'])}`);
console.log(`network    scenario ${scenario.name}: ${JSON.stringify(scenario.network)}${scenario.compiled.events.length ? ' (schedule NOT applied)' : ''}`);
console.log(`machine    ${os.cpus().length} cores, ${os.cpus()[0].model}; load average ${os.loadavg().map((load) => load.toFixed(2)).join(' ')}`);

/** @type {Array<() => Promise<unknown>>} */
const closers = [];
const closeAll = async () => { for (const close of closers.reverse()) await close().catch(() => {}); };
process.once('SIGINT', () => closeAll().then(() => process.exit(130)));
try {
  const room = 'bench-resolution';
  const emulator = await createEmulator('relay', { compiled: scenario.compiled, peers: PEERS, runId: room, browserPath });
  closers.push(() => emulator.close());
  const secrets = createPeerSecrets(PEERS);
  const signaling = await startSignalingServer({
    host: emulator.signalingHost, rewriteCandidate: emulator.rewriteCandidate, room, secrets,
  });
  closers.push(() => signaling.close());
  const peers = await Promise.all(PEERS.map(async (peer) => {
    const browser = await puppeteer.launch({
      executablePath: browserPath, headless: true, pipe: true, handleSIGINT: false, handleSIGTERM: false, handleSIGHUP: false,
      args: [...values['chromium-flag'], ...chromiumArgs(media, new URL(signaling.httpUrl).origin)],
    });
    closers.push(() => browser.close());
    const page = (await browser.pages())[0] ?? await browser.newPage();
    page.on('pageerror', (error) => console.log(`${peer} page error: ${/** @type {Error} */ (error).message}`));
    for (const install of PAGE_TWEAKS) await page.evaluateOnNewDocument(install, tweaks);
    const secret = secrets.get(peer);
    if (!secret) throw new Error(`no secret for ${peer}: createPeerSecrets was given ${PEERS.join(', ')}`);
    await page.goto(pageUrl(signaling.httpUrl, { peer, room, signal: signaling.wsUrl }, secret), { waitUntil: 'load' });
    return { peer, browser, page, pid: browser.process()?.pid ?? null, version: await browser.version() };
  }));
  console.log(`browser    ${peers[0].version} (${browserPath}), headless`);

  const connectDeadline = Date.now() + CONNECT_TIMEOUT_MS;
  const connected = () => Promise.all(peers.map(({ page }) => page.evaluate(() => [
    .../** @type {any} */ (window).testbed.connections.values(), // any: client-app/app.js's page global
  ].some(({ pc }) => pc.connectionState === 'connected'))));
  while (!(await connected()).every(Boolean)) {
    if (Date.now() > connectDeadline) throw new Error(`peers did not connect within ${CONNECT_TIMEOUT_MS / 1000} s`);
    await sleep(50);
  }
  const startMs = Date.now();
  console.log(`connected  ${new Date(startMs).toISOString()}; sampling ${durationS} s every ${intervalMs} ms`);
  for (const { peer, page } of peers) {
    /** @type {string[]} */
    const log = await page.evaluate(() => /** @type {any} */ (window).__benchLog); // any: the page global page.js sets
    if (log.length) console.log(`${peer} page  ${[...new Set(log)].join(' | ')}`);
  }

  console.log('\nsender p0 → p1 (outbound video of p0; recv = what p1 decodes); kbps per interval; QP and encode time per frame');
  console.log(`${'t s'.padStart(5)}${'sent WxH'.padStart(11)}${'fps'.padStart(5)}${'target'.padStart(8)}${'sent'.padStart(7)}${'avail'.padStart(7)}`
    + `${'QP'.padStart(5)}${'enc ms'.padStart(7)}  ${'limit'.padEnd(10)}${'chg'.padStart(4)}${'capture WxH@fps'.padStart(17)}${'trk fps'.padStart(8)}`
    + `${'recv WxH'.padStart(11)}${'cpu p0'.padStart(7)}${'cpu p1'.padStart(7)}${'host'.padStart(6)}`);
  /** @type {Sample[]} */
  const samples = [];
  /** @type {Snapshot|null} */
  let previous = null;
  for (let tick = 1; Date.now() - startMs < durationS * 1000; tick += 1) {
    await sleep(Math.max(0, startMs + tick * intervalMs - Date.now()));
    const [byPage, cpuTicks, host] = await Promise.all([
      Promise.all(peers.map(({ page }) => page.evaluate(pageSample))),
      Promise.all(peers.map(({ pid }) => (pid ? treeCpuTicks(pid) : null))),
      machineTicks(),
    ]);
    const byPeer = Object.fromEntries(PEERS.map((peer, i) => [peer, byPage[i][0]]));
    const now = { tS: (Date.now() - startMs) / 1000, wallMs: Date.now(), byPeer, cpuTicks, host };
    const before = previous;
    if (before) {
      const row = Object.fromEntries(PEERS.map((peer, index) => [peer, intervalRow(before, now, peer, index)]));
      const hostPct = (100 * (now.host.busy - before.host.busy)) / (now.host.total - before.host.total);
      const p0 = row.p0;
      const recv = now.byPeer.p1.inbound;
      samples.push({ tS: now.tS, byPeer: row });
      console.log(`${num(now.tS, 5, 1)}${`${p0.width ?? '–'}×${p0.height ?? '–'}`.padStart(11)}${num(p0.fps, 5)}${num(p0.targetKbps, 8)}${num(p0.sentKbps, 7)}`
        + `${num(p0.availKbps, 7)}${num(p0.qpPerFrame, 5, 1)}${num(p0.encodeMsPerFrame, 7, 1)}  ${String(p0.reason).padEnd(10)}${num(p0.resolutionChanges, 4)}`
        + `${p0.capture.padStart(17)}${num(p0.trackFps, 8, 1)}${`${recv?.frameWidth ?? '–'}×${recv?.frameHeight ?? '–'}`.padStart(11)}`
        + `${num(p0.cpuPct, 7)}${num(row.p1.cpuPct, 7)}${num(hostPct, 6)}`);
    }
    previous = now;
  }

  console.log('\nsummary per sender (medians over the samples after the first 10 s)');
  if (previous) for (const peer of PEERS) printSenderSummary(peer, previous.byPeer[peer], samples);
} finally {
  await closeAll();
}
