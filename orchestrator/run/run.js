// One scenario run: set-up (emulator, signaling, browsers), the call (network schedule, truth, stats), tear-down,
// and result.json. Rendering the report is the caller's job.
import { randomBytes } from 'node:crypto';
import { rmdir } from 'node:fs/promises';
import path from 'node:path';
import puppeteer from 'puppeteer';
import { ensureRunMedia } from '../../media/generate.js';
import { MAX_EVENT_TEXT_CHARS } from '../../signaling/messages.js';
import { startSignalingServer } from '../../signaling/server.js';
import { checkSupport, createEmulator } from '../emulators/index.js';
import { requirementsOf } from '../emulators/contract.js';
import { EnvironmentError, InputError } from '../lib/system/errors.js';
import { codecMismatch } from '../../client-app/codec.js';
import { cgroupLimits, videoConstraints } from '../lib/devices/devices.js';
import { BROWSER_FLOW_KINDS, browserFlowTimeline, mainCallHolds } from '../lib/cross/flow-commands.js';
import { KERNEL_FLOW_KINDS, shortTcpBursts } from '../lib/cross/flows.js';
import { startKernelFlows } from '../cross/kernel-flows.js';
import { groupScheduleEvents } from '../lib/network/schedule.js';
import { LAUNCH_EVENT } from '../lib/result/setup-breakdown.js';
import { onCleanup, onInterrupt } from '../lib/system/shutdown.js';
import { createPeerSecrets, pageUrl } from '../lib/system/peer-secrets.js';
import { SFU_NODE, allPeerNames, scenarioPeers } from '../lib/network/topology.js';
import { createAdminSampler } from '../sfu/admin-sampler.js';
import { createSfuBridge } from '../sfu/bridge.js';
import { createVideoRoom } from '../sfu/janus-api.js';
import { startJanus } from '../sfu/janus.js';
import { firstIpv4Address } from '../emulators/candidates.js';
import { peerBrowsers } from '../lib/scenario/peer-browsers.js';
import { resolveBrowserPath, resolveFirefoxPath } from './browser-path.js';
import { launchPeer } from './browsers.js';
import { gridChromiumArgs, gridRemotePeers, openGridSessions } from './grid-sessions.js';
import { checkCgroups, createPeerCgroups } from './cgroups.js';
import { prepareRunDir, writeResultFile } from './output.js';
import { finalResult } from './final-result.js';
import { createRecorder } from './recorder.js';
import { startProcessSampler } from './process-sampler.js';
import { createViewerCollector } from './viewer-collector.js';

const CONNECT_TIMEOUT_MS = 45_000;
const LAST_SAMPLE_GRACE_MS = 2500;
const KERNEL_FLOWS_GRACE_MS = 5000;
/** Janus's VideoRoom room of a run: the Janus is the run's own, so any id does. */
const SFU_ROOM = 1;

/**
 * Resolves after ms, or as soon as any signal aborts (at once if one already has): a timer left running would keep the
 * process alive after the run, up to the whole 45 s connect timeout.
 * @param {number} ms @param {...AbortSignal} signals
 */
const sleep = (ms, ...signals) => new Promise((resolve) => {
  const timer = setTimeout(done, ms);
  function done() {
    clearTimeout(timer);
    for (const signal of signals) signal.removeEventListener('abort', done);
    resolve(undefined);
  }
  for (const signal of signals) {
    if (signal.aborted) return done();
    signal.addEventListener('abort', done, { once: true });
  }
});

