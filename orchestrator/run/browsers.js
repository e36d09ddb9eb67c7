import puppeteer from 'puppeteer';

/**
 * Chromium flags for a test peer: fake devices fed from files, loopback ICE candidates allowed, and nothing that
 * talks to the network on its own (this machine has none, and background traffic would skew the results).
 * @param {{ video: string, audio: string }} media
 * @param {string} pageOrigin the client page's origin: getUserMedia needs a secure context, and a namespace
 *   address (netem backend) is not one unless declared
 */
export function chromiumArgs(media, pageOrigin) {
  return [
    `--unsafely-treat-insecure-origin-as-secure=${pageOrigin}`,
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
  ];
}

/**
 * Launches one peer's browser and opens the client page; onMilestone hears when puppeteer.launch resolved
 * ('browser-launched') and when the page's load event fired ('page-loaded'). cpuThrottlingRate slows the page's renderer
 * (the DevTools protocol's Emulation.setCPUThrottlingRate), where WebRTC encodes and decodes: a slower device.
 * @param {{ executablePath: string, media: { video: string, audio: string }, url: string, headful?: boolean,
 *   launchSpec?: { executablePath?: string, args?: string[], env?: Record<string,string> },
 *   cpuThrottlingRate?: number,
 *   onMilestone?: (type: 'browser-launched'|'page-loaded') => void, onConsole?: (text: string) => void,
 *   onCrash?: (message: string) => void }} options
 * @returns {Promise<{ browser: import('puppeteer').Browser, page: import('puppeteer').Page, version: string }>}
 */
export async function launchPeer({
  executablePath, media, url, headful = false, launchSpec = {}, cpuThrottlingRate = 1, onMilestone, onConsole, onCrash,
}) {
  const browser = await puppeteer.launch({
    executablePath: launchSpec.executablePath ?? executablePath,
    headless: !headful,
    args: [...(launchSpec.args ?? []), ...chromiumArgs(media, new URL(url).origin)],
    env: { ...process.env, ...launchSpec.env },
    // Over a pipe, Chromium shuts itself down when the orchestrator dies, even by SIGKILL: no orphaned browsers.
    pipe: true,
    // The orchestrator owns signal handling so it can write an "aborted" result before closing browsers.
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
    protocolTimeout: 60_000,
  });
  onMilestone?.('browser-launched');
  try {
    // The tab Chromium opened at start: a new one costs another target set-up, ~100 ms on a busy machine.
    const page = (await browser.pages())[0] ?? await browser.newPage();
    page.on('console', (message) => message.type() === 'error' && onConsole?.(message.text()));
    page.on('pageerror', (/** @type {Error} */ error) => onCrash?.(`page error: ${error.message}`));
    page.on('error', (/** @type {Error} */ error) => onCrash?.(`page crashed: ${error.message}`));
    browser.on('disconnected', () => onCrash?.('browser disconnected'));
    if (cpuThrottlingRate > 1) await page.emulateCPUThrottling(cpuThrottlingRate);
    const [version] = await Promise.all([browser.version(), page.goto(url, { waitUntil: 'load' }).then(() => onMilestone?.('page-loaded'))]);
    return { browser, page, version };
  } catch (error) {
    await browser.close().catch(() => {});
    throw error;
  }
}
