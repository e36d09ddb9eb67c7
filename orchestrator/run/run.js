// One scenario run: set-up (emulator, signaling, browsers), the call (network schedule, truth, stats), tear-down,
// and result.json. Rendering the report is the caller's job.
import { randomBytes } from 'node:crypto';
import { rmdir } from 'node:fs/promises';
import puppeteer from 'puppeteer';
import { ensureRunMedia } from '../../media/generate.js';
import { startSignalingServer } from '../../signaling/server.js';
import { createEmulator } from '../emulators/index.js';
import { EnvironmentError, InputError } from '../lib/errors.js';
import { BROWSER_FLOW_KINDS, browserFlowTimeline } from '../lib/flow-commands.js';
import { KERNEL_FLOW_KINDS, shortTcpBursts } from '../lib/flows.js';
import { startKernelFlows } from '../cross/kernel-flows.js';
import { buildResult } from '../lib/result.js';
import { groupScheduleEvents } from '../lib/schedule.js';
import { LAUNCH_EVENT } from '../lib/setup-breakdown.js';
import { onCleanup, onInterrupt } from '../lib/shutdown.js';
import { SFU_NODE } from '../lib/topology.js';
import { createAdminSampler } from '../sfu/admin-sampler.js';
import { createSfuBridge } from '../sfu/bridge.js';
import { createVideoRoom } from '../sfu/janus-api.js';
import { startJanus } from '../sfu/janus.js';
import { resolveBrowserPath } from './browser-path.js';
import { launchPeer } from './browsers.js';
import { describeEnvironment } from './environment.js';
import { prepareRunDir, writeResultFile } from './output.js';
import { createRecorder } from './recorder.js';
import { startProcessSampler } from './process-sampler.js';
import { scoreCaptures, vmafAvailability } from './picture-quality.js';
import { createViewerCollector } from './viewer-collector.js';

const CONNECT_TIMEOUT_MS = 45_000;
const LAST_SAMPLE_GRACE_MS = 2500;
const KERNEL_FLOWS_GRACE_MS = 5000;
/** Janus's VideoRoom room of a run: the Janus is the run's own, so any id does. */
const SFU_ROOM = 1;

/** @param {number} ms @param {AbortSignal} [signal] resolves early when the signal aborts */
const sleep = (ms, signal) => new Promise((resolve) => {
  const timer = setTimeout(resolve, ms);
  signal?.addEventListener('abort', () => { clearTimeout(timer); resolve(undefined); }, { once: true });
});

/**
 * @typedef {object} RunOptions
 * @property {import('../lib/scenario.js').ResolvedScenario & { compiled: any, allPeers?: number,
 *   flows?: import('../lib/flow-commands.js').Flow[] }} scenario  allPeers and flows: lib/flows.js
 * @property {string} [video]        media preset or .y4m file
 * @property {string} [browserPath]
 * @property {string} [emulator]     one of emulators/index.js EMULATORS
 * @property {boolean} [headful]
 * @property {string} [outDir]       default results/<scenario>/<UTC timestamp>
 * @property {boolean} [force]       replace a result already in outDir
 * @property {(sample: object, elapsedS: number|null) => void} [onSample]
 * @property {(line: string) => void} [log]
 */

/**
 * Runs one scenario end to end and writes result.json (also when the run failed or was aborted). Bad input and an
 * environment that cannot run it throw before any browser starts.
 * @param {RunOptions} options
 * @returns {Promise<{ result: import('../lib/result.js').RunResult, runDir: string, resultFile: string }>}
 */