/**
 * @typedef {object} RunOptions
 * @property {import('../lib/scenario/scenario-file.js').ResolvedScenario} scenario
 * @property {string} [video]        media preset or .y4m file
 * @property {string} [browser]      every peer's browser (lib/scenario/peer-browsers.js BROWSER_KINDS) unless the scenario names one
 * @property {string} [browserPath]  Chromium's executable
 * @property {string} [firefoxPath]  Firefox's executable
 * @property {string} [emulator]     one of emulators/index.js EMULATORS
 * @property {boolean} [headful]
 * @property {string} [outDir]       default results/<scenario>/<UTC timestamp>
 * @property {boolean} [force]       replace a result already in outDir
 * @property {Call['onSample']} [onSample]
 * @property {(line: string) => void} [log]
 * @property {{ url: string, secrets: import('../lib/grid/grid-config.js').GridSecrets, spread: boolean, listen: string }} [grid]  --grid:
 *   every peer's browser a Selenium Grid session (run/grid-sessions.js); the pages and the relay on `listen`, which the nodes reach
 * @property {(peers: string[]) => Map<string, string>} [createSecrets]  the pages' join secrets (default
 *   lib/system/peer-secrets.js createPeerSecrets; a test passes one that remembers them, to look for them in the run's files)
 */

/**
 * Runs one scenario end to end and writes result.json (also when the run failed or was aborted). Bad input and an
 * environment that cannot run it throw before any browser starts.
 * @param {RunOptions} options
 * @returns {Promise<{ result: import('../lib/result/result.js').RunResult, runDir: string, resultFile: string }>}
 */
export async function runScenario({ scenario, video, browser: runBrowser, browserPath, firefoxPath, emulator: emulatorName = 'relay', headful = false, outDir, force = false, onSample, log = () => {},
  createSecrets = createPeerSecrets, grid }) {
  const kinds = peerBrowsers(allPeerNames(scenario), scenario.browsers, runBrowser);
  const firefoxPeers = Object.keys(kinds).filter((peer) => kinds[peer] === 'firefox');
  // Puppeteer attaches to a Grid session over CDP, which Firefox lacks.
  if (grid && firefoxPeers.length) throw new InputError(`--grid runs Chromium peers only (Puppeteer attaches over CDP); ${firefoxPeers.join(', ')} would run Firefox: drop --browser firefox or the scenario's browsers`);
  // What the emulator must carry (Firefox peers, an SFU, kernel flows), by what its backend declares.
  checkSupport(emulatorName, requirementsOf(scenario, kinds, KERNEL_FLOW_KINDS));
  // A constrained device is Chromium's: getUserMedia constraints on its fake camera (Firefox sends a <video>'s
  // captureStream()), the DevTools protocol's CPU throttling (Firefox speaks WebDriver BiDi) and a cgroup for its
  // renderers (Firefox's processes are others).
  const firefoxDevice = firefoxPeers.find((peer) => scenario.devices?.[peer]);
  if (firefoxDevice) {
    throw new InputError(`${scenario.file}: devices.${firefoxDevice}: constrained devices need Chromium (getUserMedia constraints on its fake camera, `
      + `DevTools CPU throttling, a cgroup for its renderers), and ${firefoxDevice} runs Firefox; use --browser chromium or drop its device`);
  }
  // An extra call would need its own Janus room, and a data channel a direct connection that an SFU call lacks.
  const browserFlow = scenario.topology === 'sfu' && (scenario.flows ?? []).find((flow) => BROWSER_FLOW_KINDS.includes(flow.kind));
  if (browserFlow) {
    throw new InputError(`${scenario.file}: flows: flow ${browserFlow.name} (${browserFlow.kind}) needs a mesh call; topology sfu supports kernel flows only`);
  }
  // A device's CPU quota or core count needs a cgroup controller and root.
  const deviceLimits = cgroupLimits(scenario.devices);
  if (Object.keys(deviceLimits).length) await checkCgroups(deviceLimits, scenario.file);
  // Only the browsers the run uses must exist; a missing one stops the run before anything starts (exit 3).
  const used = new Set(Object.values(kinds));
  /** @type {Record<string, { path: string, source: string }>} */
  const executables = {
    ...(used.has('chromium') ? { chromium: resolveBrowserPath({ browserPath, puppeteerPath: () => puppeteer.executablePath() }) } : {}),
    ...(used.has('firefox') ? { firefox: resolveFirefoxPath({ firefoxPath }) } : {}),
  };
  // Firefox has no file-backed fake devices: it plays the same media in a <video> and sends its captureStream().
  const sources = Object.fromEntries(firefoxPeers.map((peer) => [peer, /** @type {const} */ ('media-element')]));
  const media = await ensureRunMedia(video, allPeerNames(scenario), scenario.media, sources);
  const runDir = await prepareRunDir({ outDir, scenarioName: scenario.name, force });
  const startedAt = new Date();
  const recorder = createRecorder({ log, startedAtEpochMs: startedAt.getTime() });
  // Each browser's and the relay's whole process tree, once a second: a starved host must not pass for a congested link.
  const processes = startProcessSampler();
  /** @type {Call} */
  const call = {
    scenario, kinds, executables, media, headful, emulatorName, startedAt, recorder, onSample, log, createSecrets, gridOptions: grid,
    emulator: null, processes, releases: [], runDir, commands: [], flowTruth: [], traceStepLateMs: [], pages: new Map(),
  };
  hold(call, 'process sampler', () => processes.stop().then(() => {}));
  const stopInterrupt = onInterrupt(recorder.interrupt);
  try {
    await setUpCall(call);
    await holdCall(call);
  } catch (error) {
    // Bad input or an environment that cannot run it surface before anything ran; all else is a failed run with a result.
    if (error instanceof InputError || error instanceof EnvironmentError) {
      if (!outDir) await rmdir(runDir).catch(() => {});
      throw error;
    }
    recorder.fail(error.message);
  } finally {
    stopInterrupt();
    await tearDown(call);
  }
  // Never rejects: a result that cannot be built is written as one that says why.
  const result = await finalResult(call);
  const resultFile = await writeResultFile(runDir, result);
  return { result, runDir, resultFile };
}

