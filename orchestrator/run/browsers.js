import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import puppeteer from 'puppeteer';
import { childEnvironment } from '../grid/secrets.js';
import { InputError, errorMessage } from '../lib/system/errors.js';
import { findExecutable } from '../lib/system/paths.js';
import { withoutFragment } from '../lib/system/peer-secrets.js';
import { supportsPdeathsig } from '../lib/system/pdeathsig.js';

/** Runs Firefox under `setpriv --pdeathsig KILL` (see the script). */
export const FIREFOX_EXEC_SCRIPT = fileURLToPath(new URL('./firefox-exec.sh', import.meta.url));
/** A Firefox profile of this orchestrator: `wtb-firefox-<orchestrator pid>-<random>` in the temp folder. */
const PROFILE_PREFIX = 'wtb-firefox-';

/**
 * Chromium flags for a test peer: fake devices fed from files, loopback ICE candidates allowed, and nothing that
 * talks to the network on its own (this machine has none, and background traffic would skew the results).
 * @param {{ video: string, audio: string }} media
 * @param {string} pageOrigin the client page's origin: getUserMedia needs a secure context, and a namespace
 *   address (netem backend) is not one unless declared
 * @param {string|null} [fieldTrials]  the scenario's Chromium field trials (lib/scenario/field-trials.js, validated)
 */
export function chromiumArgs(media, pageOrigin, fieldTrials = null) {
  // A loopback page is a secure context already; naming its origin (its port is the run's) would make every run's
  // arguments differ, and no kept browser fit the next run (browser-pool.js).
  const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(new URL(pageOrigin).hostname);
  return [
    ...(loopback ? [] : [`--unsafely-treat-insecure-origin-as-secure=${pageOrigin}`]),
    '--use-fake-ui-for-media-stream',
    '--use-fake-device-for-media-stream',
    `--use-file-for-fake-video-capture=${media.video}`,
    `--use-file-for-fake-audio-capture=${media.audio}`,
    '--allow-loopback-in-peer-connection',
    '--disable-features=WebRtcHideLocalIpsWithMdns',
    '--autoplay-policy=no-user-gesture-required',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-default-apps',
    '--disable-domain-reliability',
    '--disable-client-side-phishing-detection',
    '--disable-quic',
    '--no-first-run',
    '--no-default-browser-check',
    '--metrics-recording-only',
    // The sampler's timers must not be throttled in a background or occluded page.
    '--disable-background-timer-throttling',
    '--disable-renderer-backgrounding',
    '--disable-backgrounding-occluded-windows',
    '--disable-gpu',
    ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
    ...(fieldTrials ? [`--force-fieldtrials=${fieldTrials}`] : []),
  ];
}

/**
 * Firefox preferences for a test peer (Puppeteer adds its automation defaults: no first-run pages, updates or
 * telemetry). Media comes from a <video> element (client-app `source=media-element`), so no device and no fake
 * stream is needed; getUserMedia would still get no prompt.
 */
export function firefoxPrefs() {
  return {
    'media.navigator.permission.disabled': true,
    // The source <video> plays with its sound (captureStream takes the audio from it) without a user gesture.
    'media.autoplay.default': 0,
    'media.autoplay.blocking_policy': 0,
    // Host candidates with their real address, not an mDNS name: the relay (on the host's address: Firefox gathers no
    // loopback candidate, whatever its prefs) and netem (the namespace's) pass exactly those.
    'media.peerconnection.ice.obfuscate_host_addresses': false,
    // The relay runs on this host, so its candidates are local addresses: without this Firefox's ICE fails to reach them.
    'media.peerconnection.ice.loopback': true,
    // The sampler's timers must not be throttled, as for Chromium (--disable-background-timer-throttling).
    'dom.min_background_timeout_value': 0,
    'dom.timeout.enable_budget_timer_throttling': false,
    'network.dns.disablePrefetch': true,
    'network.prefetch-next': false,
  };
}

/**
 * Removes the profiles of Firefox peers whose orchestrator is gone (killed before its closers ran); a live
 * orchestrator's are left alone.
 */
