// One scenario run: emulator + signaling + browsers, the network schedule, stats collection, and result.json.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import puppeteer from 'puppeteer';
import { ensureMedia } from '../../media/generate.js';
import { startSignalingServer } from '../../signaling/server.js';
import { createEmulator } from '../emulators/index.js';
import { resolveBrowserPath } from './browser-path.js';
import { launchPeer } from './browsers.js';
import { onCleanup, onInterrupt } from '../lib/shutdown.js';
import { EnvironmentError, InputError } from '../lib/errors.js';
import { writeJsonAtomic } from '../lib/files.js';
import { SCHEMA_VERSION } from '../report/result-file.js';
import { writeRunReport } from '../report/write.js';
import { configuredTimeline } from '../lib/schedule.js';
import { summarize } from '../lib/run-summary.js';
import { REPO_ROOT, RESULTS_ROOT } from '../lib/paths.js';

const HARNESS_VERSION = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')).version;
const CONNECT_TIMEOUT_MS = 45_000;
const LAST_SAMPLE_GRACE_MS = 2500;

const sleep = (ms, signal) => new Promise((resolve) => {
  const timer = setTimeout(resolve, ms);
  signal?.addEventListener('abort', () => { clearTimeout(timer); resolve(); }, { once: true });
});

/** results/<scenario>/<UTC timestamp>, e.g. results/latency-500/2026-11-21T11-30-05Z */
export function defaultRunDir(scenarioName, date = new Date(), root = RESULTS_ROOT) {
  return path.join(root, scenarioName, date.toISOString().replace(/\.\d+Z$/, 'Z').replaceAll(':', '-'));
}

/**
 * Runs one scenario end to end and writes result.json and report.html (always, also when failed or aborted).
 * @param {{ scenario: object, video?: string, browserPath?: string, emulator?: string, headful?: boolean,
 *   outDir?: string, onSample?: (sample: object, elapsedS: number) => void, log?: (line: string) => void }} options
 * @returns {Promise<{ result: object, runDir: string, resultFile: string, reportFile: string }>}
 */