/** @typedef {import('./call-state.js').Call} Call */

/** Where the signaling server serves a media-element peer's WebM. @param {string} peer */
const mediaUrlPath = (peer) => `/media/${peer}.webm`;

/**
 * Registers a closer for the run (undone in reverse order by tearDown, or by the process handlers on a signal).
 * @param {Call} call @param {string} name @param {() => unknown} close @param {{ timeoutMs?: number, closeNow?: () => void }} [options]
 * @returns {() => Promise<void>} its early release
 */
const hold = (call, name, close, options) => {
  const release = onCleanup(name, close, options);
  call.releases.push(release);
  return release;
};

/**
 * Janus with the run's VideoRoom room, where the emulator puts the SFU node: in a namespace of its own (netem's
 * sfuHost) or on the host, gathering on iceAddress. Its closer is registered before it starts; a Janus that cannot
 * start is an EnvironmentError (with its log tail) before any browser launches.
 * @param {Call} call @param {string|undefined} iceAddress @param {() => number} clock  seconds on the run clock
 */
async function startSfu(call, iceAddress, clock) {
  const host = call.emulator.sfuHost ?? undefined;
  const janus = await startJanus({
    runDir: call.runDir, registerCleanup: (name, close, options) => hold(call, name, close, options),
    logCommand: (record) => { call.commands.push(record); call.log(`janus: ${record.cmd}`); }, clock, ...(host ? { host } : { iceAddress }),
  });
  call.processes.track('janus', janus.pid);
  await createVideoRoom(janus, { room: SFU_ROOM, publishers: call.scenario.peers });
  call.log(`janus: ${janus.apiUrl}, media on ${janus.iceAddress}, room ${SFU_ROOM}`);
  return janus;
}

/**
 * Emulator, signaling server and one browser per peer, up to every peer of the main call connected to every other
 * (in an SFU call: to Janus once, and to each other peer's stream through it) and every extra call's peer joined.
 * @param {Call} call
 */
