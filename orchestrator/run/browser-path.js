import { accessSync, constants } from 'node:fs';
import { EnvironmentError } from '../lib/errors.js';

export const WELL_KNOWN_BROWSER_PATHS = [
  '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable',
  '/snap/bin/chromium', '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
];
const ENV_VARS = ['CHROME_PATH', 'PUPPETEER_EXECUTABLE_PATH'];

const isExecutable = (file) => {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/**
 * The browser executable: --browser-path, then $CHROME_PATH / $PUPPETEER_EXECUTABLE_PATH, then well-known
 * install paths, then a browser Puppeteer downloaded itself.
 * @param {{ browserPath?: string, env?: NodeJS.ProcessEnv, candidates?: string[], puppeteerPath?: () => string }} [options]
 * @returns {{ path: string, source: string }}
 */
export function resolveBrowserPath({ browserPath, env = process.env, candidates = WELL_KNOWN_BROWSER_PATHS, puppeteerPath } = {}) {
  const hint = 'Install Chromium with `npm run setup`, or point --browser-path (or $CHROME_PATH) at a Chrome/Chromium executable.';
  if (browserPath) {
    if (isExecutable(browserPath)) return { path: browserPath, source: '--browser-path' };
    throw new EnvironmentError(`--browser-path ${browserPath}: no executable browser there. ${hint}`);
  }
  for (const name of ENV_VARS) {
    if (!env[name]) continue;
    if (isExecutable(env[name])) return { path: env[name], source: `$${name}` };
    throw new EnvironmentError(`$${name}=${env[name]}: no executable browser there. ${hint}`);
  }
  const found = candidates.find(isExecutable);
  if (found) return { path: found, source: 'well-known path' };
  try {
    const downloaded = puppeteerPath?.();
    if (downloaded && isExecutable(downloaded)) return { path: downloaded, source: 'puppeteer download' };
  } catch {
    // Puppeteer throws when it has no browser of its own; that is the "not found" case below.
  }
  throw new EnvironmentError(`no Chrome/Chromium found (looked at ${ENV_VARS.map((v) => `$${v}`).join(', ')}, ${candidates.join(', ')}). ${hint}`);
}
