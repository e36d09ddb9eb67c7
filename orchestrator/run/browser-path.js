import { accessSync, constants } from 'node:fs';
import { EnvironmentError } from '../lib/system/errors.js';

export const WELL_KNOWN_BROWSER_PATHS = [
  '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable',
  '/snap/bin/chromium', '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
];
export const WELL_KNOWN_FIREFOX_PATHS = [
  '/usr/bin/firefox-esr', '/usr/bin/firefox', '/usr/lib/firefox-esr/firefox-esr', '/usr/lib/firefox/firefox',
  '/snap/bin/firefox', '/Applications/Firefox.app/Contents/MacOS/firefox',
];
const ENV_VARS = ['CHROME_PATH', 'PUPPETEER_EXECUTABLE_PATH'];
const FIREFOX_ENV_VARS = ['FIREFOX_PATH'];

/** @param {string} file */
const isExecutable = (file) => {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/**
 * The first executable of: the flag, the environment variables, the well-known paths, a fallback.
 * @param {{ flag: string, flagValue?: string, envVars: string[], env: NodeJS.ProcessEnv, candidates: string[],
 *   fallback?: () => { path: string, source: string } | null, what: string, hint: string }} options
 * @returns {{ path: string, source: string }}
 */
function findExecutableBrowser({ flag, flagValue, envVars, env, candidates, fallback, what, hint }) {
  if (flagValue) {
    if (isExecutable(flagValue)) return { path: flagValue, source: flag };
    throw new EnvironmentError(`${flag} ${flagValue}: no executable browser there. ${hint}`);
  }
  for (const name of envVars) {
    if (!env[name]) continue;
    if (isExecutable(env[name])) return { path: env[name], source: `$${name}` };
    throw new EnvironmentError(`$${name}=${env[name]}: no executable browser there. ${hint}`);
  }
  const found = candidates.find(isExecutable);
  if (found) return { path: found, source: 'well-known path' };
  const fallen = fallback?.();
  if (fallen) return fallen;
  throw new EnvironmentError(`no ${what} found (looked at ${envVars.map((v) => `$${v}`).join(', ')}, ${candidates.join(', ')}). ${hint}`);
}

/**
 * The Chromium executable: --browser-path, then $CHROME_PATH / $PUPPETEER_EXECUTABLE_PATH, then well-known
 * install paths, then a browser Puppeteer downloaded itself.
 * @param {{ browserPath?: string, env?: NodeJS.ProcessEnv, candidates?: string[], puppeteerPath?: () => string }} [options]
 * @returns {{ path: string, source: string }}
 */
export function resolveBrowserPath({ browserPath, env = process.env, candidates = WELL_KNOWN_BROWSER_PATHS, puppeteerPath } = {}) {
  return findExecutableBrowser({
    flag: '--browser-path', flagValue: browserPath, envVars: ENV_VARS, env, candidates, what: 'Chrome/Chromium',
    hint: 'Install Chromium with `npm run setup`, or point --browser-path (or $CHROME_PATH) at a Chrome/Chromium executable.',
    fallback: () => {
      try {
        const downloaded = puppeteerPath?.();
        return downloaded && isExecutable(downloaded) ? { path: downloaded, source: 'puppeteer download' } : null;
      } catch {
        // Puppeteer throws when it has no browser of its own; that is the "not found" case.
        return null;
      }
    },
  });
}

/** How to get Firefox, for every error that says it is missing. */
export const FIREFOX_HINT = 'Install Firefox with `npm run setup` (Debian/Ubuntu: `apt-get install firefox-esr`; macOS: '
  + '`brew install --cask firefox`), or point --firefox-path (or $FIREFOX_PATH) at a Firefox executable.';

/**
 * The Firefox executable: --firefox-path, then $FIREFOX_PATH, then well-known install paths (Debian's firefox-esr first).
 * @param {{ firefoxPath?: string, env?: NodeJS.ProcessEnv, candidates?: string[] }} [options]
 * @returns {{ path: string, source: string }}
 */
export function resolveFirefoxPath({ firefoxPath, env = process.env, candidates = WELL_KNOWN_FIREFOX_PATHS } = {}) {
  return findExecutableBrowser({
    flag: '--firefox-path', flagValue: firefoxPath, envVars: FIREFOX_ENV_VARS, env, candidates, what: 'Firefox', hint: FIREFOX_HINT,
  });
}