async function setUpCall(call) {
  const { scenario, recorder, log } = call;
  const mainPeers = scenarioPeers(scenario);
  const peers = allPeerNames(scenario);
  const room = `run-${randomBytes(4).toString('hex')}`;
  const gridListen = call.gridOptions?.listen;
  // The relay rewrites candidates towards the host address Janus will gather on; netem builds Janus a namespace.
  const sfuAddress = scenario.topology === 'sfu' ? firstIpv4Address() ?? undefined : undefined;
  // Emulator commands are stamped on the run clock; buildResult moves them onto the media clock.
  const clock = () => (Date.now() - call.startedAt.getTime()) / 1000;
  // Made first, removed last (after the browsers): a host that cannot limit a device's CPU stops the run before anything starts.
  call.cgroups = await createPeerCgroups({
    limits: cgroupLimits(scenario.devices), runId: room, where: scenario.file, clock, logFile: path.join(call.runDir, 'cgroups.log'),
    logCommand: (record) => call.commands.push(record), registerCleanup: (name, close, options) => hold(call, name, close, options),
  });
  for (const [peer, { name, paths, quotaUs, periodUs, cpus }] of Object.entries(call.cgroups?.record.peers ?? {})) {
    log(`${peer}: cgroup ${name}${quotaUs === null ? '' : `, ${quotaUs} µs per ${periodUs} µs`}${cpus === null ? '' : `, cores ${cpus}`} (${paths.join(', ')})`);
  }
  // The emulator's closer is registered before its set-up starts, so an interrupt half way removes what was built.
  call.emulator = await createEmulator(call.emulatorName, {
    compiled: scenario.compiled, durationS: scenario.durationS, peers, runId: room, browserPath: call.executables.chromium?.path,
    clock, log, sfuAddress, hostAddressPeers: peers.filter((peer) => call.kinds[peer] === 'firefox'),
    guardianLog: path.join(call.runDir, 'netem-guardian.log'),
    registerCleanup: (name, close, options) => hold(call, name, close, options),
    ...(call.gridOptions ? { remotePeers: gridRemotePeers(call.gridOptions, () => call.grid) } : {}),
  });
  log(`emulator: ${call.emulator.name}${call.emulator.choice ? ` (${call.emulator.choice})` : ''}`);
  if (call.emulator.pid) call.processes.track(call.emulator.name, call.emulator.pid);
  const janus = scenario.topology === 'sfu' ? await startSfu(call, sfuAddress, clock) : null;
  await startCrossTraffic(call, room, clock);

  const bridge = janus && createSfuBridge({
    apiUrl: janus.apiUrl, apiSecret: janus.apiSecret, room: SFU_ROOM, peers, rewriteCandidate: call.emulator.rewriteCandidate, log,
    send: (peer, message) => signaling.sendTo(room, peer, message),
    onError: (error) => recorder.fail(`SFU bridge: ${error.message}`),
  });
  // Only the pages get them (in their URLs' fragments), and the server to check their joins.
  const secrets = call.createSecrets(peers);
  const signaling = await startSignalingServer({
    host: gridListen ?? call.emulator.signalingHost, rewriteCandidate: call.emulator.rewriteCandidate, room, secrets,
    bridge: bridge?.handle,
    files: Object.fromEntries(peers.filter((peer) => call.media.peers[peer].capture)
      .map((peer) => [mediaUrlPath(peer), call.media.peers[peer].capture])),
  });
  hold(call, 'signaling server', () => signaling.close());
  if (bridge) {
    hold(call, 'SFU bridge', () => bridge.close());
    // Janus's view of each leg beside the browsers'; a failed reading is a warning, never the run's failure.
    call.sfuSampler = createAdminSampler({
      admin: janus, ownerOf: bridge.handleOwner, onWarning: (message) => recorder.event({ type: 'warning', source: 'janus-admin', message }),
    });
  }
  log(`signaling: ${signaling.wsUrl} room ${room}`);
  call.signaling = signaling;
  call.room = room;
  const connected = new Set();
  const joined = new Set();
  // Every main-call peer's connection to each other one, and in an SFU call its publisher connection as well. An
  // extra call connects only when its flow starts.
  const expectedConnections = mainPeers.length * (janus ? mainPeers.length : mainPeers.length - 1);
  let allConnected = () => {};
  const whenConnected = new Promise((resolve) => { allConnected = () => resolve(undefined); });
  // With a requested codec the call starts only once every main-call connection's video says, both ways, which codec it
  // uses: a mismatch fails the run before any second is measured.
  const codecReports = new Set();
  const expectedCodecReports = scenario.codec ? 2 * mainPeers.length * (mainPeers.length - 1) : 0;
  const checkReady = () => connected.size === expectedConnections && joined.size === peers.length
    && codecReports.size === expectedCodecReports && allConnected();
  signaling.events.on('rejected', (rejection) => recorder.rejected(rejection));
  signaling.events.on('join', ({ peer }) => {
    recorder.event({ type: 'joined', peer });
    joined.add(peer);
    checkReady();
  });
  signaling.events.on('stats', (sample) => {
    if (recorder.mediaStartEpochMs === null) return;
    recorder.samples.push(sample);
    call.onSample?.(sample, recorder.atS());
  });
  signaling.events.on('event', (event) => {
    recorder.pageEvent(event);
    if (event.type === 'error') recorder.fail(event.message, event.peer);
    if (event.type === 'codec' && scenario.codec) {
      const mismatch = codecMismatch(scenario.codec, event);
      if (mismatch) recorder.fail(mismatch, event.peer);
      if (mainPeers.includes(event.peer) && mainPeers.includes(event.remote)) codecReports.add(`${event.peer}->${event.remote} ${event.direction}`);
      checkReady();
    }
    if (event.type === 'connection-state') {
      const inMainCall = mainPeers.includes(event.peer) && (mainPeers.includes(event.remote) || event.remote === SFU_NODE);
      if (event.state === 'connected' && inMainCall) connected.add(`${event.peer}->${event.remote}`);
      // 'disconnected' is transient (consent checks starved on a harsh link) and stays in the events; 'failed' is final.
      if (event.state === 'failed') recorder.fail(`connection to ${event.remote} failed`, event.peer);
      checkReady();
    }
  });

  if (recorder.signal.aborted) return;
  if (call.gridOptions) await openGrid(call, new URL(signaling.httpUrl).origin);
  let closing = false;
  // All at once: launched one after another, the first peer's set-up time included the others' launches.
  const launches = await Promise.allSettled(peers.map(async (peer) => {
    recorder.event({ type: LAUNCH_EVENT, peer });
    // An extra call's peers call nobody when they join; the main call's call each other only.
    const callAtJoin = mainPeers.includes(peer) ? mainPeers.join(',') : '';
    const device = scenario.devices?.[peer];
    const media = call.media.peers[peer];
    // Main-call directions that send nothing until their start (or ever, one way): inactive from the first offer.
    const holdTowards = mainCallHolds(scenario).filter((held) => held.peer === peer).map((held) => held.remote).join(',');
    const url = pageUrl(signaling.httpUrl, {
      peer, room, signal: signaling.wsUrl, callAtJoin, ...(holdTowards ? { hold: holdTowards } : {}), ...(janus ? { sfu: SFU_NODE } : {}),
      ...(scenario.codec ? { codec: JSON.stringify(scenario.codec) } : {}),
      ...(scenario.mediaSource !== 'browser' ? { mediaSource: scenario.mediaSource } : {}),
      ...(device ? { videoConstraints: JSON.stringify(videoConstraints(device)) } : {}),
      ...(media.source === 'media-element' ? { source: media.source, media: mediaUrlPath(peer) } : {}),
    }, secrets.get(peer));
    const kind = call.kinds[peer];
    const launched = await launchPeer({
      kind, executablePath: call.executables[kind].path, media, url, headful: call.headful,
      cpuThrottlingRate: device?.cpuThrottlingRate,
      // Before the page loads, so the call never runs unlimited; the processes forked later inherit the cgroup.
      beforeLoad: async (pid) => {
        if (!call.cgroups?.record.peers[peer]) return;
        if (!pid) throw new Error(`${peer}: the browser's process id is unknown, so its CPU cannot be limited`);
        recorder.event({ type: 'cgroup-attached', peer, processes: await call.cgroups.attach(peer, pid) });
      },
      launchSpec: call.grid ? {} : await call.emulator.launchSpec?.(peer, call.executables[kind].path, kind),
      attach: call.grid?.sessions.get(peer),
      onMilestone: (type) => recorder.event({ type, peer }),
      // As long as an event's text may be at the signaling edge: a page prints what it likes.
      onConsole: (text) => recorder.pageEvent({ type: 'console-error', peer, text: text.slice(0, MAX_EVENT_TEXT_CHARS) }),
      onCrash: (message) => !closing && recorder.fail(call.grid ? `${message} (grid-node ${call.grid.record.peers[peer].node})` : message, peer),
    });
    recorder.browserVersions[peer] = launched.version;
    call.pages.set(peer, launched.page);
    const pid = launched.browser.process()?.pid;
    if (pid) call.processes.track(peer, pid);
    hold(call, `browser ${peer}`, async () => { closing = true; await launched.close(); });
    log(`${peer}: ${launched.version} launched`);
  }));
  // Every browser that did start is held for tear-down before the first failure is thrown.
  const failed = launches.find((launch) => launch.status === 'rejected');
  if (failed) throw failed.reason;
  call.grid?.watch((peer, message) => !closing && recorder.fail(message, peer));

  const connectWait = new AbortController();
  const timedOut = sleep(CONNECT_TIMEOUT_MS, recorder.signal, connectWait.signal).then(() => 'timeout');
  const outcome = await Promise.race([whenConnected.then(() => 'connected'), timedOut]);
  connectWait.abort();
  if (outcome === 'timeout' && !recorder.signal.aborted) {
    recorder.fail(`peers did not connect within ${CONNECT_TIMEOUT_MS / 1000} s (${connected.size} of ${expectedConnections} connections up, `
      + `${joined.size} of ${peers.length} peers joined`
      + `${expectedCodecReports ? `, ${codecReports.size} of ${expectedCodecReports} codec reports` : ''}); see the events in result.json`);
  }
}

