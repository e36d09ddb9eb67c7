// One scenario run: set-up (set-up.js: emulator, signaling, browsers), the call (hold-call.js: network schedule, truth,
// stats), tear-down, and result.json. Rendering the report is the caller's job.
import { rmdir } from 'node:fs/promises';
import puppeteer from 'puppeteer';
import { ensureRunMedia } from '../../media/generate.js';
import { checkSupport } from '../emulators/index.js';
import { checkSfuSupport, defaultSfu, sfuNamed } from '../sfu/index.js';
import { checkPublishSources } from '../lib/media/publish.js';
import { requirementsOf } from '../emulators/contract.js';
import { EnvironmentError, InputError, errorMessage } from '../lib/system/errors.js';
import { cgroupLimits } from '../lib/devices/devices.js';
import { BROWSER_FLOW_KINDS } from '../lib/cross/flow-commands.js';
import { KERNEL_FLOW_KINDS } from '../lib/cross/flows.js';
import { onInterrupt } from '../lib/system/shutdown.js';
import { createPeerSecrets } from '../lib/system/peer-secrets.js';
import { allPeerNames } from '../lib/network/topology.js';
import { peerBrowsers } from '../lib/scenario/peer-browsers.js';
import { resolveBrowserPath, resolveFirefoxPath } from './browser-path.js';
import { hold, sleep } from './call-lifecycle.js';
import { checkCgroups } from './cgroups.js';
import { prepareRunDir, writeResultFile } from './output.js';
import { finalResult } from './final-result.js';
import { createRecorder } from './recorder.js';
import { startProcessSampler } from './process-sampler.js';
import { setUpCall } from './set-up.js';
import { holdCall, readTruth } from './hold-call.js';

const KERNEL_FLOWS_GRACE_MS = 5000;

/**
 * @typedef {object} RunOptions
 * @property {import('../lib/scenario/scenario-file.js').ResolvedScenario} scenario
 * @property {string} [video]        media preset or .y4m file
 * @property {string} [browser]      every peer's browser (lib/scenario/peer-browsers.js BROWSER_KINDS) unless the scenario names one
 * @property {string} [browserPath]  Chromium's executable
 * @property {string} [firefoxPath]  Firefox's executable
 * @property {string} [emulator]     one of emulators/index.js EMULATORS
 * @property {string} [sfu]          an SFU call's SFU: one of sfu/index.js sfuNames() (default: the registry's first)
 * @property {boolean} [headful]
 * @property {string} [outDir]       default results/<scenario>/<UTC timestamp>
 * @property {boolean} [force]       replace a result already in outDir
 * @property {Call['onSample']} [onSample]
 * @property {(line: string) => void} [log]
 * @property {{ url: string, secrets: import('../lib/grid/grid-config.js').GridSecrets, spread: boolean, listen: string }} [grid]  --grid:
 *   every peer's browser a Selenium Grid session (run/grid-sessions.js); the pages and the relay on `listen`, which the nodes reach
 * @property {(peers: string[]) => Map<string, string>} [createSecrets]  the pages' join secrets (default
 *   lib/system/peer-secrets.js createPeerSecrets; a test passes one that remembers them, to look for them in the run's files)
 * @property {import('./browser-pool.js').BrowserPool} [browserPool]  browsers kept between a suite's runs: a peer takes one
 *   whose launch matches its own, and gives it back at the end (browser-pool.js)
 */

/**
 * Runs one scenario end to end and writes result.json (also when the run failed or was aborted). Bad input and an
 * environment that cannot run it throw before any browser starts.
 * @param {RunOptions} options
 * @returns {Promise<{ result: import('../lib/result/result.js').RunResult, runDir: string, resultFile: string }>}
 */
export async function runScenario({ scenario, video, browser: runBrowser, browserPath, firefoxPath, emulator: emulatorName = 'relay', headful = false, outDir, force = false, onSample, log = () => {},
  createSecrets = createPeerSecrets, grid, sfu: sfuName = defaultSfu(), browserPool }) {
  const kinds = peerBrowsers(allPeerNames(scenario), scenario.browsers, runBrowser);
  const firefoxPeers = Object.keys(kinds).filter((peer) => kinds[peer] === 'firefox');
  // Puppeteer attaches to a Grid session over CDP, which Firefox lacks.
  if (grid && firefoxPeers.length) throw new InputError(`--grid runs Chromium peers only (Puppeteer attaches over CDP); ${firefoxPeers.join(', ')} would run Firefox: drop --browser firefox or the scenario's browsers`);
  // What the emulator must carry (Firefox peers, an SFU, kernel flows), by what its backend declares.
  // The SFU must forward what the peers publish (simulcast, SVC), by what it declares.
  checkSfuSupport(sfuName, scenario);
  checkSupport(emulatorName, requirementsOf(scenario, kinds, KERNEL_FLOW_KINDS, sfuNamed(sfuName).capabilities));
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
  const media = await ensureRunMedia(video, allPeerNames(scenario), scenario.media, sources, scenario.lipSync, scenario.talk,
    scenario.screenShare);
  // A simulcast source too small for its layers (Chromium leaves the lowest empty) stops the run before any browser.
  checkPublishSources(scenario.publish ?? {}, media.peers);
  const runDir = await prepareRunDir({ outDir, scenarioName: scenario.name, force });
  const startedAt = new Date();
  const recorder = createRecorder({ log, startedAtEpochMs: startedAt.getTime() });
  // Each browser's and the relay's whole process tree, once a second: a starved host must not pass for a congested link.
  const processes = startProcessSampler();
  /** @type {Call} */
  const call = {
    scenario, kinds, executables, media, headful, emulatorName, sfuName, startedAt, recorder, onSample, log, createSecrets,
    gridOptions: grid, emulator: null, processes, releases: [], runDir, commands: [], flowTruth: [], traceStepLateMs: [], pages: new Map(),
    ...(browserPool ? { browserPool } : {}),
  };
  hold(call, 'process sampler', () => processes.stop().then(() => {}));
  const stopInterrupt = onInterrupt(recorder.interrupt);
  try {
    await holdCall(await setUpCall(call));
  } catch (error) {
    // Bad input or an environment that cannot run it surface before anything ran; all else is a failed run with a result.
    if (error instanceof InputError || error instanceof EnvironmentError) {
      if (!outDir) await rmdir(runDir).catch(() => {});
      throw error;
    }
    recorder.fail(errorMessage(error));
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

/**
 * Truth for the last seconds, then every closer in reverse order; one that fails or hangs does not stop the others.
 * @param {Call} call
 */
async function tearDown(call) {
  if (call.emulator && call.recorder.mediaStartEpochMs !== null) await readTruth(call, call.emulator).catch(() => {});
  // iperf3 writes its JSON when a test ends: the last ones end at their stopS, inside the call's grace.
  if (call.kernelFlows) await Promise.race([call.kernelFlows.done(), sleep(KERNEL_FLOWS_GRACE_MS)]);
  // The call is over: a reading while the browsers close would describe half a process tree.
  await call.processes.stop();
  for (const release of call.releases.reverse()) {
    await release().catch((error) => call.log(`cleanup: ${errorMessage(error)}`));
  }
}
