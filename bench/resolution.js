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
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, readdir, rename, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import puppeteer from 'puppeteer';
import { ensureMedia, videoArgs } from '../media/generate.js';
import { PRESETS } from '../orchestrator/lib/media/media-presets.js';
import { createEmulator } from '../orchestrator/emulators/index.js';
import { loadScenario } from '../orchestrator/lib/scenario/scenario-file.js';
import { resolveBrowserPath } from '../orchestrator/run/browser-path.js';
import { chromiumArgs } from '../orchestrator/run/browsers.js';
import { startSignalingServer } from '../signaling/server.js';
import { createPeerSecrets, pageUrl } from '../orchestrator/lib/system/peer-secrets.js';

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

/**
 * What the page changes before and right after negotiation (undefined: leave the browser's default).
 * @typedef {{ maxBitrateBps?: number, scaleResolutionDownBy?: number, degradationPreference?: string,
 *   contentHint?: string, codec?: string, startBitrateKbps?: number, sdpMaxBitrateKbps?: number }} PageTweaks
 */
/** @type {PageTweaks} */
const tweaks = {
  maxBitrateBps: values['max-bitrate-kbps'] ? Number(values['max-bitrate-kbps']) * 1000 : undefined,
  scaleResolutionDownBy: values['scale-down-by'] ? Number(values['scale-down-by']) : undefined,
  degradationPreference: values.degradation,
  contentHint: values['content-hint'],
  codec: values.codec,
  startBitrateKbps: values['start-bitrate-kbps'] ? Number(values['start-bitrate-kbps']) : undefined,
  sdpMaxBitrateKbps: values['sdp-max-bitrate-kbps'] ? Number(values['sdp-max-bitrate-kbps']) : undefined,
};

/**
 * Runs in every page before app.js (page.evaluateOnNewDocument): wraps getUserMedia, createOffer/createAnswer,
 * setRemoteDescription and setLocalDescription to apply the tweaks; what it did goes to window.__benchLog.
 * @param {PageTweaks} config
 */