/**
 * Every peer's Grid session, before any page loads; they are released after the browsers' connections close.
 * @param {Call} call @param {string} pageOrigin
 */
async function openGrid(call, pageOrigin) {
  const { url, secrets, spread } = /** @type {NonNullable<RunOptions['grid']>} */ (call.gridOptions);
  call.grid = await openGridSessions({
    gridUrl: url, secrets, spread, peers: allPeerNames(call.scenario), placement: call.scenario.placement ?? {}, log: call.log,
    argsFor: (peer, node) => gridChromiumArgs(call.media.peers[peer], pageOrigin, node, call.headful),
  });
  hold(call, 'grid sessions', () => call.grid?.release());
  if (call.emulator.name === 'node-relay') call.grid.record.emulation = 'node relays';
  if (call.emulator.probePaths) call.grid.record.paths = await call.emulator.probePaths();
  for (const p of call.grid.record.paths ?? []) call.log(`path ${p.from} → ${p.to}: RTT min ${p.rttMsMin} ms, median ${p.rttMsMedian} ms, loss ${p.lossPct} %`);
}

/**
 * The call itself: media start, the network schedule, network truth once a second, until the duration is over
 * or the run stops early.
 * @param {Call} call
 */
async function holdCall(call) {
  const { scenario, recorder, emulator, log } = call;
  if (recorder.signal.aborted) return;
  // What a browser forked while its tree was being moved.
  await call.cgroups?.sweep().catch((error) => recorder.fail(`limiting the devices' CPU: ${error.message}`));
  recorder.mediaStartEpochMs = Date.now();
  // The relay's traces run on the media clock, like the schedule.
  await emulator.startMedia?.(recorder.mediaStartEpochMs).catch((error) => recorder.fail(`starting the link traces: ${error.message}`));
  recorder.event({ type: 'call-started', epochMs: recorder.mediaStartEpochMs });
  call.signaling.broadcast(call.room, { type: 'start', mediaStartEpochMs: recorder.mediaStartEpochMs });
  log(`call started; running ${scenario.durationS} s`);
  // One change at a time: a slow one (tc) must not let the next overtake it. A trace's rate steps are counted, not listed.
  let applying = Promise.resolve();
  const timers = scheduleNetwork(emulator.events ?? scenario.compiled.events, recorder.mediaStartEpochMs, (atS, changes) => {
    applying = applying.then(async () => {
      if (recorder.signal.aborted) return;
      try {
        await emulator.apply(Object.fromEntries(changes.map((change) => [change.link, change.params])), atS);
        const appliedAtS = recorder.atS();
        for (const { link, params, cause, traceStep } of changes) {
          if (traceStep) call.traceStepLateMs.push((appliedAtS - atS) * 1000);
          else recorder.scheduleEvents.push({ atS, appliedAtS, link, params, cause });
        }
      } catch (error) {
        recorder.fail(`applying the schedule at ${atS} s: ${error.message}`);
      }
    });
  });
  hold(call, 'schedule timers', () => timers.forEach(clearTimeout));
  const flowTimers = scheduleFlows(browserFlowTimeline(scenario), recorder.mediaStartEpochMs, (atS, peer, command) => {
    const { type, ...fields } = command;
    recorder.event({ type: 'flow-command', peer, command: type, ...fields, scheduledAtS: atS });
    try {
      if (!call.signaling.sendCommand(call.room, peer, command)) recorder.fail(`flow command ${type} at ${atS} s not delivered: the page has left signaling`, peer);
    } catch (error) {
      // A timer's exception would take the orchestrator down without a result.
      recorder.fail(`flow command ${type} at ${atS} s: ${error.message}`, peer);
    }
  });
  hold(call, 'flow timers', () => flowTimers.forEach(clearTimeout));
  call.kernelFlows?.start(recorder.mediaStartEpochMs);
  // What the viewers saw: drained from the pages once a second; the last drain runs before the browsers close.
  call.viewer = createViewerCollector({
    pages: call.pages, peers: allPeerNames(scenario), runDir: call.runDir,
    changeTimesS: scenario.compiled.events.map((event) => event.atS), fps: call.media.fps, startedAtEpochMs: call.startedAt.getTime(),
    onRejected: (peer, reason) => recorder.rejected({ epochMs: Date.now(), peer, messageType: 'viewer-drain', reason }),
  });
  await call.viewer.start(recorder.mediaStartEpochMs);
  hold(call, 'viewer collector', () => call.viewer?.stop());
  const truthTimer = setInterval(() => readTruth(call).catch((error) => recorder.fail(`reading network truth: ${error.message}`)), 1000);
  hold(call, 'truth timer', () => clearInterval(truthTimer));
  if (call.sfuSampler) {
    call.sfuSampler.start();
    hold(call, 'Janus admin sampler', () => call.sfuSampler?.stop());
  }
  await sleep(recorder.mediaStartEpochMs + scenario.durationS * 1000 + LAST_SAMPLE_GRACE_MS - Date.now(), recorder.signal);
  call.signaling.broadcast(call.room, { type: 'stop' });
}

