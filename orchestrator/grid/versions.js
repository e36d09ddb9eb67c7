// Selenium Grid's pinned versions and where `npm run setup` puts its jars: one place for setup, grid-hub and grid-node.
// Node built-ins only: setup.js imports this before `npm install`.
import path from 'node:path';
import { toolCacheDir } from '../lib/system/paths.js';

export const SELENIUM_GRID_VERSION = '4.47.0';
/** Maven Central coordinates; `mvn dependency:copy-dependencies` copies it with every dependency (77 jars). */
export const SELENIUM_GRID_ARTIFACT = { groupId: 'org.seleniumhq.selenium', artifactId: 'selenium-grid', version: SELENIUM_GRID_VERSION };
/** Debian's chromium-driver must be the system Chromium's own version (the packages are built together). */
export const CHROMEDRIVER_PACKAGE = 'chromium-driver';
export const CHROMEDRIVER_PATH = '/usr/bin/chromedriver';
/** Java from Debian: the Grid 4.47 needs Java 11 or newer. */
export const JAVA_PACKAGE = 'default-jre-headless';

/** The project-local cache of the Grid's jars ($XDG_CACHE_HOME or ~/.cache). */
export const gridJarsDir = (env = process.env) => path.join(toolCacheDir(env), `selenium-grid-${SELENIUM_GRID_VERSION}`);

/** The pom that copy-dependencies reads: the Grid as its only dependency. */
export function gridPom() {
  const { groupId, artifactId, version } = SELENIUM_GRID_ARTIFACT;
  return `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>webrtc-testbed</groupId><artifactId>selenium-grid-jars</artifactId><version>1</version><packaging>pom</packaging>
  <dependencies><dependency><groupId>${groupId}</groupId><artifactId>${artifactId}</artifactId><version>${version}</version></dependency></dependencies>
</project>
`;
}

/**
 * The error when chromedriver and Chromium differ in their major version, or null. Chromium prints
 * "Chromium 156.0.8078.108 built on Debian…", chromedriver "ChromeDriver 156.0.8078.108 (…)".
 * @param {string} chromiumVersionText @param {string} driverVersionText
 * @returns {string|null}
 */
export function driverMismatch(chromiumVersionText, driverVersionText) {
  const version = (/** @type {string} */ text) => /(\d+)\.\d+\.\d+\.\d+/.exec(text);
  const browser = version(chromiumVersionText);
  const driver = version(driverVersionText);
  if (!browser || !driver) return `cannot read the versions of Chromium ("${chromiumVersionText.trim()}") and chromedriver ("${driverVersionText.trim()}")`;
  if (browser[1] === driver[1]) return null;
  return `chromedriver ${driver[0]} does not match Chromium ${browser[0]}: install both from the same Debian release `
    + `(apt-get install --only-upgrade chromium ${CHROMEDRIVER_PACKAGE}) and run \`npm run setup\` again`;
}