export async function runScenario({ scenario, video, browserPath, emulator: emulatorName = 'relay', headful = false, outDir, onSample, log = () => {} }) {
  const browser = resolveBrowserPath({ browserPath, puppeteerPath: () => puppeteer.executablePath() });
  const media = await ensureMedia(video);
  const runDir = path.resolve(outDir ?? defaultRunDir(scenario.name));
  const resultFile = path.join(runDir, 'result.json');
  const peers = Array.from({ length: scenario.peers }, (_, i) => `p${i}`);
  const room = `run-${randomBytes(4).toString('hex')}`;
  const startedAt = new Date();

  const timeline = [];
  const events = [];
  const errors = [];
  const scheduleEvents = [];
  const truth = [];
  const firstFrameEpochMs = {};
  const launchEpochMs = {};
  const browserVersions = [];
  let mediaStartEpochMs = null;
  let status = 'passed';
  const stop = new AbortController();
  const atS = (epochMs = Date.now()) => (mediaStartEpochMs === null ? null : Number(((epochMs - mediaStartEpochMs) / 1000).toFixed(3)));
  const fail = (message, peer = null) => {
    if (stop.signal.aborted) return;
    errors.push({ atS: atS(), peer, message });
    log(`error: ${peer ? `${peer}: ` : ''}${message}`);
    status = 'failed';
    stop.abort();
  };
  const stopInterrupt = onInterrupt((signal) => {
    if (stop.signal.aborted) return;
    status = 'aborted';
    errors.push({ atS: atS(), peer: null, message: `interrupted by ${signal}` });
    stop.abort();
  });

  const releases = [];
  const hold = (name, close) => releases.push(onCleanup(name, close));
  let emulator = null;
  try {
    // Emulator commands are stamped on the run clock; they move onto the media clock once the call starts.
    const clock = () => (Date.now() - startedAt.getTime()) / 1000;
    emulator = await createEmulator(emulatorName, { compiled: scenario.compiled, peers, runId: room, browserPath: browser.path, clock, log });
    hold(`${emulatorName} emulator`, () => emulator.close());
    log(`emulator: ${emulator.name}${emulator.choice ? ` (${emulator.choice})` : ''}`);

    const signaling = await startSignalingServer({ host: emulator.signalingHost, rewriteCandidate: emulator.rewriteCandidate });
    hold('signaling server', () => signaling.close());
    signaling.events.on('stats', (sample) => {
      if (mediaStartEpochMs === null || sample.t > scenario.durationS) return;
      timeline.push(sample);
      onSample?.(sample, atS());
    });
    const connected = new Set();
    let allConnected;
    const whenConnected = new Promise((resolve) => { allConnected = resolve; });
    signaling.events.on('event', (event) => {
      const { epochMs, ...rest } = event;
      events.push({ atS: atS(epochMs), epochMs, ...rest });
      if (event.type === 'first-frame') firstFrameEpochMs[event.peer] ??= epochMs;
      if (event.type === 'error') fail(event.message, event.peer);
      if (event.type === 'connection-state') {
        const key = `${event.peer}->${event.remote}`;
        if (event.state === 'connected') connected.add(key);
        // 'disconnected' is transient (consent checks starved on a harsh link) and stays in the events; 'failed' is final.
        if (event.state === 'failed') fail(`connection to ${event.remote} failed`, event.peer);
        if (connected.size === peers.length * (peers.length - 1)) allConnected();
      }
    });

    let stopping = false;
    for (const peer of peers) {
      if (stop.signal.aborted) break;
      launchEpochMs[peer] = Date.now();
      const url = `${signaling.httpUrl}?${new URLSearchParams({ peer, room, signal: signaling.wsUrl })}`;
      const launched = await launchPeer({
        executablePath: browser.path, media, url, headful, launchSpec: emulator.launchSpec?.(peer),
        onConsole: (text) => events.push({ atS: atS(), type: 'console-error', peer, text }),
        onCrash: (message) => !stopping && fail(message, peer),
      });
      browserVersions.push(launched.version);
      hold(`browser ${peer}`, async () => { stopping = true; await launched.browser.close(); });
      log(`${peer}: ${launched.version} launched`);
    }

    if (!stop.signal.aborted) {
      const timedOut = sleep(CONNECT_TIMEOUT_MS, stop.signal).then(() => 'timeout');
      if (await Promise.race([whenConnected.then(() => 'connected'), timedOut]) === 'timeout' && !stop.signal.aborted) {
        fail(`peers did not connect within ${CONNECT_TIMEOUT_MS / 1000} s (${connected.size} of ${peers.length * (peers.length - 1)} connections up); see events in ${resultFile}`);
      }
    }

    if (!stop.signal.aborted) {
      mediaStartEpochMs = Date.now();
      events.push({ atS: 0, epochMs: mediaStartEpochMs, type: 'call-started' });
      signaling.broadcast(room, { type: 'start', mediaStartEpochMs });
      log(`call started; running ${scenario.durationS} s`);
      const timers = scheduleNetwork(scenario.compiled.events, mediaStartEpochMs, async (atSValue, changes) => {
        try {
          await emulator.apply(Object.fromEntries(changes.map((change) => [change.link, change.params])));
          for (const change of changes) scheduleEvents.push({ atS: atSValue, appliedAtS: atS(), link: change.link, params: change.params, cause: change.cause });
        } catch (error) {
          fail(`applying the schedule at ${atSValue} s: ${error.message}`);
        }
      });
      hold('schedule timers', () => timers.forEach(clearTimeout));
      const truthTimer = setInterval(() => emulator.truth().then((rows) => truth.push(...rows), (error) => fail(`reading network truth: ${error.message}`)), 1000);
      hold('truth timer', () => clearInterval(truthTimer));
      await sleep(mediaStartEpochMs + scenario.durationS * 1000 + LAST_SAMPLE_GRACE_MS - Date.now(), stop.signal);
      signaling.broadcast(room, { type: 'stop' });
    }
  } catch (error) {
    // Bad input or an environment that cannot run it surface before anything ran; all else is a failed run with a result.
    if (error instanceof InputError || error instanceof EnvironmentError) throw error;
    fail(error.message);
  } finally {
    stopInterrupt();
    // Truth for the last seconds before the emulator goes away.
    if (emulator && mediaStartEpochMs !== null) truth.push(...await emulator.truth().catch(() => []));
    for (const release of releases.reverse()) {
      await release().catch((error) => log(`cleanup: ${error.message}`));
    }
  }

  timeline.sort((a, b) => a.t - b.t || a.peer.localeCompare(b.peer) || a.remote.localeCompare(b.remote));
  const configured = configuredTimeline(scenario.compiled, scenario.durationS);
  const setupMs = Object.fromEntries(peers.map((peer) => [peer, firstFrameEpochMs[peer] ? firstFrameEpochMs[peer] - launchEpochMs[peer] : null]));
  const { compiled, ...scenarioForResult } = scenario;
  const result = {
    schemaVersion: SCHEMA_VERSION,
    status,
    errors,
    scenario: scenarioForResult,
    environment: {
      harnessVersion: HARNESS_VERSION,
      browser: { name: /chromium/i.test(browser.path) ? 'chromium' : 'chrome', version: browserVersions[0]?.replace(/^[^/]*\//, '') ?? null, path: browser.path, source: browser.source },
      emulator: emulator?.name ?? emulatorName,
      emulatorChoice: emulator?.choice ?? null,
      os: `${os.platform()} ${os.release()} ${os.arch()}`,
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model ?? null,
      node: process.version,
      startedAt: startedAt.toISOString(),
      endedAt: new Date().toISOString(),
      media: { preset: media.preset, video: media.video, audio: media.audio, width: media.width, height: media.height, fps: media.fps },
    },
    timeline,
    events: events.sort((a, b) => (a.epochMs ?? 0) - (b.epochMs ?? 0)),
    network: {
      emulator: emulator?.name ?? emulatorName,
      links: compiled.links,
      routes: compiled.routes,
      configured,
      truth: truth.map(({ epochMs, ...entry }) => ({ t: atS(epochMs), ...entry })),
      commands: (emulator?.commands ?? []).map((command) => ({ ...command, atS: atS(startedAt.getTime() + command.atS * 1000) ?? command.atS })),
      scheduleEvents,
    },
    summary: summarize({ timeline, warmupS: scenario.warmupS, durationS: scenario.durationS, setupMs, configured, routes: compiled.routes }),
  };
  await writeJsonAtomic(resultFile, result);
  try {
    await writeRunReport(runDir);
  } catch (error) {
    // The result is the record; a report that fails to render must not lose it.
    log(`report: ${error.message}`);
  }
  return { result, runDir, resultFile, reportFile: path.join(runDir, 'report.html') };
}

/**
 * Arms one timer per distinct time in the schedule; the emulator applies each group of changes at once.
 * Times are anchored to media start so a late timer does not delay the later ones.
 */
function scheduleNetwork(scheduleEvents, mediaStartEpochMs, apply) {
  const groups = new Map();
  for (const event of scheduleEvents) {
    if (event.atS <= 0) continue; // in force from the start (compiled.links)
    groups.set(event.atS, [...(groups.get(event.atS) ?? []), event]);
  }
  return [...groups].map(([atSValue, changes]) => setTimeout(() => apply(atSValue, changes), mediaStartEpochMs + atSValue * 1000 - Date.now()));
}