async function removeStaleProfiles() {
  const tmp = os.tmpdir();
  for (const name of await readdir(tmp).catch(() => [])) {
    const pid = Number(name.startsWith(PROFILE_PREFIX) && name.slice(PROFILE_PREFIX.length).split('-')[0]);
    if (!pid || pid === process.pid || isAlive(pid)) continue;
    await rm(path.join(tmp, name), { recursive: true, force: true }).catch(() => {});
  }
}

/** @param {number} pid */
function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return /** @type {NodeJS.ErrnoException} */ (error).code === 'EPERM';
  }
}

let pdeathsigChecked = /** @type {boolean|null} */ (null);
/** Whether Firefox can be tied to the orchestrator's life (Linux with util-linux ≥ 2.33). */
function canTieToOrchestrator() {
  if (pdeathsigChecked === null) {
    const setpriv = process.platform === 'linux' ? findExecutable('setpriv', process.env.PATH ?? '') : null;
    pdeathsigChecked = Boolean(setpriv && supportsPdeathsig(setpriv));
  }
  return pdeathsigChecked;
}

/**
 * Puppeteer's launch options for one peer's browser. Chromium: its flags, over a pipe (it shuts itself down when the
 * orchestrator dies). Firefox: WebDriver BiDi over a WebSocket (Firefox has no pipe), started through
 * firefox-exec.sh (`setpriv --pdeathsig KILL`) where it can be, or the emulator's launchSpec, with a profile of its own.
 * @param {{ kind: 'chromium'|'firefox', executablePath: string, media: { video: string, audio: string }, url: string,
 *   headful: boolean, launchSpec: { executablePath?: string, args?: string[], env?: Record<string,string> }, profileDir?: string,
 *   fieldTrials?: string|null }} options  fieldTrials: Chromium's only
 */
export function launchOptions({ kind, executablePath, media, url, headful, launchSpec, profileDir, fieldTrials = null }) {
  const common = {
    headless: !headful,
    // The orchestrator owns signal handling so it can write an "aborted" result before closing browsers.
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
    protocolTimeout: 60_000,
  };
  if (kind === 'firefox') {
    // An emulator's launchSpec (netem: into the peer's namespace) ties it to the orchestrator itself.
    const tied = !launchSpec.executablePath && canTieToOrchestrator();
    return {
      ...common,
      browser: /** @type {const} */ ('firefox'),
      executablePath: launchSpec.executablePath ?? (tied ? FIREFOX_EXEC_SCRIPT : executablePath),
      args: launchSpec.args ?? [],
      env: childEnvironment({ ...(tied ? { WTB_BROWSER: executablePath } : {}), ...launchSpec.env }),
      extraPrefsFirefox: firefoxPrefs(),
      userDataDir: profileDir,
    };
  }
  return {
    ...common,
    executablePath: launchSpec.executablePath ?? executablePath,
    args: [...(launchSpec.args ?? []), ...chromiumArgs(media, new URL(url).origin, fieldTrials)],
    env: childEnvironment(launchSpec.env),
    // Over a pipe, Chromium shuts itself down when the orchestrator dies, even by SIGKILL: no orphaned browsers.
    pipe: true,
  };
}

/**
 * Launches one peer's browser and opens the client page; onMilestone hears when puppeteer.launch resolved
 * ('browser-launched') and when the page's load event fired ('page-loaded'); beforeLoad gets the browser's pid before
 * the page loads (to put its process tree into a cgroup). `close` closes the browser and removes
 * what its launch made (a Firefox profile). cpuThrottlingRate slows the page's renderer (the DevTools protocol's
 * Emulation.setCPUThrottlingRate), where WebRTC encodes and decodes: a slower device (Chromium only: Firefox speaks
 * WebDriver BiDi, which has no such command). The URL's fragment is the page's secret (lib/system/peer-secrets.js): what
 * the browser says about the page (errors thrown, console texts, crash messages) comes out without it.
 * @param {{ kind?: 'chromium'|'firefox', executablePath: string, media: { video: string, audio: string }, url: string, headful?: boolean,
 *   launchSpec?: { executablePath?: string, args?: string[], env?: Record<string,string> },
 *   cpuThrottlingRate?: number, fieldTrials?: string|null, beforeLoad?: (pid: number|undefined) => Promise<unknown>,
 *   onMilestone?: (type: 'browser-launched'|'page-loaded') => void, onConsole?: (text: string) => void,
 *   onCrash?: (message: string) => void, attach?: { endpoint: string, headers: Record<string, string> },
 *   pool?: import('./browser-pool.js').BrowserPool }} options
 *   attach: a browser already running (a Grid session's se:cdp) to connect to instead of launching one; `close` then
 *   disconnects, and the session's owner ends it. pool: a Chromium launched as this one would be is taken from it when it
 *   keeps one, the page opens in a browser context of its own, and `close` closes that context and gives the browser back
 *   (the caller passes a pool only for a plain launch: no wrapper, cgroup or Grid session)
 * @returns {Promise<{ browser: import('puppeteer').Browser, page: import('puppeteer').Page, version: string, close: () => Promise<void>,
 *   reused: boolean|null }>}  reused: the browser came from the pool (null without one)
 */