export async function runScenario({ scenario, video, browserPath, emulator: emulatorName = 'relay', headful = false, outDir, force = false, onSample, log = () => {} }) {
  // Only the relay rewrites Janus's candidates so far; netem and dummynet would let SFU media bypass their links.
  if (scenario.topology === 'sfu' && emulatorName !== 'relay') {
    throw new InputError(`--emulator ${emulatorName}: scenario ${scenario.name} has topology sfu, which runs on the relay emulator only; use --emulator relay`);
  }
  // An extra call would need its own Janus room, and a data channel a direct connection that an SFU call lacks.
  const browserFlow = scenario.topology === 'sfu' && (scenario.flows ?? []).find((flow) => BROWSER_FLOW_KINDS.includes(flow.kind));
  if (browserFlow) {
    throw new InputError(`${scenario.file}: flows: flow ${browserFlow.name} (${browserFlow.kind}) needs a mesh call; topology sfu supports kernel flows only`);
  }
  // Kernel flows enter the emulated links through the relay's tunnels; netem and dummynet have no such entry yet.
  const kernelFlow = (scenario.flows ?? []).find((flow) => KERNEL_FLOW_KINDS.includes(flow.kind));
  if (kernelFlow && emulatorName !== 'relay') {
    throw new InputError(`--emulator ${emulatorName}: scenario ${scenario.name} has the kernel flow ${kernelFlow.name} (${kernelFlow.kind}), which crosses the emulated bottleneck through the relay only; use --emulator relay`);
  }
  const browser = resolveBrowserPath({ browserPath, puppeteerPath: () => puppeteer.executablePath() });
  const media = await ensureRunMedia(video, allPeerNames(scenario), scenario.media);
  const runDir = await prepareRunDir({ outDir, scenarioName: scenario.name, force });
  const startedAt = new Date();
  const recorder = createRecorder({ log });
  // Each browser's and the relay's whole process tree, once a second: a starved host must not pass for a congested link.
  const processes = startProcessSampler();
  /** @type {Call} */
  const call = {
    scenario, browser, media, headful, emulatorName, startedAt, recorder, onSample, log, emulator: null, processes,
    releases: [], runDir, kernelCommands: [], pages: new Map(),
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
  const viewer = await scoreViewer(call);
  recorder.finish();
  const result = buildResult({
    status: recorder.status,
    errors: recorder.errors,
    scenario,
    environment: describeEnvironment({
      browser, browserVersion: recorder.browserVersions[0], emulator: call.emulator, emulatorName, media, startedAt, endedAt: new Date(),
    }),
    samples: recorder.samples,
    events: recorder.events,
    network: {
      emulator: call.emulator?.name ?? emulatorName,
      truth: recorder.truth,
      commands: [...(call.emulator?.commands ?? []), ...call.kernelCommands],
      scheduleEvents: recorder.scheduleEvents,
    },
    clock: { startedAtEpochMs: startedAt.getTime(), mediaStartEpochMs: recorder.mediaStartEpochMs },
    peers: scenarioPeers(scenario),
    processes: { rows: processes.rows, unavailable: processes.unavailable },
    sfu: call.sfuSampler && { rows: call.sfuSampler.rows, unavailable: call.sfuSampler.unavailable },
    flowRows: call.kernelFlows?.rows() ?? [],
    viewer,
  });
  const resultFile = await writeResultFile(runDir, result);
  return { result, runDir, resultFile };
}

/**
 * The state of one call between its phases.
 * @typedef {{ scenario: any, browser: { path: string, source: string }, media: any, headful: boolean, emulatorName: string,
 *   startedAt: Date, recorder: import('./recorder.js').Recorder, onSample?: RunOptions['onSample'], log: (line: string) => void,
 *   emulator: any, signaling?: any, room?: string, processes: import('./process-sampler.js').ProcessSampler,
 *   releases: Array<() => Promise<void>>, runDir: string, sfuSampler?: import('../sfu/admin-sampler.js').AdminSampler,
 *   kernelFlows?: import('../cross/kernel-flows.js').KernelFlows, kernelCommands: object[],
 *   pages: Map<string, import('puppeteer').Page>, viewer?: import('./viewer-collector.js').ViewerCollector }} Call
 */

/** The main call's peers. @param {{ peers: number }} scenario */
const scenarioPeers = (scenario) => Array.from({ length: scenario.peers }, (_, i) => `p${i}`);
/** Every browser of the run: the main call's peers, then two per extra call. @param {{ peers: number, allPeers?: number }} scenario */
const allPeerNames = (scenario) => Array.from({ length: scenario.allPeers ?? scenario.peers }, (_, i) => `p${i}`);

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
 * Janus with the run's VideoRoom room. Its closer is registered before it starts; a Janus that cannot start is an
 * EnvironmentError (with its log tail) before any browser launches.
 * @param {Call} call
 */
async function startSfu(call) {
  const janus = await startJanus({
    runDir: call.runDir, registerCleanup: (name, close, options) => hold(call, name, close, options),
    logCommand: (record) => call.log(`janus: ${record.cmd}`),
  });
  call.processes.track('janus', janus.pid);
  await createVideoRoom(janus.apiUrl, { room: SFU_ROOM, publishers: call.scenario.peers });
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
  const janus = scenario.topology === 'sfu' ? await startSfu(call) : null;
  // Emulator commands are stamped on the run clock; buildResult moves them onto the media clock.
  const clock = () => (Date.now() - call.startedAt.getTime()) / 1000;
  // The emulator's closer is registered before its set-up starts, so an interrupt half way removes what was built.
  call.emulator = await createEmulator(call.emulatorName, {
    compiled: scenario.compiled, peers, runId: room, browserPath: call.browser.path, clock, log, sfuAddress: janus?.iceAddress,
    registerCleanup: (name, close, options) => hold(call, name, close, options),
  });
  log(`emulator: ${call.emulator.name}${call.emulator.choice ? ` (${call.emulator.choice})` : ''}`);
  if (call.emulator.pid) call.processes.track(call.emulator.name, call.emulator.pid);
  await startCrossTraffic(call, room, clock);

  const bridge = janus && createSfuBridge({
    apiUrl: janus.apiUrl, room: SFU_ROOM, peers, rewriteCandidate: call.emulator.rewriteCandidate, log,
    send: (peer, message) => signaling.sendTo(room, peer, message),
    onError: (error) => recorder.fail(`SFU bridge: ${error.message}`),
  });
  const signaling = await startSignalingServer({
    host: call.emulator.signalingHost, rewriteCandidate: call.emulator.rewriteCandidate, room, peers, bridge: bridge?.handle,
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
  const checkReady = () => connected.size === expectedConnections && joined.size === peers.length && allConnected();
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
    recorder.event(event);
    if (event.type === 'error') recorder.fail(event.message, event.peer);
    if (event.type === 'connection-state') {
      const inMainCall = mainPeers.includes(event.peer) && (mainPeers.includes(event.remote) || event.remote === SFU_NODE);
      if (event.state === 'connected' && inMainCall) connected.add(`${event.peer}->${event.remote}`);
      // 'disconnected' is transient (consent checks starved on a harsh link) and stays in the events; 'failed' is final.
      if (event.state === 'failed') recorder.fail(`connection to ${event.remote} failed`, event.peer);
      checkReady();
    }
  });

  if (recorder.signal.aborted) return;
  let closing = false;
  // All at once: launched one after another, the first peer's set-up time included the others' launches.
  const launches = await Promise.allSettled(peers.map(async (peer) => {
    recorder.event({ type: LAUNCH_EVENT, peer });
    // An extra call's peers call nobody when they join; the main call's call each other only.
    const callAtJoin = mainPeers.includes(peer) ? mainPeers.join(',') : '';
    const url = `${signaling.httpUrl}?${new URLSearchParams({ peer, room, signal: signaling.wsUrl, callAtJoin, ...(janus ? { sfu: SFU_NODE } : {}) })}`;
    const launched = await launchPeer({
      executablePath: call.browser.path, media: call.media.peers[peer], url, headful: call.headful,
      launchSpec: call.emulator.launchSpec?.(peer),
      onMilestone: (type) => recorder.event({ type, peer }),
      onConsole: (text) => recorder.event({ type: 'console-error', peer, text }),
      onCrash: (message) => !closing && recorder.fail(message, peer),
    });
    recorder.browserVersions.push(launched.version);
    call.pages.set(peer, launched.page);
    const pid = launched.browser.process()?.pid;
    if (pid) call.processes.track(peer, pid);
    hold(call, `browser ${peer}`, async () => { closing = true; await launched.browser.close(); });
    log(`${peer}: ${launched.version} launched`);
  }));
  // Every browser that did start is held for tear-down before the first failure is thrown.
  const failed = launches.find((launch) => launch.status === 'rejected');
  if (failed) throw failed.reason;

  const timedOut = sleep(CONNECT_TIMEOUT_MS, recorder.signal).then(() => 'timeout');
  if (await Promise.race([whenConnected.then(() => 'connected'), timedOut]) === 'timeout' && !recorder.signal.aborted) {
    recorder.fail(`peers did not connect within ${CONNECT_TIMEOUT_MS / 1000} s (${connected.size} of ${expectedConnections} connections up, `
      + `${joined.size} of ${peers.length} peers joined); see the events in result.json`);
  }
}

/**
 * The call itself: media start, the network schedule, network truth once a second, until the duration is over
 * or the run stops early.
 * @param {Call} call
 */
async function holdCall(call) {
  const { scenario, recorder, emulator, log } = call;
  if (recorder.signal.aborted) return;
  recorder.mediaStartEpochMs = Date.now();
  recorder.event({ type: 'call-started', epochMs: recorder.mediaStartEpochMs });
  call.signaling.broadcast(call.room, { type: 'start', mediaStartEpochMs: recorder.mediaStartEpochMs });
  log(`call started; running ${scenario.durationS} s`);
  const timers = scheduleNetwork(scenario.compiled.events, recorder.mediaStartEpochMs, async (atS, changes) => {
    try {
      await emulator.apply(Object.fromEntries(changes.map((change) => [change.link, change.params])));
      for (const { link, params, cause } of changes) recorder.scheduleEvents.push({ atS, appliedAtS: recorder.atS(), link, params, cause });
    } catch (error) {
      recorder.fail(`applying the schedule at ${atS} s: ${error.message}`);
    }
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
    changeTimesS: scenario.compiled.events.map((event) => event.atS), fps: call.media.fps,
    onRejected: (peer, reason) => recorder.rejected({ epochMs: Date.now(), peer, messageType: 'viewer-drain', reason }),
  });
  await call.viewer.start(recorder.mediaStartEpochMs);
  hold(call, 'viewer collector', () => call.viewer?.stop());
  const truthTimer = setInterval(() => emulator.truth().then((rows) => recorder.truth.push(...rows), (error) => recorder.fail(`reading network truth: ${error.message}`)), 1000);
  hold(call, 'truth timer', () => clearInterval(truthTimer));
  if (call.sfuSampler) {
    call.sfuSampler.start();
    hold(call, 'Janus admin sampler', () => call.sfuSampler?.stop());
  }
  await sleep(recorder.mediaStartEpochMs + scenario.durationS * 1000 + LAST_SAMPLE_GRACE_MS - Date.now(), recorder.signal);
  call.signaling.broadcast(call.room, { type: 'stop' });
}

/**
 * The scenario's kernel flows (iperf3 TCP/UDP in namespaces, through the relay's tunnels): built before any browser
 * starts, so a missing tool or a failed bridge stops the run early; their clients start on the media clock.
 * @param {Call} call @param {string} room @param {() => number} clock
 */
async function startCrossTraffic(call, room, clock) {
  const flows = (call.scenario.flows ?? []).filter((flow) => KERNEL_FLOW_KINDS.includes(flow.kind))
    .map((flow) => (flow.kind === 'tcp-short' ? { ...flow, bursts: shortTcpBursts(flow) } : flow));
  if (!flows.length) return;
  call.kernelFlows = await startKernelFlows({
    flows, relay: call.emulator, runDir: call.runDir, runId: room, clock,
    registerCleanup: (name, close, options) => hold(call, name, close, options),
    logCommand: (record) => call.kernelCommands.push(record),
    onError: (error) => call.recorder.fail(`kernel flow: ${error.message}`),
  });
  call.log(`kernel flows: ${flows.map((flow) => `${flow.name} (${flow.kind})`).join(', ')}`);
}

/**
 * The frames the viewers saw and the picture quality of the captured ones (after the browsers closed, so ffmpeg has
 * the cores); the captures are removed once scored. A scoring failure is a warning: the rest of the result stands.
 * @param {Call} call
 * @returns {Promise<Parameters<typeof buildResult>[0]['viewer']>}
 */
async function scoreViewer(call) {
  if (!call.viewer) return undefined;
  const vmaf = await vmafAvailability();
  let quality = { scores: [], unmatched: 0 };
  try {
    quality = await scoreCaptures({ captures: call.viewer.captures, media: call.media.peers, workDir: call.runDir });
  } catch (error) {
    call.recorder.event({ type: 'warning', source: 'picture-quality', message: `scoring the captured frames failed: ${error.message}` });
  } finally {
    await call.viewer.removeCaptures();
  }
  return {
    batches: call.viewer.batches, scores: quality.scores, captures: call.viewer.captures.length,
    unmatchedCaptures: quality.unmatched, droppedCaptures: call.viewer.droppedCaptures, vmaf,
  };
}

/**
 * Truth for the last seconds, then every closer in reverse order; one that fails or hangs does not stop the others.
 * @param {Call} call
 */
async function tearDown(call) {
  if (call.emulator && call.recorder.mediaStartEpochMs !== null) call.recorder.truth.push(...await call.emulator.truth().catch(() => []));
  // iperf3 writes its JSON when a test ends: the last ones end at their stopS, inside the call's grace.
  if (call.kernelFlows) await Promise.race([call.kernelFlows.done(), sleep(KERNEL_FLOWS_GRACE_MS)]);
  for (const release of call.releases.reverse()) {
    await release().catch((error) => call.log(`cleanup: ${error.message}`));
  }
}

/**
 * Arms one timer per distinct time of the flows' page commands (lib/flow-commands.js), which sends that time's
 * commands in their order; anchored to media start like the network schedule.
 * @param {import('../lib/flow-commands.js').TimedCommand[]} timeline  sorted by atS
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
 * @param {Array<{ atS: number, link: string, params: object, cause: string }>} events  all atS > 0 (compileNetwork)
 * @param {number} mediaStartEpochMs
 * @param {(atS: number, changes: Array<{ atS: number, link: string, params: object, cause: string }>) => void} apply
 */
function scheduleNetwork(events, mediaStartEpochMs, apply) {
  return groupScheduleEvents(events)
    .map(({ atS, events: changes }) => setTimeout(() => apply(atS, changes), mediaStartEpochMs + atS * 1000 - Date.now()));
}