function installPageTweaks(config) {
  const log = [];
  /** @type {any} */ (window).__benchLog = log;
  const proto = RTCPeerConnection.prototype;
  if (config.contentHint) {
    const getUserMedia = navigator.mediaDevices.getUserMedia.bind(navigator.mediaDevices);
    navigator.mediaDevices.getUserMedia = async (constraints) => {
      const stream = await getUserMedia(constraints);
      for (const track of stream.getVideoTracks()) track.contentHint = config.contentHint;
      log.push(`contentHint=${stream.getVideoTracks()[0]?.contentHint}`);
      return stream;
    };
  }
  if (config.codec) {
    const wanted = `video/${config.codec}`.toLowerCase();
    const prefer = (/** @type {RTCPeerConnection} */ pc) => {
      const codecs = RTCRtpReceiver.getCapabilities('video')?.codecs ?? [];
      const first = codecs.filter((codec) => codec.mimeType.toLowerCase() === wanted);
      if (first.length === 0) { log.push(`codec ${config.codec}: not offered by this browser`); return; }
      for (const transceiver of pc.getTransceivers()) {
        if (transceiver.receiver.track.kind === 'video') transceiver.setCodecPreferences([...first, ...codecs.filter((codec) => !first.includes(codec))]);
      }
      log.push(`codec preference ${config.codec} (${first.length} entries)`);
    };
    for (const name of ['createOffer', 'createAnswer']) {
      const original = proto[name];
      proto[name] = function (...args) { prefer(this); return original.apply(this, args); };
    }
  }
  if (config.startBitrateKbps || config.sdpMaxBitrateKbps) {
    const params = [
      config.startBitrateKbps && `x-google-start-bitrate=${config.startBitrateKbps}`,
      config.sdpMaxBitrateKbps && `x-google-max-bitrate=${config.sdpMaxBitrateKbps}`,
    ].filter(Boolean).join(';');
    /** Adds the parameters to every video codec of the SDP (not rtx/red/ulpfec/flexfec). @param {string} sdp */
    const munge = (sdp) => {
      const lines = sdp.split('\r\n');
      let inVideo = false;
      const out = [];
      for (const line of lines) {
        if (line.startsWith('m=')) inVideo = line.startsWith('m=video');
        const rtpmap = inVideo && /^a=rtpmap:(\d+) ([\w-]+)\//.exec(line);
        if (rtpmap && !/^(rtx|red|ulpfec|flexfec-03)$/i.test(rtpmap[2])) {
          const pt = rtpmap[1];
          const fmtpIndex = lines.findIndex((candidate) => candidate.startsWith(`a=fmtp:${pt} `));
          out.push(line);
          if (fmtpIndex === -1) out.push(`a=fmtp:${pt} ${params}`);
          continue;
        }
        const fmtp = inVideo && /^a=fmtp:(\d+) /.exec(line);
        if (fmtp && out.some((previous) => previous.startsWith(`a=rtpmap:${fmtp[1]} `) && !/ (rtx|red|ulpfec|flexfec-03)\//i.test(previous))) {
          out.push(`${line};${params}`);
          continue;
        }
        out.push(line);
      }
      return out.join('\r\n');
    };
    const original = proto.setRemoteDescription;
    proto.setRemoteDescription = function (description, ...rest) {
      log.push(`remote SDP munged: ${params}`);
      return original.call(this, description?.sdp ? { type: description.type, sdp: munge(description.sdp) } : description, ...rest);
    };
  }
  if (config.maxBitrateBps || config.scaleResolutionDownBy || config.degradationPreference) {
    const original = proto.setLocalDescription;
    proto.setLocalDescription = async function (...args) {
      const done = await original.apply(this, args);
      for (const sender of this.getSenders()) {
        const transceiver = this.getTransceivers().find((candidate) => candidate.sender === sender);
        if (transceiver?.receiver.track.kind !== 'video') continue;
        const parameters = sender.getParameters();
        if (!parameters.encodings?.length) parameters.encodings = [{}];
        if (config.maxBitrateBps) parameters.encodings[0].maxBitrate = config.maxBitrateBps;
        if (config.scaleResolutionDownBy) parameters.encodings[0].scaleResolutionDownBy = config.scaleResolutionDownBy;
        if (config.degradationPreference) /** @type {any} */ (parameters).degradationPreference = config.degradationPreference;
        try {
          await sender.setParameters(parameters);
          log.push(`setParameters ok: ${JSON.stringify(sender.getParameters().encodings)} degradationPreference=${/** @type {any} */ (sender.getParameters()).degradationPreference}`);
        } catch (error) {
          log.push(`setParameters failed: ${error.name}: ${error.message}`);
        }
      }
      return done;
    };
  }
}

/**
 * One stats sample of every connection of the page (window.testbed.connections, client-app/app.js): the video
 * sender's outbound-rtp, its codec, the selected candidate pair, the video media-source, the video received, and
 * the camera track's settings and frame counters.
 */
function pageSample() {
  const pick = (object, keys) => (object ? Object.fromEntries(keys.map((key) => [key, object[key]])) : null);
  return Promise.all([.../** @type {any} */ (window).testbed.connections].map(async ([remote, { pc }]) => {
    const stats = [...(await pc.getStats()).values()];
    const byId = new Map(stats.map((stat) => [stat.id, stat]));
    const outbound = stats.find((stat) => stat.type === 'outbound-rtp' && stat.kind === 'video');
    const transport = stats.find((stat) => stat.type === 'transport');
    const pair = byId.get(transport?.selectedCandidatePairId) ?? stats.find((stat) => stat.type === 'candidate-pair' && stat.nominated);
    const sender = pc.getSenders().find((candidate) => candidate.track?.kind === 'video');
    const track = sender?.track;
    const trackStats = /** @type {any} */ (track)?.stats;
    return {
      remote,
      outbound: pick(outbound, ['frameWidth', 'frameHeight', 'framesPerSecond', 'framesEncoded', 'framesSent', 'bytesSent',
        'headerBytesSent', 'retransmittedBytesSent', 'targetBitrate', 'qpSum', 'totalEncodeTime', 'keyFramesEncoded', 'hugeFramesSent',
        'qualityLimitationReason', 'qualityLimitationDurations', 'qualityLimitationResolutionChanges', 'encoderImplementation',
        'powerEfficientEncoder', 'scalabilityMode', 'timestamp']),
      codec: outbound ? byId.get(outbound.codecId)?.mimeType ?? null : null,
      pair: pick(pair, ['availableOutgoingBitrate', 'currentRoundTripTime']),
      source: pick(stats.find((stat) => stat.type === 'media-source' && stat.kind === 'video'), ['width', 'height', 'framesPerSecond', 'frames']),
      inbound: pick(stats.find((stat) => stat.type === 'inbound-rtp' && stat.kind === 'video'), ['frameWidth', 'frameHeight', 'framesPerSecond', 'framesDecoded']),
      settings: track ? track.getSettings() : null,
      contentHint: track?.contentHint ?? null,
      trackFrames: pick(trackStats, ['deliveredFrames', 'discardedFrames', 'totalFrames']),
      parameters: pick(/** @type {any} */ (sender?.getParameters()), ['encodings', 'degradationPreference']),
      connectionState: pc.connectionState,
    };
  }));
}

/** Runs ffmpeg with these arguments. @param {string[]} args */
const ffmpeg = (args) => new Promise((resolve, reject) => {
  const child = spawn('ffmpeg', args, { stdio: ['ignore', 'ignore', 'inherit'] });
  child.on('error', reject);
  child.on('exit', (code) => (code === 0 ? resolve(undefined) : reject(new Error(`ffmpeg exited ${code}`))));
});

/**
 * The media: a preset or file as the CLI resolves it, or with --noise a preset generated into the temp dir.
 * @returns {Promise<{ video: string, audio: string, width: number, height: number, fps: number }>}
 */
async function resolveMedia() {
  if (values.noise === undefined) return ensureMedia(values.video);
  const preset = PRESETS[values.video];
  if (!preset) throw new Error(`--noise needs a preset --video (${Object.keys(PRESETS).join(', ')})`);
  const noise = Number(values.noise);
  const file = path.join(os.tmpdir(), `wtb-resolution-${values.video}-noise${noise}.y4m`);
  if (!existsSync(file)) {
    const args = videoArgs(preset, `${file}.tmp`).map((arg) => (arg.includes('noise=alls=')
      ? arg.replace(/noise=alls=\d+:allf=t\+u/, noise > 0 ? `noise=alls=${noise}:allf=t+u` : 'null') : arg));
    console.log(`generating ${file} (${values.video}, noise ${noise})`);
    try {
      await ffmpeg(args);
      await rename(`${file}.tmp`, file);
    } finally {
      await rm(`${file}.tmp`, { force: true });
    }
  }
  return ensureMedia(file);
}

/** Frame size, rate and count of a .y4m file by ffprobe (null without ffprobe). @param {string} file */
async function probeY4m(file) {
  const output = await new Promise((resolve) => {
    const child = spawn('ffprobe', ['-v', 'error', '-select_streams', 'v:0', '-count_packets', '-show_entries',
      'stream=width,height,r_frame_rate,pix_fmt,nb_read_packets', '-of', 'default=noprint_wrappers=1', file], { stdio: ['ignore', 'pipe', 'ignore'] });
    let text = '';
    child.stdout.on('data', (chunk) => { text += chunk; });
    child.on('error', () => resolve(null));
    child.on('exit', () => resolve(text));
  });
  return output ? output.trim().split('\n').join(' ') : null;
}

/** CPU time (clock ticks) of a process and all its descendants, from /proc. @param {number} rootPid */
async function treeCpuTicks(rootPid) {
  const rows = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = await readFile(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      rows.push({ pid: Number(entry), ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) });
    } catch {
      // The process ended while we listed it.
    }
  }
  const inTree = new Set([rootPid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const row of rows) if (!inTree.has(row.pid) && inTree.has(row.ppid)) { inTree.add(row.pid); grew = true; }
  }
  return rows.filter((row) => inTree.has(row.pid)).reduce((sum, row) => sum + row.ticks, 0);
}