export async function launchPeer({
  kind = 'chromium', executablePath, media, url, headful = false, launchSpec = {}, cpuThrottlingRate = 1, fieldTrials = null, beforeLoad, onMilestone,
  onConsole, onCrash, attach, pool,
}) {
  if (kind === 'firefox' && cpuThrottlingRate > 1) throw new InputError(`CPU throttling (${cpuThrottlingRate}×) needs Chromium's DevTools protocol; Firefox has none`);
  /** @type {string|undefined} */
  let profileDir;
  if (kind === 'firefox') {
    await removeStaleProfiles();
    profileDir = await mkdtemp(path.join(os.tmpdir(), `${PROFILE_PREFIX}${process.pid}-`));
  }
  const removeProfile = async () => { if (profileDir) await rm(profileDir, { recursive: true, force: true }); };
  const options = launchOptions({ kind, executablePath, media, url, headful, launchSpec, profileDir, fieldTrials });
  const poolKey = pool && kind === 'chromium' && !attach ? JSON.stringify(options) : null;
  const kept = poolKey === null ? null : pool?.take(poolKey) ?? null;
  let browser;
  try {
    browser = attach
      ? await puppeteer.connect({ browserWSEndpoint: attach.endpoint, headers: attach.headers, protocolTimeout: 60_000 })
      : kept?.browser ?? await puppeteer.launch(options);
  } catch (error) {
    await removeProfile();
    throw error;
  }
  const onDisconnected = () => onCrash?.('browser disconnected');
  /** @type {import('puppeteer').BrowserContext|null} */
  let context = null;
  const close = async () => {
    browser.off('disconnected', onDisconnected);
    try {
      if (poolKey !== null && pool) {
        await context?.close().catch(() => {});
        await pool.give(poolKey, browser);
      } else {
        await (attach ? browser.disconnect() : browser.close());
      }
    } finally {
      await removeProfile();
    }
  };
  onMilestone?.('browser-launched');
  try {
    // A pooled browser's page gets a context of its own, a fresh profile (a kept one's made while it waited, blank).
    // Otherwise the tab the browser opened at start: a new one costs another target set-up, ~100 ms on a busy machine.
    const prepared = await kept?.prepared ?? null;
    context = poolKey === null ? null : prepared?.context ?? await browser.createBrowserContext();
    const page = prepared?.page ?? (context ? await context.newPage() : (await browser.pages())[0] ?? await browser.newPage());
    page.on('console', (message) => message.type() === 'error' && onConsole?.(withoutFragment(message.text(), url)));
    page.on('pageerror', (error) => onCrash?.(withoutFragment(`page error: ${errorMessage(error)}`, url)));
    page.on('error', (error) => onCrash?.(withoutFragment(`page crashed: ${errorMessage(error)}`, url)));
    browser.on('disconnected', onDisconnected);
    if (cpuThrottlingRate > 1) await page.emulateCPUThrottling(cpuThrottlingRate);
    await beforeLoad?.(browser.process()?.pid);
    const [version] = await Promise.all([browser.version(), page.goto(url, { waitUntil: 'load' }).then(() => onMilestone?.('page-loaded'))]);
    return { browser, page, version, close, reused: poolKey === null ? null : kept !== null };
  } catch (error) {
    await close().catch(() => {});
    // A navigation error quotes the whole URL.
    if (error instanceof Error) {
      error.message = withoutFragment(error.message, url);
      error.stack = withoutFragment(error.stack ?? '', url);
    }
    throw error;
  }
}