/**
 * The emulator's truth per link, its own load when it measures itself, and with kernel flows the relay's per tunnel
 * (what crossed the bottleneck of each).
 * @param {Call} call
 */
async function readTruth(call) {
  call.recorder.truth.push(...await call.emulator.truth());
  if (call.emulator.load) call.recorder.emulatorLoad.push(...await call.emulator.load());
  if (call.kernelFlows) call.flowTruth.push(...await call.emulator.tunnels.truth());
}

/**
 * The scenario's kernel flows (iperf3 TCP/UDP in namespaces, through the relay's tunnels): built before any browser
 * starts, so a missing tool or a failed bridge stops the run early; their clients start on the media clock.
 * @param {Call} call @param {string} room @param {() => number} clock
 */
async function startCrossTraffic(call, room, clock) {
  // The filter leaves only the kernel kinds, which tsc cannot narrow from an array lookup.
  const kernel = /** @type {import('../cross/kernel-flow-plan.js').KernelFlow[]} */ ((call.scenario.flows ?? [])
    .filter((flow) => KERNEL_FLOW_KINDS.includes(flow.kind)));
  const flows = kernel.map((flow) => (flow.kind === 'tcp-short' ? { ...flow, bursts: shortTcpBursts(flow) } : flow));
  if (!flows.length) return;
  call.kernelFlows = await startKernelFlows({
    flows, relay: call.emulator.tunnels.relay, runDir: call.runDir, runId: room, clock,
    registerCleanup: (name, close, options) => hold(call, name, close, options),
    logCommand: (record) => call.commands.push(record),
    onError: (error) => call.recorder.fail(`kernel flow: ${error.message}`),
  });
  call.log(`kernel flows: ${flows.map((flow) => `${flow.name} (${flow.kind})`).join(', ')}`);
}