/** Machine-wide busy and total clock ticks from /proc/stat. */
async function machineTicks() {
  const [cpu] = (await readFile('/proc/stat', 'utf8')).split('\n');
  const fields = cpu.split(/\s+/).slice(1).map(Number);
  const total = fields.reduce((sum, value) => sum + value, 0);
  return { busy: total - fields[3] - fields[4], total };
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
/** @param {number|null|undefined} value @param {number} width @param {number} [digits] */
const num = (value, width, digits = 0) => (value === null || value === undefined || Number.isNaN(value) ? '–' : value.toFixed(digits)).padStart(width);
const median = (list) => {
  const sorted = list.filter((value) => value !== null && value !== undefined && !Number.isNaN(value)).sort((a, b) => a - b);
  return sorted.length ? sorted[Math.floor((sorted.length - 1) / 2)] : null;
};

const scenario = loadScenario(values.scenario, { durationS: Math.max(durationS + 5, 15), warmupS: 0 });
const media = await resolveMedia();
const browserPath = resolveBrowserPath({ browserPath: values['browser-path'], puppeteerPath: () => puppeteer.executablePath() }).path;
console.log(`# bench/resolution.js ${values.label ? `— ${values.label}` : ''}`);
console.log(`media      ${media.video}: header ${media.width}×${media.height}@${media.fps}; ffprobe: ${await probeY4m(media.video)}`);
console.log(`tweaks     ${JSON.stringify(Object.fromEntries(Object.entries(tweaks).filter(([, value]) => value !== undefined)))}; extra flags ${JSON.stringify(values['chromium-flag'])}`);
console.log(`network    scenario ${scenario.name}: ${JSON.stringify(scenario.network)}${scenario.compiled.events.length ? ' (schedule NOT applied)' : ''}`);
console.log(`machine    ${os.cpus().length} cores, ${os.cpus()[0].model}; load average ${os.loadavg().map((load) => load.toFixed(2)).join(' ')}`);

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
    await page.evaluateOnNewDocument(installPageTweaks, tweaks);
    await page.goto(pageUrl(signaling.httpUrl, { peer, room, signal: signaling.wsUrl }, secrets.get(peer)), { waitUntil: 'load' });
    return { peer, browser, page, pid: browser.process()?.pid ?? null, version: await browser.version() };
  }));
  console.log(`browser    ${peers[0].version} (${browserPath}), headless`);

  const connectDeadline = Date.now() + CONNECT_TIMEOUT_MS;
  const connected = () => Promise.all(peers.map(({ page }) => page.evaluate(() => [
    .../** @type {any} */ (window).testbed.connections.values(),
  ].some(({ pc }) => pc.connectionState === 'connected'))));
  while (!(await connected()).every(Boolean)) {
    if (Date.now() > connectDeadline) throw new Error(`peers did not connect within ${CONNECT_TIMEOUT_MS / 1000} s`);
    await sleep(50);
  }
  const startMs = Date.now();
  console.log(`connected  ${new Date(startMs).toISOString()}; sampling ${durationS} s every ${intervalMs} ms`);
  for (const { peer, page } of peers) {
    const log = await page.evaluate(() => /** @type {any} */ (window).__benchLog);
    if (log.length) console.log(`${peer} page  ${[...new Set(log)].join(' | ')}`);
  }

  console.log('\nsender p0 → p1 (outbound video of p0; recv = what p1 decodes); kbps per interval; QP and encode time per frame');
  console.log(`${'t s'.padStart(5)}${'sent WxH'.padStart(11)}${'fps'.padStart(5)}${'target'.padStart(8)}${'sent'.padStart(7)}${'avail'.padStart(7)}`
    + `${'QP'.padStart(5)}${'enc ms'.padStart(7)}  ${'limit'.padEnd(10)}${'chg'.padStart(4)}${'capture WxH@fps'.padStart(17)}${'trk fps'.padStart(8)}`
    + `${'recv WxH'.padStart(11)}${'cpu p0'.padStart(7)}${'cpu p1'.padStart(7)}${'host'.padStart(6)}`);
  /** @type {Array<{ tS: number, byPeer: Record<string, any> }>} */
  const samples = [];
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
    if (previous) {
      const row = {};
      const seconds = (now.wallMs - previous.wallMs) / 1000;
      for (const [index, peer] of PEERS.entries()) {
        const a = previous.byPeer[peer];
        const b = now.byPeer[peer];
        const frames = (b.outbound?.framesEncoded ?? 0) - (a.outbound?.framesEncoded ?? 0);
        const statsSeconds = ((b.outbound?.timestamp ?? 0) - (a.outbound?.timestamp ?? 0)) / 1000 || seconds;
        row[peer] = {
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
          cpuPct: now.cpuTicks[index] === null ? null
            : (100 * (now.cpuTicks[index] - previous.cpuTicks[index])) / CLOCK_TICKS_PER_S / seconds,
        };
      }
      const hostPct = (100 * (now.host.busy - previous.host.busy)) / (now.host.total - previous.host.total);
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
  for (const peer of PEERS) {
    const last = previous.byPeer[peer];
    const rows = samples.map((sample) => sample.byPeer[peer]);
    const late = samples.filter((sample) => sample.tS > 10).map((sample) => sample.byPeer[peer]);
    const timeAt = {};
    for (const row of rows) timeAt[`${row.width}×${row.height}`] = (timeAt[`${row.width}×${row.height}`] ?? 0) + 1;
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
} finally {
  await closeAll();
}
