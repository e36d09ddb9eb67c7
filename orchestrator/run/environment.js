// The `environment` section of result.json: what ran the measurement, so a figure can be traced to its host.
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '../lib/paths.js';

const HARNESS_VERSION = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')).version;

/**
 * @param {{ browser: { path: string, source: string }, browserVersion: string|null|undefined,
 *   emulator: { name: string, choice?: string|null } | null, emulatorName: string, media: object,
 *   startedAt: Date, endedAt: Date }} input
 * @returns {import('../lib/result.js').Environment}
 */
export function describeEnvironment({ browser, browserVersion, emulator, emulatorName, media, startedAt, endedAt }) {
  const { preset, video, audio, width, height, fps, frames, frameCode, peers } = /** @type {any} */ (media);
  return {
    harnessVersion: HARNESS_VERSION,
    browser: {
      name: /chromium/i.test(browser.path) ? 'chromium' : 'chrome',
      version: browserVersion?.replace(/^[^/]*\//, '') ?? null,
      path: browser.path,
      source: browser.source,
    },
    emulator: emulator?.name ?? emulatorName,
    emulatorChoice: emulator?.choice ?? null,
    os: `${os.platform()} ${os.release()} ${os.arch()}`,
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? null,
    node: process.version,
    startedAt: startedAt.toISOString(),
    endedAt: endedAt.toISOString(),
    media: { preset, video, audio, width, height, fps, frames, frameCode, peers },
  };
}