/**
 * Truth for the last seconds, then every closer in reverse order; one that fails or hangs does not stop the others.
 * @param {Call} call
 */
async function tearDown(call) {
  if (call.emulator && call.recorder.mediaStartEpochMs !== null) await readTruth(call).catch(() => {});
  // iperf3 writes its JSON when a test ends: the last ones end at their stopS, inside the call's grace.
  if (call.kernelFlows) await Promise.race([call.kernelFlows.done(), sleep(KERNEL_FLOWS_GRACE_MS)]);
  for (const release of call.releases.reverse()) {
    await release().catch((error) => call.log(`cleanup: ${error.message}`));
  }
}

/**
 * Arms one timer per distinct time of the flows' page commands (lib/cross/flow-commands.js), which sends that time's
 * commands in their order; anchored to media start like the network schedule.
 * @param {import('../lib/cross/flow-commands.js').TimedCommand[]} timeline  sorted by atS
 * @param {number} mediaStartEpochMs
 * @param {(atS: number, peer: string, command: import('../../signaling/messages.js').Command) => void} send
 */
function scheduleFlows(timeline, mediaStartEpochMs, send) {
  const times = [...new Set(timeline.map(({ atS }) => atS))];
  return times.map((atS) => setTimeout(() => {
    for (const { peer, command } of timeline.filter((entry) => entry.atS === atS)) send(atS, peer, command);
  }, mediaStartEpochMs + atS * 1000 - Date.now()));
}

/**
 * Arms one timer per distinct time in the schedule; the emulator applies each group of changes at once.
 * Times are anchored to media start so a late timer does not delay the later ones.
 * @param {Array<{ atS: number, link: string, params: object, cause: string, traceStep?: boolean }>} events  all atS > 0
 *   (compileNetwork; lib/network/trace.js steppedNetwork)
 * @param {number} mediaStartEpochMs
 * @param {(atS: number, changes: Array<{ atS: number, link: string, params: object, cause: string, traceStep?: boolean }>) => void} apply
 */
function scheduleNetwork(events, mediaStartEpochMs, apply) {
  return groupScheduleEvents(events)
    .map(({ atS, events: changes }) => setTimeout(() => apply(atS, changes), mediaStartEpochMs + atS * 1000 - Date.now()));
}
